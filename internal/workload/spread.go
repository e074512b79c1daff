package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// spreadDescriptor builds the descriptor of a spreading workload over one
// graph generator; spread_rmat.go holds the second generator's.

// SpreadUniform spreads activation over a graph with uniform random edges.
var SpreadUniform = spreadDescriptor("spread-uniform", "a uniform random graph", 40, uniformGraph{})

// uniformGraph generates graphs with uniform random edges.
type uniformGraph struct{}

func (uniformGraph) Graph(n, degree int, seed uint64) (*ops.CSR, error) {
	return hostsimd.UniformGraph(n, degree, seed)
}

// graphGen generates a spreading workload's graph of n nodes.
type graphGen interface {
	Graph(n, degree int, seed uint64) (*ops.CSR, error)
}

func init() {
	SpreadUniform.NameWords = `(?i)spread|activat|propagat|diffus|pagerank`
	SpreadUniform.NameOrder = 3
	register(SpreadUniform)
}

// spreadVariant maps a spreading variant name to the runner's kernel.
func spreadVariant(v string) compute.SpreadVariant {
	switch v {
	case "row-per-workgroup":
		return compute.SpreadRowPerWorkgroup
	case "row-per-thread-vec4":
		return compute.SpreadRowPerThreadVec4
	}
	return compute.SpreadRowPerThread
}

// spreadParams are the suite's spreading parameters. With in-weights
// normalised to sum to 1 per node (normalizeInWeights) a step maps
// activations in [0, m] to [0, (r+(1−r)·δ)·m] = [0, 0.9·m]: the total stays
// bounded and nothing is pushed into the clamp at 1. The threshold is low
// enough that activation from a 0.1% seed set reaches most of the graph
// within a few steps on the default graphs (degree 16), as a query's
// activation does in a real semantic network, instead of dying at hop 2.
var spreadParams = hostsimd.SpreadParams{Retention: 0.5, Decay: 0.8, Threshold: 1e-6}

// spreadSeedFraction is the share of nodes a query seeds (at least one).
const spreadSeedFraction = 0.001

// normalizeInWeights returns a copy of g whose in-weights sum to 1 per
// node (rows with no in-edges are left empty), so spreading is a weighted
// average of the neighbours' activation rather than a sum that saturates.
func normalizeInWeights(g *ops.CSR) *ops.CSR {
	out := &ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: make([]float32, len(g.Weights))}
	for i := 0; i+1 < len(g.Offsets); i++ {
		e0, e1 := g.Offsets[i], g.Offsets[i+1]
		var sum float64
		for e := e0; e < e1; e++ {
			sum += float64(g.Weights[e])
		}
		for e := e0; e < e1; e++ {
			out.Weights[e] = float32(float64(g.Weights[e]) / sum)
		}
	}
	return out
}

// spreadSeeds is a query's seed set: max(1, nodes/1000) distinct nodes
// (its hits), activated with the hits' relevance, 1 for the best hit
// falling linearly to 1/k for the k-th; every other node starts at 0.
func spreadSeeds(nodes int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x73707264))
	k := max(1, int(float64(nodes)*spreadSeedFraction))
	a0 := make([]float32, nodes)
	for i, v := range r.Perm(nodes)[:k] {
		a0[v] = float32(k-i) / float32(k)
	}
	return a0
}

func spreadDescriptor(name, graph string, rank int, gen graphGen) *Descriptor {
	d := &Descriptor{
		Name:       name,
		Doc:        "steps of spreading activation over " + graph,
		Batch:      "nodes",
		BatchDoc:   "graph nodes (edges grow with them)",
		Params:     []*Param{ParamNodes, ParamDegree, ParamSteps, ParamWG, ParamGraph},
		Variants:   []string{"row-per-thread", "row-per-workgroup", "row-per-thread-vec4"},
		rank:       rank,
		MemCompute: compute.MemComputeStream,
	}
	d.Workload = spreadWorkload{name: name, gen: gen}
	return d
}

// errCase is a case that cannot be built: both sides return err.
func errCase(name string, err error) Case {
	return Case{
		Name: name,
		GPU:  failedSides{err},
		CPU:  failedSides{err},
	}
}

func spreadCase(name string, g *ops.CSR, steps int, seed uint64, k Knobs) Case {
	g = normalizeInWeights(g)
	nodes := len(g.Offsets) - 1
	a0 := spreadSeeds(nodes, seed)
	ref := verify.NewSpreadInterval(ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, a0)
	f := (1 - spreadParams.Retention) * spreadParams.Decay
	active, saturated := make([]string, steps), make([]string, steps)
	for s := 0; s < steps; s++ {
		ref.Step(spreadParams.Retention, f, spreadParams.Threshold)
		a, sat := ref.Counts()
		active[s], saturated[s] = fmt.Sprint(a), fmt.Sprint(sat)
	}
	seeds := 0
	for _, x := range a0 {
		if x != 0 {
			seeds++
		}
	}
	edges, wg := len(g.Cols), k.wg()
	w := Case{
		Name: name, Variant: fmt.Sprintf("%s-wg%d", k.design("row-per-thread"), wg),
		// active/saturated: nodes active (> 0) and at the clamp (1) after
		// each step, from the float64 reference.
		Params: params("nodes", nodes, "edges", edges, "steps", steps, "seeds", seeds,
			"active", strings.Join(active, "/"), "saturated", strings.Join(saturated, "/")),
		// Per step: the graph (offsets, cols, weights) and a read, a' written.
		Bytes:  float64(steps) * float64(4*(nodes+1)+8*edges+8*nodes),
		Flops:  float64(steps) * float64(2*edges+4*nodes),
		Passes: steps,
	}
	b := &spreadSides{name: name, graph: g, a0: a0, steps: steps, opts: compute.SpreadOptions{Variant: spreadVariant(k.Variant), Workgroup: wg}, ref: ref}
	w.GPU, w.CPU = b, b
	return w
}

