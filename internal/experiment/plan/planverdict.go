package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Every verdict names its baseline. Three comparisons per operation: the
// GPU against the application's own code, the host SIMD kernel against
// the own code, and the GPU against the host SIMD kernel, each with its
// crossover. The own code is compared per size where its time per size
// was measured (pprof labels, Go benchmarks) and only at its mean
// otherwise: all its calls or none, never a curve it did not measure.

// The sides' names in the verdicts.
const (
	nameOwn  = "your code"
	nameSIMD = "the host SIMD kernel"
	nameGPU  = "the GPU"
)

// planOp prices and judges operation i.
func planOp(in Input, i int, op Op, minSp float64, transfer string) report.PlanOp {
	be := in.BreakEvens[i]
	mix := op.Mix
	if mix == nil {
		m := crossover.BatchMix{File: "", Sizes: in.Sizes[i]}
		for range m.Sizes {
			m.Counts = append(m.Counts, 1)
		}
		mix = &m
	}
	share := float64(in.Shares[i].Value) / float64(in.Total)
	po := report.PlanOp{
		Regex: op.Regex.String(), Workload: op.Workload, Functions: in.Shares[i].Functions,
		Share: share, Samples: in.Shares[i].Samples, Sizes: mix.Sizes, Counts: mix.Counts, MixFile: mix.File,
	}
	if op.Precision != "" && op.Precision != workload.PrecisionF32 {
		po.Precision = op.Precision
	}
	for _, n := range mix.Sizes {
		po.CPUPerCall = append(po.CPUPerCall, be.ModelA.At(float64(n)))
		po.GPUPerCall = append(po.GPUPerCall, be.ModelB.At(float64(n)))
	}
	lo, hi := be.ModelA.Range()
	blo, bhi := be.ModelB.Range()
	po.ValidFrom, po.ValidTo = math.Max(lo, blo), math.Min(hi, bhi)
	po.Basis = "models of the break-even measured over n = " + fmt.Sprintf("%.0f … %.0f", po.ValidFrom, po.ValidTo)

	c := costsOf(in, i, op, *mix, share, transfer, &po)
	// The GPU against the host SIMD kernel: routed at their measured
	// crossover (with the data shipped every call, the same route priced
	// with the upload).
	rs := crossover.MixOf(be, *mix)
	if transfer == TransferPerCall {
		cross := mixCross(rs)
		if cross < 0 {
			cross = math.Inf(1)
		}
		rs = crossover.EvalMix(*mix, *be.ModelA, c.gpu, cross, [2]string{"cpu", "gpu"})
	}
	if rs.Outside > 0 {
		po.Basis += fmt.Sprintf(" (%d size(s) outside it, extrapolated)", rs.Outside)
	}
	// The GPU and the host SIMD kernel against the own code.
	gpu, simd := modelSide(*mix, c.gpu), modelSide(*mix, *be.ModelA)
	var r, rSimd report.MixResult
	switch c.basis {
	case report.OwnNone:
		r = rs
	case report.OwnMean:
		r = atMean(*mix, c.own, c.ownRel, gpu, "gpu")
		rSimd = atMean(*mix, c.own, c.ownRel, simd, "host simd")
	default:
		own := side{at: c.ownAt.at, draw: c.ownAt.draw}
		r = priceRoute(*mix, own, gpu, ownCrossover(*mix, c.ownModel, c.gpu), [2]string{"own", "gpu"})
		rSimd = priceRoute(*mix, own, simd, ownCrossover(*mix, c.ownModel, *be.ModelA), [2]string{"own", "host simd"})
	}
	po.Comparisons = comparisons(c, r, rSimd, rs)
	po.Speedup, po.SpeedupLo, po.SpeedupHi, po.Mix = r.Speedup, r.SpeedupLo, r.SpeedupHi, &r
	po.SpeedupGPU = report.Estimate{Value: r.Speedup, Lo: r.SpeedupLo, Hi: r.SpeedupHi}
	po.Route = planRoute(c, r)
	po.Verdict, po.Reason, po.Ported = gpuVerdict(be, r, c, share, minSp)
	po.AppSpeedup = amdahl(share, r.Speedup)
	po.Return = share * (1 - 1/math.Max(r.Speedup, 1e-300))
	po.Predicted = c.own
	if po.Ported {
		po.Predicted = r.PerThousandRouted / 1000
	}
	po.PredictedGPU = c.gpuAll
	ch := choose(c, r, rSimd, rs, minSp)
	if share < MinPortShare {
		ch.name, ch.reason, ch.speedup = "keep", fmt.Sprintf("share below %.0f%%: not worth the work (%s)", 100*MinPortShare, ch.reason), 1
	}
	po.Choice, po.ChoiceReason, po.ChoiceBaseline, po.ChoiceSpeedup = ch.name, ch.reason, ch.baseline, ch.speedup
	po.ChoiceAppSpeedup = amdahl(share, ch.speedup)
	return po
}

