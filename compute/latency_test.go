package compute_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

// The anatomy measures every point it names, each with a CI, in order of
// size; larger transfers take longer than the smallest; the dispatch fit
// is computed; and every number is positive.
func TestMeasureLatency(t *testing.T) {
	d := openDevice(t)
	a, err := compute.MeasureLatency(context.Background(), d, compute.LatencyOptions{Rounds: 3, CallsPerRound: 2, Dispatches: []int{1, 4, 16}, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Empty.Valid() || !a.Tiny.Valid() || a.Tiny.Median <= 0 || a.Empty.Median <= 0 {
		t.Fatalf("empty %+v, tiny %+v: both must be measured", a.Empty, a.Tiny)
	}
	if len(a.Dispatches) != 3 || a.Dispatches[2].K != 16 {
		t.Fatalf("dispatch points %+v, want K = 1, 4, 16", a.Dispatches)
	}
	if a.DispatchFit.DoF == 0 {
		t.Errorf("no dispatch fit: %+v", a.DispatchFit)
	}
	sizes := compute.LatencySizes(1 << 20)
	if len(a.Readback) != len(sizes) || len(a.Upload) != len(sizes) {
		t.Fatalf("%d readback and %d upload points, want %d each", len(a.Readback), len(a.Upload), len(sizes))
	}
	for i, n := range sizes {
		for _, p := range []struct {
			what string
			b    uint64
			s    float64
			lo   float64
		}{{"readback", a.Readback[i].Bytes, a.Readback[i].Time.Median, a.Readback[i].Time.Lo}, {"upload", a.Upload[i].Bytes, a.Upload[i].Time.Median, a.Upload[i].Time.Lo}} {
			if p.b != n || p.s <= 0 || p.lo <= 0 || p.lo > p.s {
				t.Errorf("%s point %d: %d B, median %g, lo %g: want %d B with a positive median and its CI", p.what, i, p.b, p.s, p.lo, n)
			}
		}
	}
	last := len(sizes) - 1
	if a.Readback[last].Time.Median <= a.Readback[0].Time.Median {
		t.Errorf("reading back 1 MiB (%g s) took no longer than 4 B (%g s)", a.Readback[last].Time.Median, a.Readback[0].Time.Median)
	}
	if a.Calls < 3*2*(2+3) {
		t.Errorf("%d calls timed, want at least %d", a.Calls, 3*2*5)
	}
	if a.Launch() <= 0 || a.RoundTrip(2, 1024, 1024) <= 0 {
		t.Errorf("launch %g, round trip %g: want positive", a.Launch(), a.RoundTrip(2, 1024, 1024))
	}
}

// Bad options are refused with the value named, before any GPU work.
func TestMeasureLatencyRefusesBadOptions(t *testing.T) {
	d := openDevice(t)
	for _, o := range []compute.LatencyOptions{
		{Rounds: 2}, {CallsPerRound: -1}, {MaxBytes: 2}, {Dispatches: []int{0}}, {MaxBytes: d.Limits.MaxBufferSize + 4},
	} {
		if _, err := compute.MeasureLatency(context.Background(), d, o); err == nil {
			t.Errorf("%+v: accepted", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := compute.MeasureLatency(ctx, d, compute.LatencyOptions{Rounds: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: err = %v, want context.Canceled", err)
	}
}

// The tiny call checks its value: K out of range is refused, and a
// released tiny call says so.
func TestTinyCall(t *testing.T) {
	d := openDevice(t)
	tc, err := compute.NewTinyCall(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3, 64} {
		for range 3 {
			if err := tc.Call(k); err != nil {
				t.Fatalf("K=%d: %v", k, err)
			}
		}
	}
	if err := tc.Call(0); err == nil {
		t.Error("K=0 accepted")
	}
	tc.Release()
	tc.Release()
	if err := tc.Call(1); err == nil {
		t.Error("a released tiny call ran")
	}
}
