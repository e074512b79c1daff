package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// The int8 gather's integer sums (q·v, v·v, q·q of every pair) equal the
// exact int64 sums of the codes, on both designs, chunked and not, with
// poisoned outputs; and its distances equal float32(hostsimd.Int8Metric)
// of those sums within the f32 rescaling's rounding.
func TestGatherInt8Exact(t *testing.T) {
	d := gputest.Open(t)
	r := rand.New(rand.NewPCG(rand.Uint64(), 21))
	for _, c := range []struct {
		n, dim, nq, cand int
		chunkRows        int // 0: one binding
	}{{50, 4, 2, 7, 0}, {300, 132, 3, 16, 0}, {200, 768, 2, 33, 0}, {260, 64, 2, 40, 64}} {
		if c.chunkRows > 0 {
			d.Limits.MaxStorageBufferBindingSize = uint64(c.dim * (c.chunkRows + 3))
		}
		v, q := randF32(r, c.n*c.dim), randF32(r, c.nq*c.dim)
		clear(v[:c.dim])
		ids := make([]int32, c.nq*c.cand)
		for i := range ids {
			ids[i] = int32(r.IntN(c.n))
		}
		ids[0] = 0
		codes, scales := make([]int8, len(v)), make([]float32, c.n)
		qc, qs := make([]int8, len(q)), make([]float32, c.nq)
		if hostsimd.QuantizeInt8(v, c.dim, codes, scales) != nil || hostsimd.QuantizeInt8(q, c.dim, qc, qs) != nil {
			t.Fatal("quantize")
		}
		for _, perPair := range []bool{false, true} {
			for _, m := range []ops.Metric{ops.L2Sq, ops.InnerProduct, ops.Cosine} {
				what := fmt.Sprintf("n=%d d=%d %v perPair=%v", c.n, c.dim, m, perPair)
				got := make([][]float32, 4)
				for exact := range got {
					got[exact] = runGatherInt8(t, d, v, q, ids, c.dim, c.cand, GatherOptions{Metric: m, PerPair: perPair, exact: exact})
				}
				for p, id := range ids {
					j := p / c.cand
					var dot, vv, qq int64
					for k := 0; k < c.dim; k++ {
						a, b := int64(qc[j*c.dim+k]), int64(codes[int(id)*c.dim+k])
						dot, vv, qq = dot+a*b, vv+b*b, qq+a*a
					}
					for e, want := range []int64{dot, vv, qq} {
						if g := int64(int32(math.Float32bits(got[e+1][p]))); g != want {
							t.Fatalf("%s: pair %d sum %d = %d, want %d", what, p, e+1, g, want)
						}
					}
					want := hostsimd.Int8Metric(m, dot, vv, qq, qs[j], scales[id])
					sq, sv := float64(qs[j]), float64(scales[id])
					tol := 8 * 0x1p-24 * (math.Abs(want) + sq*sq*float64(qq) + sv*sv*float64(vv) + 2*sq*sv*math.Abs(float64(dot)))
					if m == ops.Cosine {
						tol = 8 * 0x1p-24
					}
					if g := float64(got[0][p]); !(math.Abs(g-want) <= tol) {
						t.Fatalf("%s: pair %d = %v, want %v ± %.3g", what, p, g, want, tol)
					}
				}
			}
		}
	}
}

func runGatherInt8(t *testing.T, d *wgpu.Device, v, q []float32, ids []int32, dim, c int, o GatherOptions) []float32 {
	t.Helper()
	g, err := NewGatherInt8(d, v, dim, o)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	out := make([]float32, len(ids))
	for i := range out {
		out[i] = float32(math.NaN())
	}
	if _, err := g.Run(q, ids, c, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func randF32(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}
