package plan

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// ValidateLimit is the prediction error above which plan --validate
// flags a time.
const ValidateLimit = 0.30

// routeTolerance is how far the share of a routed operation's calls the
// GPU answered may stray from the plan's before the route is said to
// have done otherwise.
const routeTolerance = 0.10

// ValidateInput is what Validate checks a plan against: the profiles
// before (the plan's) and after the port, the operations in --op order
// with how each ran after (AssignPorted), the threads the tool's host
// SIMD kernel was timed on, and the benchmark outputs that give the wall
// times of the operations that ran on the GPU.
type ValidateInput struct {
	Before, After string
	Ops           []Op
	Ported        []PortedOp
	// PortedText is --ported as given.
	PortedText string
	// Threads are the host SIMD kernel's threads when it was timed (0: 1).
	Threads               int
	WallBefore, WallAfter string
}

// Validate checks pl's predictions against the profile after the port,
// each operation like with like: one that stayed on the host (keep, simd)
// on CPU time, its samples in the after profile (those whose stack holds
// a function, or whose labels hold a key=value, its pattern matches)
// against its samples before as the plan prices them (keep: as before;
// simd: its calls × the host SIMD kernel's time per call × its
// threads); one that ran on the GPU (gpu, routed), whose GPU time no CPU
// profile holds, on wall time, its benchmark after against its benchmark
// before × the plan's time per call after over its own before (without
// the benchmarks, not validated). A routed operation whose route did
// otherwise than the plan is compared with the plan's prediction for
// what it did, and flagged. The application is validated on CPU time
// where every operation stayed on the host. Both profiles (and both
// benchmarks) must cover the same work.
func Validate(pl report.Plan, in ValidateInput) (*report.PlanValidation, error) {
	v := &report.PlanValidation{After: in.After, Ported: in.PortedText, Limit: ValidateLimit,
		WallBefore: in.WallBefore, WallAfter: in.WallAfter}
	threads := max(in.Threads, 1)
	v.How = fmt.Sprintf("CPU time vs CPU time: an operation's samples in each profile (functions or labels its pattern matches); "+
		"the host SIMD kernel's CPU time taken as %d thread(s) × its time per call. Wall vs wall: the operation's benchmark after "+
		"against before × the plan's time per call after over your code's", threads)
	m, err := readValidation(in)
	if err != nil {
		return nil, err
	}
	used := make([]bool, len(pl.Ops))
	appPred := m.beforeTotal
	var notHost, noCalls []string
	for i, op := range in.Ops {
		k := planIndex(pl, op, used)
		if k < 0 {
			return nil, fmt.Errorf("validate: operation %s is not in the plan", op.Regex)
		}
		po, p := pl.Ops[k], in.Ported[i]
		t := report.ValidatedTime{Name: po.Regex, Ported: p.Mode}
		if hostMode(p.Mode) {
			change, ok := hostTime(&t, po, p, m, i, threads)
			appPred -= change
			if !ok {
				noCalls = append(noCalls, po.Regex)
			}
		} else {
			notHost = append(notHost, po.Regex)
			if err := gpuTime(&t, po, p, m, in); err != nil {
				return nil, err
			}
		}
		v.Ops = append(v.Ops, t)
	}
	switch {
	case len(notHost) > 0:
		v.AppNote = fmt.Sprintf("not validated: %s ran on the GPU, whose time is in no CPU profile (each such operation is compared wall with wall)", strings.Join(notHost, ", "))
	case len(noCalls) > 0:
		v.AppNote = fmt.Sprintf("not validated: %s has no call count", strings.Join(noCalls, ", "))
	default:
		app := report.ValidatedTime{Name: "application", Basis: report.BasisCPU, Source: "the after profile's samples"}
		validated(&app, appPred, m.afterTotal)
		v.App = &app
	}
	return v, nil
}

