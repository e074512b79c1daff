package wgpu_test

import (
	"math"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// Resolved tick pairs become pass times only when they can be right:
// begin written (not 0) and end after begin. Backward, equal and wrapped
// ticks, and a difference past time.Duration, are invalid (the caller
// then uses the host clock).
func TestPassTimesRefusesBadTicks(t *testing.T) {
	ticks := []uint64{
		1000, 3000, // fine: 2000 ticks
		5000, 4000, // backward
		7000, 7000, // no time
		0, 500, // begin never written
		math.MaxUint64 - 10, 20, // wrapped past 2^64
		1, math.MaxUint64, // longer than a Duration holds at 2 ns/tick
	}
	got := wgpu.PassTimes(ticks, 2)
	if len(got) != 6 {
		t.Fatalf("%d pass times from 6 pairs", len(got))
	}
	if !got[0].Valid || got[0].Duration != 4000*time.Nanosecond || got[0].Begin != 1000 || got[0].End != 3000 {
		t.Errorf("good pair: %+v, want 4µs", got[0])
	}
	for i, name := range []string{"", "backward", "equal", "unwritten begin", "wrapped", "overflowing"} {
		if i == 0 {
			continue
		}
		if got[i].Valid || got[i].Duration != 0 {
			t.Errorf("%s ticks %d→%d: %+v, want invalid", name, got[i].Begin, got[i].End, got[i])
		}
	}
	if p := wgpu.PassTimes([]uint64{10, 20}, 0); p[0].Valid {
		t.Error("a zero timestamp period gave a valid time")
	}
}
