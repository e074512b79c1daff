package ceilings

import (
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// An int8 row is judged in integer ops against its side's int8 peak; the
// same row in f32 against the FMA peak; a later re-placement
// (raiseComputeCeiling) keeps each against its own peak and an int8 row
// never raises the FMA peak.
func TestInt8RowsJudgedAgainstInt8Peak(t *testing.T) {
	res := timing.Result{Host: timing.Summarize([]float64{1, 1, 1})}
	roofs := experiment.Roofs{CPU: timing.Roof{PeakGFLOPs: 100, BandwidthGBs: 1000}, CPUInt8: 400}
	// 200 G ops in 1 s over 1 GB: compute-bound on both roofs.
	i8 := experiment.Measurement("cosine-batch", report.SideCPU, "avx512-t2", []report.Param{{Key: "precision", Value: "int8"}}, res, 1e9, 200e9, roofs)
	f32 := experiment.Measurement("cosine-batch", report.SideCPU, "avx512-t2", nil, res, 1e9, 200e9, roofs)
	if i8.Bound != timing.BoundCompute || math.Abs(i8.CeilingFrac-0.5) > 1e-9 {
		t.Fatalf("int8 row: bound %q frac %v, want compute 0.5 of the int8 peak", i8.Bound, i8.CeilingFrac)
	}
	if i8.ComputeCeiling != report.Int8PeakKey || f32.ComputeCeiling != "" {
		t.Fatalf("compute ceilings %q, %q: want the int8 row to name int8_gops", i8.ComputeCeiling, f32.ComputeCeiling)
	}
	if math.Abs(f32.CeilingFrac-2) > 1e-9 {
		t.Fatalf("f32 row: frac %v, want 2 (above the FMA peak)", f32.CeilingFrac)
	}
	rep := &report.Report{Measurements: []report.Measurement{i8, f32}}
	rep.Ceilings.CPU = map[string]float64{"fma_gflops": 100, "read_gbs": 1000, report.Int8PeakKey: 400}
	raiseComputeCeiling(rep, report.SideCPU, nil)
	if got := rep.Ceilings.CPU["fma_gflops"]; got != 200 {
		t.Fatalf("FMA peak raised to %v, want 200 (the f32 row's rate)", got)
	}
	if f := rep.Measurements[0].CeilingFrac; math.Abs(f-0.5) > 1e-9 {
		t.Fatalf("int8 row re-placed at %v of its peak, want 0.5", f)
	}
	if got := report.CeilingOf(rep, &rep.Measurements[0]); got != "CPU int8 dot-product peak 400 Gops/s" {
		t.Fatalf("CeilingOf int8 row = %q", got)
	}
}
