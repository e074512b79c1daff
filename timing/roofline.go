package timing

import (
	"fmt"
	"math"
)

// Roof is a measured roofline: the arithmetic and memory ceilings of one
// device, measured in this run (never taken from a datasheet).
type Roof struct {
	PeakGFLOPs   float64 `json:"peak_gflops"`
	BandwidthGBs float64 `json:"bandwidth_gbs"`
}

// Ridge returns the arithmetic intensity (flop/byte) at which the memory
// roof meets the compute roof: PeakGFLOPs / BandwidthGBs.
func (r Roof) Ridge() float64 {
	if r.BandwidthGBs <= 0 {
		return math.Inf(1)
	}
	return r.PeakGFLOPs / r.BandwidthGBs
}

// Attainable returns min(PeakGFLOPs, intensity·BandwidthGBs), the best
// GFLOP/s a kernel of that intensity can reach.
func (r Roof) Attainable(intensity float64) float64 {
	return math.Min(r.PeakGFLOPs, intensity*r.BandwidthGBs)
}

// Point is one kernel run: its flop count, its minimum byte traffic (each
// input read once, each output written once) and its time.
type Point struct {
	Flops   float64 `json:"flops"`
	Bytes   float64 `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// Placement is where a Point sits under a Roof.
type Placement struct {
	Intensity  float64 `json:"intensity"`  // flop/byte
	GFLOPs     float64 `json:"gflops"`     // achieved
	GBs        float64 `json:"gbs"`        // achieved
	Attainable float64 `json:"attainable"` // GFLOP/s allowed by the roof at this intensity
	Bound      string  `json:"bound"`      // BoundMemory or BoundCompute
	Efficiency float64 `json:"efficiency"` // achieved/attainable (for zero-flop kernels: achieved GB/s over bandwidth)
	Ridge      float64 `json:"ridge"`      // the roof's ridge intensity
}

// Bound kinds.
const (
	BoundMemory  = "memory"
	BoundCompute = "compute"
)

// Place computes a Point's roofline placement. Bytes and Seconds must be
// positive, Flops non-negative, and both roofs positive. A zero-flop kernel
// (a pure copy) is memory-bound and its efficiency is the fraction of the
// bandwidth roof it achieves. A point exactly at the ridge counts as
// compute-bound.
func Place(r Roof, p Point) (Placement, error) {
	if !(r.PeakGFLOPs > 0) || !(r.BandwidthGBs > 0) || math.IsInf(r.PeakGFLOPs, 0) || math.IsInf(r.BandwidthGBs, 0) {
		return Placement{}, fmt.Errorf("timing: Place: %w: roof %+v", ErrBadRoofline, r)
	}
	if !(p.Bytes > 0) || !(p.Seconds > 0) || !(p.Flops >= 0) || bad(p.Bytes) || bad(p.Seconds) || bad(p.Flops) {
		return Placement{}, fmt.Errorf("timing: Place: %w: point %+v", ErrBadRoofline, p)
	}
	pl := Placement{
		Intensity: p.Flops / p.Bytes,
		GFLOPs:    p.Flops / p.Seconds / 1e9,
		GBs:       p.Bytes / p.Seconds / 1e9,
		Ridge:     r.Ridge(),
	}
	pl.Attainable = r.Attainable(pl.Intensity)
	if pl.Intensity < pl.Ridge {
		pl.Bound = BoundMemory
	} else {
		pl.Bound = BoundCompute
	}
	if pl.Attainable > 0 {
		pl.Efficiency = pl.GFLOPs / pl.Attainable
	} else {
		pl.Efficiency = pl.GBs / r.BandwidthGBs
	}
	return pl, nil
}

// Amdahl returns the whole-application speedup when an operation taking the
// fraction share of its time is sped up by speedup:
//
//	1 / ((1 − share) + share/speedup)
//
// share must be in [0, 1] and speedup > 0 (a speedup below 1 is a slowdown
// and yields a result below 1).
func Amdahl(share, speedup float64) (float64, error) {
	if !(share >= 0 && share <= 1) {
		return 0, fmt.Errorf("timing: Amdahl: %w: share %v not in [0, 1]", ErrBadAmdahl, share)
	}
	if !(speedup > 0) || math.IsInf(speedup, 0) {
		return 0, fmt.Errorf("timing: Amdahl: %w: speedup %v must be positive and finite", ErrBadAmdahl, speedup)
	}
	return 1 / ((1 - share) + share/speedup), nil
}
