package workload

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// CosineTopK scores one query against n rows and returns the k best.
var CosineTopK = &Descriptor{
	Name:     "cosine-topk",
	Doc:      "the k stored vectors most cosine-similar to one query, of n",
	Batch:    "n",
	BatchDoc: "stored vectors searched per call",
	Params:   []*Param{ParamD, ParamN, ParamK, ParamWG, ParamPrecision, ParamVectors, ParamQueries},
	// The scoring design (cosine-single's) + the selection design
	// (bitonic network or threshold-filtered queues).
	Variants:   []string{"wg-per-row+bitonic", "row-per-inv+bitonic", "wg-per-row+queue", "row-per-inv+queue"},
	rank:       30,
	NameWords:  `(?i)top_?k|best|rank`,
	NameOrder:  1,
	MemCompute: compute.MemComputeStream,
	Workload:   cosineTopKWorkload{},
}

func init() { register(CosineTopK) }

func cosineTopKCase(c *cosineData, st *storedData, n, k int, kn Knobs) Case {
	dim, wg, design := c.dim, kn.wg(), kn.design("wg-per-row+bitonic")
	scoring, selection, _ := strings.Cut(design, "+")
	ref := st.ref.prefix(n)
	kk := min(k, n)
	variant := fmt.Sprintf("%s-wg%d", design, wg)
	if st.prec != PrecisionF32 {
		variant += "-" + st.prec
	}
	w := Case{
		Name: "cosine-topk", Variant: variant,
		Params: st.params(params("d", dim, "n", n, "k", kk)),
		// V (in its stored precision) and q read once; k pairs written
		// (the N scores stay on the device).
		Bytes: float64(BytesPerValue(st.prec)*n*dim + 4*dim + 8*kk),
		Flops: float64(4*n*dim + 3*n),
	}
	b := &cosineTopKSides{c: c, st: st, n: n, k: kk, opts: cosineOptions(scoring, wg), queue: selection == "queue", ref: ref}
	w.GPU, w.CPU = b, b
	return w
}

// cosineTopKGPU is cosine-topk's GPU side: the scoring runner cs and the
// selection tk over its scores, writing the k best pairs to out.
type cosineTopKGPU struct {
	g   GPU
	cs  *compute.CosineSingle
	tk  *compute.TopKSingle
	q   []float32
	out []ops.Pair
	ref cosineRef
}

func (s *cosineTopKGPU) Poison() {
	for i := range s.out {
		s.out[i] = ops.Pair{Index: -1, Score: float32(math.NaN())}
	}
}

func (s *cosineTopKGPU) Run() (timing.Sample, error) {
	start := clock.Now()
	t, err := s.tk.Run(s.q, s.out, s.g.Timer)
	return s.g.sample("cosine-topk", start, t, err)
}

func (s *cosineTopKGPU) Verify() error { return checkTopK("gpu cosine-topk", s.out, s.ref, len(s.out)) }

func (s *cosineTopKGPU) Close() { s.tk.Release(); s.cs.Release() }

// cosineTopKCPU is cosine-topk's host-SIMD side: every score, then the k
// best.
type cosineTopKCPU struct {
	host   hostsimd.Host
	st     *storedData
	c      *cosineData
	n, k   int
	scores []float32
	out    []ops.Pair
	ref    cosineRef
}

func (s *cosineTopKCPU) Poison() { poisonF32(s.scores); s.out = nil }

func (s *cosineTopKCPU) Run() (timing.Sample, error) {
	return cpuSample(func() error {
		if err := s.st.hostCosine(s.host, s.c.q, s.c.v, s.c.dim, s.n, s.scores); err != nil {
			return err
		}
		s.out = hostsimd.TopK(s.scores, s.k)
		return nil
	})
}

func (s *cosineTopKCPU) Verify() error { return checkTopK("cpu cosine-topk", s.out, s.ref, s.k) }

func (s *cosineTopKCPU) Close() {}

// cosineTopKSides builds cosine-topk's sides over the first n stored
// rows.
type cosineTopKSides struct {
	c     *cosineData
	st    *storedData
	n, k  int
	opts  compute.CosineOptions
	queue bool // the selection pass keeps a queue (else bitonic)
	ref   cosineRef
}

func (b *cosineTopKSides) BuildGPU(g GPU) (Side, error) {
	cs, err := b.st.newCosineRunner(g.Device, b.c.v[:b.n*b.c.dim], b.c.dim, b.opts)
	if err != nil {
		return nil, err
	}
	tk, err := compute.NewTopKSingle(cs, b.k, compute.TopKOptions{Queue: b.queue})
	if err != nil {
		cs.Release()
		return nil, err
	}
	return &cosineTopKGPU{g: g, cs: cs, tk: tk, q: b.c.q, out: make([]ops.Pair, b.k), ref: b.ref}, nil
}

func (b *cosineTopKSides) BuildCPU(host hostsimd.Host) (Side, error) {
	return &cosineTopKCPU{host: host, st: b.st, c: b.c, n: b.n, k: b.k, scores: make([]float32, b.n), ref: b.ref}, nil
}

// cosineTopKWorkload is cosine-topk's Workload.
type cosineTopKWorkload struct{}

func (cosineTopKWorkload) Prepare(c Config) (*Prepared, error) {
	data := c.cosineData(c.Seed)
	st, err := data.stored(c.Precision)
	if err != nil {
		return nil, err
	}
	return &Prepared{
		Size:  c.N,
		Fixed: append(append(fixed(c, ParamD, ParamK), c.dataParams(ParamVectors, ParamQueries)...), c.precisionFixed()...),
		Cases: cosineTopKCases{data, st, c.K},
	}, nil
}

// cosineTopKCases builds cosine-topk's cases (the k best of n) over
// prepared data.
type cosineTopKCases struct {
	data *cosineData
	st   *storedData
	k    int
}

func (x cosineTopKCases) Case(n int, k Knobs) Case { return cosineTopKCase(x.data, x.st, n, x.k, k) }

func (cosineTopKWorkload) Idle(Config, Knobs) string { return "" }

func (cosineTopKWorkload) HostShapes(h HostSizes) []HostShape {
	return []HostShape{{Cache: "dram", Config: Config{Dim: h.Dim, N: h.N, K: 10, Seed: h.Seed}, Batch: h.N}}
}

func (cosineTopKWorkload) Check(c Config) error {
	if c.K > c.N {
		return invalid(ParamK.Name, c.K, "must be ≤ n %d: cannot return more results than stored vectors", c.N)
	}
	return nil
}
