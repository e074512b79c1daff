package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/compute"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// HNSW scores q batches of c gathered candidate rows against their query
// (L2², inner product or cosine), the inner loop of an HNSW search's
// candidate expansion. The batches replay the distance evaluations of
// real searches of an HNSW index over the stored vectors (--candidates
// hnsw), or draw uniform ids (--candidates random, the stress case). The
// stored vectors are generated or a user's (--vectors); the queries
// searched are generated or a user's (--queries, in order).
var HNSW = &Descriptor{
	Name:       "hnsw",
	Doc:        "L2² distances of q queries to c candidate rows each, gathered by id from n stored vectors",
	Batch:      "q",
	BatchDoc:   "queries (each with c candidates) per call",
	Params:     []*Param{ParamD, ParamN, ParamQ, ParamC, ParamWG, ParamCandidates, ParamMetric, ParamEf, ParamPrecision, ParamVectors, ParamQueries},
	Variants:   []string{"lanes", "per-pair"},
	rank:       60,
	NameWords:  `(?i)hnsw|neighbo|candidate|distance|l2`,
	NameOrder:  4,
	MemCompute: compute.MemComputeStream,
	Workload:   hnswWorkload{},
}

func init() { register(HNSW) }

// hnswData is a base set, one query per candidate batch and the batches'
// ids, with the float64 reference of every distance.
type hnswData struct {
	dim, n, c int
	metric    ops.Metric
	v, qs     []float32
	ids       []int32
	want, tol []float64
	// searches and visits: how many index searches the batches came from
	// and their mean distance evaluations (CandidatesHNSW).
	searches int
	visits   float64
	// st is the base set in a stored precision other than f32 (nil: f32;
	// hnsw_precision.go); want and tol are then its distances'.
	st *hnswStored
}

func newHNSWData(c Config) (*hnswData, error) {
	seed, n, dim, maxQ := c.Seed+3, c.N, c.Dim, c.Q
	metric, err := ops.ParseMetric(c.Metric)
	if err != nil {
		return nil, invalid(ParamMetric.Name, c.Metric, "%v", err)
	}
	r := rand.New(rand.NewPCG(seed, 0x686e7377))
	h := &hnswData{dim: dim, n: n, c: c.C, metric: metric}
	if c.Vectors != nil {
		h.v = c.Vectors.Data[:n*dim]
	} else {
		h.v = randVectors(r, n*dim)
	}
	var user []float32 // the user's queries, one per row
	if c.Queries != nil {
		user = c.Queries.Data[:c.Queries.Rows*dim]
	}
	switch c.Candidates {
	case CandidatesRandom:
		if user != nil {
			h.qs = user[:maxQ*dim]
		} else {
			h.qs = randVectors(r, maxQ*dim)
		}
		h.ids = randomCandidates(r, n, maxQ, c.C)
	case CandidatesHNSW:
		h.qs, h.ids, h.searches, h.visits, err = hnswTrace(seed, h.v, n, dim, maxQ, c.C, c.Ef, metric, user, c.Stop)
		if err != nil {
			return nil, err
		}
	default:
		return nil, invalid(ParamCandidates.Name, c.Candidates, "want %s or %s", CandidatesHNSW, CandidatesRandom)
	}
	h.want, h.tol = make([]float64, maxQ*c.C), make([]float64, maxQ*c.C)
	for qi := 0; qi < maxQ; qi++ {
		q := h.qs[qi*dim:][:dim]
		var qq float64
		for _, x := range q {
			qq += float64(x) * float64(x)
		}
		for ci := 0; ci < c.C; ci++ {
			row := h.v[int(h.ids[qi*c.C+ci])*dim:][:dim]
			var l2, l2abs, dot, dabs, vv float64
			for k, x := range row {
				a, b := float64(q[k]), float64(x)
				d := a - b
				l2 += d * d
				l2abs += d*d + 2*math.Abs(d)*math.Abs(b)
				dot += a * b
				dabs += math.Abs(a * b)
				vv += b * b
			}
			i := qi*c.C + ci
			switch metric {
			case ops.L2Sq:
				h.want[i], h.tol[i] = l2, DotTol(dim, l2abs)
			case ops.InnerProduct:
				h.want[i], h.tol[i] = dot, DotTol(dim, dabs)
			case ops.Cosine:
				den := math.Sqrt(qq) * math.Sqrt(vv)
				if den == 0 {
					h.want[i], h.tol[i] = 0, 1e-6
				} else {
					// The dot's bound plus the norms' float32 rounding.
					h.want[i], h.tol[i] = dot/den, DotTol(dim, dabs)/den+2*float64(dim)*eps32*math.Abs(dot/den)
				}
			}
		}
	}
	if err := h.store(c.Precision); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *hnswData) check(what string, q int, out []float32) error {
	return checkClose(what, out[:q*h.c], func(i int) (float64, float64) { return h.want[i], h.tol[i] })
}