// spreadGPU is a spreading case's GPU side: steps launches of the runner
// from the seeds a0, the final activations in out.
type spreadGPU struct {
	g    GPU
	r    *compute.Spread
	name string
	a0   []float32
	p    compute.SpreadParams
	out  []float32
	ref  *verify.SpreadInterval
}

func (s *spreadGPU) Poison() { poisonF32(s.out) }

func (s *spreadGPU) Run() (timing.Sample, error) {
	start := clock.Now()
	res, err := s.r.Run(s.a0, s.p, s.out, s.g.Timer)
	return s.g.sample(s.name, start, res.Timing, err)
}

func (s *spreadGPU) Verify() error { return s.ref.Check("gpu "+s.name, s.out) }

func (s *spreadGPU) Close() { s.r.Release() }

// spreadCPU is a spreading case's host-SIMD side.
type spreadCPU struct {
	host  hostsimd.Host
	name  string
	graph *ops.CSR
	a0    []float32
	steps int
	out   []float32
	ref   *verify.SpreadInterval
}

func (s *spreadCPU) Poison() { s.out = nil }

func (s *spreadCPU) Run() (timing.Sample, error) {
	return cpuSample(func() error {
		var err error
		s.out, _, err = s.host.Spread(s.graph, s.a0, spreadParams, s.steps, -1)
		return err
	})
}

func (s *spreadCPU) Verify() error { return s.ref.Check("cpu "+s.name, s.out) }

func (s *spreadCPU) Close() {}

// spreadSides builds a spreading case's sides.
type spreadSides struct {
	name  string
	graph *ops.CSR
	a0    []float32
	steps int
	opts  compute.SpreadOptions
	ref   *verify.SpreadInterval
}

func (b *spreadSides) BuildGPU(gp GPU) (Side, error) {
	g := b.graph
	sp, err := compute.NewSpread(gp.Device, ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, b.opts)
	if err != nil {
		return nil, err
	}
	p := compute.SpreadParams{Retention: spreadParams.Retention, Decay: spreadParams.Decay, Threshold: spreadParams.Threshold, Steps: b.steps, Epsilon: -1}
	return &spreadGPU{g: gp, r: sp, name: b.name, a0: b.a0, p: p, out: make([]float32, len(g.Offsets)-1), ref: b.ref}, nil
}

func (b *spreadSides) BuildCPU(host hostsimd.Host) (Side, error) {
	return &spreadCPU{host: host, name: b.name, graph: b.graph, a0: b.a0, steps: b.steps, ref: b.ref}, nil
}

// failedSides are the sides of a case that cannot be built: both return
// err.
type failedSides struct{ err error }

func (f failedSides) BuildGPU(GPU) (Side, error) { return nil, f.err }

func (f failedSides) BuildCPU(hostsimd.Host) (Side, error) { return nil, f.err }

// spreadWorkload is a spreading workload: its graphs come from the data
// file when one is given, else from gen.
type spreadWorkload struct {
	name string
	gen  graphGen
}

func (sp spreadWorkload) Prepare(c Config) (*Prepared, error) {
	return &Prepared{
		// At least three sizes below the default for the fit: 256
		// nodes, or a sixteenth of a smaller graph.
		Size: c.Nodes, MinBatch: min(256, max(1, c.Nodes/16)),
		Fixed: append(fixed(c, ParamDegree, ParamSteps), c.dataParams(ParamGraph)...),
		Cases: spreadCases{sp, c},
	}, nil
}

// spreadCases builds a spreading workload's cases at configuration c.
type spreadCases struct {
	spreadWorkload
	c Config
}

func (x spreadCases) Case(n int, k Knobs) Case {
	c := x.c
	if c.Graph != nil {
		return spreadCase(x.name, c.Graph.Prefix(n), c.Steps, c.Seed+4, k)
	}
	g, err := x.gen.Graph(n, c.Degree, c.Seed+4)
	if err != nil {
		return errCase(x.name, err)
	}
	return spreadCase(x.name, g, c.Steps, c.Seed+4, k)
}

func (spreadWorkload) Check(Config) error { return nil }

func (spreadWorkload) Idle(Config, Knobs) string { return "" }

func (spreadWorkload) HostShapes(HostSizes) []HostShape { return nil }
