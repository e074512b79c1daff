package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// run --precision f16|int8 on cosine-batch and hnsw: every row verified on
// both sides and naming its precision; an int8 row judged compute-bound
// names the int8 peak, which both sides' ceilings hold. A workload that
// stores no vectors refuses the flag, exit 2, saying why.
func TestRunPrecisionBatchAndHNSW(t *testing.T) {
	_, _, err := runCmd("run", "--quick", "--precision", "int8", "--workloads", "spread-uniform")
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, "--precision") || !strings.Contains(msg, "stores no vectors") {
		t.Fatalf("spread-uniform int8: exit %d %q, want 2 naming --precision and why", code, msg)
	}
	if testing.Short() {
		t.Skip("measures on both sides")
	}
	for _, p := range []string{"f16", "int8"} {
		stdout, stderr, err := runCmd("run", "--quick", "--budget", "20ms", "--precision", p,
			"--workloads", "cosine-batch,hnsw", "--n", "2048", "--d", "128", "--format", "json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, stderr)
		}
		var rep struct {
			Ceilings     struct{ CPU, GPU map[string]float64 }
			Measurements []struct {
				Workload, Side, Bound string
				Params                []struct{ Key, Value string }
				Verified              bool
				ComputeCeiling        string `json:"compute_ceiling"`
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if p == "int8" && !(rep.Ceilings.CPU["int8_gops"] > 0 && rep.Ceilings.GPU["int8_gops"] > 0) {
			t.Fatalf("int8 peaks missing: cpu %v gpu %v", rep.Ceilings.CPU, rep.Ceilings.GPU)
		}
		seen := map[string]bool{}
		for _, m := range rep.Measurements {
			prec := ""
			for _, kv := range m.Params {
				if kv.Key == "precision" {
					prec = kv.Value
				}
			}
			if !m.Verified || prec != p {
				t.Fatalf("%s %s %s: verified %v, precision %q", p, m.Workload, m.Side, m.Verified, prec)
			}
			if p == "int8" && m.Bound == "compute" && m.ComputeCeiling != "int8_gops" {
				t.Fatalf("%s %s: compute-bound int8 row judged against %q", m.Workload, m.Side, m.ComputeCeiling)
			}
			seen[m.Workload+" "+m.Side] = true
		}
		for _, k := range []string{"cosine-batch cpu", "cosine-batch gpu", "hnsw cpu", "hnsw gpu"} {
			if !seen[k] {
				t.Fatalf("%s: no %s row (have %v)", p, k, seen)
			}
		}
	}
}
