package hostsimd

import (
	"sync"
	"testing"
)

func TestForceThreadsSplitsEveryCall(t *testing.T) {
	defer ForceThreads(0)
	for _, f := range []int{1, 2, 3} {
		ForceThreads(f)
		for _, n := range []int{1, 2, 7, 100} {
			var mu sync.Mutex
			calls, covered := 0, 0
			parallelFor(n, 1, 1<<20, func(lo, hi int) {
				mu.Lock()
				calls++
				covered += hi - lo
				mu.Unlock()
			})
			if covered != n || calls != min(f, n) {
				t.Errorf("forced %d threads, n=%d: %d ranges covering %d, want %d covering %d", f, n, calls, covered, min(f, n), n)
			}
		}
	}
}
