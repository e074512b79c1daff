package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// wgSuffix is the workgroup size at the end of a GPU variant label.
var wgSuffix = regexp.MustCompile(`-wg[0-9]+$`)

// TestSweepMeasuresRunsDesign: sweep workgroup and experiment
// memory-compute measure the design run chooses on this adapter (the
// variant labels match apart from the workgroup size) and say which and
// why; a design without the knob is refused, naming --variant.
func TestSweepMeasuresRunsDesign(t *testing.T) {
	size := []string{"--quick", "--n", "2048", "--d", "64", "--format", "json"}
	out, _, err := runCmd(append([]string{"run", "--workloads", "cosine-single"}, size...)...)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Decode([]byte(out), "run")
	if err != nil {
		t.Fatal(err)
	}
	family := ""
	for _, m := range rep.Measurements {
		if m.Side == report.SideGPU && m.Workload == "cosine-single" {
			family = wgSuffix.ReplaceAllString(m.Variant, "")
		}
	}
	if family == "" {
		t.Fatalf("run measured no GPU row of cosine-single")
	}
	out, _, err = runCmd(append([]string{"sweep", "workgroup", "--kernel", "cosine-single", "--sizes", "32,64"}, size...)...)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := report.Decode([]byte(out), "sweep")
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Sweeps) != 1 || !strings.HasPrefix(family, sw.Sweeps[0].Design) || !strings.Contains(sw.Sweeps[0].DesignWhy, "run uses on this adapter") {
		t.Fatalf("sweep design %+v, run's family %q", sw.Sweeps, family)
	}
	for _, m := range sw.Measurements {
		if got := wgSuffix.ReplaceAllString(m.Variant, ""); got != family {
			t.Errorf("sweep measured %s, run chose the %s family", m.Variant, family)
		}
	}
	_, _, err = runCmd("sweep", "tile", "--kernel", "cosine-batch", "--quick", "--n", "2048", "--d", "64", "--q", "4", "--tiles", "16", "--variant", "naive")
	if err == nil || !strings.Contains(err.Error(), "--variant") || !strings.Contains(err.Error(), "tiled") {
		t.Errorf("tile sweep of a design without a tile: %v", err)
	}
}
