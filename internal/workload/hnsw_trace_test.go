package workload

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// TestHNSWTraceIsARealSearch checks the replayed batches come from an
// index search: distinct ids per batch, and the candidates of a search
// are much closer to its query than uniform random rows are.
func TestHNSWTraceIsARealSearch(t *testing.T) {
	c := Config{Dim: 32, N: 3000, Q: 16, C: 16, Candidates: CandidatesHNSW}
	c.Defaults()
	h, err := newHNSWData(c)
	if err != nil {
		t.Fatal(err)
	}
	if h.searches == 0 || h.visits < float64(c.C) {
		t.Fatalf("searches %d, visits %.0f", h.searches, h.visits)
	}
	for b := 0; b < c.Q; b++ {
		seen := map[int32]bool{}
		for _, x := range h.ids[b*c.C : (b+1)*c.C] {
			if seen[x] {
				t.Fatalf("batch %d repeats id %d", b, x)
			}
			seen[x] = true
		}
	}
	r := c
	r.Candidates = CandidatesRandom
	hr, err := newHNSWData(r)
	if err != nil {
		t.Fatal(err)
	}
	mean := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	// The first batch of each search holds the entry and greedy path;
	// overall the search's candidates must be nearer than random rows.
	if m, mr := mean(h.want), mean(hr.want); !(m < 0.95*mr) {
		t.Errorf("mean L2² of replayed candidates %.2f vs random %.2f: not a search trace", m, mr)
	}
	for _, m := range []string{"ip", "cosine"} {
		x := c
		x.Metric = m
		hx, err := newHNSWData(x)
		if err != nil {
			t.Fatal(err)
		}
		if hx.metric.String() != m {
			t.Errorf("metric %v", hx.metric)
		}
	}
	if _, err := ops.ParseMetric("l1"); err == nil {
		t.Error("l1 accepted")
	}
}
