package crossover

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// DefaultSearchBudget is the time budget of one crossover search (one pair
// of sides on one workload).
const DefaultSearchBudget = 2 * time.Minute

// SearchConfig configures the adaptive crossover search of BreakEven.
type SearchConfig struct {
	// Comparisons are the pairs of sides to compare; nil: gpu vs cpu with
	// V resident, and with V shipped per call.
	Comparisons [][2]experiment.SideSpec
	// Budget bounds each search (0: DefaultSearchBudget); the coarse
	// sweep's first three sizes are always measured.
	Budget time.Duration
	// MaxGrow caps the extension past the default size (0: 64×).
	MaxGrow int
	// Mix, if set, is the application's batch mix: the sweep reaches its
	// largest size, and each end-to-end break-even prices it (MixResult).
	Mix *BatchMix
}

// DefaultComparisons are gpu (resident) vs cpu and gpu (shipped) vs cpu,
// the CPU as side A so that a crossover is where the GPU becomes faster.
func DefaultComparisons() [][2]experiment.SideSpec {
	cpu, _ := experiment.ParseSide("cpu")
	gpu, _ := experiment.ParseSide("gpu")
	ship, _ := experiment.ParseSide("gpu:data=shipped")
	return [][2]experiment.SideSpec{{cpu, gpu}, {cpu, ship}}
}

// SideRun is one side measured at one size.
type SideRun struct {
	res    timing.Result
	upload []time.Duration // shipped GPU side: per-call upload times
	c      workload.Case
}

// SearchOne runs the adaptive search for one workload and one pair of
// sides and returns its break-evens (end-to-end; kernel clock too when a
// resident GPU side has timestamps) and the measurements at every size.
//
// cache holds the sides already measured on this workload (by label and
// size), so a side two comparisons share is measured and reported once;
// emitted marks the ones already returned as measurements.
func SearchOne(e *env.Env, w *workload.Descriptor, cfg experiment.RunConfig, sc SearchConfig, sides [2]experiment.SideSpec, roofs experiment.Roofs, cache map[string]SideRun, emitted map[string]bool, rep *report.Report) ([]report.BreakEven, []report.Measurement, error) {
	pr, err := experiment.Prepare(e, w, cfg.Config)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	sk, err := SideKnobs(e, w, pr, cfg, sides, rep)
	if err != nil {
		return nil, nil, err
	}
	ps := &pairSearch{e: e, w: w, cfg: cfg, sides: sides, knobs: sk, prs: []*workload.Prepared{pr}, cache: cache, runs: map[int][2]SideRun{}}
	maxN, why := extensionLimit(e, w, cfg, pr, sc.MaxGrow)
	budget := sc.Budget
	if budget <= 0 {
		budget = DefaultSearchBudget
	}
	opts := timing.SearchOpts{Sizes: experiment.BatchesFor(cfg, pr), Max: maxN, MaxReason: why, Deadline: time.Now().Add(budget)}
	for _, n := range opts.Sizes {
		if n > maxN {
			return nil, nil, env.Invalid("batches", "", "%d is past the largest size %s can run (%s)", n, w.Name, why)
		}
	}
	opts.Refine = ps.probe
	res, err := timing.SearchCrossover(opts, sides[0].Label, sides[1].Label, func(n int) (timing.Summary, timing.Summary, error) { return ps.probe(n, 0) })
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s vs %s: %w", w.Name, sides[0].Label, sides[1].Label, err)
	}
	// A list of sizes the search did not finish (probe limit, time
	// budget) is said on every clock's lines, not only the one searched.
	capped := cappedNote(opts.Sizes, res)
	if capped != "" && !strings.Contains(res.Reason, capped) {
		res.Reason += "; " + capped
	}
	// Measure again, the two sides interleaved, every size where the
	// faster side changed: one noisy measurement must not make a
	// crossover (timing.JudgeCrossover reads both).
	disputed := timing.Disputed(res.Points)
	if len(disputed) > MaxRemeasured {
		disputed = disputed[:MaxRemeasured]
	}
	ps.again = map[int][2]SideRun{}
	for _, n := range disputed {
		r, err := ps.measurePair(n, 0, "|again")
		if err != nil {
			return nil, nil, err
		}
		ps.again[n] = r
	}
	ns := ps.sizes()
	ms := ps.measurements(ns, emitted, roofs)
	out, err := ps.breakEvens(pr, ns, &res, capped, roofs)
	if err != nil {
		return nil, nil, err
	}
	return out, ms, nil
}

