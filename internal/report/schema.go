package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// SchemaVersion identifies the JSON layout written by this package. Readers
// reject any other value; bump it on any incompatible change.
const SchemaVersion = "wgpu-prof/v1"

// Errors returned by Read and Validate.
var (
	ErrSchema  = errors.New("report: unsupported schema version")
	ErrCorrupt = errors.New("report: corrupt report")
	ErrInvalid = errors.New("report: invalid report")
)

// Sides of a measurement.
const (
	SideGPU = "gpu"
	SideCPU = "cpu"
)

// Report is one run of wgpu-prof. All times are in seconds, rates in GB/s
// and GFLOP/s (10⁹), sizes in bytes.
type Report struct {
	Schema            string      `json:"schema"` // SchemaVersion
	Tool              string      `json:"tool"`   // e.g. "wgpu-prof v0.1.0"
	WgpuNativeVersion string      `json:"wgpu_native_version"`
	Created           time.Time   `json:"created"`
	Adapter           AdapterInfo `json:"adapter"`
	Host              HostInfo    `json:"host"`
	Ceilings          Ceilings    `json:"ceilings"`
	// Data describes the user's data files the workloads ran on, if any.
	Data []DataFile `json:"data,omitempty"`
	// CeilingPasses are the CPU read ceilings' passes (DRAM and each
	// cache level), each with the host's state around it (HostState).
	CeilingPasses []CeilingPass `json:"ceiling_passes,omitempty"`
	// Staircase is the working-set sweep of read bandwidth and the memory
	// levels found in it (run).
	Staircase *Staircase `json:"staircase,omitempty"`
	// Latency is the anatomy of one GPU call on the adapter (round trip,
	// cost per dispatch, readback and upload curves), measured by run and
	// by the latency command.
	Latency *timing.Anatomy `json:"latency,omitempty"`

	Measurements []Measurement `json:"measurements"`
	BreakEvens   []BreakEven   `json:"break_evens,omitempty"`
	Sweeps       []Sweep       `json:"sweeps,omitempty"`
	Experiments  []Experiment  `json:"experiments,omitempty"`
	Hybrid       *Hybrid       `json:"hybrid,omitempty"`
	// Skipped lists the workloads the run could not measure on an
	// adapter, each with the reason; the other workloads are measured.
	Skipped []Skip `json:"skipped,omitempty"`
	Plan    *Plan  `json:"plan,omitempty"`
	// Backends is set when the suite ran on several adapters: the adapters
	// and the workloads side by side (Adapter is then the first one).
	Backends *Backends `json:"backends,omitempty"`

	// Verdicts are the answers, one line per workload or point (the
	// answer, its interval, its confidence and what it was judged
	// against); the text and HTML reports lead with them. Summary holds
	// the details behind them (fits, what was timed, choices made).
	Verdicts []string `json:"verdicts,omitempty"`
	// Asked holds the answers to what the flags asked for (--batch-mix,
	// --amdahl, …), printed first in the answer block (AnswerLines).
	Asked []Asked `json:"asked,omitempty"`
	// Noise says how noisy the measurements were and whether that makes
	// the conclusions tentative; nil when not assessed.
	Noise *Noise `json:"noise,omitempty"`
	// Summary holds the plain-language details printed with --verbose.
	Summary  []string `json:"summary,omitempty"`
	Warnings []string `json:"warnings,omitempty"` // run-level warnings
	// Incomplete, when not empty, says why the run stopped before it
	// finished: the report holds only the rows measured before. Every
	// output format says so (IncompleteMark), and compare refuses such a
	// report unless asked to take it.
	Incomplete string `json:"incomplete,omitempty"`
}

// IncompleteMark starts the line by which every output format of an
// interrupted run says it is incomplete.
const IncompleteMark = "INCOMPLETE"

