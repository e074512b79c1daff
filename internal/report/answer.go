package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Answer states a break-even's outcome the way a reader asks for it: "GPU
// faster from n ≈ 12k (measured between 8192 and 16k); below that the CPU
// is up to 30× faster", "CPU faster end to end over the whole measured
// range n = 16 … 8192, by 4.1× to 310×".
//
// A break-even that carries a verdict (timing.JudgeCrossover) is stated
// from the verdict alone, never from a fit: see verdictAnswer.
func Answer(be BreakEven) string {
	if be.Verdict != "" {
		return verdictAnswer(be)
	}
	batch := be.Batch
	if batch == "" {
		batch = "batch"
	}
	if len(be.Batches) == 0 || len(be.CPU) != len(be.Batches) || len(be.GPU) != len(be.Batches) {
		return "no break-even measured"
	}
	clock := "end to end"
	if be.Clock == "kernel" {
		clock = "on kernel time"
	}
	// ratio[i] is CPU time over GPU time at batch i (above 1: GPU faster).
	ratio := make([]float64, len(be.Batches))
	for i := range be.Batches {
		if be.GPU[i].Median > 0 {
			ratio[i] = be.CPU[i].Median / be.GPU[i].Median
		}
	}
	span := func(lo, hi int) (float64, float64) {
		mn, mx := math.Inf(1), 0.0
		for i := lo; i < hi; i++ {
			r := ratio[i]
			if r <= 0 {
				continue
			}
			if r < 1 {
				r = 1 / r
			}
			mn, mx = math.Min(mn, r), math.Max(mx, r)
		}
		return mn, mx
	}
	first, last := be.Batches[0], be.Batches[len(be.Batches)-1]
	count := func(v int) string { return formatCount(float64(v)) }
	if be.MeasuredFound {
		i := 0
		for i < len(be.Batches) && be.Batches[i] != be.Measured {
			i++
		}
		var at string
		if be.Fitted.Kind == timing.CrossAt {
			at = fmt.Sprintf("%s ≈ %s", batch, formatCount(be.Fitted.N))
		} else {
			at = fmt.Sprintf("%s = %s", batch, count(be.Measured))
		}
		where := fmt.Sprintf("measured: first at %s = %s", batch, count(be.Measured))
		if i > 0 && i < len(be.Batches) {
			where = fmt.Sprintf("measured between %s and %s", count(be.Batches[i-1]), count(be.Measured))
		}
		s := fmt.Sprintf("GPU faster %s from %s (%s)", clock, at, where)
		if i > 0 {
			if _, mx := span(0, i); mx > 1 && ratio[0] < 1 {
				s += fmt.Sprintf("; below that the CPU is up to %s faster", answerRatio(mx))
			}
		}
		return s
	}
	cpuAll, gpuAll := true, true
	for _, r := range ratio {
		cpuAll = cpuAll && r > 0 && r < 1
		gpuAll = gpuAll && r >= 1
	}
	mn, mx := span(0, len(ratio))
	switch {
	case be.Fitted.Kind == timing.CrossAlways || gpuAll:
		return fmt.Sprintf("GPU faster %s over the whole measured range %s, by %s to %s", clock, BatchSpan(batch, float64(first), float64(last)), answerRatio(mn), answerRatio(mx))
	case cpuAll && be.Fitted.Kind == timing.CrossAt:
		return fmt.Sprintf("CPU faster %s over the whole measured range %s, by %s to %s; the fit puts a crossover %s, beyond what was measured", clock, BatchSpan(batch, float64(first), float64(last)), answerRatio(mn), answerRatio(mx), be.Fitted)
	case cpuAll:
		return fmt.Sprintf("CPU faster %s over the whole measured range %s, by %s to %s; the fit finds no crossover", clock, BatchSpan(batch, float64(first), float64(last)), answerRatio(mn), answerRatio(mx))
	}
	return fmt.Sprintf("no significant crossover %s over %s = %s to %s (fitted: %s)", clock, batch, count(first), count(last), be.Fitted)
}

func answerRatio(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}

