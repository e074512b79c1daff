package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/dataset"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// The plan's evaluations bound those a build and its searches make, and
// a build past HNSWBuildLimit is refused by Check, naming n, before
// anything is made.
func TestHNSWIndexPlan(t *testing.T) {
	for _, tc := range []struct{ dim, n, ef int }{{16, 2000, 16}, {64, 2000, 64}} {
		c := Config{Dim: tc.dim, N: tc.n, Q: 8, C: 16, Ef: tc.ef, Candidates: CandidatesHNSW}
		c.Defaults()
		r := rand.New(rand.NewPCG(5, 6))
		v := randVectors(r, tc.n*tc.dim)
		var evals float64
		d := hnswDist(ops.L2Sq)
		g := newHNSWIndex(tc.dim, hnswM, tc.ef, func(a, b []float32) float32 { evals++; return d(a, b) }, 1)
		for i := 0; i < tc.n; i++ {
			g.add(v[i*tc.dim : (i+1)*tc.dim])
		}
		for i := 0; i < c.Q; i++ {
			g.search(v[i*tc.dim:(i+1)*tc.dim], 1, tc.ef)
		}
		p := PlanHNSWIndex(c)
		if !(p.Evals >= evals) || p.PerEval <= 0 || p.Bytes < float64(4*tc.n*tc.dim) {
			t.Errorf("d %d n %d ef %d: plan %v below the %.0f evaluations made", tc.dim, tc.n, tc.ef, p, evals)
		}
		if err := p.Check(); err != nil {
			t.Errorf("a small build refused: %v", err)
		}
	}
	c := Config{Dim: 768, N: 50_000_000, Candidates: CandidatesHNSW}
	c.Defaults()
	err := HNSW.Check(c)
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Name != ParamN.Name || !strings.Contains(err.Error(), "past the 1h0m0s an index build may take") {
		t.Errorf("a 50M-row index build: %v, want refused naming n", err)
	}
	c.Candidates = CandidatesRandom
	if err := HNSW.Check(c); err != nil {
		t.Errorf("random candidates build no index: %v", err)
	}
}

// hnsw on a user's vectors and queries: the batches gather the file's
// rows, searched from the file's queries in order (candidates hnsw) or
// drawn uniformly (random), and every reference distance is that of the
// file's rows.
func TestHNSWOnUserVectors(t *testing.T) {
	const rows, dim, nq = 900, 32, 3
	r := rand.New(rand.NewPCG(7, 8))
	vs := &dataset.Vectors{Rows: rows, Dim: dim, Data: make([]float32, rows*dim)}
	for i := range vs.Data {
		vs.Data[i] = float32(r.Float64()) // all positive: unlike the generated rows
	}
	qs := &dataset.Vectors{Rows: nq, Dim: dim, Data: make([]float32, nq*dim)}
	for i := range qs.Data {
		qs.Data[i] = float32(r.Float64())
	}
	for _, cand := range []string{CandidatesHNSW, CandidatesRandom} {
		c := Config{Dim: dim, N: rows, Q: nq, C: 8, Candidates: cand, Vectors: vs, Queries: qs}
		c.Defaults()
		h, err := newHNSWData(c)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range h.ids {
			j := i / h.c
			q, row := h.qs[j*dim:][:dim], vs.Data[int(id)*dim:][:dim]
			var l2 float64
			for k := range q {
				l2 += (float64(q[k]) - float64(row[k])) * (float64(q[k]) - float64(row[k]))
			}
			if math.Abs(l2-h.want[i]) > 1e-9*l2 {
				t.Fatalf("%s: pair %d: reference %v, the file's row %d gives %v", cand, i, h.want[i], id, l2)
			}
		}
		if cand == CandidatesRandom {
			for j := 0; j < nq; j++ {
				if h.qs[j*dim] != qs.Data[j*dim] {
					t.Fatalf("random: batch %d's query is not the file's query %d", j, j)
				}
			}
			continue
		}
		// The first search is of the file's first query.
		for k := 0; k < dim; k++ {
			if h.qs[k] != qs.Data[k] {
				t.Fatalf("hnsw: batch 0's query is not the file's first query")
			}
		}
	}
}