// pairSearch is one break-even search of two sides over one workload: the
// data prepared so far, the measurements made (runs, and again for the
// disputed sizes measured a second time) and the cache shared with the
// other searches of the command.
type pairSearch struct {
	e     *env.Env
	w     *workload.Descriptor
	cfg   experiment.RunConfig
	sides [2]experiment.SideSpec
	knobs [2]workload.Knobs
	prs   []*workload.Prepared // the default-size data, then the largest prepared
	cache map[string]SideRun
	runs  map[int][2]SideRun
	again map[int][2]SideRun
}

// prepared returns data of at least n rows: the default-size data when it
// is large enough, else data prepared at n (kept as the largest).
func (ps *pairSearch) prepared(n int) (*workload.Prepared, error) {
	for _, p := range ps.prs {
		if p.Size >= n {
			return p, nil
		}
	}
	c := ps.cfg.Config
	*BatchField(ps.w, &c) = n
	p, err := ps.w.Prepare(c)
	if err != nil {
		return nil, fmt.Errorf("%s at %s=%d: %w", ps.w.Name, ps.w.Batch, n, err)
	}
	ps.prs = []*workload.Prepared{ps.prs[0], p}
	return p, nil
}

// probe measures both sides at n (tight: how many times the measurement
// options are tightened) and records the pair in runs.
func (ps *pairSearch) probe(n, tight int) (timing.Summary, timing.Summary, error) {
	r, err := ps.measurePair(n, tight, "")
	if err != nil {
		return timing.Summary{}, timing.Summary{}, err
	}
	ps.runs[n] = r
	return r[0].res.Host, r[1].res.Host, nil
}

// measurePair builds both sides at n, verifies each on poisoned outputs,
// measures them side by side (interleaved calls, so a load that comes and
// goes falls on both alike), and verifies again.
func (ps *pairSearch) measurePair(n, tight int, tag string) ([2]SideRun, error) {
	e, w, sides := ps.e, ps.w, ps.sides
	key := fmt.Sprintf("%s|%s|%d|%d%s", sides[0].Label, sides[1].Label, n, tight, tag)
	if r, ok := ps.cache[key]; ok {
		return [2]SideRun{r, ps.cache[key+"|b"]}, nil
	}
	if e.Stopped() {
		return [2]SideRun{}, fmt.Errorf("%s vs %s %s n=%d: %w", sides[0].Label, sides[1].Label, w.Name, n, env.ErrInterrupted)
	}
	p, err := ps.prepared(n)
	if err != nil {
		return [2]SideRun{}, err
	}
	var out [2]SideRun
	var ss [2]workload.Side
	var logs [2]experiment.ShippedLog
	defer func() {
		for _, s := range ss {
			workload.CloseSide(s)
		}
	}()
	for i, sp := range sides {
		c := p.At(n, ps.knobs[i])
		s, err := experiment.BuildSide(e, sp, c, &logs[i])
		if err != nil {
			return out, fmt.Errorf("%s %s n=%d: %w", sp.Label, w.Name, n, err)
		}
		ss[i], out[i].c = s, c
		what := sp.Label + " " + w.Name + " " + env.ParamLabel(c.Params)
		if _, err := experiment.VerifiedRun(what, s); err != nil {
			return out, err
		}
	}
	e.Progressf("%s vs %s  %s %s=%d", sides[0].Label, sides[1].Label, w.Name, w.Batch, n)
	for i := range logs {
		logs[i].Upload = nil
	}
	mo := e.Measure
	for range tight {
		mo = tighter(mo)
	}
	ra, rb, err := timing.MeasurePair(mo, ss[0].Run, ss[1].Run)
	if err != nil {
		return out, fmt.Errorf("%s vs %s %s n=%d: %w", sides[0].Label, sides[1].Label, w.Name, n, err)
	}
	for i, s := range ss {
		if err := s.Verify(); err != nil {
			return out, fmt.Errorf("%s %s n=%d (after timing): %w: %v", sides[i].Label, w.Name, n, experiment.ErrWrongResult, err)
		}
	}
	out[0].res, out[1].res = ra, rb
	out[0].upload, out[1].upload = logs[0].Upload, logs[1].Upload
	ps.cache[key], ps.cache[key+"|b"] = out[0], out[1]
	return out, nil
}