func hnswCase(h *hnswData, q int, k Knobs) Case {
	dim, c, wg, metric := h.dim, h.c, k.wg(), h.metric
	perPair := k.Variant == "per-pair"
	label := fmt.Sprintf("%s-lanes-wg%d", metric, wg)
	if perPair {
		label = fmt.Sprintf("%s-per-pair-wg%d", metric, wg)
	}
	run := h.sides()
	w := Case{
		Name: "hnsw", Variant: label + run.suffix,
		Params: append(params("d", dim, "n", h.n, "c", c, "q", q), run.params...),
		// Queries and ids read, each gathered row read once (in its stored
		// precision, with its scale for int8), distances written.
		Bytes: float64(4*q*dim + 4*q*c + run.rowBytes*q*c + 4*q*c),
		Flops: float64(3 * q * c * dim),
	}
	b := &hnswBuilder{h: h, q: q, opts: compute.GatherOptions{Metric: metric, Workgroup: wg, PerPair: perPair}}
	w.GPU, w.CPU = b, b
	return w
}

// hnswGPU is hnsw's GPU side: the gather runner computing the distances
// of q queries to their candidates ids into out.
type hnswGPU struct {
	g   GPU
	r   *compute.Gather
	h   *hnswData
	q   int
	qs  []float32
	ids []int32
	out []float32
}

func (s *hnswGPU) Poison() { poisonF32(s.out) }

func (s *hnswGPU) Run() (timing.Sample, error) {
	start := clock.Now()
	t, err := s.r.Run(s.qs, s.ids, s.h.c, s.out, s.g.Timer)
	return s.g.sample("hnsw", start, t, err)
}

func (s *hnswGPU) Verify() error { return s.h.check("gpu hnsw d", s.q, s.out) }

func (s *hnswGPU) Close() { s.r.Release() }

// hnswCPU is hnsw's host-SIMD side.
type hnswCPU struct {
	host hostsimd.Host
	h    *hnswData
	q    int
	qs   []float32
	ids  []int32
	out  []float32
}

func (s *hnswCPU) Poison() { poisonF32(s.out) }

func (s *hnswCPU) Run() (timing.Sample, error) {
	return cpuSample(func() error { return s.h.hostGather(s.host, s.qs, s.ids, s.out) })
}

func (s *hnswCPU) Verify() error { return s.h.check("cpu hnsw d", s.q, s.out) }

func (s *hnswCPU) Close() {}

// hnswBuilder builds hnsw's sides for the first q queries.
type hnswBuilder struct {
	h    *hnswData
	q    int
	opts compute.GatherOptions
}

func (b *hnswBuilder) BuildGPU(g GPU) (Side, error) {
	h := b.h
	ga, err := h.newGather(g.Device, b.opts)
	if err != nil {
		return nil, err
	}
	return &hnswGPU{g: g, r: ga, h: h, q: b.q, qs: h.qs[:b.q*h.dim], ids: h.ids[:b.q*h.c], out: make([]float32, b.q*h.c)}, nil
}

func (b *hnswBuilder) BuildCPU(host hostsimd.Host) (Side, error) {
	h := b.h
	return &hnswCPU{host: host, h: h, q: b.q, qs: h.qs[:b.q*h.dim], ids: h.ids[:b.q*h.c], out: make([]float32, b.q*h.c)}, nil
}

// hnswWorkload is hnsw's Workload.
type hnswWorkload struct{}

func (hnswWorkload) Prepare(c Config) (*Prepared, error) {
	h, err := newHNSWData(c)
	if err != nil {
		return nil, err
	}
	fixed := params("d", c.Dim, "n", h.n, "c", c.C, "metric", h.metric, "candidates", c.Candidates)
	if c.Candidates == CandidatesHNSW {
		fixed = append(fixed, params("ef", c.Ef, "m", hnswM, "searches", h.searches, "visits_per_search", fmt.Sprintf("%.0f", h.visits))...)
	}
	fixed = append(append(fixed, c.dataParams(ParamVectors, ParamQueries)...), c.precisionFixed()...)
	return &Prepared{
		Size:  c.Q,
		Fixed: fixed,
		Cases: h,
	}, nil
}

// Case builds hnsw's case for the first q queries.
func (h *hnswData) Case(q int, k Knobs) Case { return hnswCase(h, q, k) }

func (hnswWorkload) Idle(Config, Knobs) string { return "" }

func (hnswWorkload) HostShapes(h HostSizes) []HostShape {
	// A call gathers the same q·c rows every time (64 × 32 of 65,536
	// at the defaults: 6.3 MB of a 201 MB set), so from the second
	// call on they are in cache: the row is judged against the
	// cache-resident ceiling (against DRAM it would read above 100%).
	return []HostShape{{Cache: "resident", Config: Config{Dim: h.Dim, N: 65536, Q: h.Q, C: 32, Seed: h.Seed}, Batch: h.Q}}
}

// Check refuses, before anything is made, an index build (candidates
// hnsw) whose estimated time exceeds HNSWBuildLimit (PlanHNSWIndex).
func (hnswWorkload) Check(c Config) error {
	if c.Candidates != CandidatesHNSW {
		return nil
	}
	return PlanHNSWIndex(c).Check()
}