// ownOf sets the application's own time per call: its profile time over
// its calls where the profile is CPU time and the calls are known (its
// mean), and at each size where it was measured: the profile's samples
// labelled with their size (in.SizeLabel), else the operation's Go
// benchmark. Without a mean or a benchmark it is unknown (basis none) and
// the tool's CPU kernel stands in as the baseline. A mean and the tool's
// kernel more than WrongMappingRatio apart flag a likely wrong mapping.
func (c *opCosts) ownOf(in Input, i int, op Op, mix crossover.BatchMix, toolModel timing.Model, po *report.PlanOp) {
	switch {
	case op.Calls > 0:
		po.Calls, po.CallsFrom = op.Calls, "--calls"
	case op.Mix != nil && op.Mix.File != "":
		po.Calls, po.CallsFrom = op.Mix.Calls(), "mix file"
	}
	c.own, c.ownModel, c.basis = c.tool, toolModel, report.OwnNone
	var notes []string
	mean := 0.0
	if po.Calls > 0 && in.Unit == "cpu/nanoseconds" {
		mean = float64(in.Shares[i].Value) * 1e-9 / float64(po.Calls)
		po.OwnPerCall, c.own, c.basis = mean, mean, report.OwnMean
		c.ownRel = 1 / math.Sqrt(math.Max(1, float64(in.Shares[i].Samples)))
	} else if po.Calls > 0 {
		po.CallsFrom, po.Calls = "", 0 // not a CPU-time profile: no time per call
	}
	var o *ownSizes
	if c.basis == report.OwnMean && in.SizeLabel != "" {
		if got, why, ok := ownFromLabels(op.Mix, in.Shares[i], in.SizeLabel); ok {
			o = &got
			if op.Bench != nil {
				notes = append(notes, "the labels measure the profile itself: bench="+op.Bench.File+" not used")
			}
		} else if op.Bench == nil {
			notes = append(notes, "labels: "+why)
		}
	}
	if o == nil && op.Bench != nil {
		got := ownFromBench(mix, *op.Bench, mean)
		o = &got
	}
	if o != nil {
		c.basis, c.ownAt, c.ownModel = o.basis, *o, o.model()
		c.own = meanAt(mix, o.at)
		if po.OwnPerCall == 0 {
			po.OwnPerCall = c.own
		}
		po.OwnPerSize, po.OwnSamples, po.OwnSource = o.at, o.samples, o.source
		notes = append(o.notes, notes...)
	}
	if c.basis == report.OwnMean {
		notes = append([]string{"known only at its mean per call: compared there, never per size (give pprof labels or bench=FILE)"}, notes...)
	}
	po.OwnBasis, po.OwnNote = c.basis, strings.Join(notes, "; ")
	if c.basis == report.OwnNone {
		return
	}
	if ratio := c.own / c.tool; ratio > WrongMappingRatio || ratio < 1/WrongMappingRatio {
		po.Warning = fmt.Sprintf("likely wrong mapping: the application's own %s per call and the tool's %s kernel's %s differ %.0f× (more than %d×): check the workload, the sizes and the call count",
			crossover.FmtSeconds(c.own), op.Workload, crossover.FmtSeconds(c.tool), math.Max(ratio, 1/ratio), WrongMappingRatio)
	}
}