// IncompleteReason returns why r is incomplete and whether it is: its
// Incomplete field, or (for reports written before that field) a run-level
// warning starting with IncompleteMark.
func (r *Report) IncompleteReason() (string, bool) {
	if r == nil {
		return "", false
	}
	if r.Incomplete != "" {
		return r.Incomplete, true
	}
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, IncompleteMark) {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(w, IncompleteMark), ":")), true
		}
	}
	return "", false
}

// Skip is a workload not measured on an adapter: none of its GPU designs
// can run there (a feature the adapter lacks, a compile error, a limit).
type Skip struct {
	Workload string `json:"workload"`
	Backend  string `json:"backend"`
	Adapter  string `json:"adapter"`
	Reason   string `json:"reason"`
}

// DataFile is one data file a run read in place of generated data.
type DataFile struct {
	Param  string `json:"param"`  // the parameter that named it: vectors, queries, graph
	File   string `json:"file"`   // base name
	Format string `json:"format"` // npy, fvecs, bvecs, raw-f32, edges, mtx
	// Shape is rows × columns of vectors, or nodes × edges of a graph.
	Shape  [2]int `json:"shape"`
	DType  string `json:"dtype"`
	SHA256 string `json:"sha256_prefix"`
	// PaddedTo is the dimension after zero padding (0: not padded).
	PaddedTo int `json:"padded_to,omitempty"`
	// Used is how many rows (nodes) the run used, a prefix of the file.
	Used int `json:"used"`
}

// AdapterInfo describes the GPU adapter as wgpu reports it.
type AdapterInfo struct {
	Name       string `json:"name"`
	Vendor     string `json:"vendor"`
	Backend    string `json:"backend"`     // "vulkan", "metal", "dx12", …
	DeviceType string `json:"device_type"` // "discrete", "integrated", "cpu", …
	Driver     string `json:"driver"`
	// Implementation is the WebGPU implementation the adapter was reached
	// through ("wgpu-native", "dawn") and ImplementationVersion its version.
	Implementation        string `json:"implementation,omitempty"`
	ImplementationVersion string `json:"implementation_version,omitempty"`
	// TimestampsOK is true when timestamp queries were available and passed
	// the sanity checks; kernel times are absent otherwise.
	TimestampsOK bool `json:"timestamps_ok"`
}

// HostInfo describes the CPU side.
type HostInfo struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	SIMDLevel string `json:"simd_level"` // e.g. "avx2", "neon", "generic"
}

// Ceilings are the measured (never datasheet) limits of this machine, keyed
// by names such as "read_gbs", "write_gbs", "copy_gbs", "fma_gflops"; CPU
// keys may carry a "_1core" suffix for the single-core figures.
type Ceilings struct {
	GPU map[string]float64 `json:"gpu,omitempty"`
	CPU map[string]float64 `json:"cpu,omitempty"`
}

