package tune_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/tune"
	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
)

// TestSelectCosine: the tuned constructor's design is one that passes the
// float64 check, SelectCosine keeps its choice, and bad input is refused.
func TestSelectCosine(t *testing.T) {
	d := gputest.Open(t)
	r := rand.New(rand.NewPCG(3, 4))
	const dim, n = 64, 1024
	v := randFloats(r, n*dim)
	cs, err := tune.NewCosineSingle(d, v, dim)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Release()
	q := randFloats(r, dim)
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	if _, err := cs.Run(q, out, nil); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		var dot, vv, qq float64
		for j := 0; j < dim; j++ {
			x, y := float64(v[i*dim+j]), float64(q[j])
			dot, vv, qq = dot+x*y, vv+x*x, qq+y*y
		}
		if want := dot / math.Sqrt(vv*qq); !(math.Abs(float64(out[i])-want) <= 1e-4) {
			t.Fatalf("row %d: %v, want %v", i, out[i], want)
		}
	}
	a, err := tune.Cosine(d, v, dim)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tune.Cosine(d, v, dim)
	if a != b {
		t.Errorf("Cosine changed its choice: %+v then %+v", a, b)
	}
	t.Logf("chosen on this adapter: %+v", a)
	if _, err := tune.Cosine(d, v, 6); err == nil {
		t.Error("dimension 6 accepted")
	}
	if _, err := tune.Cosine(nil, v, dim); err == nil {
		t.Error("nil device accepted")
	}
}

func randFloats(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}