// measured is what the validation reads: per operation (in --op order)
// the CPU time before of its pattern's samples outside its own (they stay
// as they were), its pattern's CPU time and samples after; the profiles'
// totals (seconds of CPU time); the wall benchmarks (nil: none given) and
// how many operations ran on the GPU.
type measured struct {
	extra, after            []float64
	afterN                  []int64
	beforeTotal, afterTotal float64
	wallBefore, wallAfter   map[string]WallBench
	onGPU                   int
}

func readValidation(in ValidateInput) (measured, error) {
	var m measured
	pats := make([]*regexp.Regexp, len(in.Ops))
	opRes := make([]*regexp.Regexp, len(in.Ops))
	for i := range in.Ops {
		pats[i], opRes[i] = in.Ported[i].Pattern, in.Ops[i].Regex
		if !hostMode(in.Ported[i].Mode) {
			m.onGPU++
		}
	}
	var err error
	if m.extra, _, m.beforeTotal, err = patternTimes("pprof", in.Before, pats, opRes); err != nil {
		return m, err
	}
	if m.after, m.afterN, m.afterTotal, err = patternTimes("validate", in.After, pats, nil); err != nil {
		return m, err
	}
	if in.WallBefore != "" && in.WallAfter != "" {
		if m.wallBefore, err = ReadWall("wall-before", in.WallBefore); err != nil {
			return m, err
		}
		if m.wallAfter, err = ReadWall("wall-after", in.WallAfter); err != nil {
			return m, err
		}
	}
	return m, nil
}

// hostTime validates operation i, which stayed on the host, on CPU time
// and returns the change of the application's CPU time the plan predicts
// for it; ok is false when a simd port has no call count (its prediction
// unknown).
func hostTime(t *report.ValidatedTime, po report.PlanOp, p PortedOp, m measured, i, threads int) (change float64, ok bool) {
	before := po.Share * m.beforeTotal
	t.Source = fmt.Sprintf("%d samples of %s in the after profile", m.afterN[i], p.Pattern)
	own := before
	if p.Mode == PortedSIMD {
		if po.Calls <= 0 {
			t.NotValidated = "no call count (calls=N or a mix file's counts): the host SIMD kernel's time over its calls is unknown"
			return 0, false
		}
		own = float64(po.Calls) * po.ToolCPU.Value * float64(threads)
	}
	if m.afterN[i] == 0 {
		t.NotValidated = fmt.Sprintf("no sample of the after profile matches %s: name the function it calls now too (--ported 'OLD|NEW=%s')", p.Pattern, p.Mode)
		return before - own, true
	}
	t.Basis = report.BasisCPU
	validated(t, m.extra[i]+own, m.after[i])
	return before - own, true
}

// gpuTime validates an operation that ran on the GPU on wall time, from
// its benchmark; without the benchmarks, or a call count, it says why
// not.
func gpuTime(t *report.ValidatedTime, po report.PlanOp, p PortedOp, m measured, in ValidateInput) error {
	if m.wallBefore == nil {
		t.NotValidated = "its GPU time is in no CPU profile: give --wall-before and --wall-after (its benchmark before and after the port, `go test -bench` outputs) to compare wall with wall"
		return nil
	}
	if po.OwnPerCall <= 0 {
		t.NotValidated = "no call count (calls=N or a mix file's counts): the plan's time per call against your code's is unknown"
		return nil
	}
	if p.Bench == "" && m.onGPU > 1 {
		return env.Usage(&env.ParamError{Name: "ported", Value: in.PortedText,
			Limit: fmt.Sprintf("%d operations ran on the GPU: name each one's benchmark in the wall files (REGEX=%s@NAME)", m.onGPU, p.Mode)})
	}
	b, a, err := wallPair(m.wallBefore, m.wallAfter, p.Bench)
	if err != nil {
		return env.Usage(&env.ParamError{Name: "wall-after", Value: in.WallAfter, Limit: err.Error()})
	}
	wallTime(t, po, b, a)
	return nil
}