// Param is one workload parameter. Params are kept ordered so names, keys
// and tables are deterministic.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Measurement is one workload at one configuration on one side.
type Measurement struct {
	Workload string  `json:"workload"` // e.g. "cosine-single"
	Side     string  `json:"side"`     // SideGPU or SideCPU
	Variant  string  `json:"variant"`  // e.g. "wg256", "avx2"
	Params   []Param `json:"params,omitempty"`
	// Backend and Adapter name the WebGPU backend ("vulkan", "gl", …) and
	// adapter of the run the row belongs to (for a CPU row, the run's GPU
	// side it is compared with); empty in reports written before rows
	// named them.
	Backend string `json:"backend,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	// Implementation is the WebGPU implementation of the run the row
	// belongs to, in a report of several implementations side by side.
	Implementation string `json:"implementation,omitempty"`

	// Kernel is the GPU timestamp time; nil on the CPU side and when
	// timestamps were unavailable or failed the sanity check.
	Kernel   *timing.Summary `json:"kernel,omitempty"`
	EndToEnd timing.Summary  `json:"end_to_end"` // host clock, what an application pays

	// Raw samples in seconds, optional; when present Compare uses a
	// Mann-Whitney U-test instead of CI overlap.
	Samples       []float64 `json:"samples,omitempty"`
	KernelSamples []float64 `json:"kernel_samples,omitempty"`

	Bytes       float64 `json:"bytes"`        // minimum traffic: inputs read once, outputs written once
	Flops       float64 `json:"flops"`        // floating-point operations
	GBs         float64 `json:"gbs"`          // Bytes over the best available time (kernel, else end-to-end)
	GFLOPs      float64 `json:"gflops"`       // Flops over the same time
	CeilingFrac float64 `json:"ceiling_frac"` // fraction of the limiting measured ceiling
	// ReadCeiling is the key, in the side's Ceilings map, of the read
	// bandwidth a memory-bound row is judged against ("read_gbs" for
	// DRAM, "read_gbs_llc", "cache_read_gbs", ...); "" means "read_gbs".
	ReadCeiling string `json:"read_ceiling,omitempty"`
	// ComputeCeiling is the key of the compute peak a compute-bound row
	// is judged against when it is not "fma_gflops": "int8_gops" for an
	// int8 row (its Flops and GFLOPs are then integer ops, 2 per byte
	// product, and its intensity Flops/Bytes is in ops per byte).
	ComputeCeiling string `json:"compute_ceiling,omitempty"`
	Bound          string `json:"bound"`    // "memory" or "compute" (roofline), "" if unknown
	Verified       bool   `json:"verified"` // output matched the reference
	// RoundTripShare is, on a GPU row of a report with a latency
	// anatomy, the tiny call's round trip over the row's end-to-end
	// median (at most 1): the part no faster kernel removes.
	RoundTripShare *float64 `json:"round_trip_share,omitempty"`
	// State is the host's state probed before the row (CPU rows at the
	// DRAM level, GPU rows); StateEnd the probe after it, when it
	// differs. A CPU row is judged only against a ceiling pass of State.
	State    *HostState `json:"host_state,omitempty"`
	StateEnd *HostState `json:"host_state_end,omitempty"`
	Warnings []string   `json:"warnings,omitempty"`
}

// Time returns the summary the rates are based on: Kernel when present,
// else EndToEnd.
func (m *Measurement) Time() timing.Summary {
	if m.Kernel != nil {
		return *m.Kernel
	}
	return m.EndToEnd
}

// ParamString formats the params as "k=v k=v" (empty when there are none).
func (m *Measurement) ParamString() string { return paramString(m.Params, " ") }

// Key identifies a measurement across reports: workload, side, variant and
// params.
func (m *Measurement) Key() string {
	return strings.Join([]string{m.Workload, m.Side, m.Variant, paramString(m.Params, ",")}, "|")
}

func paramString(ps []Param, sep string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return strings.Join(parts, sep)
}

// Crossover is the JSON form of timing.Crossover: Hi is null when the
// interval is unbounded above (JSON has no infinity).
type Crossover struct {
	Kind string   `json:"kind"` // timing.CrossAt, CrossNever, CrossAlways, CrossBelow
	N    float64  `json:"n"`
	Lo   float64  `json:"lo"`
	Hi   *float64 `json:"hi"`
}

// NewCrossover converts a timing.Crossover to its JSON form.
func NewCrossover(c timing.Crossover) Crossover {
	out := Crossover{Kind: c.Kind, N: c.N, Lo: c.Lo}
	if !math.IsInf(c.Hi, 0) && !math.IsNaN(c.Hi) {
		hi := c.Hi
		out.Hi = &hi
	}
	return out
}

// String formats the crossover as "at 20.8k [18.1k, 24.0k]", "at 479
// [320, unbounded)", "at 479 (CI unbounded)", "always", "never" or "below
// 12": an interval from zero to infinity says nothing and is not printed.
func (c Crossover) String() string {
	switch c.Kind {
	case timing.CrossAt, timing.CrossBelow:
		return fmt.Sprintf("%s %s %s", c.Kind, formatCount(c.N), ciString(c.Lo, c.Hi))
	}
	return c.Kind
}

// ciString formats a count interval: "[18.1k, 24.0k]", "[320, unbounded)",
// "(CI unbounded)" when it runs from 0 (or below) to infinity.
func ciString(lo float64, hi *float64) string {
	switch {
	case hi == nil && lo <= 0:
		return "(CI unbounded)"
	case hi == nil:
		return fmt.Sprintf("[%s, unbounded)", formatCount(lo))
	}
	return fmt.Sprintf("[%s, %s]", formatCount(lo), formatCount(*hi))
}

// CIString formats a crossover's interval as String does.
func CIString(lo float64, hi *float64) string { return ciString(lo, hi) }

// BreakEven is the batch-size sweep of one workload on both sides and the
// crossover derived from it (METHOD.md, "Break-even").
type BreakEven struct {
	Workload string `json:"workload"`
	// Backend and Adapter name the WebGPU backend and adapter the sweep
	// ran on (empty in reports written before they were recorded).
	Backend string `json:"backend,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	// Implementation names the WebGPU implementation when a report holds
	// several side by side (run --impl wgpu-native,dawn).
	Implementation string  `json:"implementation,omitempty"`
	Params         []Param `json:"params,omitempty"` // fixed params; the batch size varies
	// Batch names what the batch size counts ("n", "q", "nodes").
	Batch string `json:"batch,omitempty"`
	// Clock is "end-to-end" (the deciding one) or "kernel".
	Clock   string           `json:"clock"`
	Batches []int            `json:"batches"`
	CPU     []timing.Summary `json:"cpu"` // per batch
	GPU     []timing.Summary `json:"gpu"` // per batch
	CPUFit  timing.LinearFit `json:"cpu_fit"`
	GPUFit  timing.LinearFit `json:"gpu_fit"`
	Fitted  Crossover        `json:"fitted"`
	// Measured is the first batch from which the GPU's CI stays below the
	// CPU's (timing.MeasuredCrossover); valid when MeasuredFound.
	Measured      int  `json:"measured"`
	MeasuredFound bool `json:"measured_found"`
	// RelError is (fitted − measured)/measured when both exist.
	RelError float64 `json:"rel_error"`

	// Sides names the two executors compared, e.g. ["cpu:threads=1",
	// "cpu:threads=2"] or ["cpu", "gpu"]: side A's data are in CPU and
	// CPUFit, side B's in GPU and GPUFit, and a crossover is where B
	// becomes faster than A. Empty in reports of the older GPU-vs-CPU form.
	Sides []string `json:"sides,omitempty"`
	// Timed says exactly what is timed on each side.
	Timed string `json:"timed,omitempty"`
	// Search is the measured crossover of the adaptive search: found, the
	// interval [lo, hi] with the measurements at both ends, and why the
	// search stopped.
	Search *timing.SearchResult `json:"search,omitempty"`
	// ModelA and ModelB are the constrained fits per regime (one segment,
	// or two at a knee) of sides A and B.
	ModelA *timing.Model `json:"model_a,omitempty"`
	ModelB *timing.Model `json:"model_b,omitempty"`
	// Predicted is the crossover of the two models with its range of
	// validity; Extrapolated when it lies outside the measured range.
	Predicted *Predicted `json:"predicted,omitempty"`
	// PredictedError is the prediction's relative distance to the measured
	// interval (0 inside it; timing.IntervalError), when both exist.
	PredictedError *float64 `json:"predicted_error,omitempty"`
	// TheorySpeedup is the roofline speedup of B over A at the largest
	// batch (each side's ceiling-bound time), next to MeasuredSpeedup (A's
	// median over B's); 0 when unknown.
	TheorySpeedup   float64 `json:"theory_speedup,omitempty"`
	MeasuredSpeedup float64 `json:"measured_speedup,omitempty"`
	// FixedCost checks a GPU side's fitted fixed cost against the latency
	// anatomy's round trip (end-to-end clock, with an anatomy).
	FixedCost *FixedCostCheck `json:"gpu_fixed_cost,omitempty"`
	// Parts breaks side B's end-to-end time at the largest batch into its
	// parts (upload, kernel, dispatch + wait + readback) when B is a GPU.
	Parts []TimePart `json:"parts,omitempty"`
	// Mix prices the application's batch mix (--batch-mix) with the two
	// models, routed at the crossover.
	Mix *MixResult `json:"mix,omitempty"`

	// Verdict is the outcome judged on the measured points alone
	// (timing.JudgeCrossover): crossover, never, always or inconclusive;
	// "" in reports written before verdicts existed.
	Verdict string `json:"verdict"`
	// Interval is the pair of measured sizes the verdict rests on: the
	// bracket of the change of the faster side (crossover), or the range
	// measured (the other verdicts).
	Interval []int `json:"interval,omitempty"`
	// BFaster is where side B is faster, [from, to) with to null when B
	// stays faster up to the largest size measured (crossover, always).
	BFaster *Range `json:"b_faster,omitempty"`
	// Reason says why this verdict, in words.
	Reason string `json:"reason,omitempty"`
	// Remeasured lists the sizes measured a second time, the two sides
	// interleaved, because the first pass saw the faster side change there.
	Remeasured []int `json:"remeasured,omitempty"`
	// Tentative is true when noise may decide the verdict: more than a
	// quarter of its measurements vary beyond the CV limit.
	Tentative bool `json:"tentative,omitempty"`
	// Regime is the GPU side's data regime: "resident" (V uploaded once)
	// or "shipped" (V uploaded with every call); "" without a GPU side.
	Regime string `json:"regime,omitempty"`
}

