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
// falls in; uninterrupted, the same measurement takes longer than that.
func TestMeasureStopsOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the adapter")
	}
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
		if took > after+time.Second {
			t.Errorf("interrupt after %v: Measure returned after %v, want within a second", after, took)
		}
	}
}
