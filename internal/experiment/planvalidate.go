package experiment

import (
	"fmt"
	"math"

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

// ValidatePlan checks pl's predictions against the application's
// profiles before (beforeWall seconds) and after the port (afterWall): the
// ported operations ran routed (each call where the plan routes it) or
// every call on the GPU, the others as before. The application's time
// after is predicted as its time before less, per ported operation, its
// calls × (its own time per call − its predicted time per call), and
// measured as the after profile's wall time. A ported operation's
// measured time is the after profile's wall time less the rest of the
// application as it was before (the operations not ported keep their
// time: Amdahl's premise), shared among the ported operations in
// proportion to their predictions. Both profiles must cover the same
// work (the same calls) and an application running one call at a time,
// so that its profile's CPU time is its wall time.
func ValidatePlan(pl report.Plan, after string, beforeWall, afterWall float64, ported string) (*report.PlanValidation, error) {
	if !(beforeWall > 0) || !(afterWall > 0) {
		return nil, usage(invalid("validate", after, "both profiles must record their wall time (pprof duration): before %.3g s, after %.3g s", beforeWall, afterWall))
	}
	v := &report.PlanValidation{After: after, Ported: ported, Limit: ValidateLimit,
		How: "application: the profiles' wall time; a ported operation: the after profile's wall time less the rest of the application as before, in proportion to the predictions"}
	pred := beforeWall
	var portedPred, portedShare float64
	type portedOp struct {
		name string
		t    float64
	}
	var ops []portedOp
	for _, op := range pl.Ops {
		if !op.Ported {
			continue
		}
		if op.Calls <= 0 || op.OwnPerCall <= 0 {
			return nil, usage(invalid("validate", after, "operation %s has no call count: give its calls (calls=N in --op, or a mix file's counts) to validate its time per call", op.Regex))
		}
		per := op.Predicted
		if ported == PortedGPU {
			per = op.PredictedGPU
		}
		t := float64(op.Calls) * per
		pred -= float64(op.Calls) * (op.OwnPerCall - per)
		portedPred += t
		portedShare += op.Share
		ops = append(ops, portedOp{op.Regex, t})
	}
	if len(ops) == 0 {
		return nil, usage(invalid("validate", after, "the plan ports no operation: nothing to validate"))
	}
	rest := beforeWall * (1 - portedShare)
	measuredPorted := afterWall - rest
	for _, o := range ops {
		m := measuredPorted * o.t / portedPred
		v.Ops = append(v.Ops, validated(o.name, o.t, m))
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
		return fmt.Sprintf("  %s: predicted %s, measured %s: error %+.1f%% (%s ±%.0f%%)", t.Name, fmtSeconds(t.Predicted), fmtSeconds(t.Measured), 100*t.Error, flag, 100*v.Limit)
	}
	out := []string{fmt.Sprintf("validation against %s (ported %s): application error %+.1f%%", v.After, v.Ported, 100*v.App.Error)}
	out = append(out, line(v.App))
	for _, o := range v.Ops {
		out = append(out, line(o))
	}
	return append(out, "  ("+v.How+")")
}