// sizes lists the measured sizes in increasing order.
func (ps *pairSearch) sizes() []int {
	ns := make([]int, 0, len(ps.runs))
	for n := range ps.runs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// measurements are the report rows of the measured sizes, each side and
// size once per command (emitted).
func (ps *pairSearch) measurements(ns []int, emitted map[string]bool, roofs experiment.Roofs) []report.Measurement {
	var ms []report.Measurement
	for _, n := range ns {
		for i, sp := range ps.sides {
			key := fmt.Sprintf("%s|%d", sp.Label, n)
			if emitted[key] {
				continue
			}
			emitted[key] = true
			r := ps.runs[n][i]
			side, variant := report.SideCPU, sp.Label
			if sp.IsGPU() {
				side = report.SideGPU
				variant = r.c.Variant + " " + sp.Label
			}
			ms = append(ms, experiment.Measurement(ps.w.Name, side, variant, r.c.Params, r.res, r.c.Bytes, r.c.Flops, roofs))
		}
	}
	return ms
}

// summaries are side i's medians at ns, end to end or (kernel) by its
// timestamps; false when a size has no kernel time.
func (ps *pairSearch) summaries(i int, ns []int, kernel bool) ([]timing.Summary, bool) {
	out := make([]timing.Summary, len(ns))
	for j, n := range ns {
		r := ps.runs[n][i].res
		if kernel {
			if r.Kernel == nil {
				return nil, false
			}
			out[j] = *r.Kernel
		} else {
			out[j] = r.Host
		}
	}
	return out, true
}

// againPoints are the second measurements on one clock (kernel: side k's
// timestamps in place of its host time; k < 0: end to end).
func (ps *pairSearch) againPoints(k int) map[int]timing.SearchPoint {
	out := map[int]timing.SearchPoint{}
	for n, r := range ps.again {
		var s [2]timing.Summary
		for i := range r {
			s[i] = r[i].res.Host
			if i == k {
				if r[i].res.Kernel == nil {
					return nil
				}
				s[i] = *r[i].res.Kernel
			}
		}
		out[n] = timing.SearchPoint{N: n, A: s[0], B: s[1], Faster: timing.Faster(s[0], s[1])}
	}
	return out
}

// breakEvens judges the search end to end and, where one side is a GPU
// with its data resident against a CPU side, on the GPU's kernel clock
// against the other side's end-to-end time, on the same points.
func (ps *pairSearch) breakEvens(pr *workload.Prepared, ns []int, res *timing.SearchResult, capped string, roofs experiment.Roofs) ([]report.BreakEven, error) {
	w, sides := ps.w, ps.sides
	a, _ := ps.summaries(0, ns, false)
	b, _ := ps.summaries(1, ns, false)
	be, err := CrossoverBreakEven(w, pr.Fixed, sides, "end-to-end", ns, a, b, res, ps.againPoints(-1))
	if err != nil {
		return nil, err
	}
	last := ps.runs[ns[len(ns)-1]]
	be.Parts = parts(sides, last)
	TheorySpeedup(&be, last[0].c, sides, roofs)
	out := []report.BreakEven{be}
	for i, sp := range sides {
		if !sp.IsGPU() || sp.Shipped || sides[1-i].IsGPU() {
			continue
		}
		k, ok := ps.summaries(i, ns, true)
		if !ok {
			break
		}
		ka, kb := a, b
		if i == 0 {
			ka = k
		} else {
			kb = k
		}
		bk, err := CrossoverBreakEven(w, pr.Fixed, sides, "kernel", ns, ka, kb, nil, ps.againPoints(i))
		if err != nil {
			return nil, err
		}
		if capped != "" {
			bk.Search.Reason += "; " + capped
		}
		out = append(out, bk)
	}
	return out, nil
}

// cappedNote says how many of the sizes asked for the search measured, when
// it stopped before all of them ("" when it measured them all).
func cappedNote(sizes []int, res timing.SearchResult) string {
	measured := map[int]bool{}
	for _, p := range res.Points {
		measured[p.N] = true
	}
	asked := map[int]bool{}
	got := 0
	for _, n := range sizes {
		if !asked[n] {
			asked[n] = true
			if measured[n] {
				got++
			}
		}
	}
	if got == len(asked) {
		return ""
	}
	return fmt.Sprintf("only %d of the %d sizes asked for were measured (the search stopped at its probe limit or time budget)", got, len(asked))
}

// SideKnobs returns each side's knobs: cfg's workgroup and tile, the
// side's forced workgroup (gpu:wg=N), and for a GPU side the fastest
// verified variant on this adapter at the default size, as run chooses it
// (SelectVariant, cached per adapter; the choice goes to rep's summary), so
// a break-even or a hybrid replay is against the GPU's best design.
func SideKnobs(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, cfg experiment.RunConfig, sides [2]experiment.SideSpec, rep *report.Report) ([2]workload.Knobs, error) {
	var out [2]workload.Knobs
	for i, sp := range sides {
		k := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
		if sp.Workgroup > 0 {
			k.Workgroup = sp.Workgroup
		}
		if sp.IsGPU() {
			kv, choice, err := experiment.SelectVariantWith(e, w, cfg.Config, pr, pr.Size, k, experiment.SelectOptions{Retune: cfg.Retune, Quick: cfg.QuickVariants}, rep)
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", sp.Label, w.Name, err)
			}
			k = kv
			if choice.Chosen != "" && rep != nil {
				rep.Summary = append(rep.Summary, choice.Summary())
			}
		}
		out[i] = k
	}
	return out, nil
}