// planIndex is the plan operation of op not used yet (-1: none).
func planIndex(pl report.Plan, op Op, used []bool) int {
	for k, po := range pl.Ops {
		if !used[k] && po.Regex == op.Regex.String() && po.Workload == op.Workload {
			used[k] = true
			return k
		}
	}
	return -1
}

// wallTime validates a gpu or routed operation on its benchmark: before
// × the plan's time per call after over the own code's, against after.
// A routed one whose route did otherwise than the plan (the benchmark's
// gpu-calls/op against the plan's share; without them, a measurement
// nearer the plan's prediction for another choice) is flagged, compared
// with the prediction for what it did where that is known.
func wallTime(t *report.ValidatedTime, po report.PlanOp, b, a WallBench) {
	t.Basis = report.BasisWall
	own, gpu := po.OwnPerCall, po.PredictedGPU
	per, what := gpu, "GPU"
	planShare := 1.0
	if t.Ported == PortedRouted {
		per, what, planShare = po.Predicted, "route", 0
		if po.Ported && po.Mix != nil {
			planShare = po.Mix.ShareAbove
		}
	}
	t.Source = fmt.Sprintf("%s: %s after, %s before (medians of %d and %d run(s))", a.Name, crossover.FmtSeconds(a.Sec), crossover.FmtSeconds(b.Sec), a.Runs, b.Runs)
	if a.HasCalls {
		done := a.GPUCalls / a.Calls
		if math.Abs(done-planShare) > routeTolerance {
			per = (1-done)*own + done*gpu
			validated(t, b.Sec*per/own, a.Sec)
			t.Flagged = true
			t.Note = fmt.Sprintf("the GPU answered %.0f%% of its calls where the plan sends it %.0f%%: compared with the plan's prediction for that split (at the means per call: your code %s, the GPU %s)",
				100*done, 100*planShare, crossover.FmtSeconds(own), crossover.FmtSeconds(gpu))
			return
		}
	}
	validated(t, b.Sec*per/own, a.Sec)
	t.Note = fmt.Sprintf("predicted: before × %.2f (the plan's %s per call, %s, over your code's %s)", per/own, what, crossover.FmtSeconds(per), crossover.FmtSeconds(own))
	if t.Ported != PortedRouted || a.HasCalls {
		return
	}
	// Without the route's calls per side: which choice the measurement
	// is nearest.
	alts := []struct {
		name string
		per  float64
	}{{"every call on your code", own}, {"every call on the GPU", gpu}}
	off := math.Abs(math.Log(a.Sec / (b.Sec * per / own)))
	for _, alt := range alts {
		pred := b.Sec * alt.per / own
		if math.Abs(math.Log(alt.per/per)) > math.Log(1+routeTolerance) && math.Abs(math.Log(a.Sec/pred)) < off {
			t.Flagged = true
			t.Note = fmt.Sprintf("measured nearer the plan's prediction for %s (%s, error %+.1f%%) than for its route: did the route follow the plan? (a benchmark reporting %s and %s says)",
				alt.name, crossover.FmtSeconds(pred), 100*(pred-a.Sec)/a.Sec, UnitGPUCalls, UnitCalls)
			return
		}
	}
}

// fmtError is a relative error in percent with its sign ("+0.0%" for
// one that rounds to zero, never "-0.0%").
func fmtError(e float64) string {
	if math.Abs(e) < 0.0005 {
		e = 0
	}
	return fmt.Sprintf("%+.1f%%", 100*e)
}

// validated sets t's prediction, measurement, error and flag.
func validated(t *report.ValidatedTime, pred, meas float64) {
	t.Predicted, t.Measured = pred, meas
	t.Error = (pred - meas) / meas
	t.Flagged = !(math.Abs(t.Error) <= ValidateLimit)
}