// Plan is the port-or-not decision matrix for an application's CPU
// profile (wgpu-prof plan): per operation its share of CPU time, its batch
// sizes, the time per call on each side, the speedup on those calls and
// the verdict, ranked by the share of application time saved; and the
// application's speedup by Amdahl's law with every ported operation on
// the GPU.
type Plan struct {
	Profile      string   `json:"profile"`
	TotalSamples int64    `json:"total"` // the profile's total, in Unit
	Unit         string   `json:"unit"`
	MinShare     float64  `json:"min_share"`
	Ops          []PlanOp `json:"ops"`
	// PortedShare is Σ share over the ported operations; AppSpeedup is
	// 1/((1 − Σ share) + Σ share/speedup) over them.
	PortedShare float64 `json:"ported_share"`
	AppSpeedup  float64 `json:"app_speedup"`
	// Summary is the program summary (PlanSummary).
	Summary *PlanSummary `json:"summary,omitempty"`
	// Taxes are the GPU taxes the calls were priced with (nil: none).
	Taxes *PlanTaxes `json:"gpu_taxes,omitempty"`
	// Validation checks the predictions against a profile after the port.
	Validation *PlanValidation `json:"validation,omitempty"`
}

// PlanOp is one operation of a Plan.
type PlanOp struct {
	Regex    string `json:"regex"`
	Workload string `json:"workload"`
	// Precision is the stored precision the decision assumes when it is
	// not f32 ("f16", "int8"): its break-even is of those kernels.
	Precision string   `json:"precision,omitempty"`
	Functions []string `json:"functions"`
	// Share is the cumulative CPU time of the matching functions over the
	// profile's total (each sample once); Samples counts the samples.
	Share   float64 `json:"share"`
	Samples int64   `json:"samples"`
	MixFile string  `json:"mix_file,omitempty"`
	Sizes   []int   `json:"sizes"`
	Counts  []int64 `json:"counts"`
	// CPUPerCall and GPUPerCall are the models' seconds per call at Sizes.
	CPUPerCall []float64 `json:"cpu_per_call_s"`
	GPUPerCall []float64 `json:"gpu_per_call_s"`
	ValidFrom  float64   `json:"valid_from"`
	ValidTo    float64   `json:"valid_to"`
	Basis      string    `json:"basis"`
	// Speedup is the CPU-only time of the calls over their time routed at
	// the crossover, with its 95% CI.
	Speedup    float64    `json:"speedup"`
	SpeedupLo  float64    `json:"speedup_ci_lo"`
	SpeedupHi  float64    `json:"speedup_ci_hi"`
	Verdict    string     `json:"verdict"`
	Reason     string     `json:"reason"`
	Ported     bool       `json:"ported"`
	Return     float64    `json:"return"` // share × (1 − 1/speedup): the part of application time saved
	AppSpeedup float64    `json:"app_speedup"`
	Mix        *MixResult `json:"mix,omitempty"`
	// PlanCosts: the application's own time per call beside the tool's
	// CPU kernel and the GPU's parts, the verdict among the four choices,
	// and the route a dispatcher takes from it (planops.go).
	PlanCosts
}

