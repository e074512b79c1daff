package experiment

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// cosineData is a stored set V and a query, shared by every configuration
// that uses a prefix of V.
type cosineData struct {
	dim int
	v   []float32
	q   []float32
	ref cosineRef // over all of V
}

func newCosineData(seed uint64, n, dim int) *cosineData {
	r := rand.New(rand.NewPCG(seed, 0x636f73))
	c := &cosineData{dim: dim, v: randVectors(r, n*dim), q: randVectors(r, dim)}
	c.ref = newCosineRef(c.q, c.v, dim)
	return c
}

func (c *cosineData) prefixRef(n int) cosineRef {
	return cosineRef{want: c.ref.want[:n], tol: c.ref.tol[:n]}
}

// cosineSingleGPU is the GPU side of cosineSingle, timed with t (nil: no
// timestamp queries).
func cosineSingleGPU(e *Env, c *cosineData, n, wg int, t *compute.Timer) (impl, error) {
	v, ref := c.v[:n*c.dim], c.prefixRef(n)
	cs, err := compute.NewCosineSingle(e.Device, v, c.dim, compute.CosineOptions{Workgroup: wg})
	if err != nil {
		return impl{}, err
	}
	out := make([]float32, n)
	return impl{
		poison: func() { poisonF32(out) },
		run: func() (timing.Sample, error) {
			start := time.Now()
			tm, err := cs.Run(c.q, out, t)
			return e.gpuSample("cosine-single", start, tm, err)
		},
		verify:  func() error { return ref.check("gpu cosine-single s", out) },
		release: cs.Release,
	}, nil
}

// cosineSingle is the one-query workload over the first n rows.
func cosineSingle(c *cosineData, n, wg int) workload {
	dim := c.dim
	if wg == 0 {
		wg = 64
	}
	v := c.v[:n*dim]
	ref := c.prefixRef(n)
	w := workload{
		name:    "cosine-single",
		variant: fmt.Sprintf("wg%d", wg),
		params:  []report.Param{p("d", dim), p("n", n)},
		// V and q read once, s written once.
		bytes: float64(4*n*dim + 4*dim + 4*n),
		// q·v and v·v: two FMAs (4 flops) per element, plus the division.
		flops: float64(4*n*dim + 3*n),
	}
	w.gpu = func(e *Env) (impl, error) { return cosineSingleGPU(e, c, n, wg, e.Timer) }
	w.cpu = func() (impl, error) {
		out := make([]float32, n)
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error { return hostsimd.CosineSingle(c.q, v, dim, out) })
			},
			verify: func() error { return ref.check("cpu cosine-single s", out) },
		}, nil
	}
	return w
}