// side is one side's seconds per call at each size of a mix, and a draw
// of them for the confidence intervals.
type side struct {
	at   []float64
	draw func(rng *rand.Rand) []float64
}

// modelSide is a fitted model at the mix's sizes, drawn from its fit.
func modelSide(mix crossover.BatchMix, m timing.Model) side {
	at := func(m *timing.Model) []float64 {
		xs := make([]float64, len(mix.Sizes))
		for i, n := range mix.Sizes {
			xs[i] = m.At(float64(n))
		}
		return xs
	}
	return side{at: at(&m), draw: func(rng *rand.Rand) []float64 { d := crossover.DrawModel(rng, m); return at(&d) }}
}

// meanAt is the mean over the mix's calls of times at its sizes.
func meanAt(mix crossover.BatchMix, at []float64) float64 {
	var s float64
	for i, c := range mix.Counts {
		s += float64(c) * at[i]
	}
	return s / float64(mix.Calls())
}

// priceRoute prices the mix on base alone, on cand alone and routed
// (the calls of n ≥ cross on cand: cross 0 every call, +Inf none), as
// crossover.EvalMix does for two fitted models, for sides known at the
// mix's sizes (a measured curve is no fit to draw from).
func priceRoute(mix crossover.BatchMix, base, cand side, cross float64, labels [2]string) report.MixResult {
	r := report.MixResult{File: mix.File, Calls: mix.Calls(), Distinct: len(mix.Sizes), Sides: labels[:]}
	switch {
	case math.IsInf(cross, 1):
		r.Route = "no call to " + labels[1]
	case cross <= 0:
		r.Route = "every call to " + labels[1]
	default:
		r.Crossover = cross
		r.Route = fmt.Sprintf("calls of n ≥ %.0f to %s", cross, labels[1])
	}
	var above int64
	for i, n := range mix.Sizes {
		if float64(n) >= cross {
			above += mix.Counts[i]
		}
	}
	r.ShareAbove = float64(above) / float64(r.Calls)
	eval := func(a, b []float64) (ta, tb, tr float64) {
		for i, n := range mix.Sizes {
			c := float64(mix.Counts[i])
			ta += c * a[i]
			tb += c * b[i]
			if float64(n) >= cross {
				tr += c * b[i]
			} else {
				tr += c * a[i]
			}
		}
		k := 1000 / float64(r.Calls)
		return ta * k, tb * k, tr * k
	}
	r.PerThousandA, r.PerThousandB, r.PerThousandRouted = eval(base.at, cand.at)
	r.Saving = 1 - r.PerThousandRouted/r.PerThousandA
	if r.PerThousandRouted > 0 {
		r.Speedup = r.PerThousandA / r.PerThousandRouted
	}
	r.SpeedupLo, r.SpeedupHi, r.SavingLo, r.SavingHi = drawSpeedups(func(rng *rand.Rand) (float64, float64) {
		ta, _, tr := eval(base.draw(rng), cand.draw(rng))
		return ta, tr
	})
	return r
}

