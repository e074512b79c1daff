package clock_test

import (
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// A call of a few tens of microseconds reads more than 0 s on the clock,
// on every platform (Windows' own monotonic clock moves only once per
// timer tick), readings never go backwards, and a sleep reads its length.
func TestClockResolves(t *testing.T) {
	var sink float64
	spin := func(n int) {
		x := 1.0
		for i := 0; i < n; i++ {
			x = x*1.0000001 + 1e-9
		}
		sink += x
	}
	zero := 0
	prev := clock.Now()
	for range 20 {
		s := clock.Now()
		if s.Before(prev) {
			t.Fatalf("the clock went backwards: %v after %v", s, prev)
		}
		spin(20000)
		if clock.Since(s) <= 0 {
			zero++
		}
		prev = s
	}
	if zero > 0 {
		t.Errorf("%d of 20 calls of ~20 µs read 0 s or less", zero)
	}
	// A sleep of 20 ms reads at least about that (Windows may wake a
	// timer a little early) and what Go's own clock read around it, to
	// its coarsest step (Windows' timer tick, at most 15.6 ms): however
	// long a loaded machine stretches the sleep.
	const tick = 16 * time.Millisecond
	a0 := time.Now()
	s := clock.Now()
	a1 := time.Now()
	time.Sleep(20 * time.Millisecond)
	b0 := time.Now()
	d := clock.Since(s)
	b1 := time.Now()
	if lo, hi := b0.Sub(a1), b1.Sub(a0); d < 15*time.Millisecond || d < lo-tick || d > hi+tick {
		t.Errorf("a 20 ms sleep read %v; Go's clock read %v … %v around it", d, lo, hi)
	}
	// The wall reading places a reading of Now within the wall clock.
	if d := clock.Now().Sub(time.Now()); d > time.Second || d < -time.Second {
		t.Errorf("Now is %v off the wall clock", d)
	}
	_ = sink
}
