package report

import (
	"encoding/json"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Estimate is a value with its 95% confidence interval.
type Estimate struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"ci_lo"`
	Hi    float64 `json:"ci_hi"`
}

// PlanCosts is an operation's cost per call on each side at the
// application's own sizes (means over its batch mix, seconds per call),
// and the choice they lead to.
type PlanCosts struct {
	// Calls is the number of calls the profile's time is spread over
	// (CallsFrom says where it comes from: "mix file", "--calls"; "" when
	// unknown); OwnPerCall is the profile's time for the operation over
	// them: the application's own code per call, its mean over the calls
	// (0 when Calls is 0).
	Calls      int64   `json:"calls"`
	CallsFrom  string  `json:"calls_from,omitempty"`
	OwnPerCall float64 `json:"own_mean_per_call_s"`
	// OwnBasis says how the own code's time per call is known at each
	// size: OwnLabels (its CPU time per size from the profile's pprof
	// labels over the mix's calls per size), OwnBenchmarks (Go
	// benchmarks of it per size), OwnMean (only its mean over the calls:
	// it is compared at the mean, never per size) or OwnNone (no call
	// count: unknown).
	OwnBasis string `json:"own_basis"`
	// OwnPerSize is the own code's seconds per call at each of Sizes
	// (with OwnBasis labels or benchmarks; empty with mean or none: no
	// curve is drawn that was not measured); OwnSamples the profile's
	// samples behind each (labels); OwnSource where it was measured (the
	// label key, the benchmark file and name); OwnNote what was not
	// measured directly (sizes interpolated, time without a label, the
	// benchmarks' scale to the profile's mean).
	OwnPerSize PerSize `json:"own_per_call_s,omitempty"`
	OwnSamples []int64 `json:"own_samples,omitempty"`
	OwnSource  string  `json:"own_source,omitempty"`
	OwnNote    string  `json:"own_note,omitempty"`
	// Comparisons are the three verdicts, each against its named
	// baseline: the GPU against the own code, the host SIMD kernel
	// against the own code, the GPU against the host SIMD kernel.
	Comparisons []PlanComparison `json:"comparisons,omitempty"`
	// ToolCPU is the tool's best CPU kernel per call (the break-even's
	// CPU model), with its CI from the fit's coefficients.
	ToolCPU Estimate `json:"tool_cpu_per_call_s"`
	// The GPU per call in parts: Kernel (GPU timestamps' model), Launch
	// (the fixed cost of one call apart from its kernel: encode, submit,
	// wait, map and read back), Transfer (the call's bytes at the
	// measured upload and readback rates; with Transfer "once" the
	// resident data is not counted per call); GPU is the measured
	// end-to-end model, plus the resident data's upload with "per-call".
	Kernel       Estimate `json:"gpu_kernel_per_call_s"`
	KernelSource string   `json:"gpu_kernel_source"`
	Launch       Estimate `json:"launch_tax_per_call_s"`
	LaunchSource string   `json:"launch_tax_source"`
	Transfer     Estimate `json:"transfer_tax_per_call_s"`
	TransferMode string   `json:"transfer"`
	// BytesUp and BytesDown are the bytes one call moves (means over the
	// mix), BytesResident the data a resident port uploads once.
	BytesUp       float64  `json:"bytes_up_per_call"`
	BytesDown     float64  `json:"bytes_down_per_call"`
	BytesResident float64  `json:"bytes_resident"`
	GPU           Estimate `json:"gpu_total_per_call_s"`
	// GPUVariant is the GPU kernel variant measured (the fastest of those
	// selected among), the one a port should use.
	GPUVariant string `json:"gpu_variant,omitempty"`
	// BoundedBy names what bounds the GPU's time per call: "launch tax",
	// "transfer tax", or the kernel's roofline bound ("memory (dram) at
	// 43% of its ceiling", "compute at 12% of its ceiling").
	BoundedBy string `json:"bounded_by"`
	// SpeedupSIMD is the application's own time over the tool's CPU
	// kernel; SpeedupGPU the application's own time over its calls routed
	// to the GPU where the GPU beats its own code, with its CI.
	SpeedupSIMD Estimate `json:"speedup_simd"`
	SpeedupGPU  Estimate `json:"speedup_gpu"`
	// Choice is the largest win: "keep", "use the host SIMD kernel",
	// "port to the GPU" or "route by size"; ChoiceReason names its
	// dominant cost.
	Choice       string `json:"choice"`
	ChoiceReason string `json:"choice_reason"`
	// ChoiceBaseline is what the choice is measured against ("own code",
	// or "host SIMD" without the own code's time); ChoiceSpeedup its
	// speedup on the operation's calls, ChoiceAppSpeedup the
	// application's with it alone (Amdahl).
	ChoiceBaseline   string  `json:"choice_baseline"`
	ChoiceSpeedup    float64 `json:"choice_speedup"`
	ChoiceAppSpeedup float64 `json:"choice_app_speedup"`
	// Warning flags a likely wrong mapping: own and tool CPU times per
	// call more than 10× apart.
	Warning string `json:"warning,omitempty"`
	// Route is what a dispatcher needs to route the operation's calls.
	Route *PlanRoute `json:"route,omitempty"`
	// Predicted is the operation's time per call after the port (the
	// routed mix), which plan --validate checks.
	Predicted float64 `json:"predicted_per_call_s"`
	// PredictedGPU is its time per call with every call on the GPU.
	PredictedGPU float64 `json:"predicted_gpu_per_call_s"`
}

// PlanRoute is an operation's route: the models (seconds per call at a
// batch size) of its CPU side, the application's own code, and of its
// GPU side, and the size from which the GPU is faster (0: every size;
// -1: none).
//
// OwnBasis is the own code's basis (PlanCosts.OwnBasis; "" for a route
// over the tool's CPU kernel). With labels or benchmarks CPU is the own
// code's measured curve; with mean it is nil: the own code is known only
// at its mean, OwnMean, against the GPU's mean over the same calls,
// GPUMean, and the route keeps the plan's decision (Crossover 0 or -1)
// at every size until it has timed the own code's calls
// (dispatch.RouteFromReport).
type PlanRoute struct {
	Sides     []string      `json:"sides"`
	CPU       *timing.Model `json:"cpu_model"`
	GPU       *timing.Model `json:"gpu_model"`
	Crossover float64       `json:"crossover"`
	OwnBasis  string        `json:"own_basis,omitempty"`
	OwnMean   float64       `json:"own_mean_per_call_s,omitempty"`
	GPUMean   float64       `json:"gpu_mean_per_call_s,omitempty"`
}

// The own code's bases (PlanCosts.OwnBasis).
const (
	OwnLabels     = "labels"
	OwnBenchmarks = "benchmarks"
	OwnMean       = "mean"
	OwnNone       = "none"
)

// PlanComparison is one verdict against a named baseline: the candidate
// ("gpu", "host simd") against the baseline ("own code", "host simd")
// over the operation's calls, the candidate taking the calls from
// Crossover on (0: every call; -1: none). At says where they were
// compared: "per size" (both known at every size of the mix) or "at the
// mean" (the own code known only at its mean: all calls or none).
// Speedup is the baseline's time over the routed time on the calls,
// with its 95% CI (1 when no call is routed); Verdict says it in words,
// naming both.
type PlanComparison struct {
	Candidate string   `json:"candidate"`
	Baseline  string   `json:"baseline"`
	At        string   `json:"at"`
	Crossover float64  `json:"crossover"`
	Share     float64  `json:"share_to_candidate"`
	Speedup   Estimate `json:"speedup"`
	// SpeedupAll is the baseline's time over the candidate's with every
	// call on the candidate (below 1: slower).
	SpeedupAll float64 `json:"speedup_every_call"`
	Verdict    string  `json:"verdict"`
}

// PerSize is a time per call at each size of a mix (seconds). It reads
// the older layout's single number under the same name (the mean per
// call, from before plans measured sizes) as no sizes.
type PerSize []float64

// UnmarshalJSON reads an array, or a bare number as none.
func (p *PerSize) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" || (s != "" && s[0] != '[') {
		*p = nil
		return nil
	}
	var xs []float64
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	*p = xs
	return nil
}

// PlanSummary is the program summary in the terms of offload modeling:
// application time before and after (seconds, the profile's total),
// the fraction of it ported and the number of operations ported, the
// speedup of the ported code and the application's (Amdahl) with its
// CI, and the top ported and not-ported operations with their reasons.
type PlanSummary struct {
	TimeBefore     float64  `json:"time_before_s"`
	TimeAfter      float64  `json:"time_after_s"`
	FractionPorted float64  `json:"fraction_ported"`
	NumberPorted   int      `json:"number_ported"`
	PortedSpeedup  float64  `json:"ported_code_speedup"`
	AppSpeedup     Estimate `json:"amdahl_speedup"`
	TopPorted      string   `json:"top_ported,omitempty"`
	TopNotPorted   string   `json:"top_not_ported,omitempty"`
	// BestSpeedup is the application's speedup with each operation's
	// choice (the host SIMD kernel where it wins); BestPlan says that
	// plan in words, each operation's choice with its speedup against
	// the operation's own code.
	BestSpeedup float64 `json:"best_choice_speedup"`
	BestPlan    string  `json:"best_plan,omitempty"`
	MinSpeedup  float64 `json:"min_speedup"`
	Transfer    string  `json:"transfer"`
}

// PlanTaxes are the GPU's taxes a plan priced its calls with: the launch
// tax (seconds a call) and the upload and readback rates (bytes per
// second), each with its CI, and how they were measured.
type PlanTaxes struct {
	Launch   Estimate `json:"launch_s"`
	Upload   Estimate `json:"upload_bytes_per_s"`
	Readback Estimate `json:"readback_bytes_per_s"`
	Source   string   `json:"source"`
}

// PlanValidation compares a plan's predictions with a profile of the
// application after the port (plan --validate): per operation, as it was
// ported (keep, simd, gpu, routed), and for the application where every
// operation stayed on the host, the predicted and measured time
// (seconds), each like with like (CPU time with CPU time, wall time with
// wall time), the error (predicted − measured)/measured, flagged above
// Limit.
type PlanValidation struct {
	After string `json:"after"`
	// Ported is --ported as given: how each operation ran after the port.
	Ported string          `json:"ported"`
	Limit  float64         `json:"limit"`
	Ops    []ValidatedTime `json:"ops"`
	// App is the application's time (nil: not validated, AppNote says
	// why).
	App     *ValidatedTime `json:"app,omitempty"`
	AppNote string         `json:"app_note,omitempty"`
	// WallBefore and WallAfter are the benchmark outputs the wall times
	// were read from ("": none given).
	WallBefore string `json:"wall_before,omitempty"`
	WallAfter  string `json:"wall_after,omitempty"`
	// How says how the measured times were taken.
	How string `json:"how"`
}

// The bases of a validated time.
const (
	BasisCPU  = "CPU time vs CPU time"
	BasisWall = "wall vs wall"
)

// ValidatedTime is one prediction against its measurement.
type ValidatedTime struct {
	Name string `json:"name"`
	// Ported is how the operation ran after the port: keep, simd, gpu or
	// routed ("" for the application).
	Ported string `json:"ported,omitempty"`
	// Basis is BasisCPU or BasisWall; "" when not validated (NotValidated
	// says why).
	Basis        string  `json:"basis,omitempty"`
	NotValidated string  `json:"not_validated,omitempty"`
	Predicted    float64 `json:"predicted_s"`
	Measured     float64 `json:"measured_s"`
	Error        float64 `json:"error"`
	Flagged      bool    `json:"flagged"`
	// Source says where the measured time came from (the after
	// profile's samples of a pattern, a benchmark) and Note anything that
	// qualifies the comparison (a route that did otherwise than the plan).
	Source string `json:"source,omitempty"`
	Note   string `json:"note,omitempty"`
}
