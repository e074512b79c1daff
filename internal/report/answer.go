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
	a, b := shortSide(la), shortSide(lb)
	if a == b {
		a, b = la, lb
	}
	count := func(v int) string { return formatCount(float64(v)) }
	// ratios of the slower over the faster side's median where side w
	// (FasterA or FasterB) wins.
	span := func(w int) (float64, float64, bool) {
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
		return mn, mx, ok
	}
	by := func(w int) string {
		mn, mx, ok := span(w)
		if !ok {
			return ""
		}
		if answerRatio(mn) == answerRatio(mx) {
			return ", by " + answerRatio(mx)
		}
		return fmt.Sprintf(", by %s to %s", answerRatio(mn), answerRatio(mx))
	}
	lo, hi := 0, 0
	if len(be.Interval) == 2 {
		lo, hi = be.Interval[0], be.Interval[1]
	} else if len(be.Batches) > 0 {
		lo, hi = be.Batches[0], be.Batches[len(be.Batches)-1]
	}
	unit := ""
	if u := BatchUnit(batch); u != "" {
		unit = " " + u
	}
	at := atLargest(be, a, b)
	switch be.Verdict {
	case timing.VerdictNever:
		return fmt.Sprintf("never: %s faster at every size measured, %s%s%s", a, BatchSpan(batch, float64(lo), float64(hi)), by(timing.FasterA), at)
	case timing.VerdictAlways:
		return fmt.Sprintf("always: %s faster at every size measured, %s%s%s", b, BatchSpan(batch, float64(lo), float64(hi)), by(timing.FasterB), at)
	case timing.VerdictCrossover:
		r := be.BFaster
		switch {
		case r == nil:
		case r.To != nil && r.From > 0 && len(be.Batches) > 0 && r.From == be.Batches[0]:
			return fmt.Sprintf("crossover: %s faster below %s (measured between %s and %s), %s faster from there%s%s",
				b, BatchCount(batch, float64(*r.To)), count(lo), count(hi), a, by(timing.FasterA), at)
		case r.To != nil:
			return fmt.Sprintf("crossover: %s faster only in [%s, %s) (%s%s), %s faster below and above%s", b, count(r.From), count(*r.To), batch, unit, a, at)
		default:
			last := hi
			if len(be.Batches) > 0 {
				last = be.Batches[len(be.Batches)-1]
			}
			return fmt.Sprintf("crossover: %s faster from %s (measured between %s and %s) up to %s, the largest measured; %s faster below%s%s",
				b, BatchCount(batch, float64(r.From)), count(lo), count(hi), count(last), a, by(timing.FasterA), at)
		}
		return "crossover: " + be.Reason + at
	}
	s := "inconclusive"
	if len(be.Batches) > 0 {
		s += " over " + BatchSpan(batch, float64(be.Batches[0]), float64(be.Batches[len(be.Batches)-1]))
	}
	s += ": " + be.Reason
	if !strings.Contains(be.Reason, "measured twice") {
		s += at
	}
	return s
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
		s += fmt.Sprintf(", load %.1f on %d cores", n.Load, n.Cores)
	}
	return s + " — verdicts resting on them marked tentative"
}
