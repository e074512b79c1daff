package timing

import (
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing/load"
)

// MeasurePair measures two functions side by side: the rounds call a then
// b and b then a in turn (after Warmup untimed rounds), so a load that
// comes and goes during the measurement falls on both alike and neither
// side always runs first after the loop's own bookkeeping (which leaves
// caches and branch predictors colder for whoever follows it, which
// matters for calls of a few microseconds), and their ratio stays fair
// (TestMeasurePairInterleaves). It stops
// when both medians' CIs are within ±TargetRel (never before MinRuns
// rounds), at MaxRuns rounds, or when the Budget is spent (charged both
// sides' reported times) once MinRuns rounds are in. The results are those
// Measure would give for each function alone.
func MeasurePair(opts MeasureOpts, a, b func() (Sample, error)) (Result, Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Result{}, Result{}, fmt.Errorf("timing: MeasurePair: %w", err)
	}
	if a == nil || b == nil {
		return Result{}, Result{}, fmt.Errorf("timing: MeasurePair: %w: nil function", ErrBadOpts)
	}
	start := time.Now()
	var charged time.Duration
	spent := func() time.Duration { return max(time.Since(start), charged) }
	for i := 0; i < o.Warmup; i++ {
		for j, fn := range []func() (Sample, error){a, b} {
			s, err := fn()
			if err != nil {
				return Result{}, Result{}, fmt.Errorf("timing: MeasurePair: warm-up run %d of side %d: %w", i, j, err)
			}
			if s.Host < 0 {
				return Result{}, Result{}, fmt.Errorf("timing: MeasurePair: warm-up run %d of side %d: %w", i, j, errNegative(s.Host))
			}
			charged += max(s.Host, 0)
		}
	}
	var ra, rb Result
	stop := ""
	mark := load.Start()
	for {
		var sa, sb Sample
		for k := 0; k < 2; k++ {
			// Even rounds a, b; odd rounds b, a.
			side := k ^ (len(ra.Samples) & 1)
			var err error
			if side == 0 {
				sa, err = a()
			} else {
				sb, err = b()
			}
			if err == nil && (sa.Host < 0 || sb.Host < 0) {
				err = errNegative(min(sa.Host, sb.Host))
			}
			if err != nil {
				return Result{}, Result{}, fmt.Errorf("timing: MeasurePair: run %d of side %d: %w", len(ra.Samples), side, err)
			}
		}
		ra.Samples, rb.Samples = append(ra.Samples, sa), append(rb.Samples, sb)
		charged += max(sa.Host, 0) + max(sb.Host, 0)
		n := len(ra.Samples)
		if n >= max(o.MinRuns, MinSamplesForCI) && converged(ra.Samples, o) && converged(rb.Samples, o) {
			stop = StopConverged
			break
		}
		if n >= o.MaxRuns {
			stop = StopMaxRuns
			break
		}
		if spent() >= o.Budget && n >= o.MinRuns {
			stop = StopBudget
			break
		}
	}
	// Interleaved, both sides ran beside the same load.
	l := mark.Since()
	for _, r := range []*Result{&ra, &rb} {
		r.Stop = stop
		finish(r, o)
		recordLoad(r, l)
		if stop != StopConverged {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"stopped by %s after %d runs before the CI reached ±%.1f%% (host %s)",
				stop, len(r.Samples), 100*o.TargetRel, r.Host.PctString()))
		}
	}
	return ra, rb, nil
}
