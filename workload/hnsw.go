package workload

import (
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/kernels"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// HNSW scores q queries × c gathered candidate rows (L2²), the inner loop
// of an HNSW search's candidate expansion.
var HNSW = &Descriptor{
	Name:     "hnsw",
	Doc:      "L2² distances of q queries to c candidate rows each, gathered by id from n stored vectors",
	Batch:    "q",
	BatchDoc: "queries (each with c candidates) per call",
	Uses:     []string{"d", "n", "q", "c", "wg"},
	Variants: []string{"lanes", "per-pair"},
	rank:     60,
	Host: func(h HostSizes) []HostShape {
		return []HostShape{{Cache: "dram", Config: Config{Dim: h.Dim, N: 65536, Q: h.Q, C: 32, Seed: h.Seed}, Batch: h.Q}}
	},
	Prepare: func(c Config) (*Prepared, error) {
		h := newHNSWData(c.Seed+3, c.N, c.Dim, c.Q, c.C)
		return &Prepared{
			Size:  c.Q,
			Fixed: params("d", c.Dim, "n", h.n, "c", c.C),
			At:    func(q int, k Knobs) Case { return hnswCase(h, q, k) },
		}, nil
	},
}

func init() { register(HNSW) }

// hnswData is a base set, queries and candidate ids (random, with
// repeats across queries as in real searches).
type hnswData struct {
	dim, n, c int
	v, qs     []float32
	ids       []int32
	want, tol []float64
}

func newHNSWData(seed uint64, n, dim, maxQ, c int) *hnswData {
	r := rand.New(rand.NewPCG(seed, 0x686e7377))
	h := &hnswData{dim: dim, n: n, c: c, v: randVectors(r, n*dim), qs: randVectors(r, maxQ*dim)}
	h.ids = make([]int32, maxQ*c)
	for i := range h.ids {
		h.ids[i] = int32(r.IntN(n))
	}
	h.want, h.tol = make([]float64, maxQ*c), make([]float64, maxQ*c)
	for qi := 0; qi < maxQ; qi++ {
		for ci := 0; ci < c; ci++ {
			row := h.v[int(h.ids[qi*c+ci])*dim:][:dim]
			var s, abs float64
			for k, x := range row {
				d := float64(h.qs[qi*dim+k]) - float64(x)
				s += d * d
				abs += d*d + 2*math.Abs(d)*math.Abs(float64(x))
			}
			h.want[qi*c+ci], h.tol[qi*c+ci] = s, DotTol(dim, abs)
		}
	}
	return h
}

func (h *hnswData) check(what string, q int, out []float32) error {
	return checkClose(what, out[:q*h.c], func(i int) (float64, float64) { return h.want[i], h.tol[i] })
}

func hnswCase(h *hnswData, q int, k Knobs) Case {
	dim, c, wg := h.dim, h.c, k.wg()
	qs, ids := h.qs[:q*dim], h.ids[:q*c]
	perPair := k.Variant == "per-pair"
	label := fmt.Sprintf("l2sq-lanes-wg%d", wg)
	if perPair {
		label = fmt.Sprintf("l2sq-per-pair-wg%d", wg)
	}
	w := Case{
		Name: "hnsw", Variant: label,
		Params: params("d", dim, "n", h.n, "c", c, "q", q),
		// Queries and ids read, each gathered row read once, distances written.
		Bytes: float64(4*q*dim + 4*q*c + 4*q*c*dim + 4*q*c),
		Flops: float64(3 * q * c * dim),
	}
	w.GPU = func(g GPU) (Side, error) {
		ga, err := kernels.NewGather(g.Device, h.v, dim, kernels.GatherOptions{Metric: ops.L2Sq, Workgroup: wg, PerPair: perPair})
		if err != nil {
			return Side{}, err
		}
		out := make([]float32, q*c)
		return Side{
			Poison: func() { poisonF32(out) },
			Run: func() (timing.Sample, error) {
				start := time.Now()
				t, err := ga.Run(qs, ids, c, out, g.Timer)
				return g.sample(w.Name, start, t, err)
			},
			Verify:  func() error { return h.check("gpu hnsw d", q, out) },
			Release: ga.Release,
		}, nil
	}
	w.CPU = func() (Side, error) {
		out := make([]float32, q*c)
		return Side{
			Poison: func() { poisonF32(out) },
			Run: func() (timing.Sample, error) {
				return cpuSample(func() error { return hostsimd.Gather(qs, h.v, dim, ids, ops.L2Sq, out) })
			},
			Verify: func() error { return h.check("cpu hnsw d", q, out) },
		}, nil
	}
	return w
}
