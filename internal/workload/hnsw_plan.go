package workload

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// HNSWBuildLimit is the longest index build (candidates hnsw) a
// configuration may plan, by PlanHNSWIndex's estimate; a larger one is
// refused before anything is made.
const HNSWBuildLimit = time.Hour

// HNSWIndexPlan is the cost of the index candidates hnsw builds over the
// n stored rows (generated or the user's) and searches for the q·c
// candidates, estimated before anything is made.
type HNSWIndexPlan struct {
	N, Dim, Ef int
	// Evals is an upper estimate of the distance evaluations: per
	// inserted row, the level-0 search of breadth ef (about ef nodes
	// expanded, each with up to 2M links), the neighbour heuristic over
	// its ef candidates (up to M checks each) and, for each of the M new
	// neighbours, the re-ranking and heuristic pruning of its full list
	// ((2M+1)² evaluations at most), times M/(M−1) for the upper levels;
	// then each search, one per batch at most.
	Evals float64
	// PerEval is one distance evaluation at this dimension, timed on this
	// host; Time is Evals·PerEval.
	PerEval, Time time.Duration
	// Bytes is the index's memory: its copy of the rows, the links of
	// every level (with append's headroom), the slice headers and the
	// visit marks.
	Bytes float64
}

// PlanHNSWIndex is the index plan of c (candidates hnsw).
func PlanHNSWIndex(c Config) HNSWIndexPlan {
	n, d, ef := float64(c.N), float64(c.Dim), float64(max(c.Ef, hnswM))
	m, m0 := float64(hnswM), float64(2*hnswM)
	perRow := (ef*(m0+m) + m*(m0+1)*(m0+1)) * m / (m - 1)
	p := HNSWIndexPlan{N: c.N, Dim: c.Dim, Ef: c.Ef}
	p.Evals = n*perRow + float64(c.Q)*ef*m0
	p.PerEval = hnswEvalTime(c.Dim)
	p.Time = time.Duration(p.Evals * float64(p.PerEval))
	p.Bytes = n*(4*d+2*4*(m0+1)+2*24+4) + n/(m-1)*(2*4*(m+1)+24)
	return p
}

// Check refuses a plan whose estimated time exceeds HNSWBuildLimit,
// naming n.
func (p HNSWIndexPlan) Check() error {
	if p.Time > HNSWBuildLimit {
		return invalid(ParamN.Name, p.N, "candidates hnsw builds an index over %d rows: %s, past the %v an index build may take; use fewer rows (--n takes a prefix), --candidates random or a lower --ef", p.N, p, HNSWBuildLimit)
	}
	return nil
}

// String says what the plan estimates.
func (p HNSWIndexPlan) String() string {
	return fmt.Sprintf("index of n %d d %d at ef %d: at most about %.3g G distance evaluations, %v of CPU at %v each on this host, %.3g MB",
		p.N, p.Dim, p.Ef, p.Evals/1e9, p.Time.Round(time.Second), p.PerEval, p.Bytes/1e6)
}

// hnswEvalTimes caches hnswEvalTime by dimension.
var hnswEvalTimes sync.Map

// hnswEvalTime times one evaluation of the index's distance at dim: the
// fastest of five runs of 256 evaluations over four rows.
func hnswEvalTime(dim int) time.Duration {
	if t, ok := hnswEvalTimes.Load(dim); ok {
		return t.(time.Duration)
	}
	r := rand.New(rand.NewPCG(uint64(dim), 0x65766174))
	v := randVectors(r, 4*dim)
	dist := hnswDist(ops.L2Sq)
	var sink float32
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := clock.Now()
		for i := range 256 {
			a, b := i%4, (i+1)%4
			sink += dist(v[a*dim:(a+1)*dim], v[b*dim:(b+1)*dim])
		}
		best = min(best, clock.Since(start)/256)
	}
	if sink != sink { // keeps the loop from being optimized away
		best++
	}
	best = max(best, time.Nanosecond)
	hnswEvalTimes.Store(dim, best)
	return best
}
