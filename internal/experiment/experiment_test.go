package experiment

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env/envtest"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// openEnv opens the default adapter with a short measurement budget.
var openEnv = envtest.Open

func TestCosineSingleBothSidesVerified(t *testing.T) {
	e := openEnv(t)
	pr, err := workload.CosineSingle.Prepare(workload.Config{Dim: 128, N: 2048, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := MeasureCase(e, pr.At(2048, workload.Knobs{Workgroup: 64}), Roofs{GPU: timing.Roof{PeakGFLOPs: 1, BandwidthGBs: 1}, CPU: timing.Roof{PeakGFLOPs: 1, BandwidthGBs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Side != "gpu" || ms[1].Side != "cpu" {
		t.Fatalf("measurements %+v", ms)
	}
	for _, m := range ms {
		// (Verification itself is tested by TestWrongResult*: measurement
		// always sets Verified, so checking it here could not fail.)
		if m.EndToEnd.Median <= 0 || m.GBs <= 0 || math.IsNaN(m.GBs) {
			t.Fatalf("bad measurement %+v", m)
		}
	}
	if e.Timer != nil && ms[0].Kernel == nil {
		t.Fatal("timestamps work but the GPU measurement has no kernel time")
	}
}

// fakeSide counts runs and fails verification on the calls listed.
type fakeSide struct {
	runs, verifies int
	failOn         map[int]bool // verify call number (1-based) → fail
}

func (f *fakeSide) Poison() {}

func (f *fakeSide) Run() (timing.Sample, error) {
	f.runs++
	return timing.Sample{Host: time.Microsecond}, nil
}

func (f *fakeSide) Verify() error {
	f.verifies++
	if f.failOn[f.verifies] {
		return workload.ErrMismatch
	}
	return nil
}

func (f *fakeSide) Close() {}

// A side whose first result is wrong is never timed: one run, then
// ErrWrongResult.
func TestWrongResultIsNeverTimed(t *testing.T) {
	f := &fakeSide{failOn: map[int]bool{1: true}}
	_, err := MeasureSide("fake", f, timing.MeasureOpts{Budget: 20 * time.Millisecond})
	if !errors.Is(err, ErrWrongResult) {
		t.Fatalf("got %v, want ErrWrongResult", err)
	}
	if f.runs != 1 {
		t.Fatalf("%d runs: a side that fails verification before timing must not be timed", f.runs)
	}
}

// A side that goes wrong during timing is caught by the check after it.
func TestWrongResultAfterTimingIsRefused(t *testing.T) {
	f := &fakeSide{failOn: map[int]bool{2: true}}
	_, err := MeasureSide("fake", f, timing.MeasureOpts{Budget: 20 * time.Millisecond})
	if !errors.Is(err, ErrWrongResult) {
		t.Fatalf("got %v, want ErrWrongResult", err)
	}
	if f.runs < 2 {
		t.Fatalf("%d runs: the side was not timed before the second check", f.runs)
	}
}

func TestRightResultIsTimed(t *testing.T) {
	f := &fakeSide{}
	res, err := MeasureSide("fake", f, timing.MeasureOpts{Budget: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f.verifies != 2 || len(res.Samples) == 0 {
		t.Fatalf("verifies %d, samples %d: want a check before and after timing", f.verifies, len(res.Samples))
	}
}
