package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// planSummary is the program summary: the best plan (each operation's
// choice against its own code), then the GPU port's figures.
func planSummary(pl report.Plan, in Input, minSp float64, transfer string) *report.PlanSummary {
	s := &report.PlanSummary{MinSpeedup: minSp, Transfer: transfer, FractionPorted: pl.PortedShare}
	if in.Unit == "cpu/nanoseconds" {
		s.TimeBefore = float64(in.Total) * 1e-9
	}
	var over, lo, hi, best, others float64
	var chosen []string
	for _, op := range pl.Ops {
		others += op.Share
		best += op.Share / math.Max(op.ChoiceSpeedup, 1e-300)
		if op.Choice != "keep" && op.Choice != "" {
			chosen = append(chosen, fmt.Sprintf("%s: %s (%.2f× on its calls against %s, application %.2f×)",
				op.Regex, op.Choice, op.ChoiceSpeedup, baselineWords(op.ChoiceBaseline), op.ChoiceAppSpeedup))
		}
		if !op.Ported {
			if s.TopNotPorted == "" {
				s.TopNotPorted = fmt.Sprintf("%s (%s, %s): %s: %s", op.Regex, op.Workload, fmtShare(op.Share), op.Verdict, op.Reason)
			}
			continue
		}
		s.NumberPorted++
		over += op.Share / op.Speedup
		lo += op.Share / positive(op.SpeedupLo, op.Speedup)
		hi += op.Share / positive(op.SpeedupHi, op.Speedup)
		if s.TopPorted == "" {
			s.TopPorted = fmt.Sprintf("%s (%s, %s): %s: %s", op.Regex, op.Workload, fmtShare(op.Share), op.Verdict, op.Reason)
		}
	}
	rest := 1 - pl.PortedShare
	if over > 0 {
		s.PortedSpeedup = pl.PortedShare / over
	}
	// The interval takes every ported operation at the same end of its
	// own interval (their errors share the device's taxes).
	s.AppSpeedup = report.Estimate{Value: pl.AppSpeedup, Lo: 1 / (rest + lo), Hi: 1 / (rest + hi)}
	s.TimeAfter = s.TimeBefore / pl.AppSpeedup
	s.BestSpeedup = 1 / ((1 - others) + best)
	s.BestPlan = "keep every operation's own code: nothing beats it"
	if len(chosen) > 0 {
		s.BestPlan = strings.Join(chosen, "; ")
	}
	return s
}

// baselineWords is a choice's baseline in words.
func baselineWords(b string) string {
	if b == "host simd" {
		return "the tool's host SIMD kernel (your code's time unknown)"
	}
	return nameOwn
}

func positive(x, or float64) float64 {
	if x > 0 {
		return x
	}
	return or
}

// amdahl is 1/((1 − s) + s/k).
func amdahl(s, k float64) float64 {
	if k <= 0 {
		return 1
	}
	return 1 / ((1 - s) + s/k)
}

// ownSizesShown is the most sizes an own-code line lists.
const ownSizesShown = 8

// ownLine is the own code's time in words: per size where measured, its
// mean otherwise.
func ownLine(op report.PlanOp) string {
	switch op.OwnBasis {
	case report.OwnLabels, report.OwnBenchmarks:
		var parts []string
		for i, n := range op.Sizes {
			if len(op.Sizes) > ownSizesShown && i == ownSizesShown-3 {
				parts = append(parts, "…")
			}
			if len(op.Sizes) > ownSizesShown && i >= ownSizesShown-3 && i < len(op.Sizes)-3 {
				continue
			}
			parts = append(parts, fmt.Sprintf("n = %d %s", n, crossover.FmtSeconds(op.OwnPerSize[i])))
		}
		s := fmt.Sprintf("  your code per size (%s, %s): %s", op.OwnBasis, op.OwnSource, strings.Join(parts, ", "))
		if op.OwnNote != "" {
			s += " (" + op.OwnNote + ")"
		}
		return s
	case report.OwnMean:
		return fmt.Sprintf("  your code: %s per call at its mean (%d calls, from the %s); %s",
			crossover.FmtSeconds(op.OwnPerCall), op.Calls, op.CallsFrom, op.OwnNote)
	}
	return "  your code: time unknown (no call count: give the mix file's counts or calls=N); the tool's host SIMD kernel stands in"
}