// atMean compares cand with the own code at the own code's mean per call
// (relative standard error rel): every call to cand when its mean over
// the mix's calls is lower, else none.
func atMean(mix crossover.BatchMix, own, rel float64, cand side, label string) report.MixResult {
	cm := meanAt(mix, cand.at)
	r := report.MixResult{File: mix.File, Calls: mix.Calls(), Distinct: len(mix.Sizes), Sides: []string{"own", label},
		PerThousandA: 1000 * own, PerThousandB: 1000 * cm}
	all := cm < own
	if all {
		r.Route, r.ShareAbove, r.PerThousandRouted = "every call to "+label+" (compared at the mean)", 1, 1000*cm
	} else {
		r.Route, r.PerThousandRouted = "no call to "+label+" (compared at the mean)", 1000*own
	}
	r.Saving = 1 - r.PerThousandRouted/r.PerThousandA
	if r.PerThousandRouted > 0 {
		r.Speedup = r.PerThousandA / r.PerThousandRouted
	}
	r.SpeedupLo, r.SpeedupHi, r.SavingLo, r.SavingHi = drawSpeedups(func(rng *rand.Rand) (float64, float64) {
		o := own * math.Max(0.05, 1+rel*rng.NormFloat64())
		if all {
			return o, meanAt(mix, cand.draw(rng))
		}
		return o, o
	})
	return r
}

// drawSpeedups draws (base, routed) costDraws times from one seeded
// generator and returns the 95% intervals of base/routed and of
// 1 − routed/base (zeros when too few draws are usable).
func drawSpeedups(draw func(rng *rand.Rand) (base, routed float64)) (lo, hi, saveLo, saveHi float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sp, sv []float64
	for range costDraws {
		if a, b := draw(rng); a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
			sp, sv = append(sp, a/b), append(sv, 1-b/a)
		}
	}
	if len(sp) <= costDraws/2 {
		return 0, 0, 0, 0
	}
	sort.Float64s(sp)
	sort.Float64s(sv)
	q := func(s []float64, p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return q(sp, 0.025), q(sp, 0.975), q(sv, 0.025), q(sv, 0.975)
}

// comparisons are the operation's three verdicts, each against its
// baseline (without the own code's time, only the GPU against the host
// SIMD kernel).
func comparisons(c opCosts, r, rSimd, rs report.MixResult) []report.PlanComparison {
	at := "per size"
	if c.basis == report.OwnMean {
		at = "at the mean"
	}
	one := func(cand, base, at string, m report.MixResult, all float64) report.PlanComparison {
		pc := report.PlanComparison{Candidate: cand, Baseline: base, At: at, Crossover: mixCross(m), Share: m.ShareAbove,
			Speedup: report.Estimate{Value: m.Speedup, Lo: m.SpeedupLo, Hi: m.SpeedupHi}, SpeedupAll: all}
		pc.Verdict = compareText(pc)
		return pc
	}
	var out []report.PlanComparison
	if c.basis != report.OwnNone {
		out = append(out, one("gpu", "own code", at, r, c.own/c.gpuAll), one("host simd", "own code", at, rSimd, c.own/c.tool))
	}
	return append(out, one("gpu", "host simd", "per size", rs, c.tool/c.gpuAll))
}

// sideName is a comparison's side in words.
func sideName(s string) string {
	switch s {
	case "gpu":
		return nameGPU
	case "host simd":
		return nameSIMD
	}
	return nameOwn
}

// compareText is a comparison in words: the candidate against its
// baseline, where it is faster (its crossover), its speedup on the calls.
func compareText(pc report.PlanComparison) string {
	cand, base := sideName(pc.Candidate), sideName(pc.Baseline)
	where := "at every size of the mix"
	if pc.At == "at the mean" {
		where = "at the mean of the mix (" + base + " is known only there)"
	}
	ci := ""
	if pc.Speedup.Hi > pc.Speedup.Lo {
		ci = fmt.Sprintf(" [%.2f, %.2f]", pc.Speedup.Lo, pc.Speedup.Hi)
	}
	switch {
	case pc.Share == 0:
		return fmt.Sprintf("%s vs %s: %s slower %s: %.2f× with every call on it", cand, base, cand, where, pc.SpeedupAll)
	case pc.Crossover == 0:
		return fmt.Sprintf("%s vs %s: %s faster %s: %.2f×%s", cand, base, cand, where, pc.Speedup.Value, ci)
	}
	return fmt.Sprintf("%s vs %s: crossover n = %.0f, %s from there (%.0f%% of calls), %s below: %.2f×%s",
		cand, base, pc.Crossover, cand, 100*pc.Share, base, pc.Speedup.Value, ci)
}