// MixResult is a batch mix priced with a break-even's models: the share
// of calls at or above the crossover, the time per 1,000 calls on side A
// only, side B only and routed (B at and above the crossover), and the
// saving of routing against A only with its 95% CI (from the fits'
// coefficient uncertainty).
type MixResult struct {
	File     string   `json:"file"`
	Calls    int64    `json:"calls"`
	Distinct int      `json:"distinct_sizes"`
	Sides    []string `json:"sides"`
	// Crossover is the batch size from which calls are routed to side B
	// (0 when Route says every call or none); Route says it in words.
	Crossover         float64 `json:"crossover"`
	Route             string  `json:"route"`
	ShareAbove        float64 `json:"share_above"`
	PerThousandA      float64 `json:"per_1000_a_s"`
	PerThousandB      float64 `json:"per_1000_b_s"`
	PerThousandRouted float64 `json:"per_1000_routed_s"`
	Saving            float64 `json:"saving"`
	SavingLo          float64 `json:"saving_ci_lo"`
	SavingHi          float64 `json:"saving_ci_hi"`
	// Speedup is A-only over routed, with its 95% CI.
	Speedup   float64 `json:"speedup"`
	SpeedupLo float64 `json:"speedup_ci_lo"`
	SpeedupHi float64 `json:"speedup_ci_hi"`
	// Outside counts sizes outside a model's measured range.
	Outside int `json:"outside_range,omitempty"`
}

