package compute

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
)

// TestCosineSingleInt8Exact runs the int8 shader's integer entry points
// and checks every row's q·v and v·v exactly against hostsimd's generic
// integer kernel, on fresh random vectors, poisoned outputs, chunks and
// dimensions across the workgroup's stride.
func TestCosineSingleInt8Exact(t *testing.T) {
	d := gputest.Open(t)
	r := rand.New(rand.NewPCG(rand.Uint64(), 8))
	for _, c := range []struct{ n, dim, wg int }{{1, 4, 64}, {37, 132, 32}, {300, 768, 64}} {
		v := make([]float32, c.n*c.dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		q := make([]float32, c.dim)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		codes, scales := make([]int8, len(v)), make([]float32, c.n)
		if err := hostsimd.QuantizeInt8(v, c.dim, codes, scales); err != nil {
			t.Fatal(err)
		}
		qc, _, err := hostsimd.QuantizeQueryInt8(q)
		if err != nil {
			t.Fatal(err)
		}
		dot, ss := make([]int32, c.n), make([]int32, c.n)
		if err := (hostsimd.Host{Level: hostsimd.Generic, FixLevel: true}).DotsInt8(qc, codes, c.dim, dot, ss); err != nil {
			t.Fatal(err)
		}
		for _, e := range []struct {
			entry string
			want  []int32
		}{{"main_dot", dot}, {"main_sq", ss}} {
			cs, err := newCosineSingleInt8(d, v, c.dim, CosineOptions{Workgroup: c.wg}, e.entry)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float32, c.n)
			for i := range out {
				out[i] = float32(math.NaN())
			}
			if _, err := cs.Run(q, out, nil); err != nil {
				t.Fatal(err)
			}
			cs.Release()
			for i, x := range out {
				if got := int32(math.Float32bits(x)); got != e.want[i] {
					t.Fatalf("%s n=%d d=%d row %d: %d, want %d", e.entry, c.n, c.dim, i, got, e.want[i])
				}
			}
		}
	}
}
