package ceilings

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// CeilingCheck flags a row above 105% of its ceiling, not one at 104%;
// the rows between 100% and 105% (marked "above it" in the tables) are
// explained in one line.
func TestCeilingCheckAt105Percent(t *testing.T) {
	row := func(frac float64) report.Measurement {
		return report.Measurement{Workload: "w", Side: "cpu", Variant: "v", CeilingFrac: frac, Bound: "memory"}
	}
	rep := &report.Report{Measurements: []report.Measurement{row(1.04), row(0.5)}}
	if w, ok := CeilingCheck(rep); len(w) != 1 || !strings.Contains(w[0], "between 100% and 105%") || strings.Contains(w[0], "invariant") || ok == "" {
		t.Errorf("rows at 104%% and 50%%: warnings %q, ok %q (want one line explaining the 104%% row)", w, ok)
	}
	rep = &report.Report{Measurements: []report.Measurement{row(1.02), row(1.03), row(1.01)}}
	if w, _ := CeilingCheck(rep); len(w) != 1 || !strings.Contains(w[0], "3 row(s)") {
		t.Errorf("three rows between 100%% and 105%%: warnings %q, want one line", w)
	}
	for _, f := range []float64{1.06, 1.2, 1.49} {
		rep := &report.Report{Measurements: []report.Measurement{row(1.0), row(f)}}
		w, ok := CeilingCheck(rep)
		if len(w) != 1 || ok != "" || !strings.Contains(w[0], "105%") {
			t.Errorf("a row at %.0f%% of its ceiling: warnings %q, ok %q", 100*f, w, ok)
		}
	}
}

// --batches: a size given twice and a non-positive size are refused by the
// experiment's own validation (not only the CLI's table).
func TestCheckBatchesDuplicatesAndSigns(t *testing.T) {
	cfg := experiment.RunConfig{}
	cfg.Config.Defaults()
	ds := []*workload.Descriptor{workload.CosineSingle}
	for _, b := range [][]int{{1, 4, 4}, {0, 4, 16}, {-1, 4, 16}} {
		cfg.Batches = b
		if err := cfg.CheckBatches(ds); err == nil {
			t.Errorf("--batches %v accepted", b)
		}
	}
	cfg.Batches = []int{1, 4, 16}
	if err := cfg.CheckBatches(ds); err != nil {
		t.Errorf("--batches 1,4,16: %v", err)
	}
}
