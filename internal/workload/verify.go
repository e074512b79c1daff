package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// ErrMismatch marks an output that disagrees with the reference.
var ErrMismatch = errors.New("output differs from the reference")

const eps32 = 1.0 / (1 << 23)

// DotTol is the tolerance of a float32 dot-product result over dim terms
// whose absolute products sum to absSum (already scaled like the result):
// 4·dim·ε₃₂·Σ|aᵢbᵢ| + 1e-6, the one error bound every workload uses.
func DotTol(dim int, absSum float64) float64 {
	return 4*float64(dim)*eps32*absSum + 1e-6
}

func randVectors(r *rand.Rand, n int) []float32 {
	// Huge pages for the large sets the host kernels stream from DRAM
	// (hostsimd.HugeFloats), as numpy arrays get: the CPU side is what
	// every GPU figure is compared with.
	s := hostsimd.HugeFloats(n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func poisonF32(s []float32) {
	nan := float32(math.NaN())
	for i := range s {
		s[i] = nan
	}
}

// checkClose compares got[i] with want(i) within tol(i); NaN and Inf
// never pass.
func checkClose(what string, got []float32, want func(i int) (value, tol float64)) error {
	for i, g := range got {
		w, tol := want(i)
		if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) || !(math.Abs(float64(g)-w) <= tol) {
			return fmt.Errorf("%s[%d] = %v, want %v (tolerance %.3g): %w", what, i, g, w, tol, ErrMismatch)
		}
	}
	return nil
}

// cosineRef holds the float64 reference of one query against rows, with
// each row's tolerance (DotTol of the normalised products).
type cosineRef struct {
	want, tol []float64
}

func newCosineRef(q, v []float32, dim int) cosineRef {
	return cosineRefNorms(q, v, rowNormsSq(v, dim), dim)
}

// rowNormsSq is the float64 squared norm of every row of v.
func rowNormsSq(v []float32, dim int) []float64 {
	out := make([]float64, len(v)/dim)
	for i := range out {
		var vv float64
		for _, x := range v[i*dim : (i+1)*dim] {
			vv += float64(x) * float64(x)
		}
		out[i] = vv
	}
	return out
}

// cosineRefNorms is newCosineRef with the rows' squared norms (rowNormsSq)
// given, so that many queries against the same rows compute them once.
func cosineRefNorms(q, v []float32, norms []float64, dim int) cosineRef {
	n := len(v) / dim
	r := cosineRef{want: make([]float64, n), tol: make([]float64, n)}
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	for i := 0; i < n; i++ {
		var dot, abs float64
		for k, x := range v[i*dim : (i+1)*dim] {
			a, b := float64(q[k]), float64(x)
			dot += a * b
			abs += math.Abs(a * b)
		}
		den := math.Sqrt(qq) * math.Sqrt(norms[i])
		if den > 0 {
			r.want[i] = dot / den
			r.tol[i] = DotTol(dim, abs/den)
		} else {
			r.tol[i] = DotTol(dim, 0)
		}
	}
	return r
}

func (r cosineRef) prefix(n int) cosineRef { return cosineRef{want: r.want[:n], tol: r.tol[:n]} }

func (r cosineRef) check(what string, got []float32) error {
	if len(got) != len(r.want) {
		return fmt.Errorf("%s: %d results, want %d: %w", what, len(got), len(r.want), ErrMismatch)
	}
	return checkClose(what, got, func(i int) (float64, float64) { return r.want[i], r.tol[i] })
}

// cosineData is a stored set V and a query, shared by every configuration
// that uses a prefix of V.
type cosineData struct {
	dim         int
	v           []float32
	q           []float32
	ref         cosineRef // over all of V
	storedLocks           // V in the other stored precisions (precision.go)
	// stop (Config.Stop; nil: never) is polled between the queries'
	// references of the batch built over this data.
	stop func() bool
}

func newCosineData(seed uint64, n, dim int) *cosineData {
	r := rand.New(rand.NewPCG(seed, 0x636f73))
	c := &cosineData{dim: dim, v: randVectors(r, n*dim), q: randVectors(r, dim)}
	c.ref = newCosineRef(c.q, c.v, dim)
	return c
}

// checkTopK verifies k (index, score) pairs against the reference scores:
// each score matches its row, the order is descending, and no row left
// out beats the last one returned (within tolerance: near-ties may swap).
func checkTopK(what string, got []ops.Pair, ref cosineRef, k int) error {
	if len(got) != k {
		return fmt.Errorf("%s: %d pairs, want %d: %w", what, len(got), k, ErrMismatch)
	}
	in := make(map[int32]bool, k)
	for i, pr := range got {
		if pr.Index < 0 || int(pr.Index) >= len(ref.want) || in[pr.Index] {
			return fmt.Errorf("%s: pair %d has index %d (out of range or repeated): %w", what, i, pr.Index, ErrMismatch)
		}
		in[pr.Index] = true
		want, tol := ref.want[pr.Index], ref.tol[pr.Index]
		if math.IsNaN(float64(pr.Score)) || !(math.Abs(float64(pr.Score)-want) <= tol) {
			return fmt.Errorf("%s: pair %d: score %v for row %d, want %v: %w", what, i, pr.Score, pr.Index, want, ErrMismatch)
		}
		if i > 0 && pr.Score > got[i-1].Score {
			return fmt.Errorf("%s: pair %d: score %v after %v: not descending: %w", what, i, pr.Score, got[i-1].Score, ErrMismatch)
		}
	}
	last := float64(got[k-1].Score)
	for i, want := range ref.want {
		if !in[int32(i)] && want > last+2*ref.tol[i]+1e-6 {
			return fmt.Errorf("%s: row %d (score %v) beats the last returned score %v but is missing: %w", what, i, want, last, ErrMismatch)
		}
	}
	return nil
}