// MeasureAgain builds both sides of case c, verifies each on a poisoned
// output, measures them interleaved (timing.MeasurePair) and verifies
// again: the second measurement of a disputed size.
func MeasureAgain(e *env.Env, sides [2]experiment.SideSpec, c workload.Case) ([2]timing.Result, error) {
	var out [2]timing.Result
	var ss [2]workload.Side
	defer func() {
		for _, s := range ss {
			workload.CloseSide(s)
		}
	}()
	what := c.Name + " " + env.ParamLabel(c.Params)
	for i, sp := range sides {
		s, err := experiment.BuildSide(e, sp, c, nil)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", sp.Label, what, err)
		}
		ss[i] = s
		if _, err := experiment.VerifiedRun(sp.Label+" "+what, s); err != nil {
			return out, err
		}
	}
	e.Progressf("%s vs %s  %s (measured again)", sides[0].Label, sides[1].Label, what)
	ra, rb, err := timing.MeasurePair(e.Measure, ss[0].Run, ss[1].Run)
	if err != nil {
		return out, fmt.Errorf("%s vs %s %s: %w", sides[0].Label, sides[1].Label, what, err)
	}
	for i, s := range ss {
		if err := s.Verify(); err != nil {
			return out, fmt.Errorf("%s %s (after timing): %w: %v", sides[i].Label, what, experiment.ErrWrongResult, err)
		}
	}
	out[0], out[1] = ra, rb
	return out, nil
}

// MaxRemeasured caps the sizes a break-even measures a second time (both
// ends of each change of the faster side: three changes at most before the
// verdict is inconclusive anyway).
const MaxRemeasured = 6

// tighter is the measurement a crossover search refines a tie with, one
// refinement round further: CIs half as wide (±1%, then ±0.5% by
// default), four times the runs and twice the budget.
func tighter(o timing.MeasureOpts) timing.MeasureOpts {
	o.TargetRel = or(o.TargetRel, timing.DefaultTargetRel) / 2
	o.MinRuns = 2 * or(o.MinRuns, timing.DefaultMinRuns)
	o.MaxRuns = 4 * or(o.MaxRuns, timing.DefaultMaxRuns)
	o.Budget = 2 * or(o.Budget, timing.DefaultBudget)
	return o
}

