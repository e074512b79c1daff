package workload

import (
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/kernels"
	"math/rand/v2"
	"time"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// spreadDescriptor builds the descriptor of a spreading workload over one
// graph generator; spread_rmat.go holds the second generator's.

// SpreadUniform spreads activation over a graph with uniform random edges.
var SpreadUniform = spreadDescriptor("spread-uniform", "a uniform random graph", 40,
	func(n, degree int, seed uint64) *ops.CSR { return hostsimd.UniformGraph(n, degree, seed) })

func init() { register(SpreadUniform) }

// spreadVariant maps a spreading variant name to the runner's kernel.
func spreadVariant(v string) kernels.SpreadVariant {
	switch v {
	case "row-per-workgroup":
		return kernels.SpreadRowPerWorkgroup
	case "row-per-thread-vec4":
		return kernels.SpreadRowPerThreadVec4
	}
	return kernels.SpreadRowPerThread
}

// spreadParams are the suite's spreading parameters.
var spreadParams = hostsimd.SpreadParams{Retention: 0.5, Decay: 0.8, Threshold: 0.01}

func spreadDescriptor(name, graph string, rank int, gen func(n, degree int, seed uint64) *ops.CSR) *Descriptor {
	d := &Descriptor{
		Name:     name,
		Doc:      "steps of spreading activation over " + graph,
		Batch:    "nodes",
		BatchDoc: "graph nodes (edges grow with them)",
		Uses:     []string{"nodes", "degree", "steps", "wg"},
		Variants: []string{"row-per-thread", "row-per-workgroup", "row-per-thread-vec4"},
		rank:     rank,
	}
	d.Prepare = func(c Config) (*Prepared, error) {
		return &Prepared{
			Size: c.Nodes, MinBatch: 256,
			Fixed: params("degree", c.Degree, "steps", c.Steps),
			At: func(n int, k Knobs) Case {
				return spreadCase(name, gen(n, c.Degree, c.Seed+4), c.Steps, c.Seed+4, k)
			},
		}, nil
	}
	return d
}

func spreadCase(name string, g *ops.CSR, steps int, seed uint64, k Knobs) Case {
	nodes := len(g.Offsets) - 1
	r := rand.New(rand.NewPCG(seed, 0x73707264))
	a0 := make([]float32, nodes)
	for i := range a0 {
		if r.IntN(5) == 0 {
			a0[i] = 1 - r.Float32()
		}
	}
	ref := verify.NewSpreadInterval(ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, a0)
	f := (1 - spreadParams.Retention) * spreadParams.Decay
	for s := 0; s < steps; s++ {
		ref.Step(spreadParams.Retention, f, spreadParams.Threshold)
	}
	edges, wg := len(g.Cols), k.wg()
	w := Case{
		Name: name, Variant: fmt.Sprintf("%s-wg%d", k.design("row-per-thread"), wg),
		Params: params("nodes", nodes, "edges", edges, "steps", steps),
		// Per step: the graph (offsets, cols, weights) and a read, a' written.
		Bytes: float64(steps) * float64(4*(nodes+1)+8*edges+8*nodes),
		Flops: float64(steps) * float64(2*edges+4*nodes),
	}
	w.GPU = func(gp GPU) (Side, error) {
		sp, err := kernels.NewSpread(gp.Device, ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights},
			kernels.SpreadOptions{Variant: spreadVariant(k.Variant), Workgroup: wg})
		if err != nil {
			return Side{}, err
		}
		out := make([]float32, nodes)
		sp2 := kernels.SpreadParams{Retention: spreadParams.Retention, Decay: spreadParams.Decay, Threshold: spreadParams.Threshold, Steps: steps, Epsilon: -1}
		return Side{
			Poison: func() { poisonF32(out) },
			Run: func() (timing.Sample, error) {
				start := time.Now()
				res, err := sp.Run(a0, sp2, out, gp.Timer)
				return gp.sample(name, start, res.Timing, err)
			},
			Verify:  func() error { return ref.Check("gpu "+name, out) },
			Release: sp.Release,
		}, nil
	}
	w.CPU = func() (Side, error) {
		var out []float32
		return Side{
			Poison: func() { out = nil },
			Run: func() (timing.Sample, error) {
				return cpuSample(func() error {
					out, _ = hostsimd.Spread(g, a0, spreadParams, steps, -1)
					return nil
				})
			},
			Verify: func() error { return ref.Check("cpu "+name, out) },
		}, nil
	}
	return w
}
