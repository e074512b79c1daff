package timing

import (
	"fmt"
	"math"
	"time"
)

// Policy holds the thresholds behind the package's judgements: when a
// kernel clock is not trusted, when a fitted line has a knee, when a fit may
// predict a crossover, and when a side's falling time makes the evidence of
// a break-even contradict itself. They are choices, not facts, so they are
// options: a zero field takes the default given with it, and a negative,
// NaN or infinite one is an error (ErrBadThreshold). MeasureOpts.Policy
// carries it into Measure, MeasurePair and CompareExecutors; FitModel,
// JudgeCrossover and ClassifyMemCompute take it as an argument.
type Policy struct {
	// KernelSlackRel and KernelSlackAbs: a kernel sample is suspicious
	// when it is missing, ≤ 0, or longer than its host sample by more than
	// KernelSlackRel·host + KernelSlackAbs (the kernel runs inside the
	// host interval). Defaults 0.10 and 50µs.
	KernelSlackRel float64
	KernelSlackAbs time.Duration
	// MaxSuspiciousFrac: when more than this fraction of a measurement's
	// kernel samples are suspicious, its kernel clock is dropped and the
	// host clock used (default 0.20).
	MaxSuspiciousFrac float64
	// KneeR2 and KneeGain: FitModel keeps a knee only when the single
	// line's R² is below KneeR2 (default 0.98) and the two-regime model
	// cuts its weighted residual sum of squares by at least KneeGain
	// (default 4).
	KneeR2   float64
	KneeGain float64
	// KneeMinPoints is the fewest points on each side of a knee, the
	// knee's own point counted for both (default 3).
	KneeMinPoints int
	// MinPredictR2: JudgeCrossover marks a verdict's fit unfit to predict
	// a crossover when either side's R² is below it (default 0.8: a fit
	// explaining less than 80% of the variation says more about the noise
	// of the host than about the cost of a batch).
	MinPredictR2 float64
	// FallFactor: JudgeCrossover takes a side that runs this much faster
	// at a larger batch than at a smaller one (CIs disjoint as well) as
	// evidence that the host's load changed (default 1.5, room for a side
	// that uses more threads on larger batches).
	FallFactor float64
	// ClassifyTol: ClassifyMemCompute takes x ≈ c when |x − c| ≤
	// ClassifyTol·c or their CIs overlap (default 0.15).
	ClassifyTol float64
}

// The defaults of Policy's fields.
const (
	defaultKernelSlackRel    = 0.10
	defaultKernelSlackAbs    = 50 * time.Microsecond
	defaultMaxSuspiciousFrac = 0.20
	defaultKneeR2            = 0.98
	defaultKneeGain          = 4.0
	defaultKneeMinPoints     = 3
	defaultMinPredictR2      = 0.8
	defaultFallFactor        = 1.5
	defaultClassifyTol       = 0.15
)

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&p.KernelSlackRel, defaultKernelSlackRel)
	set(&p.MaxSuspiciousFrac, defaultMaxSuspiciousFrac)
	set(&p.KneeR2, defaultKneeR2)
	set(&p.KneeGain, defaultKneeGain)
	set(&p.MinPredictR2, defaultMinPredictR2)
	set(&p.FallFactor, defaultFallFactor)
	set(&p.ClassifyTol, defaultClassifyTol)
	if p.KernelSlackAbs == 0 {
		p.KernelSlackAbs = defaultKernelSlackAbs
	}
	if p.KneeMinPoints == 0 {
		p.KneeMinPoints = defaultKneeMinPoints
	}
	return p
}

// resolve is WithDefaults after checking every field: negative, NaN or
// infinite thresholds are an error wrapping ErrBadThreshold that names the
// field and its value.
func (p Policy) resolve() (Policy, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"KernelSlackRel", p.KernelSlackRel}, {"KernelSlackAbs", float64(p.KernelSlackAbs)},
		{"MaxSuspiciousFrac", p.MaxSuspiciousFrac}, {"KneeR2", p.KneeR2}, {"KneeGain", p.KneeGain},
		{"KneeMinPoints", float64(p.KneeMinPoints)}, {"MinPredictR2", p.MinPredictR2},
		{"FallFactor", p.FallFactor}, {"ClassifyTol", p.ClassifyTol},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return p, fmt.Errorf("%w: Policy.%s = %v (want a finite value ≥ 0; 0: the default)", ErrBadThreshold, f.name, f.v)
		}
	}
	return p.WithDefaults(), nil
}