// planRoute is what a dispatcher needs to route the operation's calls
// between the own code (the tool's CPU kernel without its time) and the
// GPU: with the own code measured per size, its curve; with its mean
// only, no curve: the means and the decision (report.PlanRoute).
func planRoute(c opCosts, r report.MixResult) *report.PlanRoute {
	gpu := c.gpu
	pr := &report.PlanRoute{Sides: []string{r.Sides[0], "gpu"}, GPU: &gpu, Crossover: mixCross(r)}
	switch c.basis {
	case report.OwnNone:
		m := c.ownModel
		pr.CPU = &m
	case report.OwnMean:
		pr.OwnBasis, pr.OwnMean, pr.GPUMean = c.basis, c.own, c.gpuAll
	default:
		m := c.ownModel
		pr.CPU, pr.OwnBasis, pr.OwnMean, pr.GPUMean = &m, c.basis, c.own, c.gpuAll
	}
	return pr
}

// baselineName is the GPU verdict's baseline in words.
func (c opCosts) baselineName() string {
	switch c.basis {
	case report.OwnNone:
		return "the tool's host SIMD kernel (your code's time is unknown: no call count)"
	case report.OwnMean:
		return "your code (known only at its mean)"
	case report.OwnLabels:
		return "your code (per size, from pprof labels)"
	}
	return "your code (per size, from Go benchmarks)"
}

// gpuVerdict is the GPU verdict against the own code (the tool's CPU
// kernel without its time): port, port above n = X or do not port, with
// its reason naming the baseline and the dominant cost.
func gpuVerdict(be report.BreakEven, r report.MixResult, c opCosts, share, minSp float64) (verdict, reason string, ported bool) {
	against := c.baselineName()
	cost := fmt.Sprintf("%s of the GPU's %s per call against %s of %s (means over the calls; median size %d)",
		c.dominant(), crossover.FmtSeconds(c.gpuAll), crossover.FmtSeconds(c.own), against, c.median)
	gpuEver := false
	if be.Search != nil {
		for _, p := range be.Search.Points {
			gpuEver = gpuEver || p.Faster == timing.FasterB
		}
	}
	none := c.basis == report.OwnNone
	switch {
	case share < MinPortShare:
		return "do not port", fmt.Sprintf("share below %.0f%%: not worth the work", 100*MinPortShare), false
	case r.ShareAbove == 0 && none && !gpuEver:
		return "do not port", "GPU never faster on this adapter (at any measured size): " + cost, false
	case r.ShareAbove == 0 && none && be.Search != nil:
		return "do not port", fmt.Sprintf("GPU faster only from n = %d, above every call of this mix: %s", be.Search.Hi, cost), false
	case r.ShareAbove == 0 && c.basis == report.OwnMean:
		return "do not port", "GPU slower at the mean of this mix: " + cost, false
	case r.ShareAbove == 0:
		return "do not port", "GPU slower at every size of this mix: " + cost, false
	case r.Speedup <= 1:
		return "do not port", "no gain on this mix: " + cost, false
	case r.Speedup < minSp:
		return "do not port", fmt.Sprintf("%.2f× on this mix, below --min-speedup %.2f×: %s", r.Speedup, minSp, cost), false
	case r.Crossover > 0 && r.ShareAbove < 1:
		return fmt.Sprintf("port above n = %.0f", r.Crossover),
			fmt.Sprintf("%.0f%% of calls at or above the crossover; %.2f× on this mix; below it %s", 100*r.ShareAbove, r.Speedup, cost), true
	case c.basis == report.OwnMean:
		return "port", fmt.Sprintf("every call on the GPU: at the mean of this mix %.2f× (GPU %s per call, bounded by %s, against %s of %s)",
			r.Speedup, crossover.FmtSeconds(c.gpuAll), c.boundedBy(), crossover.FmtSeconds(c.own), against), true
	}
	return "port", fmt.Sprintf("every call of this mix on the GPU side of the crossover; %.2f× on them (GPU %s per call, bounded by %s, against %s of %s)",
		r.Speedup, crossover.FmtSeconds(c.gpuAll), c.boundedBy(), crossover.FmtSeconds(c.own), against), true
}