// Lines is the plan in words, verdicts first.
func Lines(pl report.Plan) []string {
	var out []string
	ci := func(e report.Estimate) string {
		if e.Value == 0 && e.Lo == 0 && e.Hi == 0 {
			return "not measured"
		}
		if math.IsNaN(e.Lo) || (e.Lo == 0 && e.Hi == 0) {
			return crossover.FmtSeconds(e.Value)
		}
		return fmt.Sprintf("%s [%s, %s]", crossover.FmtSeconds(e.Value), crossover.FmtSeconds(e.Lo), crossover.FmtSeconds(e.Hi))
	}
	for _, op := range pl.Ops {
		wl := op.Workload
		if op.Precision != "" {
			wl += " in " + op.Precision
		}
		out = append(out, fmt.Sprintf("%s (%s = %s): %s: %s", op.Regex, wl, fmtShare(op.Share), op.Verdict, op.Reason))
		out = append(out, fmt.Sprintf("  best: %s: %s; application %.2f× with it", op.Choice, op.ChoiceReason, op.ChoiceAppSpeedup))
		for _, pc := range op.Comparisons {
			out = append(out, "  "+pc.Verdict)
		}
		out = append(out, ownLine(op))
		own := "own code unknown (no call count)"
		if op.OwnPerCall > 0 {
			own = fmt.Sprintf("own code %s (mean", crossover.FmtSeconds(op.OwnPerCall))
			if op.Calls > 0 {
				own += fmt.Sprintf(", %d calls, from the %s", op.Calls, op.CallsFrom)
			}
			own += ")"
		}
		gpu := "GPU"
		if op.GPUVariant != "" {
			gpu += " (" + op.GPUVariant + ")"
		}
		out = append(out, fmt.Sprintf("  per call: %s · tool's CPU kernel %s · %s %s: kernel %s + launch tax %s + transfer tax %s (transfer %s), bounded by %s",
			own, ci(op.ToolCPU), gpu, ci(op.GPU), ci(op.Kernel), ci(op.Launch), ci(op.Transfer), op.TransferMode, op.BoundedBy))
		if op.Warning != "" {
			out = append(out, "  WARNING: "+op.Warning)
		}
	}
	if s := pl.Summary; s != nil {
		out = append(out, fmt.Sprintf("best plan: application %.2f×: %s", s.BestSpeedup, s.BestPlan))
		ported := "nothing ported"
		if s.NumberPorted > 0 {
			ported = fmt.Sprintf("ported code %.2f×", s.PortedSpeedup)
		}
		out = append(out, fmt.Sprintf("  GPU port alone: application %.2f× (95%% CI %.2f … %.2f) with %d operation(s) ported to the GPU (%.0f%% of CPU time), %s → %s; %s",
			pl.AppSpeedup, s.AppSpeedup.Lo, s.AppSpeedup.Hi, s.NumberPorted, 100*pl.PortedShare, crossover.FmtSeconds(s.TimeBefore), crossover.FmtSeconds(s.TimeAfter), ported))
		if s.TopPorted != "" {
			out = append(out, "  top ported: "+s.TopPorted)
		}
		if s.TopNotPorted != "" {
			out = append(out, "  top not ported: "+s.TopNotPorted)
		}
	} else {
		out = append(out, fmt.Sprintf("application: %.2f× with the ported operations (%.0f%% of CPU time) on the GPU", pl.AppSpeedup, 100*pl.PortedShare))
	}
	out = append(out, fmt.Sprintf("  (Amdahl: 1/((1 − %.3f) + Σ share/speedup) over the ported operations, each speedup against the application's own code where its calls are counted)", pl.PortedShare))
	for _, op := range pl.Ops {
		sizes := fmt.Sprint(op.Sizes)
		if op.MixFile != "" {
			sizes = fmt.Sprintf("mix %s (%d sizes, %d to %d)", op.MixFile, len(op.Sizes), op.Sizes[0], op.Sizes[len(op.Sizes)-1])
		}
		fns := strings.Join(op.Functions, ", ")
		if fns == "" {
			fns = "no function matched"
		}
		out = append(out, fmt.Sprintf("  %s: %s of CPU time (%d samples; %s), batch sizes %s, GPU speedup on them %.2f× (95%% CI %.2f … %.2f), application %.2f× if ported alone; %s",
			op.Workload, fmtShare(op.Share), op.Samples, fns, sizes, op.Speedup, op.SpeedupLo, op.SpeedupHi, op.AppSpeedup, op.Basis))
	}
	if t := pl.Taxes; t != nil {
		out = append(out, fmt.Sprintf("  GPU taxes: launch %s, upload %.3g GB/s, readback %.3g GB/s (%s)", ci(t.Launch), t.Upload.Value/1e9, t.Readback.Value/1e9, t.Source))
	}
	if v := pl.Validation; v != nil {
		out = append(ValidationLines(v), out...)
	}
	return out
}

func fmtShare(s float64) string { return fmt.Sprintf("%.1f%%", 100*s) }
