package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The service's own similarity against a float64 reference, and the
// best hits against a full sort of the scores.
func TestSimilarityAndBest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 300
	v, q, out := make([]float32, n*dim), make([]float32, dim), make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	embedQuery(r, q)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	similarityCPU(v, q, out)
	for i := range n {
		var dot, qq, vv float64
		for k := range dim {
			x, y := float64(q[k]), float64(v[i*dim+k])
			dot, qq, vv = dot+x*y, qq+x*x, vv+y*y
		}
		if want := dot / math.Sqrt(qq*vv); !(math.Abs(float64(out[i])-want) <= 1e-5) {
			t.Fatalf("row %d: %v, want %v", i, out[i], want)
		}
	}
	top := best(out, topK)
	for j := 1; j < len(top); j++ {
		if out[top[j]] > out[top[j-1]] {
			t.Fatalf("best not descending at %d: %v", j, top)
		}
	}
	above := 0
	for _, s := range out {
		if s > out[top[len(top)-1]] {
			above++
		}
	}
	if len(top) != topK || above != topK-1 {
		t.Errorf("best %d hits, %d scores above the last (want %d, %d)", len(top), above, topK, topK-1)
	}
}

func TestCosineOptions(t *testing.T) {
	if o, err := cosineOptions("row-per-inv-wg256"); err != nil || !o.RowPerInvocation || o.Workgroup != 256 {
		t.Errorf("row-per-inv-wg256: %+v %v", o, err)
	}
	if o, err := cosineOptions("wg-per-row-wg64"); err != nil || o.RowPerInvocation || o.Workgroup != 64 {
		t.Errorf("wg-per-row-wg64: %+v %v", o, err)
	}
	for _, bad := range []string{"", "subgroup-per-row-wg32", "row-per-inv-wg0", "row-per-inv"} {
		if _, err := cosineOptions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
