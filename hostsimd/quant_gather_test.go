package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

var metrics = []ops.Metric{ops.L2Sq, ops.InnerProduct, ops.Cosine}

func gatherCase(r *rand.Rand, n, d, nq, c int) (v, q []float32, ids []int32) {
	v, q = make([]float32, n*d), make([]float32, nq*d)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	ids = make([]int32, nq*c)
	for i := range ids {
		ids[i] = int32(r.IntN(n))
	}
	// A repeated id and a zero row: the gather reads rows anywhere, and a
	// zero row has cosine 0.
	ids[len(ids)-1] = ids[0]
	clear(v[:d])
	ids[1%len(ids)] = 0
	return v, q, ids
}

func poisoned(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	return out
}

// GatherInt8 on every level equals, bit for bit, the integer reference:
// float32(Int8Metric) of the exact int64 sums of the codes.
func TestGatherInt8Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, d := range int8Dims {
		const n, nq, c = 40, 3, 7
		v, q, ids := gatherCase(r, n, d, nq, c)
		codes, scales := make([]int8, n*d), make([]float32, n)
		if err := hostsimd.QuantizeInt8(v, d, codes, scales); err != nil {
			t.Fatal(err)
		}
		qc, qs := make([]int8, nq*d), make([]float32, nq)
		if err := hostsimd.QuantizeInt8(q, d, qc, qs); err != nil {
			t.Fatal(err)
		}
		for _, m := range metrics {
			for _, h := range levelHosts() {
				out := poisoned(nq * c)
				if err := h.GatherInt8(q, codes, scales, d, ids, m, out); err != nil {
					t.Fatalf("%v d=%d %v: %v", h.Level, d, m, err)
				}
				for p, id := range ids {
					j := p / c
					var dot, vv, qq int64
					for k := 0; k < d; k++ {
						a, b := int64(qc[j*d+k]), int64(codes[int(id)*d+k])
						dot, vv, qq = dot+a*b, vv+b*b, qq+a*a
					}
					want := float32(hostsimd.Int8Metric(m, dot, vv, qq, qs[j], scales[id]))
					if out[p] != want {
						t.Fatalf("%v d=%d %v: out[%d] = %v, want %v (exact)", h.Level, d, m, p, out[p], want)
					}
				}
			}
		}
	}
}

// GatherF16 and CosineBatchF16 on every level agree with the float64
// metric of the stored halves within the f32 kernels' rounding bound.
func TestGatherF16(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 9))
	for _, d := range []int{1, 4, 7, 8, 9, 16, 33, 128, 769} {
		const n, nq, c = 30, 2, 9
		v, q, ids := gatherCase(r, n, d, nq, c)
		h16 := make([]uint16, len(v))
		for i, x := range v {
			h16[i] = ops.F32ToF16(x)
		}
		for _, m := range metrics {
			for _, h := range levelHosts() {
				out := poisoned(nq * c)
				if err := h.GatherF16(q, h16, d, ids, m, out); err != nil {
					t.Fatalf("%v d=%d %v: %v", h.Level, d, m, err)
				}
				for p, id := range ids {
					want, tol := f16Ref(m, q[p/c*d:][:d], h16[int(id)*d:][:d])
					if g := float64(out[p]); !(math.Abs(g-want) <= tol) {
						t.Fatalf("%v d=%d %v: out[%d] = %v, want %v ± %.3g", h.Level, d, m, p, g, want, tol)
					}
				}
			}
		}
		for _, h := range levelHosts() {
			out := poisoned(nq * n)
			if err := h.CosineBatchF16(q, h16, d, out); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < nq; j++ {
				for i := 0; i < n; i++ {
					want, tol := f16Ref(ops.Cosine, q[j*d:][:d], h16[i*d:][:d])
					if g := float64(out[j*n+i]); !(math.Abs(g-want) <= tol) {
						t.Fatalf("%v d=%d batch: out[%d][%d] = %v, want %v ± %.3g", h.Level, d, j, i, g, want, tol)
					}
				}
			}
		}
	}
}

// f16Ref is the float64 metric of q and the halves h with a bound on the
// float32 kernels' rounding (L2² through ‖q‖² + v·v − 2q·v).
func f16Ref(m ops.Metric, q []float32, h []uint16) (float64, float64) {
	var dot, dabs, vv, qq float64
	for k, x := range h {
		a, b := float64(q[k]), float64(ops.F16ToF32(x))
		dot, dabs, vv, qq = dot+a*b, dabs+math.Abs(a*b), vv+b*b, qq+a*a
	}
	tol := func(s float64) float64 { return 4*float64(len(q)+2)*0x1p-23*s + 1e-6 }
	switch m {
	case ops.InnerProduct:
		return dot, tol(dabs)
	case ops.L2Sq:
		return max(0, qq+vv-2*dot), tol(qq + vv + 2*dabs)
	}
	if vv == 0 || qq == 0 {
		return 0, 1e-6
	}
	den := math.Sqrt(qq * vv)
	return dot / den, tol(dabs)/den + tol(1)
}

func TestQuantGatherBadInput(t *testing.T) {
	h := hostsimd.Host{}
	q := make([]float32, 4)
	for _, c := range []struct {
		want string
		err  error
	}{
		{"ids[1]=9", h.GatherInt8(q, make([]int8, 8), make([]float32, 2), 4, []int32{0, 9}, ops.L2Sq, make([]float32, 2))},
		{"scales", h.GatherInt8(q, make([]int8, 8), make([]float32, 1), 4, []int32{0}, ops.L2Sq, make([]float32, 1))},
		{"q[2]", h.GatherInt8([]float32{0, 0, float32(math.Inf(1)), 0}, make([]int8, 8), make([]float32, 2), 4, []int32{0}, ops.L2Sq, make([]float32, 1))},
		{"ids[0]=-1", h.GatherF16(q, make([]uint16, 8), 4, []int32{-1}, ops.Cosine, make([]float32, 1))},
		{"out", h.CosineBatchF16(q, make([]uint16, 8), 4, make([]float32, 1))},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("err %v, want one naming %q", c.err, c.want)
		}
	}
}
