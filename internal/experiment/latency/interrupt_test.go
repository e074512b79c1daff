package latency

import (
	"errors"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env/envtest"
)

// An interrupt during the anatomy ends it within a second with an error
// wrapping env.ErrInterrupted, whichever phase (calls or transfers) it
// falls in. A loaded machine stretches the step an interrupt waits for (a
// round of transfers up to 64 MiB, the buffers' set-up): past the second,
// the return must still have come within a third of the whole anatomy,
// measured uninterrupted here now (an interrupt that is not heeded returns
// with the whole anatomy).
func TestMeasureStopsOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the adapter")
	}
	var full time.Duration // the uninterrupted anatomy, measured once when needed
	for _, after := range []time.Duration{20 * time.Millisecond, 400 * time.Millisecond} {
		e := envtest.Open(t)
		go func() {
			time.Sleep(after)
			e.Interrupt()
		}()
		t0 := time.Now()
		_, err := Measure(e, Config{})
		took := time.Since(t0)
		if !errors.Is(err, env.ErrInterrupted) {
			t.Fatalf("interrupt after %v: err = %v, want ErrInterrupted", after, err)
		}
		if took <= after+time.Second {
			continue
		}
		if full == 0 {
			full = uninterrupted(t)
		}
		if took-after > full/3 {
			t.Errorf("interrupt after %v: Measure returned after %v; uninterrupted it takes %v here now", after, took, full)
		} else {
			t.Logf("interrupt after %v: Measure returned after %v, within a third of the uninterrupted %v on this loaded machine", after, took, full)
		}
	}
}

// uninterrupted is how long the whole anatomy takes on this machine now.
func uninterrupted(t *testing.T) time.Duration {
	t.Helper()
	e := envtest.Open(t)
	t0 := time.Now()
	if _, err := Measure(e, Config{}); err != nil {
		t.Fatalf("uninterrupted: %v", err)
	}
	return time.Since(t0)
}
