package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
)

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestWorkloadsListing: `workloads --has` is what the bundle's run.sh
// reads to know which sweeps and experiments to run, so each list must be
// non-empty, drawn from the workloads, and agree with the commands
// themselves: a workload left out is one the command refuses.
func TestWorkloadsListing(t *testing.T) {
	out, _, err := runCmd("workloads", "--has", "all")
	if err != nil {
		t.Fatal(err)
	}
	all := lines(out)
	if !slices.Equal(all, experiment.AllWorkloads()) {
		t.Fatalf("workloads --has all = %v, want %v", all, experiment.AllWorkloads())
	}
	table, _, err := runCmd("workloads")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range all {
		if !strings.Contains(table, "\n"+w+" ") {
			t.Errorf("the table does not list %s:\n%s", w, table)
		}
	}
	for _, c := range []struct {
		has    string
		cmd    []string
		refuse string
	}{
		{hasWorkgroup, []string{"sweep", "workgroup", "--quick", "--kernel"}, "no wg knob"},
		{hasTile, []string{"sweep", "tile", "--quick", "--kernel"}, "no tile knob"},
		{hasMemCompute, []string{"experiment", "memory-compute", "--quick", "--kernel"}, "no memory-vs-compute shaders"},
	} {
		out, _, err := runCmd("workloads", "--has", c.has)
		if err != nil {
			t.Fatal(err)
		}
		got := lines(out)
		if len(got) == 0 {
			t.Errorf("workloads --has %s lists nothing", c.has)
		}
		for _, w := range all {
			if slices.Contains(got, w) {
				continue
			}
			_, _, err := runCmd(append(c.cmd, w)...)
			if err == nil || !strings.Contains(err.Error(), c.refuse) {
				t.Errorf("workloads --has %s leaves out %s, but %v --kernel %s gave %v, want an error containing %q",
					c.has, w, c.cmd, w, err, c.refuse)
			}
		}
	}
	if _, _, err := runCmd("workloads", "--has", "nope"); err == nil || !strings.Contains(err.Error(), "--has") {
		t.Errorf("workloads --has nope: %v, want an error naming --has", err)
	}
}
