package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/report"
)

// workload is one operation at one configuration with both sides.
type workload struct {
	name    string
	variant string // GPU variant label (e.g. "wg64")
	params  []report.Param
	// bytes is the fewest bytes the operation must move (each input read
	// once, each output written once); flops its arithmetic.
	bytes, flops float64
	gpu          func(e *Env) (impl, error)
	cpu          func() (impl, error)
}

const eps32 = 1.0 / (1 << 23)

func randVectors(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// cosineRef holds the float64 reference of one query against rows, with
// the tolerance of each row: 4·D·eps32·Σ|q_k v_k|/(‖q‖‖v‖) + 1e-6.
type cosineRef struct {
	want, tol []float64
}

func newCosineRef(q, v []float32, dim int) cosineRef {
	n := len(v) / dim
	r := cosineRef{want: make([]float64, n), tol: make([]float64, n)}
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	for i := 0; i < n; i++ {
		var dot, vv, abs float64
		for k, x := range v[i*dim : (i+1)*dim] {
			a, b := float64(q[k]), float64(x)
			dot += a * b
			abs += math.Abs(a * b)
			vv += b * b
		}
		den := math.Sqrt(qq) * math.Sqrt(vv)
		if den > 0 {
			r.want[i] = dot / den
			r.tol[i] = 4*float64(dim)*eps32*abs/den + 1e-6
		} else {
			r.tol[i] = 1e-6
		}
	}
	return r
}

func (r cosineRef) check(what string, got []float32) error {
	if len(got) != len(r.want) {
		return fmt.Errorf("%s: %d results, want %d", what, len(got), len(r.want))
	}
	return checkClose(what, got, func(i int) (float64, float64) { return r.want[i], r.tol[i] })
}
