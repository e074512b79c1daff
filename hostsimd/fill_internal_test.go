package hostsimd

import (
	"errors"
	"testing"
)

// The read probe's fill looks at stop between chunks, so an interrupt
// during the first touch of a large working set ends it before the rest
// is touched and before any timed run.
func TestFillUntilStopsBetweenChunks(t *testing.T) {
	a := make([]float32, 8*fillChunk)
	calls := 0
	if fillUntil(a, 1, func() bool { calls++; return calls > 2 }) {
		t.Fatal("fillUntil reported a full fill after stop said stop")
	}
	if a[0] != 1 || a[2*fillChunk-1] != 1 || a[2*fillChunk] != 0 || a[len(a)-1] != 0 {
		t.Errorf("fill went past stop: a[0]=%v a[2c-1]=%v a[2c]=%v a[last]=%v", a[0], a[2*fillChunk-1], a[2*fillChunk], a[len(a)-1])
	}
	b := make([]float32, 3*fillChunk)
	if !fillUntil(b, 1, nil) || b[0] != 1 || b[len(b)-1] != 1 {
		t.Errorf("fillUntil without stop left the array unfilled")
	}
	if _, err := MeasureReadUntil(64<<20, 2, 3, func() bool { return true }); !errors.Is(err, ErrStopped) {
		t.Errorf("MeasureReadUntil with stop set: err = %v, want ErrStopped", err)
	}
}
