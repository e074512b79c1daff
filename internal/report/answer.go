package report

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Answer states a break-even's outcome the way a reader asks for it: "GPU
// faster from n ≈ 12k (measured between 8192 and 16k); below that the CPU
// is up to 30× faster", "CPU faster end to end over the whole measured
// range n = 16 … 8192, by 4.1× to 310×".
func Answer(be BreakEven) string {
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
		return fmt.Sprintf("GPU faster %s over the whole measured range %s = %s … %s, by %s to %s", clock, batch, count(first), count(last), answerRatio(mn), answerRatio(mx))
	case cpuAll && be.Fitted.Kind == timing.CrossAt:
		return fmt.Sprintf("CPU faster %s over the whole measured range %s = %s … %s, by %s to %s; the fit puts a crossover %s, beyond what was measured", clock, batch, count(first), count(last), answerRatio(mn), answerRatio(mx), be.Fitted)
	case cpuAll:
		return fmt.Sprintf("CPU faster %s over the whole measured range %s = %s … %s, by %s to %s; the fit finds no crossover", clock, batch, count(first), count(last), answerRatio(mn), answerRatio(mx))
	}
	return fmt.Sprintf("no significant crossover %s over %s = %s to %s (fitted: %s)", clock, batch, count(first), count(last), be.Fitted)
}

func answerRatio(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}
