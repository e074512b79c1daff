package timing

import (
	"github.com/wgpu-prof/wgpu-prof/timing/load"

	"fmt"
	"math"
	"time"
)

// Defaults applied by Measure to zero-valued MeasureOpts fields.
const (
	DefaultWarmup    = 2
	DefaultMinRuns   = 10
	DefaultMaxRuns   = 200
	DefaultTargetRel = 0.02
	DefaultBudget    = 2 * time.Second
)

// warnTimestampsDisagree is the warning added to a Result whose kernel
// timing was dropped by the sanity check (METHOD.md: sanity-check every
// delta against the host clock; flag and fall back rather than print
// nonsense; the limits are Policy's).
const warnTimestampsDisagree = "timestamp deltas disagree with the host clock; using host clock"

// Reasons Measure stopped, in Result.Stop.
const (
	StopConverged = "converged" // CI half-width reached TargetRel
	StopBudget    = "budget"    // Budget spent
	StopMaxRuns   = "max-runs"  // MaxRuns reached
)

// MeasureOpts controls the adaptive measurement loop. Zero fields take the
// Default* values; negative values are errors.
type MeasureOpts struct {
	Warmup    int           // untimed calls before measuring (default 2)
	MinRuns   int           // measured runs before convergence or the budget may stop (default 10)
	MaxRuns   int           // hard cap on measured runs (default 200)
	TargetRel float64       // stop when the median's 95% CI is within ±TargetRel (default 0.02)
	Budget    time.Duration // stop after this much time, warm-up included (default 2s)
	// WarnCV is the coefficient of variation above which a summary is
	// flagged as noisy (default 0.05).
	WarnCV float64
	// Policy holds the limits of the kernel-clock sanity check and, for
	// CompareExecutors, of its fits (zero fields: the defaults).
	Policy Policy
}

// withDefaults fills zero fields and validates the rest.
func (o MeasureOpts) withDefaults() (MeasureOpts, error) {
	for _, f := range []struct {
		name string
		neg  bool
		v    any
	}{{"Warmup", o.Warmup < 0, o.Warmup}, {"MinRuns", o.MinRuns < 0, o.MinRuns}, {"MaxRuns", o.MaxRuns < 0, o.MaxRuns},
		{"TargetRel", o.TargetRel < 0, o.TargetRel}, {"Budget", o.Budget < 0, o.Budget}, {"WarnCV", o.WarnCV < 0, o.WarnCV}} {
		if f.neg {
			return o, fmt.Errorf("%w: %s = %v is negative (0: the default)", ErrBadOpts, f.name, f.v)
		}
	}
	if math.IsNaN(o.TargetRel) || math.IsInf(o.TargetRel, 0) || math.IsNaN(o.WarnCV) || math.IsInf(o.WarnCV, 0) {
		return o, fmt.Errorf("%w: TargetRel %v and WarnCV %v must be finite", ErrBadOpts, o.TargetRel, o.WarnCV)
	}
	if o.WarnCV == 0 {
		o.WarnCV = defaultWarnCV
	}
	p, err := o.Policy.resolve()
	if err != nil {
		return o, err
	}
	o.Policy = p
	if o.Warmup == 0 {
		o.Warmup = DefaultWarmup
	}
	if o.MinRuns == 0 {
		o.MinRuns = DefaultMinRuns
	}
	if o.MaxRuns == 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	if o.TargetRel == 0 {
		o.TargetRel = DefaultTargetRel
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.MinRuns > o.MaxRuns {
		return o, fmt.Errorf("%w: MinRuns %d > MaxRuns %d", ErrBadOpts, o.MinRuns, o.MaxRuns)
	}
	return o, nil
}

// Sample is one timed run as reported by the function under measurement.
type Sample struct {
	Host      time.Duration // host clock around the whole operation (end-to-end)
	Kernel    time.Duration // GPU timestamp delta, valid when HasKernel
	HasKernel bool
}

// Result is the outcome of Measure.
type Result struct {
	Host Summary // end-to-end (host clock) times, seconds
	// Kernel summarizes the kernel (GPU timestamp) times in seconds over
	// the samples that passed the sanity check; nil when no sample carried
	// a kernel time or when the kernel clock was dropped.
	Kernel  *Summary
	Samples []Sample // every measured sample, warm-up excluded, in order
	// Suspicious lists the indices into Samples whose kernel time failed
	// the sanity check (or was missing while others had one).
	Suspicious []int
	Stop       string   // one of the Stop* constants
	Warnings   []string // result-level warnings (summary warnings are in Host/Kernel)
}

// Measure calls fn Warmup times without recording, then repeatedly until
// the 95% confidence interval of the median is within ±TargetRel of the
// median on every clock in use (host, and kernel while it is trusted), but
// never fewer than MinRuns times nor fewer than MinSamplesForCI (a real 95%
// interval needs 6 samples); or until MaxRuns runs, or the Budget is spent
// once MinRuns samples are in.
//
// fn reports its own durations, so Measure never adds its own overhead to
// them. The budget is charged the larger of the wall-clock time since Measure
// started and the sum of the reported host times, so a fake fn that returns
// synthetic durations spends budget like a real one.
//
// An error from fn aborts the measurement and is returned wrapped, and so
// does a sample with a negative host duration (a clock that went
// backwards or a broken fn: no statistic of it means anything).
func Measure(opts MeasureOpts, fn func() (Sample, error)) (Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Result{}, fmt.Errorf("timing: Measure: %w", err)
	}
	if fn == nil {
		return Result{}, fmt.Errorf("timing: Measure: %w: nil function", ErrBadOpts)
	}
	start := time.Now()
	var charged time.Duration
	spent := func() time.Duration { return max(time.Since(start), charged) }

	for i := 0; i < o.Warmup; i++ {
		s, err := fn()
		if err != nil {
			return Result{}, fmt.Errorf("timing: Measure: warm-up run %d: %w", i, err)
		}
		if s.Host < 0 {
			return Result{}, fmt.Errorf("timing: Measure: warm-up run %d: %w", i, errNegative(s.Host))
		}
		charged += max(s.Host, 0)
	}

	var res Result
	mark := load.Start()
	for {
		s, err := fn()
		if err != nil {
			return Result{}, fmt.Errorf("timing: Measure: run %d: %w", len(res.Samples), err)
		}
		if s.Host < 0 {
			return Result{}, fmt.Errorf("timing: Measure: run %d: %w", len(res.Samples), errNegative(s.Host))
		}
		res.Samples = append(res.Samples, s)
		charged += max(s.Host, 0)
		n := len(res.Samples)
		if n >= max(o.MinRuns, MinSamplesForCI) && converged(res.Samples, o) {
			res.Stop = StopConverged
			break
		}
		if n >= o.MaxRuns {
			res.Stop = StopMaxRuns
			break
		}
		// The budget never stops a measurement short of MinRuns samples:
		// every reported figure carries a spread over at least that many.
		if spent() >= o.Budget && n >= o.MinRuns {
			res.Stop = StopBudget
			break
		}
	}
	finish(&res, o)
	recordLoad(&res, mark.Since())
	if res.Stop != StopConverged {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"stopped by %s after %d runs before the CI reached ±%.1f%% (host %s)",
			res.Stop, len(res.Samples), 100*o.TargetRel, res.Host.PctString()))
	}
	return res, nil
}