// Range is a range of batch sizes [From, To); To nil: unbounded above
// within what was measured.
type Range struct {
	From int  `json:"from"`
	To   *int `json:"to"`
}

// Noise is how noisy a run's measurements were: Noisy of Measurements
// time summaries have a 95% CI of the median wider than ±CILimit of it;
// Load is the host's one-minute
// load average at the end of the run over Cores logical cores (0:
// unknown). Tentative marks the run's conclusions as such.
type Noise struct {
	Measurements int     `json:"measurements"`
	Noisy        int     `json:"noisy"`
	CILimit      float64 `json:"ci_limit"`
	Load         float64 `json:"load,omitempty"`
	Cores        int     `json:"cores,omitempty"`
	Tentative    bool    `json:"tentative"`
}

// Verdicts of a break-even (BreakEven.Verdict).
var breakEvenVerdicts = map[string]bool{"": true, timing.VerdictCrossover: true, timing.VerdictNever: true, timing.VerdictAlways: true, timing.VerdictInconclusive: true}

// Predicted is a fitted crossover (the JSON form of timing.Prediction):
// the value, its 95% CI ([ci_lo, ci_hi]; ci_hi null when unbounded), the
// batch range both models were fitted on, and whether the value lies
// outside it.
type Predicted struct {
	Kind         string   `json:"kind"` // timing.CrossAt (B faster above), CrossBelow (B faster below), CrossAlways, CrossNever
	Value        float64  `json:"value"`
	CILo         float64  `json:"ci_lo"`
	CIHi         *float64 `json:"ci_hi"`
	ValidFrom    float64  `json:"valid_from"`
	ValidTo      float64  `json:"valid_to"`
	Extrapolated bool     `json:"extrapolated"`
	// Basis says which fits predicted it: the models over the whole
	// measured range, or the regime around the measured crossover.
	Basis string `json:"basis,omitempty"`
	// Refused, when set, says why the prediction is not used: a side's
	// model fits worse than timing.Policy.MinPredictR2.
	Refused string `json:"refused,omitempty"`
}

