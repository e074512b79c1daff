package plan

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// ValidateLimit is the prediction error above which plan --validate
// flags a time.
const ValidateLimit = 0.30

// Ported modes of plan --validate.
const (
	PortedRouted = "routed"
	PortedGPU    = "gpu"
)

// Validate checks pl's predictions against a profile of the
// application after the port (afterWall: its wall time, seconds): the
// operations with a call count ran routed (each call where the plan
// routes it: its own code where the plan does not port it) or every call
// on the GPU. The application's time before is the before profile's CPU
// time (before: its seconds), which for an application running one call
// at a time is its elapsed time without what other processes took from
// it; its time after is predicted as that less, per operation, its calls
// × (its own time per call − its predicted time per call), and measured
// as the after profile's wall time. An operation's measured time is the
// after profile's wall time less the rest of the application as it was
// before (Amdahl's premise), shared among the operations in proportion
// to their predictions. Both profiles must cover the same work (the same
// calls).
func Validate(pl report.Plan, after string, before, afterWall float64, ported string) (*report.PlanValidation, error) {
	beforeWall := before
	v := &report.PlanValidation{After: after, Ported: ported, Limit: ValidateLimit,
		How: "application: its CPU time before, its wall time after; an operation: the after profile's wall time less the rest of the application as before, in proportion to the predictions"}
	pred := beforeWall
	var opsPred, opsShare float64
	type portedOp struct {
		name string
		t    float64
	}
	var ops []portedOp
	for _, op := range pl.Ops {
		if op.Calls <= 0 || op.OwnPerCall <= 0 {
			continue
		}
		own := op.Share * beforeWall / float64(op.Calls)
		per := op.Predicted
		switch {
		case ported == PortedGPU:
			per = op.PredictedGPU
		case !op.Ported:
			per = own
		}
		t := float64(op.Calls) * per
		pred -= float64(op.Calls) * (own - per)
		opsPred += t
		opsShare += op.Share
		ops = append(ops, portedOp{op.Regex, t})
	}
	if len(ops) == 0 {
		return nil, env.Usage(env.Invalid("validate", after, "no operation has a call count (calls=N in --op, or a mix file's counts): nothing to validate"))
	}
	rest := beforeWall * (1 - opsShare)
	measured := afterWall - rest
	for _, o := range ops {
		v.Ops = append(v.Ops, validated(o.name, o.t, measured*o.t/opsPred))
	}
	v.App = validated("application", pred, afterWall)
	return v, nil
}

func validated(name string, pred, meas float64) report.ValidatedTime {
	e := (pred - meas) / meas
	return report.ValidatedTime{Name: name, Predicted: pred, Measured: meas, Error: e, Flagged: !(math.Abs(e) <= ValidateLimit)}
}

// ValidationLines is the validation in words, flagged errors marked.
func ValidationLines(v *report.PlanValidation) []string {
	line := func(t report.ValidatedTime) string {
		flag := "within"
		if t.Flagged {
			flag = "FLAGGED: beyond"
		}
		return fmt.Sprintf("  %s: predicted %s, measured %s: error %+.1f%% (%s ±%.0f%%)", t.Name, crossover.FmtSeconds(t.Predicted), crossover.FmtSeconds(t.Measured), 100*t.Error, flag, 100*v.Limit)
	}
	out := []string{fmt.Sprintf("validation against %s (ported %s): application error %+.1f%%", v.After, v.Ported, 100*v.App.Error)}
	out = append(out, line(v.App))
	for _, o := range v.Ops {
		out = append(out, line(o))
	}
	return append(out, "  ("+v.How+")")
}
