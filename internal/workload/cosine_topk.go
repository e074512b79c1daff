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
	Host: func(h HostSizes) []HostShape {
		return []HostShape{{Cache: "dram", Config: Config{Dim: h.Dim, N: h.N, K: 10, Seed: h.Seed}, Batch: h.N}}
	},
	Check: func(c Config) error {
		if c.K > c.N {
			return invalid(ParamK.Name, c.K, "must be ≤ n %d: cannot return more results than stored vectors", c.N)
		}
		return nil
	},
	Prepare: func(c Config) (*Prepared, error) {
		data := c.cosineData(c.Seed)
		st, err := data.stored(c.Precision)
		if err != nil {
			return nil, err
		}
		return &Prepared{
			Size:  c.N,
			Fixed: append(append(fixed(c, ParamD, ParamK), c.dataParams(ParamVectors, ParamQueries)...), c.precisionFixed()...),
			At:    func(n int, k Knobs) Case { return cosineTopKCase(data, st, n, c.K, k) },
		}, nil
	},
}

func init() { register(CosineTopK) }

func cosineTopKCase(c *cosineData, st *storedData, n, k int, kn Knobs) Case {
	dim, wg, design := c.dim, kn.wg(), kn.design("wg-per-row+bitonic")
	scoring, selection, _ := strings.Cut(design, "+")
	v, ref := c.v[:n*dim], st.ref.prefix(n)
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
	w.GPU = func(g GPU) (Side, error) {
		cs, err := st.newCosineRunner(g.Device, v, dim, cosineOptions(scoring, wg))
		if err != nil {
			return nil, err
		}
		tk, err := compute.NewTopKSingle(cs, kk, compute.TopKOptions{Queue: selection == "queue"})
		if err != nil {
			cs.Release()
			return nil, err
		}
		out := make([]ops.Pair, kk)
		return SideFuncs{
			PoisonFn: func() {
				for i := range out {
					out[i] = ops.Pair{Index: -1, Score: float32(math.NaN())}
				}
			},
			RunFn: func() (timing.Sample, error) {
				start := clock.Now()
				t, err := tk.Run(c.q, out, g.Timer)
				return g.sample(w.Name, start, t, err)
			},
			VerifyFn: func() error {
				conv := make([]ops.Pair, len(out))
				for i, x := range out {
					conv[i] = ops.Pair{Index: x.Index, Score: x.Score}
				}
				return checkTopK("gpu cosine-topk", conv, ref, kk)
			},
			ReleaseFn: func() { tk.Release(); cs.Release() },
		}, nil
	}
	w.CPU = func(host hostsimd.Host) (Side, error) {
		scores := make([]float32, n)
		var out []ops.Pair
		return SideFuncs{
			PoisonFn: func() { poisonF32(scores); out = nil },
			RunFn: func() (timing.Sample, error) {
				return cpuSample(func() error {
					if err := st.hostCosine(host, c.q, c.v, dim, n, scores); err != nil {
						return err
					}
					out = hostsimd.TopK(scores, kk)
					return nil
				})
			},
			VerifyFn: func() error { return checkTopK("cpu cosine-topk", out, ref, kk) },
		}, nil
	}
	return w
}