// or returns v, or def where v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// CrossoverBreakEven fits both sides' models, predicts the crossover, and
// fills a report.BreakEven. res is the search's measured crossover; nil:
// derived from the points' first change (no bisection on this clock).
// again holds the second measurements of disputed sizes on this clock;
// the verdict (timing.JudgeCrossover) reads both.
func CrossoverBreakEven(w *workload.Descriptor, fixed []report.Param, sides [2]experiment.SideSpec, clock string, ns []int, a, b []timing.Summary, res *timing.SearchResult, again map[int]timing.SearchPoint) (report.BreakEven, error) {
	x := make([]float64, len(ns))
	ta := make([]float64, len(ns))
	tb := make([]float64, len(ns))
	pts := make([]timing.SearchPoint, len(ns))
	for i, n := range ns {
		x[i], ta[i], tb[i] = float64(n), a[i].Median, b[i].Median
		pts[i] = timing.SearchPoint{N: n, A: a[i], B: b[i], Faster: timing.Faster(a[i], b[i])}
	}
	if len(ns) < 3 {
		return report.BreakEven{}, fmt.Errorf("break-even %s (%s vs %s): a fit needs at least 3 sizes, measured %v", w.Name, sides[0].Label, sides[1].Label, ns)
	}
	ma, err := timing.FitModel(x, ta, timing.Policy{})
	if err != nil {
		return report.BreakEven{}, fmt.Errorf("break-even %s (%s): %w", w.Name, sides[0].Label, err)
	}
	mb, err := timing.FitModel(x, tb, timing.Policy{})
	if err != nil {
		return report.BreakEven{}, fmt.Errorf("break-even %s (%s, %s): %w", w.Name, sides[1].Label, clock, err)
	}
	if res == nil {
		res = bracketOnly(pts, sides)
	}
	pred := timing.PredictCrossover(ma, mb)
	basis := "the models over the whole measured range"
	if res.Found {
		if lp, ok := localPrediction(x, ta, tb, res.Lo, res.Hi); ok {
			pred = lp
			basis = fmt.Sprintf("the regime around the measured crossover (%.0f–%.0f)", lp.ValidFrom, lp.ValidTo)
		}
	}
	timedA, timedB := sides[0].Timed("end-to-end"), sides[1].Timed(clock)
	if clock == "kernel" && sides[0].IsGPU() {
		timedA, timedB = sides[0].Timed(clock), sides[1].Timed("end-to-end")
	}
	be := report.BreakEven{
		Workload: w.Name, Batch: w.Batch, Params: fixed, Clock: clock, Batches: ns, CPU: a, GPU: b,
		CPUFit: ma.Single, GPUFit: mb.Single, Fitted: report.NewCrossover(pred.Crossover),
		Sides: []string{sides[0].Label, sides[1].Label}, Timed: timedA + "; " + timedB,
		Search: res, ModelA: &ma, ModelB: &mb, Predicted: report.NewPredicted(pred),
	}
	be.Predicted.Basis = basis
	if res.Found {
		be.Measured, be.MeasuredFound = res.Hi, true
		if pred.Kind == timing.CrossAt || pred.Kind == timing.CrossBelow {
			e := timing.IntervalError(pred.N, float64(res.Lo), float64(res.Hi))
			be.PredictedError = &e
			be.RelError = e
		}
	}
	last := len(ns) - 1
	if b[last].Median > 0 {
		be.MeasuredSpeedup = a[last].Median / b[last].Median
	}
	judge(&be, pts, again, sides, ma.MinR2(), mb.MinR2())
	for _, sp := range sides {
		if sp.IsGPU() {
			be.Regime = "resident"
			if sp.Shipped {
				be.Regime = "shipped"
			}
		}
	}
	return be, nil
}