// NewPredicted converts a timing.Prediction to its JSON form.
func NewPredicted(p timing.Prediction) *Predicted {
	c := NewCrossover(p.Crossover)
	return &Predicted{Kind: c.Kind, Value: c.N, CILo: c.Lo, CIHi: c.Hi, ValidFrom: p.ValidFrom, ValidTo: p.ValidTo, Extrapolated: p.Extrapolated}
}

// TimePart is one part of an end-to-end time: its median seconds and its
// share of the whole.
type TimePart struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Share   float64 `json:"share"`
	// How says which clock measured it.
	How string `json:"how"`
}

// Sweep compares configurations of one workload (workgroup sizes, tile
// sizes, variants) at fixed data size.
type Sweep struct {
	Name     string       `json:"name"` // e.g. "workgroup size"
	Workload string       `json:"workload"`
	Side     string       `json:"side"`
	Points   []SweepPoint `json:"points"`
	// Best is the label of the fastest point (lowest median).
	Best string `json:"best,omitempty"`
	// Rejected lists configurations the adapter refused, with the reason.
	Rejected []Rejection `json:"rejected,omitempty"`
	// Verdict is the winner with its margin over the runner-up and the
	// significance test's outcome ("tie" when the CIs overlap).
	Verdict string `json:"verdict,omitempty"`
	// Notes flag a winner at an edge of the range and how the sweep was
	// extended.
	Notes []string `json:"notes,omitempty"`
	// Design is the GPU design swept (a workload's variant family, e.g.
	// "row-per-inv"), and DesignWhy why that one: the design run chooses
	// on this adapter, or forced by --variant.
	Design    string `json:"design,omitempty"`
	DesignWhy string `json:"design_why,omitempty"`
}

// Rejection is a sweep configuration that could not run.
type Rejection struct {
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// SweepPoint is one configuration of a Sweep.
type SweepPoint struct {
	Label  string         `json:"label"` // e.g. "wg=64"
	Params []Param        `json:"params,omitempty"`
	Time   timing.Summary `json:"time"`
	GBs    float64        `json:"gbs,omitempty"`
}

// Experiment is the memory-vs-compute experiment of METHOD.md: A reads
// only, B computes only, C is the full kernel.
type Experiment struct {
	Workload string         `json:"workload"`
	Side     string         `json:"side"`
	Params   []Param        `json:"params,omitempty"`
	A        timing.Summary `json:"a"`
	B        timing.Summary `json:"b"`
	C        timing.Summary `json:"c"`
	// E is the empty skeleton (launch, reduction, write-back) whose time
	// is subtracted from A, B and C before classifying; absent in reports
	// of the older, family-specific experiment.
	E              *timing.Summary       `json:"e,omitempty"`
	Classification timing.Classification `json:"classification"`
}

// New returns an empty report stamped with SchemaVersion, tool and time.
func New(tool string, created time.Time) *Report {
	return &Report{Schema: SchemaVersion, Tool: tool, Created: created}
}

// Read loads and validates a report. Errors name the file; a JSON syntax or
// type error also gives the line and column. A report with another schema
// version wraps ErrSchema, a malformed one ErrCorrupt, and one that decodes
// but breaks an invariant ErrInvalid.
func Read(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return Decode(data, path)
}

// Decode parses and validates a report held in memory; name is used in
// error messages.
func Decode(data []byte, name string) (*Report, error) {
	// Check the version first, so a future file is reported as such rather
	// than as a pile of unknown fields. Unmarshal also rejects anything
	// after the top-level object.
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrCorrupt, name, describeJSONError(data, err))
	}
	if head.Schema == nil {
		return nil, fmt.Errorf("%w: %s: no \"schema\" field (want %q)", ErrSchema, name, SchemaVersion)
	}
	if *head.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w: %s: schema %q, this build reads %q", ErrSchema, name, *head.Schema, SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrCorrupt, name, describeJSONError(data, err))
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

