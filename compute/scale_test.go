package compute_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

// TestCosineSingleExtremeQuery runs the cosine kernels of every design
// with queries scaled to 1e±30 (q·q leaves float32's range) against rows
// near 1 and near 1e±10 (q·v leaves it too): the runner scales the query
// by a power of two before upload, so the scores match the float64
// reference. Rows whose own squared norm
// leaves float32's range (v = 1e±30) are not rescaled on the GPU: their
// scores are wrong there (NaN or 0), which the workloads' verification
// against float64 rejects; the host kernels handle them (hostsimd,
// TestCosineExtremeScales).
func TestCosineSingleExtremeQuery(t *testing.T) {
	d := openDevice(t)
	const dim, n = 64, 37
	r := rand.New(rand.NewPCG(31, 41))
	v0 := randFloats(r, n*dim)
	for _, c := range []struct {
		name         string
		scale, vScal float32
		ones         bool
	}{{"q=1e30*ones", 1e30, 1, true}, {"q=1e-30*ones", 1e-30, 1, true}, {"q=1e30, v=1e10", 1e30, 1e10, false},
		{"q=1e-30, v=1e-10", 1e-30, 1e-10, false}, {"q=1e-38", 1e-38, 1, false}} {
		v := make([]float32, len(v0))
		for i, x := range v0 {
			v[i] = x * c.vScal
		}
		q := randFloats(r, dim)
		for i := range q {
			if c.ones {
				q[i] = 1
			}
			q[i] *= c.scale
		}
		for _, opts := range []compute.CosineOptions{{}, {PrecomputedNorms: true}, {RowPerInvocation: true}} {
			cs, err := compute.NewCosineSingle(d, v, dim, opts)
			if err != nil {
				t.Fatal(err)
			}
			out := poisoned(n)
			if _, err := cs.Run(q, out, nil); err != nil {
				t.Fatal(err)
			}
			cs.Release()
			checkCosines(t, fmt.Sprintf("%s %+v", c.name, opts), q, v, dim, out)
		}
	}
}