// bracketOnly is the search result of sizes measured without a search
// of their own (the kernel clock on the end-to-end search's sizes): the
// bracket where the faster side changes, if any, with no bisection.
func bracketOnly(pts []timing.SearchPoint, sides [2]experiment.SideSpec) *timing.SearchResult {
	r := timing.SearchResult{Points: pts, Status: timing.SearchNoCrossover,
		Reason: "measured on the end-to-end search's sizes (no bisection on this clock)"}
	if lo, hi, ok := timing.Bracket(pts); ok {
		r.Found, r.Lo, r.Hi, r.AtLo, r.AtHi, r.Before = true, lo.N, hi.N, lo, hi, lo.Faster
		r.Status = timing.SearchResolution
		r.Reason = fmt.Sprintf("%s faster at %d, %s faster at %d; ", sideName(sides, lo.Faster), lo.N, sideName(sides, hi.Faster), hi.N) + r.Reason
	}
	return &r
}

// judge sets be's verdict (timing.JudgeCrossover over the points and the
// sizes measured again) and what follows from it: the range where the
// second side is faster, the sizes remeasured, and whether the fit's
// prediction stands.
func judge(be *report.BreakEven, pts []timing.SearchPoint, again map[int]timing.SearchPoint, sides [2]experiment.SideSpec, r2a, r2b float64) {
	// The verdict's reason names the sides as a reader does (CPU, GPU),
	// by their labels where that would not tell them apart.
	na, nb := report.ShortSide(sides[0].Label), report.ShortSide(sides[1].Label)
	if na == nb {
		na, nb = sides[0].Label, sides[1].Label
	}
	v := timing.JudgeCrossover(pts, again, na, nb, r2a, r2b, timing.Policy{})
	be.Verdict, be.Reason, be.Interval, be.Tentative = v.Kind, v.Reason, []int{v.Lo, v.Hi}, v.Noisy
	if v.BFrom > 0 {
		be.BFaster = &report.Range{From: v.BFrom}
		if v.BTo > 0 {
			to := v.BTo
			be.BFaster.To = &to
		}
	}
	for n := range again {
		be.Remeasured = append(be.Remeasured, n)
	}
	sort.Ints(be.Remeasured)
	if !v.UseFit {
		be.Predicted.Refused = v.FitNote
	}
}

// localPrediction fits each side on the regime around a measured
// crossover [lo, hi] (the sizes within a factor 2 of it, widened to 4 and 8
// until each side has 3 points), t = t₀ + b·(n − n₀) with t₀, b ≥ 0, and
// intersects the two lines; ok is false when no crossover comes out.
func localPrediction(n, ta, tb []float64, lo, hi int) (timing.Prediction, bool) {
	for _, f := range []float64{2, 4, 8} {
		var x, a, b []float64
		for i, v := range n {
			if v >= float64(lo)/f && v <= float64(hi)*f {
				x, a, b = append(x, v), append(a, ta[i]), append(b, tb[i])
			}
		}
		if len(x) < 3 {
			continue
		}
		origin := x[0]
		for _, v := range x {
			origin = math.Min(origin, v)
		}
		la, err := timing.FitLocal(x, a, origin)
		if err != nil {
			continue
		}
		lb, err := timing.FitLocal(x, b, origin)
		if err != nil {
			continue
		}
		p := timing.PredictCrossover(la, lb)
		if p.Kind == timing.CrossAt || p.Kind == timing.CrossBelow {
			return p, true
		}
		return timing.Prediction{}, false
	}
	return timing.Prediction{}, false
}

func sideName(sides [2]experiment.SideSpec, faster int) string {
	if faster == timing.FasterA {
		return sides[0].Label
	}
	return sides[1].Label
}

