package experiment

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func openEnv(t *testing.T) *Env {
	t.Helper()
	e, err := Open(AdapterSelect{Index: -1}, timing.MeasureOpts{Budget: 300 * time.Millisecond, MaxRuns: 30}, false)
	if err != nil {
		t.Fatalf("%v (run scripts/setup.sh)", err)
	}
	t.Cleanup(e.Close)
	return e
}

func TestCosineSingleBothSidesVerified(t *testing.T) {
	e := openEnv(t)
	c := newCosineData(1, 2048, 128)
	ms, err := e.measureWorkload(cosineSingle(c, 2048, 64), Roofs{GPU: timing.Roof{PeakGFLOPs: 1, BandwidthGBs: 1}, CPU: timing.Roof{PeakGFLOPs: 1, BandwidthGBs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Side != "gpu" || ms[1].Side != "cpu" {
		t.Fatalf("measurements %+v", ms)
	}
	for _, m := range ms {
		if !m.Verified || m.EndToEnd.Median <= 0 || m.GBs <= 0 || math.IsNaN(m.GBs) {
			t.Fatalf("bad measurement %+v", m)
		}
	}
	if e.Timer != nil && ms[0].Kernel == nil {
		t.Fatal("timestamps work but the GPU measurement has no kernel time")
	}
}

// A side that computes a wrong result must never be timed.
func TestWrongResultIsRefused(t *testing.T) {
	e := openEnv(t)
	c := newCosineData(2, 256, 64)
	w := cosineSingle(c, 256, 64)
	c.ref.want[17] += 0.5 // the reference now disagrees at row 17
	_, err := e.measureWorkload(w, Roofs{})
	if !errors.Is(err, ErrWrongResult) {
		t.Fatalf("got %v, want ErrWrongResult", err)
	}
}
