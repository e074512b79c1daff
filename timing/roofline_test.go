package timing_test

import (
	"errors"
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestPlace(t *testing.T) {
	roof := timing.Roof{PeakGFLOPs: 1000, BandwidthGBs: 100} // ridge 10 flop/byte
	tests := []struct {
		name string
		p    timing.Point
		want timing.Placement
	}{
		{
			// I = 0.5; 25 GFLOP/s, 50 GB/s; attainable 0.5·100 = 50.
			"memory", timing.Point{Flops: 1e9, Bytes: 2e9, Seconds: 0.04},
			timing.Placement{Intensity: 0.5, GFLOPs: 25, GBs: 50, Attainable: 50, Bound: "memory", Efficiency: 0.5, Ridge: 10},
		},
		{
			// I = 100; 500 GFLOP/s, 5 GB/s; attainable 1000.
			"compute", timing.Point{Flops: 1e12, Bytes: 1e10, Seconds: 2},
			timing.Placement{Intensity: 100, GFLOPs: 500, GBs: 5, Attainable: 1000, Bound: "compute", Efficiency: 0.5, Ridge: 10},
		},
		{
			"at ridge", timing.Point{Flops: 1e10, Bytes: 1e9, Seconds: 0.1},
			timing.Placement{Intensity: 10, GFLOPs: 100, GBs: 10, Attainable: 1000, Bound: "compute", Efficiency: 0.1, Ridge: 10},
		},
		{
			// Pure copy: efficiency is the bandwidth fraction, 80/100.
			"copy", timing.Point{Flops: 0, Bytes: 8e9, Seconds: 0.1},
			timing.Placement{Intensity: 0, GFLOPs: 0, GBs: 80, Attainable: 0, Bound: "memory", Efficiency: 0.8, Ridge: 10},
		},
	}
	for _, tc := range tests {
		got, err := timing.Place(roof, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := tc.want
		if got.Bound != w.Bound || !near(got.Intensity, w.Intensity, 1e-12) || !near(got.GFLOPs, w.GFLOPs, 1e-12) ||
			!near(got.GBs, w.GBs, 1e-12) || !near(got.Attainable, w.Attainable, 1e-12) ||
			!near(got.Efficiency, w.Efficiency, 1e-12) || !near(got.Ridge, w.Ridge, 1e-12) {
			t.Errorf("%s: got %+v\nwant %+v", tc.name, got, w)
		}
	}
	bad := []struct {
		r timing.Roof
		p timing.Point
	}{
		{timing.Roof{0, 100}, timing.Point{1, 1, 1}},
		{roof, timing.Point{1, 0, 1}},
		{roof, timing.Point{1, 1, 0}},
		{roof, timing.Point{-1, 1, 1}},
		{roof, timing.Point{math.NaN(), 1, 1}},
	}
	for _, b := range bad {
		if _, err := timing.Place(b.r, b.p); !errors.Is(err, timing.ErrBadRoofline) {
			t.Errorf("Place(%+v, %+v) err = %v", b.r, b.p, err)
		}
	}
}

func TestAmdahl(t *testing.T) {
	tests := []struct{ share, speedup, want float64 }{
		{0.5, 2, 4.0 / 3},
		{1, 4, 4},
		{0, 100, 1},
		{0.9, 10, 1 / (0.1 + 0.09)},
		{0.5, 0.5, 1 / 1.5},
	}
	for _, tc := range tests {
		got, err := timing.Amdahl(tc.share, tc.speedup)
		if err != nil || !near(got, tc.want, 1e-12) {
			t.Errorf("Amdahl(%v, %v) = %v, %v; want %v", tc.share, tc.speedup, got, err, tc.want)
		}
	}
	for _, b := range [][2]float64{{-0.1, 2}, {1.1, 2}, {0.5, 0}, {0.5, -1}, {math.NaN(), 2}, {0.5, math.Inf(1)}} {
		if _, err := timing.Amdahl(b[0], b[1]); !errors.Is(err, timing.ErrBadAmdahl) {
			t.Errorf("Amdahl(%v, %v) err = %v", b[0], b[1], err)
		}
	}
}

func TestClassifyMemCompute(t *testing.T) {
	const ms = 1e-3
	tests := []struct {
		name    string
		a, b, c timing.Summary
		want    string
	}{
		{"memory", sum(1*ms, .02), sum(0.2*ms, .02), sum(1.05*ms, .02), timing.MemoryBound},
		{"compute", sum(0.2*ms, .02), sum(1*ms, .02), sum(1.05*ms, .02), timing.ComputeBound},
		{"no overlap", sum(1*ms, .02), sum(1*ms, .02), sum(2.05*ms, .02), timing.NoOverlap},
		{"balanced", sum(1*ms, .02), sum(1*ms, .02), sum(1.05*ms, .02), timing.Mixed},
		{"partial overlap", sum(1*ms, .02), sum(0.8*ms, .02), sum(1.4*ms, .02), timing.Mixed},
		{"overlapping CIs count as ≈", sum(1*ms, .02), sum(0.2*ms, .02), sum(1.3*ms, .25), timing.MemoryBound},
		{"invalid", timing.Summary{}, sum(1*ms, .02), sum(1*ms, .02), timing.Invalid},
	}
	for _, tc := range tests {
		got := timing.ClassifyMemCompute(tc.a, tc.b, tc.c, timing.Policy{})
		if got.Kind != tc.want || got.Explanation == "" {
			t.Errorf("%s: got %+v, want %s", tc.name, got, tc.want)
		}
	}
}