// parts breaks the GPU side's end-to-end time at the largest size into
// upload (host clock around buffer creation and upload, shipped sides),
// kernel (timestamps) and dispatch + wait + readback (the rest).
func parts(sides [2]experiment.SideSpec, last [2]SideRun) []report.TimePart {
	for i, sp := range sides {
		if !sp.IsGPU() {
			continue
		}
		r := last[i]
		total := r.res.Host.Median
		if total <= 0 {
			return nil
		}
		var out []report.TimePart
		rest := total
		if len(r.upload) > 0 {
			up := timing.Summarize(timing.Seconds(r.upload)).Median
			out = append(out, report.TimePart{Name: "upload", Seconds: up, How: "host clock around buffer creation and the upload of V"})
			rest -= up
		}
		if r.res.Kernel != nil {
			k := r.res.Kernel.Median
			out = append(out, report.TimePart{Name: "kernel", Seconds: k, How: "GPU timestamps"})
			rest -= k
		}
		out = append(out, report.TimePart{Name: "submit + wait + readback", Seconds: math.Max(0, rest), How: "host clock minus the other parts"})
		for j := range out {
			out[j].Share = out[j].Seconds / total
		}
		return out
	}
	return nil
}

// TheorySpeedup sets the roofline speedup of side B over side A at the
// largest batch: the ratio of each side's ceiling-bound time under the
// roof of the case's working set, when both roofs are known.
func TheorySpeedup(be *report.BreakEven, c workload.Case, sides [2]experiment.SideSpec, roofs experiment.Roofs) {
	// Each side's roof is the one its rows are judged against: that of the
	// case's own working set (Roofs.forBytes), so the ratio follows each
	// workload's intensity and level, not one pair of DRAM roofs.
	bound := func(sp experiment.SideSpec) float64 {
		side := report.SideCPU
		if sp.IsGPU() {
			side = report.SideGPU
		}
		r, _, _ := roofs.ForBytes(side, c.Bytes)
		if r.BandwidthGBs <= 0 || r.PeakGFLOPs <= 0 {
			return 0
		}
		return math.Max(c.Bytes/(r.BandwidthGBs*1e9), c.Flops/(r.PeakGFLOPs*1e9))
	}
	ta, tb := bound(sides[0]), bound(sides[1])
	if ta > 0 && tb > 0 {
		be.TheorySpeedup = ta / tb
	}
}

// BatchField is the Config field a workload's batch size counts.
func BatchField(w *workload.Descriptor, c *workload.Config) *int {
	if p := w.BatchParam(); p != nil && p.Int(c) != nil {
		return p.Int(c)
	}
	return &c.N
}

// extensionLimit is the largest batch size the search may extend to past
// the default size, and what stops it there: the adapter's limits
// (Config.Validate), the workload's own checks, a share of the host's
// available memory, or the cap of maxGrow (default 64) × the default size.
func extensionLimit(e *env.Env, w *workload.Descriptor, cfg experiment.RunConfig, pr *workload.Prepared, maxGrow int) (int, string) {
	limit, why, grows := experiment.SearchCap(w, cfg, pr.Size, maxGrow)
	if !grows {
		return limit, why
	}
	budget := env.MemoryBudget(cfg.QuickStaircase)
	c0 := pr.At(pr.Size, workload.Knobs{})
	perItem := c0.Bytes / float64(pr.Size)
	size := pr.Size
	for size < limit {
		next := size * 2
		c := cfg.Config
		*BatchField(w, &c) = next
		if err := c.Validate(e.Device.Limits, e.Device.Info.Name); err != nil {
			return size, "adapter limit: " + err.Error()
		}
		if err := w.Check(c); err != nil {
			return size, "workload limit: " + err.Error()
		}
		// Data, reference and the GPU's copy: about 3× the bytes one call
		// reads; keep within the memory budget.
		if 3*perItem*float64(next) > float64(budget) {
			return size, fmt.Sprintf("host RAM: %s=%d would need about %.1f GiB, past the %.1f GiB memory budget",
				w.Batch, next, 3*perItem*float64(next)/(1<<30), float64(budget)/(1<<30))
		}
		size = next
	}
	return size, why
}