// SideName names a side for a reader, with its data regime: "GPU (data
// resident)", "GPU (data shipped per call)", "CPU"; other sides keep
// their label (cpu:threads=2).
func SideName(label string) string {
	switch label {
	case "cpu":
		return "CPU"
	case "gpu", "gpu:data=resident":
		return "GPU (data resident)"
	case "gpu:data=shipped":
		return "GPU (data shipped per call)"
	}
	return label
}

// shortSide is SideName without the regime: "GPU", "CPU".
func shortSide(label string) string {
	switch {
	case label == "cpu":
		return "CPU"
	case label == "gpu" || strings.HasPrefix(label, "gpu:data="):
		return "GPU"
	}
	return label
}

// sidesOf returns the break-even's two side labels (A, B); a report of
// the older form compared cpu with gpu.
func sidesOf(be BreakEven) (string, string) {
	if len(be.Sides) == 2 {
		return be.Sides[0], be.Sides[1]
	}
	return "cpu", "gpu"
}

// verdictAnswer states a verdict, every size with what it counts and the
// two sides' times at the largest size: "never: CPU faster at every size
// measured, n = 256 … 131k rows, by 2.1× to 21× (at n = 131k rows: CPU
// 1.2 ms vs GPU 25 ms)", "crossover: GPU faster only in [320, 4096)
// (q, queries), CPU faster below and above (…)", "inconclusive over …: …".
func verdictAnswer(be BreakEven) string {
	batch := be.Batch
	if batch == "" {
		batch = "n"
	}
	la, lb := sidesOf(be)
	x := answerText{be: be, batch: batch, a: shortSide(la), b: shortSide(lb)}
	if x.a == x.b {
		x.a, x.b = la, lb
	}
	if len(be.Interval) == 2 {
		x.lo, x.hi = be.Interval[0], be.Interval[1]
	} else if len(be.Batches) > 0 {
		x.lo, x.hi = be.Batches[0], be.Batches[len(be.Batches)-1]
	}
	if u := BatchUnit(batch); u != "" {
		x.unit = " " + u
	}
	x.at = atLargest(be, x.a, x.b)
	switch be.Verdict {
	case timing.VerdictNever:
		return fmt.Sprintf("never: %s faster at every size measured, %s%s%s", x.a, BatchSpan(batch, float64(x.lo), float64(x.hi)), x.by(timing.FasterA), x.at)
	case timing.VerdictAlways:
		return fmt.Sprintf("always: %s faster at every size measured, %s%s%s", x.b, BatchSpan(batch, float64(x.lo), float64(x.hi)), x.by(timing.FasterB), x.at)
	case timing.VerdictCrossover:
		return x.crossover()
	}
	s := "inconclusive"
	if len(be.Batches) > 0 {
		s += " over " + BatchSpan(batch, float64(be.Batches[0]), float64(be.Batches[len(be.Batches)-1]))
	}
	s += ": " + be.Reason
	if !strings.Contains(be.Reason, "measured twice") {
		s += x.at
	}
	return s
}

// answerText is what a verdict's one line is built from: the sides' names
// a and b, the batch parameter and its unit, the measured interval and
// the note on the largest size.
type answerText struct {
	be                    BreakEven
	batch, a, b, unit, at string
	lo, hi                int
}

// by is ", by R" or ", by R1 to R2": the ratios of the slower over the
// faster side's median where side w (FasterA or FasterB) wins; "" where
// it never does.
func (x answerText) by(w int) string {
	be := x.be
	mn, mx, ok := math.Inf(1), 0.0, false
	for i := range be.Batches {
		if i >= len(be.CPU) || i >= len(be.GPU) || timing.Faster(be.CPU[i], be.GPU[i]) != w {
			continue
		}
		r := be.CPU[i].Median / be.GPU[i].Median
		if w == timing.FasterA {
			r = 1 / r
		}
		if r > 0 && !math.IsInf(r, 0) {
			mn, mx, ok = math.Min(mn, r), math.Max(mx, r), true
		}
	}
	if !ok {
		return ""
	}
	if answerRatio(mn) == answerRatio(mx) {
		return ", by " + answerRatio(mx)
	}
	return fmt.Sprintf(", by %s to %s", answerRatio(mn), answerRatio(mx))
}