// describeJSONError turns a json error into "line:col: message" when the
// error carries an offset.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, int(syn.Offset))
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset))
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of file"
	}
	return err.Error()
}

// position converts a byte offset to a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Validate checks the invariants a reader may rely on and returns every
// violation found, joined, wrapping ErrInvalid.
func (r *Report) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...))
	}
	if r.Schema != SchemaVersion {
		errs = append(errs, fmt.Errorf("%w: schema %q, want %q", ErrSchema, r.Schema, SchemaVersion))
	}
	seen := map[string]int{}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		where := fmt.Sprintf("measurements[%d] (%s)", i, m.Key())
		if m.Workload == "" {
			bad("%s: empty workload", where)
		}
		if m.Side != SideGPU && m.Side != SideCPU {
			bad("%s: side %q, want %q or %q", where, m.Side, SideGPU, SideCPU)
		}
		// Rows of different backends (run --backend vulkan,gl) or
		// implementations (run --impl wgpu-native,dawn) may share a key;
		// within one backend and implementation a key appears once.
		if j, dup := seen[m.Key()+"|"+m.Backend+"|"+m.Implementation]; dup {
			bad("%s: duplicates measurements[%d]", where, j)
		}
		seen[m.Key()+"|"+m.Backend+"|"+m.Implementation] = i
		if err := checkSummary(m.EndToEnd); err != nil {
			bad("%s: end_to_end: %v", where, err)
		}
		if m.Kernel != nil {
			if err := checkSummary(*m.Kernel); err != nil {
				bad("%s: kernel: %v", where, err)
			}
		}
		for _, v := range []float64{m.Bytes, m.Flops, m.GBs, m.GFLOPs, m.CeilingFrac} {
			if v < 0 {
				bad("%s: negative size or rate %v", where, v)
				break
			}
		}
	}
	for i, b := range r.BreakEvens {
		if len(b.Batches) != len(b.CPU) || len(b.Batches) != len(b.GPU) {
			bad("break_evens[%d] (%s): %d batches, %d CPU and %d GPU summaries",
				i, b.Workload, len(b.Batches), len(b.CPU), len(b.GPU))
		}
		switch b.Fitted.Kind {
		case timing.CrossAt, timing.CrossAlways, timing.CrossNever, timing.CrossBelow, "":
		default:
			bad("break_evens[%d] (%s): unknown crossover kind %q", i, b.Workload, b.Fitted.Kind)
		}
		if !breakEvenVerdicts[b.Verdict] {
			bad("break_evens[%d] (%s): unknown verdict %q (want crossover, never, always or inconclusive)", i, b.Workload, b.Verdict)
		}
	}
	for i, s := range r.Sweeps {
		if len(s.Points) == 0 {
			bad("sweeps[%d] (%s): no points", i, s.Name)
		}
	}
	return errors.Join(errs...)
}

func checkSummary(s timing.Summary) error {
	if s.N <= 0 {
		return errors.New("no samples")
	}
	if !(s.Lo <= s.Median && s.Median <= s.Hi) {
		return fmt.Errorf("median %v outside its interval [%v, %v]", s.Median, s.Lo, s.Hi)
	}
	return nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// formatCount prints a batch size compactly: 950, 20.8k, 1.05M.
func formatCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return sig3(v/1e9) + "G"
	case a >= 1e6:
		return sig3(v/1e6) + "M"
	case a >= 1e4:
		return sig3(v/1e3) + "k"
	}
	return fmt.Sprintf("%.0f", v)
}
