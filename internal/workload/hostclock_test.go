package workload

import (
	"testing"
	"time"
)

// TestHostClockResolves: a call of a few tens of microseconds reads more
// than 0 s on the clock CPU samples use, on every platform (Windows' own
// monotonic clock moves only once per timer tick), and a 5 ms wait reads
// 5 ms within a factor of two.
func TestHostClockResolves(t *testing.T) {
	var sink float64
	spin := func(n int) {
		x := 1.0
		for i := 0; i < n; i++ {
			x = x*1.0000001 + 1e-9
		}
		sink += x
	}
	zero := 0
	for range 20 {
		s := hostStart()
		spin(20000)
		if hostSince(s) <= 0 {
			zero++
		}
	}
	if zero > 0 {
		t.Errorf("%d of 20 calls of ~20 µs read 0 s or less on the host clock", zero)
	}
	s, wall := hostStart(), time.Now()
	for time.Since(wall) < 5*time.Millisecond {
		spin(1000)
	}
	if d := hostSince(s); d < 2500*time.Microsecond || d > 10*time.Millisecond {
		t.Errorf("a 5 ms wait read %v on the host clock", d)
	}
	_ = sink
}