// crossover is the line of a crossover verdict: where b is faster (below
// a size, in a window, or from a size on) and a elsewhere.
func (x answerText) crossover() string {
	be, batch, a, b, at := x.be, x.batch, x.a, x.b, x.at
	count := func(v int) string { return formatCount(float64(v)) }
	r := be.BFaster
	switch {
	case r == nil:
	case r.To != nil && r.From > 0 && len(be.Batches) > 0 && r.From == be.Batches[0]:
		return fmt.Sprintf("crossover: %s faster below %s (measured between %s and %s), %s faster from there%s%s",
			b, BatchCount(batch, float64(*r.To)), count(x.lo), count(x.hi), a, x.by(timing.FasterA), at)
	case r.To != nil:
		return fmt.Sprintf("crossover: %s faster only in [%s, %s) (%s%s), %s faster below and above%s", b, count(r.From), count(*r.To), batch, x.unit, a, at)
	default:
		last := x.hi
		if len(be.Batches) > 0 {
			last = be.Batches[len(be.Batches)-1]
		}
		return fmt.Sprintf("crossover: %s faster from %s (measured between %s and %s) up to %s, the largest measured; %s faster below%s%s",
			b, BatchCount(batch, float64(r.From)), count(x.lo), count(x.hi), count(last), a, x.by(timing.FasterA), at)
	}
	return "crossover: " + be.Reason + at
}

// atLargest is " (at n = 131k rows: CPU 1.2 ms vs GPU 25 ms)": both
// sides' medians at the largest size measured where both have one, the
// faster first; "" when there is none.
func atLargest(be BreakEven, a, b string) string {
	for i := len(be.Batches) - 1; i >= 0; i-- {
		if i >= len(be.CPU) || i >= len(be.GPU) || !be.CPU[i].Valid() || !be.GPU[i].Valid() {
			continue
		}
		ta, tb := be.CPU[i].Median, be.GPU[i].Median
		pair := SideTimes(a, ta, b, tb)
		if tb < ta {
			pair = SideTimes(b, tb, a, ta)
		}
		return fmt.Sprintf(" (at %s: %s)", BatchCount(be.Batch, float64(be.Batches[i])), pair)
	}
	return ""
}

// ShortSide is a side's name without its data regime: "GPU", "CPU";
// other sides keep their label (cpu:threads=2).
func ShortSide(label string) string { return shortSide(label) }

// VerdictLine is a break-even's one-line answer with what it was judged
// against and its confidence: "cosine-single, GPU (data resident) vs CPU,
// end to end: never: CPU faster at every size measured, n = 256 … 131k, by
// 2.1× to 21× [tentative: noisy]".
func VerdictLine(be BreakEven) string {
	la, lb := sidesOf(be)
	clock := "end to end"
	if be.Clock == "kernel" {
		clock = "GPU kernel time vs CPU end to end"
	}
	s := fmt.Sprintf("%s, %s vs %s, %s: %s", be.Workload, SideName(lb), SideName(la), clock, Answer(be))
	switch {
	case be.Verdict == timing.VerdictInconclusive:
	case be.Tentative:
		s += " [tentative: noisy measurements]"
	case be.Verdict != "":
		s += " [firm]"
	}
	return s
}

// NoiseLine is the one line that says noise decides: "host noisy: 34 of
// 60 medians with a 95% CI wider than ±10%, load 4.0 on 2 cores —
// verdicts resting on them marked tentative"; "" when n is nil or the run
// was steady. Each verdict is marked by its own medians (firm or
// tentative), so a steady verdict in a noisy run stays firm.
func NoiseLine(n *Noise) string {
	if n == nil || !n.Tentative {
		return ""
	}
	s := fmt.Sprintf("host noisy: %d of %d medians with a 95%% CI wider than ±%.0f%%", n.Noisy, n.Measurements, 100*n.CILimit)
	if n.Load > 0 && n.Cores > 0 {
		s += fmt.Sprintf(", load %.1f on %s", n.Load, Cores(n.Cores))
	}
	return s + " — verdicts resting on them marked tentative"
}