// recordLoad puts the load beside a measurement (nil: unknown) on its
// summaries, with a warning when the host was busy.
func recordLoad(res *Result, l *load.Load) {
	if l == nil {
		return
	}
	res.Host.Load = l
	if res.Kernel != nil {
		res.Kernel.Load = l
	}
	if l.Busy() {
		res.Warnings = append(res.Warnings, "host busy while measured: "+l.String())
	}
}

func errNegative(d time.Duration) error {
	return fmt.Errorf("%w: host %v", ErrNegativeSample, d)
}

// converged reports whether every trusted clock has a 95% CI of the median
// within ±target.
func converged(samples []Sample, o MeasureOpts) bool {
	target := o.TargetRel
	host, kernel, _, drop := split(samples, o.Policy)
	h, err := SummarizeErr(host)
	if err != nil || h.Confidence < Confidence || h.RelHalfWidth() > target {
		return false
	}
	if len(kernel) == 0 || drop {
		return true
	}
	k, err := SummarizeErr(kernel)
	return err == nil && k.Confidence >= Confidence && k.RelHalfWidth() <= target
}

// finish fills the summaries, the suspicious list and the warnings of res
// from res.Samples.
func finish(res *Result, o MeasureOpts) {
	warnCV := o.WarnCV
	host, kernel, suspicious, drop := split(res.Samples, o.Policy)
	res.Host = summarizeCV(host, warnCV)
	res.Suspicious = suspicious
	switch {
	case drop:
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s (%d of %d kernel samples suspicious)",
			warnTimestampsDisagree, len(suspicious), len(res.Samples)))
	case len(kernel) > 0:
		k := summarizeCV(kernel, warnCV)
		if len(suspicious) > 0 {
			k.Warnings = append(k.Warnings, fmt.Sprintf(
				"%d of %d kernel samples excluded: ≤ 0 or longer than the host time", len(suspicious), len(res.Samples)))
		}
		res.Kernel = &k
	}
}

// summarizeCV is Summarize with a CV threshold.
func summarizeCV(samples []float64, warnCV float64) Summary {
	s, err := SummarizeCV(samples, warnCV)
	if err != nil {
		return Summary{Warnings: []string{"invalid summary: " + err.Error()}}
	}
	return s
}

// split separates host and trusted kernel times (seconds), lists suspicious
// sample indices, and decides whether the kernel clock must be dropped. When
// no sample has a kernel time, kernel and suspicious are empty and drop is
// false. p holds the limits (with its defaults filled).
func split(samples []Sample, p Policy) (host, kernel []float64, suspicious []int, drop bool) {
	anyKernel := false
	for _, s := range samples {
		anyKernel = anyKernel || s.HasKernel
	}
	for i, s := range samples {
		host = append(host, s.Host.Seconds())
		if !anyKernel {
			continue
		}
		if kernelSuspicious(s, p) {
			suspicious = append(suspicious, i)
			continue
		}
		kernel = append(kernel, s.Kernel.Seconds())
	}
	drop = anyKernel && float64(len(suspicious)) > p.MaxSuspiciousFrac*float64(len(samples))
	if drop {
		kernel = nil
	}
	return host, kernel, suspicious, drop
}

// kernelSuspicious reports whether a sample's kernel time cannot be
// trusted: it is missing, ≤ 0, or longer than the host time by more than
// p.KernelSlackRel·host + p.KernelSlackAbs (the kernel runs inside the host
// interval, so it cannot be much longer).
func kernelSuspicious(s Sample, p Policy) bool {
	if !s.HasKernel || s.Kernel <= 0 {
		return true
	}
	limit := float64(s.Host)*(1+p.KernelSlackRel) + float64(p.KernelSlackAbs)
	return float64(s.Kernel) > limit
}