// patternTimes reads the profile at path (flag names it in errors) and
// returns, per pattern, the CPU time (seconds) and samples of the samples
// it matches (a function on the stack, or a label key=value) and, where
// exclude[i] is set, that no function of the stack matches exclude[i];
// and the profile's total CPU time (seconds). The profile must be of CPU
// time.
func patternTimes(flag, path string, pats, exclude []*regexp.Regexp) (secs []float64, samples []int64, total float64, err error) {
	p, err := readProfile(flag, path)
	if err != nil {
		return nil, nil, 0, env.Usage(err)
	}
	idx, cnt := valueIndex(p), -1
	for i, st := range p.SampleType {
		if st.Type == "samples" && st.Unit == "count" {
			cnt = i
		}
	}
	if st := p.SampleType[idx]; st.Type != "cpu" || st.Unit != "nanoseconds" {
		return nil, nil, 0, env.Usage(&env.ParamError{Name: flag, Value: path, Limit: "not a profile of CPU time (" + st.Type + "/" + st.Unit + ")"})
	}
	secs, samples = make([]float64, len(pats)), make([]int64, len(pats))
	for _, s := range p.Sample {
		v := float64(s.Value[idx]) * 1e-9
		total += v
		k := int64(1)
		if cnt >= 0 {
			k = s.Value[cnt]
		}
		for i, re := range pats {
			if sampleMatches(s, re, true) && (exclude == nil || !sampleMatches(s, exclude[i], false)) {
				secs[i] += v
				samples[i] += k
			}
		}
	}
	return secs, samples, total, nil
}

// sampleMatches reports whether a function of s's stack, or with labels
// one of its labels as key=value, matches re.
func sampleMatches(s *profile.Sample, re *regexp.Regexp, labels bool) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && re.MatchString(ln.Function.Name) {
				return true
			}
		}
	}
	if !labels {
		return false
	}
	for k, vs := range s.Label {
		for _, v := range vs {
			if re.MatchString(k + "=" + v) {
				return true
			}
		}
	}
	for k, vs := range s.NumLabel {
		for _, v := range vs {
			if re.MatchString(fmt.Sprintf("%s=%d", k, v)) {
				return true
			}
		}
	}
	return false
}

// ValidationLines is the validation in words, flagged errors marked,
// each line with its basis.
func ValidationLines(v *report.PlanValidation) []string {
	line := func(t report.ValidatedTime) string {
		name := t.Name
		if t.Ported != "" {
			name += " (" + t.Ported + ")"
		}
		if t.Basis == "" {
			return fmt.Sprintf("  %s: not validated: %s", name, t.NotValidated)
		}
		flag := "within"
		if t.Flagged {
			flag = "FLAGGED: beyond"
			if math.Abs(t.Error) <= v.Limit {
				flag = "FLAGGED, though within"
			}
		}
		s := fmt.Sprintf("  %s: %s: predicted %s, measured %s: error %s (%s ±%.0f%%); %s", name, t.Basis,
			crossover.FmtSeconds(t.Predicted), crossover.FmtSeconds(t.Measured), fmtError(t.Error), flag, 100*v.Limit, t.Source)
		if t.Note != "" {
			s += "; " + t.Note
		}
		return s
	}
	done, flagged := 0, 0
	for _, o := range v.Ops {
		if o.Basis != "" {
			done++
		}
		if o.Flagged {
			flagged++
		}
	}
	head := fmt.Sprintf("validation against %s: %d of %d operation(s) validated, %d flagged", v.After, done, len(v.Ops), flagged)
	if v.App != nil {
		head += "; application error " + fmtError(v.App.Error)
	}
	out := []string{head}
	for _, o := range v.Ops {
		out = append(out, line(o))
	}
	if v.App != nil {
		out = append(out, line(*v.App))
	} else {
		out = append(out, "  application: "+v.AppNote)
	}
	return append(out, "  ("+v.How+")")
}
