package workload

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Stop is polled in the searches after the index build too: a Stop that
// turns true once every row is inserted ends the searches at the next
// poll (ErrStopped, naming the searches done), not after the hundreds of
// searches the candidates still need.
func TestHNSWSearchesStopAfterBuild(t *testing.T) {
	const n, dim, rows, c = 300, 8, 512, 16
	v := randVectors(rand.New(rand.NewPCG(3, 4)), n*dim)
	var polls, after atomic.Int64
	stop := func() bool {
		// n polls for the insertions, then two searches run.
		if polls.Add(1) > n+2 {
			after.Add(1)
			return true
		}
		return false
	}
	_, _, searches, _, err := hnswTrace(5, v, n, dim, rows, c, 32, ops.L2Sq, nil, stop)
	if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "hnsw searches: 2 done") {
		t.Fatalf("Stop true after the build and two searches: err = %v (%d searches), want ErrStopped after 2 searches", err, searches)
	}
	if a := after.Load(); a != 1 {
		t.Errorf("Stop answered true %d times before the searches returned, want once", a)
	}
	// The same trace with a Stop that never fires runs many searches.
	_, _, searches, _, err = hnswTrace(5, v, n, dim, rows, c, 32, ops.L2Sq, nil, func() bool { return false })
	if err != nil || searches < 10 {
		t.Errorf("without Stop: %d searches, %v; want the trace to need at least 10", searches, err)
	}
}
