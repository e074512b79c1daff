package plan

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// TestTaxesFromAnatomy: the launch tax is the dispatch fit's overhead
// with its CI (the tiny call without a fit), the upload rate comes from
// the upload curve and the readback rate from the readback curve, never
// each other's; a curve without a slope is an error naming it.
func TestTaxesFromAnatomy(t *testing.T) {
	a := &timing.Anatomy{
		Adapter:     "test adapter",
		Tiny:        timing.Summary{N: 20, Median: 120e-6, Lo: 110e-6, Hi: 130e-6},
		DispatchFit: timing.LinearFit{Overhead: 50e-6, SEOverhead: 2e-6, DoF: 5},
		UploadFit:   timing.LinearFit{PerItem: 1 / 10e9, SEPerItem: 0.01 / 10e9, DoF: 5},
		ReadbackFit: timing.LinearFit{PerItem: 1 / 2e9, SEPerItem: 0.01 / 2e9, DoF: 5},
		Calls:       300,
	}
	tx, err := TaxesFromAnatomy(a)
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, want float64) bool { return math.Abs(x/want-1) < 1e-9 }
	if !near(tx.Launch.Value, 50e-6) || !near(tx.Launch.Lo, 50e-6-1.96*2e-6) || !near(tx.Launch.Hi, 50e-6+1.96*2e-6) {
		t.Errorf("launch %+v, want 50 µs ± 1.96·2 µs (the dispatch fit)", tx.Launch)
	}
	if !near(tx.Upload.Value, 10e9) || !near(tx.Readback.Value, 2e9) {
		t.Errorf("upload %g B/s, readback %g B/s; want 10e9 from the upload curve and 2e9 from the readback curve", tx.Upload.Value, tx.Readback.Value)
	}
	if !(tx.Readback.Lo < 2e9 && tx.Readback.Hi > 2e9) || !near(tx.Readback.Lo, 1/(1.0196/2e9)) {
		t.Errorf("readback CI %+v around 2e9", tx.Readback)
	}
	if !strings.Contains(tx.Source, "test adapter (300 calls") {
		t.Errorf("source %q", tx.Source)
	}
	// No dispatch fit: the tiny call is the launch tax.
	a.DispatchFit = timing.LinearFit{}
	if tx, err = TaxesFromAnatomy(a); err != nil || tx.Launch.Value != 120e-6 || tx.Launch.Lo != 110e-6 {
		t.Errorf("without a fit: launch %+v, err %v; want the tiny call's 120 µs", tx.Launch, err)
	}
	a.ReadbackFit.PerItem = 0
	if _, err := TaxesFromAnatomy(a); err == nil || !strings.Contains(err.Error(), "readback curve has no slope") {
		t.Errorf("a flat readback curve: err %v", err)
	}
	if _, err := TaxesFromAnatomy(nil); err == nil {
		t.Error("no anatomy: no error")
	}
}
