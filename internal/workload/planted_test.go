package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cosine-topk refuses k > n in its own Check (cannot return more results
// than stored vectors); k = n passes.
func TestTopKRefusesKPastN(t *testing.T) {
	c := Config{}
	c.Defaults()
	c.N, c.K = 50, 51
	if err := CosineTopK.Check(c); err == nil {
		t.Error("k 51 > n 50 accepted")
	}
	c.K = 50
	if err := CosineTopK.Check(c); err != nil {
		t.Errorf("k = n = 50: %v", err)
	}
}

// DotTol is tight enough to reject a dot product off by 0.1% over 768
// terms of two similar vectors (its bound is 4·d·ε₃₂·Σ|aᵢbᵢ|; ten times
// that would pass it), and loose enough for the float32 error of the sum
// itself.
func TestDotTolRejectsATenthOfAPercent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const d = 768
	var dot, abs float64
	var f32 float32
	for range d {
		a := r.NormFloat64()
		b := a + 0.1*r.NormFloat64()
		dot += a * b
		abs += math.Abs(a * b)
		f32 += float32(a) * float32(b)
	}
	tol := DotTol(d, abs)
	if math.Abs(0.001*dot) <= tol {
		t.Errorf("a 0.1%% error (%.3g) passes DotTol %.3g (Σ|ab| %.3g)", 0.001*dot, tol, abs)
	}
	if math.Abs(float64(f32)-dot) > tol {
		t.Errorf("the float32 sum's own error %.3g exceeds DotTol %.3g", math.Abs(float64(f32)-dot), tol)
	}
}
