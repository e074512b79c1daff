package workload

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// CosineSingle scores one query against the first n stored rows.
var CosineSingle = &Descriptor{
	Name:       "cosine-single",
	Doc:        "cosine similarity of one query against n stored vectors of dimension d",
	Batch:      "n",
	BatchDoc:   "stored vectors scored per call",
	Params:     []*Param{ParamD, ParamN, ParamWG, ParamPrecision, ParamVectors, ParamQueries},
	Variants:   cosineSingleVariants,
	MemCompute: compute.MemComputeStream,
	rank:       10,
	NameWords:  `(?i)cos|simil|score|dot|recall`,
	NameOrder:  5,
	Workload:   cosineSingleWorkload{},
}

func init() { register(CosineSingle) }

// cosineSingleVariants are the designs of the cosine-single kernel (and of
// the scoring pass of cosine-topk): a workgroup per row with a tree
// reduction, a row per invocation with vec4 loads and no barrier, or a
// subgroup per row reduced with subgroupAdd (where subgroups exist).
var cosineSingleVariants = []string{"wg-per-row", "row-per-inv", "subgroup-per-row"}

// cosineOptions maps a cosine-single variant to the runner's options.
func cosineOptions(variant string, wg int) compute.CosineOptions {
	return compute.CosineOptions{Workgroup: wg, RowPerInvocation: variant == "row-per-inv", Subgroup: variant == "subgroup-per-row"}
}

// f16CosTol bounds what storing V as binary16 adds to a cosine: with
// each v_k rounded to v_k(1+δ), |δ| ≤ u = 2⁻¹¹, |q·v' − q·v| ≤ u·Σ|q_k v_k|
// ≤ u‖q‖‖v‖ (Cauchy–Schwarz) and ‖v'‖ lies within ‖v‖(1±u), so
// |cos' − cos| ≤ 2u/(1−u); 4u leaves room for f16 subnormals.
const f16CosTol = 4.0 / 2048

func cosineSingleCase(c *cosineData, st *storedData, n int, k Knobs) Case {
	dim, wg, design := c.dim, k.wg(), k.design(cosineSingleVariants[0])
	v, ref := c.v[:n*dim], st.ref.prefix(n)
	variant, vBytes := fmt.Sprintf("%s-wg%d", design, wg), BytesPerValue(st.prec)
	if st.prec != PrecisionF32 {
		variant += "-" + st.prec
	}
	w := Case{
		Name:    "cosine-single",
		Variant: variant,
		Params:  st.params(params("d", dim, "n", n)),
		// V and q read once, s written once (V in its stored precision).
		Bytes: float64(vBytes*n*dim + 4*dim + 4*n),
		// q·v and v·v: two multiply-adds (4 operations, integer ones for
		// int8) per element, plus the division.
		Flops: float64(4*n*dim + 3*n),
	}
	if st.prec == PrecisionF32 {
		w.Twin = &TwinIO{
			Inputs: map[string][]float32{"v": v, "q": c.q}, Output: "s", OutLen: n,
			Doc: "s[i] = cos(q, v[i*D .. i*D+D]) for i < N: v holds N rows of D f32, q one",
			ref: ref,
		}
	}
	b := &cosineSingleSides{c: c, st: st, n: n, opts: cosineOptions(design, wg), ref: ref}
	w.GPU, w.CPU = b, b
	return w
}

// MemComputeData is the stored set V the memory-vs-compute shaders of
// cosine-single run over: the same rows cosine-single generates for c.
func MemComputeData(c Config) []float32 {
	return newCosineData(c.Seed, c.N, c.Dim).v
}

// cosineSingleGPU is cosine-single's GPU side: the runner scoring q
// against the stored rows into out.
type cosineSingleGPU struct {
	g   GPU
	r   *compute.CosineSingle
	q   []float32
	out []float32
	ref cosineRef
}

func (s *cosineSingleGPU) Poison() { poisonF32(s.out) }

func (s *cosineSingleGPU) Run() (timing.Sample, error) {
	start := clock.Now()
	tm, err := s.r.Run(s.q, s.out, s.g.Timer)
	return s.g.sample("cosine-single", start, tm, err)
}

func (s *cosineSingleGPU) Verify() error { return s.ref.check("gpu cosine-single s", s.out) }

func (s *cosineSingleGPU) Close() { s.r.Release() }

// cosineSingleCPU is cosine-single's host-SIMD side.
type cosineSingleCPU struct {
	host hostsimd.Host
	st   *storedData
	c    *cosineData
	n    int
	out  []float32
	ref  cosineRef
}

func (s *cosineSingleCPU) Poison() { poisonF32(s.out) }

func (s *cosineSingleCPU) Run() (timing.Sample, error) {
	return cpuSample(func() error { return s.st.hostCosine(s.host, s.c.q, s.c.v, s.c.dim, s.n, s.out) })
}

func (s *cosineSingleCPU) Verify() error { return s.ref.check("cpu cosine-single s", s.out) }

func (s *cosineSingleCPU) Close() {}

// cosineSingleSides builds cosine-single's sides over the first n stored
// rows.
type cosineSingleSides struct {
	c    *cosineData
	st   *storedData
	n    int
	opts compute.CosineOptions
	ref  cosineRef
}

func (b *cosineSingleSides) BuildGPU(g GPU) (Side, error) {
	cs, err := b.st.newCosineRunner(g.Device, b.c.v[:b.n*b.c.dim], b.c.dim, b.opts)
	if err != nil {
		return nil, err
	}
	return &cosineSingleGPU{g: g, r: cs, q: b.c.q, out: make([]float32, b.n), ref: b.ref}, nil
}

func (b *cosineSingleSides) BuildCPU(host hostsimd.Host) (Side, error) {
	return &cosineSingleCPU{host: host, st: b.st, c: b.c, n: b.n, out: make([]float32, b.n), ref: b.ref}, nil
}

// cosineSingleWorkload is cosine-single's Workload.
type cosineSingleWorkload struct{}

func (cosineSingleWorkload) Prepare(c Config) (*Prepared, error) {
	data := c.cosineData(c.Seed)
	st, err := data.stored(c.Precision)
	if err != nil {
		return nil, err
	}
	return &Prepared{
		Size:  c.N,
		Fixed: append(append(fixed(c, ParamD), c.dataParams(ParamVectors, ParamQueries)...), c.precisionFixed()...),
		Cases: cosineSingleCases{data, st},
	}, nil
}

// cosineSingleCases builds cosine-single's cases over prepared data.
type cosineSingleCases struct {
	data *cosineData
	st   *storedData
}

func (x cosineSingleCases) Case(n int, k Knobs) Case { return cosineSingleCase(x.data, x.st, n, k) }

func (cosineSingleWorkload) Idle(c Config, k Knobs) string {
	// One workgroup per row (the wg-per-row design only); its threads
	// stride over the row's D/4 vec4s.
	if wg, work := k.wg(), c.Dim/4; k.design(cosineSingleVariants[0]) == "wg-per-row" && wg > work {
		return fmt.Sprintf("wg %d > %d vec4s per row (d %d): %d of %d invocations idle in every workgroup", wg, work, c.Dim, wg-work, wg)
	}
	return ""
}

func (cosineSingleWorkload) HostShapes(h HostSizes) []HostShape {
	return []HostShape{
		{Cache: "dram", Config: Config{Dim: h.Dim, N: h.N, Seed: h.Seed}, Batch: h.N},
		{Cache: "resident", Config: Config{Dim: h.Dim, N: h.NCached, Seed: h.Seed}, Batch: h.NCached},
	}
}

func (cosineSingleWorkload) Check(Config) error { return nil }