// choice is the largest win against the own code (the host SIMD kernel
// without its time): its name, reason, baseline and speedup on the
// operation's calls.
type choice struct {
	name, reason, baseline string
	speedup                float64
}

// choose picks the largest win against the own code, each option
// needing minSp over it: keep, the host SIMD kernel, the GPU, and routing
// by size (the GPU from its crossover with the host SIMD kernel, and,
// where the own code is known per size, the GPU or the host SIMD kernel
// from its crossover with the own code, the own code below).
func choose(c opCosts, r, rSimd, rs report.MixResult, minSp float64) choice {
	if c.basis == report.OwnNone {
		// Without the application's own time the host kernel is the
		// baseline: only the GPU can be judged.
		ch := choice{baseline: "host simd", speedup: 1}
		switch {
		case r.Speedup >= minSp && r.Speedup > 1 && r.ShareAbove < 1:
			ch.name, ch.speedup = "route by size", r.Speedup
			ch.reason = fmt.Sprintf("no call count: against the tool's host SIMD kernel, the GPU from n = %.0f (%.2f×)", r.Crossover, r.Speedup)
		case r.Speedup >= minSp && r.Speedup > 1:
			ch.name, ch.speedup = "port to the GPU", r.Speedup
			ch.reason = fmt.Sprintf("no call count: against the tool's host SIMD kernel, %.2f×", r.Speedup)
		default:
			ch.name = "keep"
			ch.reason = "no call count (give the mix file's counts or calls=N): the GPU does not beat the tool's host SIMD kernel; " + c.dominant()
		}
		return ch
	}
	type option struct {
		name, how string
		t         float64
	}
	opts := []option{
		{"use the host SIMD kernel", "every call on " + nameSIMD, c.tool},
		{"port to the GPU", "every call on " + nameGPU, c.gpuAll},
	}
	if rs.ShareAbove > 0 && rs.ShareAbove < 1 {
		opts = append(opts, option{"route by size", fmt.Sprintf("%s from n = %.0f, %s below", nameGPU, rs.Crossover, nameSIMD), rs.PerThousandRouted / 1000})
	}
	if c.basis != report.OwnMean {
		if r.ShareAbove > 0 && r.ShareAbove < 1 {
			opts = append(opts, option{"route by size", fmt.Sprintf("%s from n = %.0f, %s below", nameGPU, r.Crossover, nameOwn), r.PerThousandRouted / 1000})
		}
		if rSimd.ShareAbove > 0 && rSimd.ShareAbove < 1 {
			opts = append(opts, option{"route by size", fmt.Sprintf("%s from n = %.0f, %s below", nameSIMD, rSimd.Crossover, nameOwn), rSimd.PerThousandRouted / 1000})
		}
	}
	best := option{"keep", "", c.own}
	for _, o := range opts {
		if c.own/o.t >= minSp && o.t < best.t*0.98 {
			best = o
		}
	}
	others := fmt.Sprintf("per call %s %s, %s %s, %s %s (%s)", nameOwn, crossover.FmtSeconds(c.own), nameSIMD, crossover.FmtSeconds(c.tool),
		nameGPU, crossover.FmtSeconds(c.gpuAll), c.dominant())
	ch := choice{name: best.name, baseline: "own code", speedup: c.own / best.t}
	if best.name == "keep" {
		ch.reason = "nothing beats " + nameOwn + ": " + others
		return ch
	}
	ch.reason = fmt.Sprintf("%.2f× against %s on its calls (%s): %s", ch.speedup, nameOwn, best.how, others)
	return ch
}
