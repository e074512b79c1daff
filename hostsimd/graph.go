package hostsimd

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Graph generators. Both are deterministic: the same arguments give the
// same graph on every platform and run. Randomness comes from
// rand.New(rand.NewPCG(seed, graphStream)) of math/rand/v2, consumed in
// the documented order. Edges are generated in order; then self-loops are
// dropped, each node's incoming edges are sorted by source and duplicate
// (source, destination) pairs keep the first generated edge, so the edge
// count can be slightly below n*avgDegree. Weights are 1 − Float32(), in
// (0, 1].

// graphStream is the second PCG seed word of the graph generators.
const graphStream = 0x6a09e667f3bcc909

type edge struct {
	src, dst int32
	w        float32
}

// UniformGraph returns an Erdős–Rényi style random graph G(n, m) with
// m = n*avgDegree directed edges drawn independently: for each edge, in
// order, dst = IntN(n), src = IntN(n−1) (shifted past dst, so no
// self-loops), w = 1 − Float32(). Duplicates are merged as described
// above. It returns an error unless 1 ≤ n < 2^31, avgDegree ≥ 0 and
// n*avgDegree < 2^31 (edge offsets are int32).
func UniformGraph(n, avgDegree int, seed uint64) (*ops.CSR, error) {
	if n < 1 || int64(n) >= 1<<31 || avgDegree < 0 || (avgDegree > 0 && int64(n) >= (1<<31)/int64(avgDegree)) {
		return nil, fmt.Errorf("hostsimd: UniformGraph: n=%d, avgDegree=%d: want 1 ≤ n < 2^31, avgDegree ≥ 0 and n*avgDegree < 2^31", n, avgDegree)
	}
	rng := rand.New(rand.NewPCG(seed, graphStream))
	m := n * avgDegree
	if n == 1 {
		m = 0
	}
	edges := make([]edge, m)
	for e := range edges {
		dst := rng.IntN(n)
		src := rng.IntN(n - 1)
		if src >= dst {
			src++
		}
		edges[e] = edge{int32(src), int32(dst), 1 - rng.Float32()}
	}
	return buildCSR(n, edges), nil
}

// RMAT (Graph500) quadrant probabilities; d = 1 − a − b − c = 0.05.
const (
	rmatA = 0.57
	rmatB = 0.19
	rmatC = 0.19
)

// RMATGraph returns a Graph500-style R-MAT graph with n = 2^scale nodes
// and m = n*avgDegree generated edges, using a=0.57, b=0.19, c=0.19
// (d=0.05) and no per-level noise. First a node relabelling perm =
// Perm(n) is drawn (Graph500 scrambles labels too, so degree is not
// correlated with id); then for each edge, for bit = scale−1 down to 0, a
// Float64 picks the quadrant (a: src bit 0, dst bit 0; b: 0,1; c: 1,0;
// d: 1,1); the edge is perm[src]→perm[dst] with w = 1 − Float32().
// Self-loops are dropped and duplicates merged as described above, which
// for R-MAT removes a noticeable share of edges. It returns an error
// unless 1 ≤ scale ≤ 30, avgDegree ≥ 0 and 2^scale*avgDegree < 2^31.
func RMATGraph(scale, avgDegree int, seed uint64) (*ops.CSR, error) {
	if scale < 1 || scale > 30 || avgDegree < 0 || (avgDegree > 0 && int64(1)<<scale >= (1<<31)/int64(avgDegree)) {
		return nil, fmt.Errorf("hostsimd: RMATGraph: scale=%d, avgDegree=%d: want 1 ≤ scale ≤ 30, avgDegree ≥ 0 and 2^scale*avgDegree < 2^31", scale, avgDegree)
	}
	n := 1 << scale
	rng := rand.New(rand.NewPCG(seed, graphStream))
	perm := rng.Perm(n)
	m := n * avgDegree
	edges := make([]edge, 0, m)
	for e := 0; e < m; e++ {
		var src, dst int
		for bit := scale - 1; bit >= 0; bit-- {
			r := rng.Float64()
			switch {
			case r < rmatA:
			case r < rmatA+rmatB:
				dst |= 1 << bit
			case r < rmatA+rmatB+rmatC:
				src |= 1 << bit
			default:
				src |= 1 << bit
				dst |= 1 << bit
			}
		}
		w := 1 - rng.Float32()
		edges = append(edges, edge{int32(perm[src]), int32(perm[dst]), w})
	}
	return buildCSR(n, edges), nil
}

// buildCSR groups edges by destination (keeping generation order), drops
// self-loops, sorts each row by source and keeps the first of duplicates.
func buildCSR(n int, edges []edge) *ops.CSR {
	off := make([]int32, n+1)
	for _, e := range edges {
		if e.src != e.dst {
			off[e.dst+1]++
		}
	}
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	type ent struct {
		src int32
		w   float32
	}
	ents := make([]ent, off[n])
	pos := slices.Clone(off[:n])
	for _, e := range edges {
		if e.src != e.dst {
			ents[pos[e.dst]] = ent{e.src, e.w}
			pos[e.dst]++
		}
	}
	g := &ops.CSR{Offsets: make([]int32, n+1), Cols: make([]int32, 0, len(ents)), Weights: make([]float32, 0, len(ents))}
	for i := 0; i < n; i++ {
		row := ents[off[i]:off[i+1]]
		slices.SortStableFunc(row, func(x, y ent) int { return int(x.src) - int(y.src) })
		for k, e := range row {
			if k > 0 && e.src == row[k-1].src {
				continue
			}
			g.Cols = append(g.Cols, e.src)
			g.Weights = append(g.Weights, e.w)
		}
		g.Offsets[i+1] = int32(len(g.Cols))
	}
	return g
}
