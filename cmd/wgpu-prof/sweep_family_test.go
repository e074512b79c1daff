package main

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// TestTileSweepRunsByDefault: `sweep tile --kernel cosine-batch` runs
// without --variant; when the design run uses has no tile knob it sweeps
// the best design that has one and says in one line how that sweep's best
// compares with run's design, measured in the same call.
func TestTileSweepRunsByDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the GPU")
	}
	out, _, err := runCmd("sweep", "tile", "--kernel", "cosine-batch", "--quick", "--n", "2048", "--d", "64", "--q", "4", "--tiles", "8,16", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Decode([]byte(out), "sweep")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sweeps) != 1 || len(rep.Sweeps[0].Points) < 2 {
		t.Fatalf("sweeps %+v, want one tile sweep of at least 2 points", rep.Sweeps)
	}
	s := rep.Sweeps[0]
	if strings.Contains(s.DesignWhy, "run uses on this adapter") {
		return // run's own design has the knob: nothing to compare
	}
	n := 0
	for _, v := range rep.Verdicts {
		if strings.Contains(v, "the design run uses, ") && strings.Contains(v, "same call, same data") && strings.Contains(v, "the "+s.Design+" design's best") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d comparison lines with run's design, want 1: %q", n, rep.Verdicts)
	}
}
