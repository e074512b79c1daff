package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// HNSW candidate sources (Config.Candidates).
const (
	// CandidatesHNSW replays the distance evaluations of real HNSW
	// searches: an index over the stored vectors is built
	// (hnswIndex, the paper's construction), each query is searched at Config.Ef, and the
	// ids whose distance the search computes (every layer, in order, each
	// id once per query) are cut into batches of c.
	CandidatesHNSW = "hnsw"
	// CandidatesRandom draws c distinct uniform ids per query: the stress
	// case (no locality, every row a cache miss).
	CandidatesRandom = "random"
)

// ErrStopped is wrapped by a preparation that Config.Stop ended.
var ErrStopped = hostsimd.ErrStopped

// hnswM is the index's neighbours per node on its upper levels (twice that
// on level 0), the paper's recommended value for embeddings.
const hnswM = 16

// hnswTrace builds an HNSW index over v (n rows of dim) with metric's
// distance and searches queries at ef until rows·c candidates are
// recorded: the rows of user in order (wrapping around when they are
// used up) or, with user nil, fresh random ones. It returns the query
// vectors (one per batch row, the query the batch came from) and the ids
// (rows×c). searches reports how many searches that took and visited
// their mean distance evaluations. stop (nil: never) is polled before
// every insertion and every search.
func hnswTrace(seed uint64, v []float32, n, dim, rows, c, ef int, metric ops.Metric, user []float32, stop func() bool) (qs []float32, ids []int32, searches int, visited float64, err error) {
	if n < 2 {
		return nil, nil, 0, 0, invalid(ParamN.Name, n, "candidates hnsw: an index needs at least 2 vectors")
	}
	dist := hnswDist(metric)
	// The index is built with the search breadth as its construction
	// breadth, so a larger --ef also means a better-linked graph.
	g := newHNSWIndex(dim, hnswM, ef, dist, seed)
	for i := 0; i < n; i++ {
		if stop != nil && stop() {
			return nil, nil, 0, 0, fmt.Errorf("hnsw index build: %d of %d rows inserted: %w", i, n, ErrStopped)
		}
		g.add(v[i*dim : (i+1)*dim])
	}
	var trace []int32
	g.onEval = func(i int32) { trace = append(trace, i) }
	r := rand.New(rand.NewPCG(seed, 0x71756572))
	q := make([]float32, dim)
	var total int
	for len(ids) < rows*c {
		if stop != nil && stop() {
			return nil, nil, 0, 0, fmt.Errorf("hnsw searches: %d done: %w", searches, ErrStopped)
		}
		if user != nil {
			u := searches % (len(user) / dim)
			copy(q, user[u*dim:(u+1)*dim])
		} else {
			for k := range q {
				q[k] = float32(r.NormFloat64())
			}
		}
		trace = make([]int32, 0, 4*ef*hnswM)
		g.search(q, 1, ef)
		searches++
		total += len(trace)
		seen := map[int32]bool{}
		var uniq []int32
		for _, x := range trace {
			if !seen[x] {
				seen[x] = true
				uniq = append(uniq, x)
			}
		}
		for len(uniq) >= c && len(ids) < rows*c {
			ids = append(ids, uniq[:c]...)
			qs = append(qs, q...)
			uniq = uniq[c:]
		}
		if searches > 100*rows {
			return nil, nil, 0, 0, invalid(ParamC.Name, c, "candidates hnsw: searches at ef %d visit fewer than c distinct nodes; lower c or raise ef", ef)
		}
	}
	return qs, ids, searches, float64(total) / float64(searches), nil
}

// hnswDist is the index's distance under metric (smaller is nearer).
func hnswDist(metric ops.Metric) func(a, b []float32) float32 {
	return func(a, b []float32) float32 {
		var l2, dot, aa, bb float32
		for k := range a {
			x, y := a[k], b[k]
			d := x - y
			l2 += d * d
			dot += x * y
			aa += x * x
			bb += y * y
		}
		switch metric {
		case ops.InnerProduct:
			return -dot // a similarity: larger is closer
		case ops.Cosine:
			if aa == 0 || bb == 0 {
				return 1
			}
			return 1 - dot/float32(math.Sqrt(float64(aa)*float64(bb)))
		}
		return l2
	}
}

// randomCandidates draws c distinct ids per query (without replacement
// within a query; repeats across queries, as in real searches).
func randomCandidates(r *rand.Rand, n, rows, c int) []int32 {
	ids := make([]int32, 0, rows*c)
	for qi := 0; qi < rows; qi++ {
		seen := map[int32]bool{}
		for len(seen) < c {
			x := int32(r.IntN(n))
			if !seen[x] {
				seen[x] = true
				ids = append(ids, x)
			}
		}
	}
	return ids
}
