package workload

import (
	"errors"
	"sync/atomic"
	"testing"
)

// Config.Stop ends the long preparations: cosine-batch's references
// (polled between queries, in every precision) and hnsw's index build
// (polled before each insertion), each returning ErrStopped; a Stop that
// never fires changes nothing.
func TestPrepareStops(t *testing.T) {
	for _, tc := range []struct {
		w    Workload
		c    Config
		name string
	}{
		{cosineBatchWorkload{}, Config{Dim: 64, N: 4096, Q: 32, Precision: PrecisionF32}, "cosine-batch f32"},
		{cosineBatchWorkload{}, Config{Dim: 64, N: 4096, Q: 32, Precision: PrecisionF16}, "cosine-batch f16"},
		{cosineBatchWorkload{}, Config{Dim: 64, N: 4096, Q: 32, Precision: PrecisionInt8}, "cosine-batch int8"},
		{hnswWorkload{}, Config{Dim: 32, N: 2000, Q: 4, C: 16, Candidates: CandidatesHNSW}, "hnsw index"},
	} {
		var polls atomic.Int64
		c := tc.c
		c.Defaults()
		c.Stop = func() bool { return polls.Add(1) > 3 }
		if _, err := tc.w.Prepare(c); !errors.Is(err, ErrStopped) {
			t.Errorf("%s: Stop after 3 polls: err = %v, want ErrStopped", tc.name, err)
		}
		c.Stop = func() bool { return false }
		if _, err := tc.w.Prepare(c); err != nil {
			t.Errorf("%s: a Stop that never fires: %v", tc.name, err)
		}
	}
}
