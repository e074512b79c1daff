package workload

import (
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/dataset"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// Config holds every size and knob a workload may read. Zero fields take
// the defaults of Defaults; a workload reads only the fields it names in
// its descriptor's Params.
type Config struct {
	Dim    int // vector dimension (multiple of 4)
	N      int // stored vectors
	Q      int // queries (cosine-batch, hnsw)
	C      int // candidates per query (hnsw)
	K      int // top-k
	Nodes  int // graph nodes (spreading)
	Degree int // average graph degree (spreading)
	Steps  int // spreading steps
	// Workgroup is the GPU workgroup size for every kernel that has one;
	// 0: compute.DefaultWorkgroup.
	Workgroup int
	// Tile is the tile side of tiled kernels; 0: compute.DefaultTile.
	Tile int
	// Candidates is where hnsw's candidate ids come from: CandidatesHNSW
	// (replayed from real searches of an index over the stored vectors;
	// building it costs about a minute of CPU at the default n and d) or
	// CandidatesRandom (uniform, the stress case; the default).
	Candidates string
	// Metric is hnsw's distance: "l2sq" (default), "ip" or "cosine".
	Metric string
	// Ef is the search breadth of the hnsw index whose visits are
	// replayed (default 64).
	Ef int
	// Precision is the storage type of the stored vectors on both sides:
	// "f32" (default), "f16" or "int8" (only workloads whose Params list
	// "precision"; see precision.go).
	Precision string
	Seed      uint64
	// VectorsFile, QueriesFile and GraphFile name data files (ParamVectors,
	// ParamQueries, ParamGraph); Vectors, Queries and Graph are their
	// contents once read (experiment.LoadData), replacing generated data.
	VectorsFile, QueriesFile, GraphFile string
	Vectors, Queries                    *dataset.Vectors
	Graph                               *dataset.Graph
	// Stop, when set, is polled (from several goroutines: it must be safe
	// for concurrent use) by the preparations that can run long: hnsw's
	// index build and searches, before each insertion and search;
	// cosine-batch's references, between queries. Once it reports true
	// they return an error wrapping ErrStopped.
	Stop func() bool
}

// cosineData is the stored vectors (c.N rows of c.Dim) and the query of
// the cosine workloads: the file's rows and its first query when given,
// generated from seed otherwise.
func (c Config) cosineData(seed uint64) *cosineData {
	if c.Vectors == nil && c.Queries == nil {
		d := newCosineData(seed, c.N, c.Dim)
		d.stop = c.Stop
		return d
	}
	r := rand.New(rand.NewPCG(seed, 0x636f73))
	d := &cosineData{dim: c.Dim}
	if c.Vectors != nil {
		d.v = c.Vectors.Data[:c.N*c.Dim]
	} else {
		d.v = randVectors(r, c.N*c.Dim)
	}
	if c.Queries != nil {
		d.q = c.Queries.Row(0)
	} else {
		d.q = randVectors(r, c.Dim)
	}
	d.ref = newCosineRef(d.q, d.v, c.Dim)
	d.stop = c.Stop
	return d
}

// dataParams are the report parameters describing the data files c
// names among ps.
func (c Config) dataParams(ps ...*Param) []report.Param {
	var out []report.Param
	for _, p := range ps {
		var info *dataset.Info
		switch {
		case p == ParamVectors && c.Vectors != nil:
			info = &c.Vectors.Info
		case p == ParamQueries && c.Queries != nil:
			info = &c.Queries.Info
		case p == ParamGraph && c.Graph != nil:
			info = &c.Graph.Info
		}
		if info != nil {
			out = append(out, report.Param{Key: p.Name, Value: info.String()})
		}
	}
	return out
}

// Defaults fills zero fields with the parameters' defaults (Param).
func (c *Config) Defaults() {
	for _, p := range allParams {
		p.setDefault(c)
	}
}

// Knobs are the GPU settings a sweep varies; zero means the kernel's
// default.
type Knobs struct {
	Workgroup int
	Tile      int
	// Variant is the GPU design, one of the descriptor's Variants; "":
	// the first (the project's long-standing default).
	Variant string
}

// design returns the variant knob, or def when it is empty.
func (k Knobs) design(def string) string {
	if k.Variant != "" {
		return k.Variant
	}
	return def
}

// wg returns the workgroup size knob or the default.
func (k Knobs) wg() int {
	if k.Workgroup > 0 {
		return k.Workgroup
	}
	return compute.DefaultWorkgroup
}

// Descriptor is everything wgpu-prof knows about one workload. The
// experiment package iterates over descriptors and never names one.
type Descriptor struct {
	// Name is the workload's name on the command line and in reports.
	Name string
	// Doc says in one line what one call computes.
	Doc string
	// Batch names what the break-even's batch size counts ("n" rows, "q"
	// queries, "nodes"), with BatchDoc saying it in words.
	Batch, BatchDoc string
	// Params lists the parameters the workload reads; the others are
	// ignored for it. ParamWG and ParamTile say which GPU knobs the
	// workgroup and tile sweeps may vary.
	Params []*Param
	// Variants lists the GPU designs of the workload (Knobs.Variant), the
	// first the default when no selection was made; each is verified
	// against the same reference. Selection by measurement
	// (experiment.SelectVariants) picks the fastest per adapter.
	Variants []string
	// KernelRev is the revision of the designs' kernels, raised when a
	// design gains a kernel (a stored precision) or changes one, so that
	// a selection cached before is measured again; 0 for the first.
	KernelRev int
	// MemCompute is the memory-vs-compute shader family of the workload's
	// GPU kernel (compute.NewMemCompute), "" when it has none.
	MemCompute string
	// Workload is the workload's own behaviour: its data, checks, idle
	// lanes and CPU-only shapes (Descriptor.Prepare, Check, Idle, Host).
	Workload Workload
	// NameWords matches words of a function name that say it does this
	// workload's work (plan --suggest); "" when no name says so.
	// NameOrder ranks the descriptors' NameWords, most specific (lowest)
	// first, since a name such as "topScores" matches several.
	NameWords string
	NameOrder int
	// rank orders the registry (the default suite's run order).
	rank int
}

// HostSizes size the CPU-only suite.
type HostSizes struct {
	Dim     int // vector dimension
	N       int // rows of an out-of-cache (DRAM) working set
	NCached int // rows of a cache-resident working set
	Q       int // queries of batch shapes
	Seed    uint64
}

// HostShape is one configuration of the CPU-only suite.
type HostShape struct {
	// Cache says where the working set lives: "dram" or "resident".
	Cache  string
	Config Config
	Batch  int
}

// CheckVariant returns an error naming the variant and the workload's
// list when v is not one of its designs ("" is the default).
func (d *Descriptor) CheckVariant(v string) error {
	if v == "" {
		return nil
	}
	for _, x := range d.Variants {
		if x == v {
			return nil
		}
	}
	return fmt.Errorf("%s: variant %q: have %s", d.Name, v, strings.Join(d.Variants, ", "))
}

// Has reports whether the workload reads the parameter called name (e.g.
// "wg", "tile").
func (d *Descriptor) Has(name string) bool {
	for _, p := range d.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// BatchParam is the parameter the workload's batch size counts.
func (d *Descriptor) BatchParam() *Param { return LookupParam(d.Batch) }

// Prepared is a workload's generated data, ready to build cases.
type Prepared struct {
	// Size is the default batch size (the size `run` reports).
	Size int
	// MinBatch is the smallest batch of the default break-even sweep
	// (0: 1).
	MinBatch int
	// Fixed are the parameters that stay fixed across batch sizes.
	Fixed []report.Param
	// Cases builds the cases (Prepared.At).
	Cases CaseBuilder
}

// Workload is what each workload implements.
type Workload interface {
	// Prepare generates the data (with its float64 reference) once.
	Prepare(c Config) (*Prepared, error)
	// Check validates the configuration beyond the checks every
	// workload shares (Config.Validate); nil when it passes.
	Check(c Config) error
	// Idle says what part of a workgroup (or tile) does no work at
	// config c and knobs k, "" when all of it works.
	Idle(c Config, k Knobs) string
	// HostShapes lists the shapes the CPU-only suite measures; nil: the
	// workload is not part of it.
	HostShapes(h HostSizes) []HostShape
}

// Prepare generates the data (with its float64 reference) once; the
// returned Prepared builds cases at any batch size up to Size.
func (d *Descriptor) Prepare(c Config) (*Prepared, error) { return d.Workload.Prepare(c) }

// Check validates the configuration for this workload beyond the checks
// every workload shares (Config.Validate).
func (d *Descriptor) Check(c Config) error { return d.Workload.Check(c) }

// Idle says what part of a workgroup (or tile) does no work at config c
// and knobs k ("" when all of it works): the sweeps print it next to the
// point so a slow configuration is explained.
func (d *Descriptor) Idle(c Config, k Knobs) string { return d.Workload.Idle(c, k) }

// Host lists the shapes the CPU-only suite (wgpu-prof host) measures;
// nil: the workload is not part of it.
func (d *Descriptor) Host(h HostSizes) []HostShape { return d.Workload.HostShapes(h) }

// CaseBuilder builds a prepared workload's case at one batch size.
type CaseBuilder interface {
	Case(n int, k Knobs) Case
}

// At builds the case at batch size n (1 ≤ n ≤ Size) with the given GPU
// knobs.
func (p *Prepared) At(n int, k Knobs) Case { return p.Cases.Case(n, k) }

// Case is one workload at one configuration, with both sides.
type Case struct {
	Name    string
	Variant string // GPU variant label (e.g. "wg64", "tile32")
	Params  []report.Param
	// Bytes is the fewest bytes the operation must move (each input read
	// once, each output written once); Flops its arithmetic.
	Bytes, Flops float64
	// Passes is how many launches the GPU side makes per call (a spreading
	// step each); 0 means 1. The memory-vs-compute probes launch as many.
	Passes int
	// GPU builds the GPU side; nil: no GPU side.
	GPU GPUBuilder
	// CPU builds the host-SIMD side; nil: no CPU side.
	CPU CPUBuilder
	// Twin, if set, is how a user's GPU kernel computing the same
	// operation is fed and checked (wgpu-prof kernel --cpu-twin).
	Twin *TwinIO
}

// GPUBuilder builds a case's GPU side on g's device.
type GPUBuilder interface {
	BuildGPU(g GPU) (Side, error)
}

// CPUBuilder builds a case's host-SIMD side running with host (its level
// and threads).
type CPUBuilder interface {
	BuildCPU(host hostsimd.Host) (Side, error)
}

// TwinIO is a case's inputs and output as a user's kernel sees them:
// float32 storage buffers by name, and the check of the output against
// the case's float64 reference.
type TwinIO struct {
	// Inputs are the buffers the kernel reads, by WGSL variable name.
	Inputs map[string][]float32
	// Output names the buffer the kernel writes, OutLen its float32 count.
	Output string
	OutLen int
	// Doc says in one line what the kernel must compute.
	Doc string
	// ref is the output's float64 reference (Check).
	ref cosineRef
}

// Check verifies the output of the user's kernel against the reference.
func (t *TwinIO) Check(out []float32) error { return t.ref.check("user kernel "+t.Output, out) }

// GPU is what a case's GPU side runs with.
type GPU struct {
	Device *wgpu.Device
	// Timer times the passes with timestamp queries; nil: host clock only.
	Timer *wgpu.Timer
	// Sampler turns a runner's Timing into a timing.Sample; the experiment
	// package sets it to record traces. Nil: SampleOf.
	Sampler Sampler
}

// Sampler turns the Timing of the call named name, started at start, into
// a timing.Sample.
type Sampler interface {
	GPUSample(name string, start time.Time, t compute.Timing, err error) (timing.Sample, error)
}

func (g GPU) sample(name string, start time.Time, t compute.Timing, err error) (timing.Sample, error) {
	if g.Sampler != nil {
		return g.Sampler.GPUSample(name, start, t, err)
	}
	return SampleOf(t, err)
}

// SampleOf converts a runner's Timing into a timing.Sample.
func SampleOf(t compute.Timing, err error) (timing.Sample, error) {
	return timing.Sample{Host: t.EndToEnd, Kernel: t.Kernel, HasKernel: t.KernelValid}, err
}

// Side is one side of a case, ready to run. Each workload side is a named
// type implementing it.
type Side interface {
	// Poison fills the outputs with NaN (or impossible values) so a kernel
	// that writes nothing cannot pass verification.
	Poison()
	// Run performs one call and reports its times.
	Run() (timing.Sample, error)
	// Verify checks the outputs of the last run against the reference.
	Verify() error
	// Close frees what the side allocated (GPU buffers).
	Close()
}

// CloseSide closes s unless it is nil.
func CloseSide(s Side) {
	if s != nil {
		s.Close()
	}
}

// cpuSample times fn on the host's fine clock (timing/clock).
func cpuSample(fn func() error) (timing.Sample, error) {
	start := clock.Now()
	err := fn()
	return timing.Sample{Host: clock.Since(start)}, err
}

var registry []*Descriptor

// register adds d to the registry; each descriptor file calls it from init.
func register(d *Descriptor) {
	for _, x := range registry {
		if x.Name == d.Name {
			panic("workload: " + d.Name + " registered twice")
		}
	}
	registry = append(registry, d)
	sort.SliceStable(registry, func(i, j int) bool { return registry[i].rank < registry[j].rank })
}

// All returns every workload, in the default suite's order.
func All() []*Descriptor { return append([]*Descriptor(nil), registry...) }

// Names returns the names of every workload, in order.
func Names() []string {
	out := make([]string, len(registry))
	for i, d := range registry {
		out[i] = d.Name
	}
	return out
}

// Lookup returns the workload called name.
func Lookup(name string) (*Descriptor, error) {
	for _, d := range registry {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown workload %q (have %s)", name, strings.Join(Names(), ", "))
}

// Parse parses a comma-separated list of workload names ("" or "all":
// every one).
func Parse(s string) ([]*Descriptor, error) {
	if s == "" || s == "all" {
		return All(), nil
	}
	var out []*Descriptor
	for _, w := range strings.Split(s, ",") {
		d, err := Lookup(strings.TrimSpace(w))
		if err != nil {
			return nil, err
		}
		for _, x := range out {
			if x == d {
				return nil, fmt.Errorf("workload %q named twice", d.Name)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Validate checks what every workload shares: every parameter in its
// declared range, a dimension the vec4 kernels can load, and stored
// vectors the device can hold in chunks of its buffer limit.
// Descriptor.Check adds the rest. Its errors are *ParamErrors.
func (c Config) Validate(lim wgpu.Limits, adapter string) error {
	for _, p := range allParams {
		if err := p.Check(c); err != nil {
			return err
		}
	}
	if c.Dim%4 != 0 {
		return invalid(ParamD.Name, c.Dim, "the GPU kernels load vec4s; the dimension must be a multiple of 4")
	}
	if need := uint64(c.N) * uint64(c.Dim) * 4; need > lim.MaxBufferSize*64 {
		return invalid(ParamD.Name, c.Dim, "with n %d stored vectors that is %d bytes, past what %q can hold in chunks of maxBufferSize %d", c.N, need, adapter, lim.MaxBufferSize)
	}
	return nil
}

func p(key string, v any) report.Param { return report.Param{Key: key, Value: fmt.Sprint(v)} }

// params builds report parameters from key, value pairs.
func params(kv ...any) []report.Param {
	out := make([]report.Param, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, p(fmt.Sprint(kv[i]), kv[i+1]))
	}
	return out
}