// CrossoverLines says in words what a break-even found.
func CrossoverLines(be report.BreakEven) []string {
	if len(be.Sides) != 2 || be.Search == nil {
		return nil
	}
	a, b := be.Sides[0], be.Sides[1]
	head := fmt.Sprintf("%s %s vs %s (%s)", be.Workload, a, b, be.Clock)
	var out []string
	s := be.Search
	if s.Found {
		out = append(out, fmt.Sprintf("%s: measured crossover in [%d, %d] %s (%s): at %d %s %s vs %s %s; at %d %s %s vs %s %s",
			head, s.Lo, s.Hi, be.Batch, s.Status, s.AtLo.N, a, s.AtLo.A, b, s.AtLo.B, s.AtHi.N, a, s.AtHi.A, b, s.AtHi.B))
		out = append(out, fmt.Sprintf("%s: search stopped: %s", head, s.Reason))
	} else {
		out = append(out, fmt.Sprintf("%s: no measured crossover (%s): %s", head, s.Status, s.Reason))
	}
	if p := be.Predicted; p != nil && p.Refused != "" {
		out = append(out, head+": "+p.Refused)
	} else if p != nil {
		var pl string
		switch p.Kind {
		case timing.CrossAt, timing.CrossBelow:
			dir := "above"
			if p.Kind == timing.CrossBelow {
				dir = "below"
			}
			pl = fmt.Sprintf("models predict %s faster %s %.0f, 95%% CI %s", b, dir, p.Value, report.CIString(p.CILo, p.CIHi))
			if p.Extrapolated {
				pl += fmt.Sprintf(", extrapolated (fitted on %.0f–%.0f)", p.ValidFrom, p.ValidTo)
			} else {
				pl += fmt.Sprintf(", valid over %.0f–%.0f", p.ValidFrom, p.ValidTo)
			}
			pl += " (from " + p.Basis + ")"
			if be.PredictedError != nil {
				pl += fmt.Sprintf("; error against the measured interval %+.1f%%", 100**be.PredictedError)
			}
		case timing.CrossAlways:
			pl = fmt.Sprintf("models predict %s faster at every size (fitted on %.0f–%.0f)", b, p.ValidFrom, p.ValidTo)
		default:
			pl = fmt.Sprintf("models predict %s never faster (fitted on %.0f–%.0f)", b, p.ValidFrom, p.ValidTo)
		}
		out = append(out, head+": "+pl)
	}
	for _, m := range []struct {
		side string
		m    *timing.Model
	}{{a, be.ModelA}, {b, be.ModelB}} {
		if m.m == nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s t(n) = %s", head, m.side, modelString(*m.m)))
	}
	if be.TheorySpeedup > 0 {
		out = append(out, fmt.Sprintf("%s: at %s=%d %s is %.2f× %s measured, %.2f× by the rooflines", head, be.Batch,
			be.Batches[len(be.Batches)-1], b, be.MeasuredSpeedup, a, be.TheorySpeedup))
	}
	if len(be.Parts) > 0 {
		big := be.Parts[0]
		var ps []string
		for _, p := range be.Parts {
			ps = append(ps, fmt.Sprintf("%s %s (%.0f%%)", p.Name, timing.FormatSeconds(p.Seconds), 100*p.Share))
			if p.Share > big.Share {
				big = p
			}
		}
		out = append(out, fmt.Sprintf("%s: GPU time at %s=%d: %s; %s decides (%.0f%%)", head, be.Batch, be.Batches[len(be.Batches)-1],
			strings.Join(ps, ", "), big.Name, 100*big.Share))
	}
	out = append(out, head+": timed: "+be.Timed)
	return out
}

// modelString prints a model: "1.2µs + 95ns·n (R² 0.99)" or its two
// regimes split at the knee.
func modelString(m timing.Model) string {
	var parts []string
	for i, s := range m.Segments {
		f := s.Fit
		x := "n"
		if s.Origin > 0 {
			x = fmt.Sprintf("(n − %.0f)", s.Origin)
		}
		txt := fmt.Sprintf("%s + %s·%s (R² %.2f", timing.FormatSeconds(f.Overhead), timing.FormatSeconds(f.PerItem), x, s.R2)
		if f.Constrained != "" {
			txt += ", " + f.Constrained + " by constraint"
		}
		txt += ")"
		if len(m.Segments) > 1 {
			txt = fmt.Sprintf("[%.0f, %.0f] %s", s.From, s.To, txt)
			if i == 0 {
				txt = "knee at " + fmt.Sprintf("%.0f: ", m.Knee) + txt
			}
		}
		parts = append(parts, txt)
	}
	return strings.Join(parts, "; ")
}
