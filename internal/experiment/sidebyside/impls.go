package sidebyside

import (
	"cmp"
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ParseImplList parses --impl's comma-separated list of implementations
// ("wgpu-native,dawn"), none twice, as the reports spell them.
func ParseImplList(s string) ([]string, error) {
	impls, err := wgpu.ParseImpls(s)
	if err != nil {
		return nil, env.Usage(fmt.Errorf("--impl %q: %w", s, err))
	}
	var out []string
	for _, i := range impls {
		out = append(out, i.String())
	}
	return out, nil
}

// MergeImpls puts the runs of one suite through several WebGPU
// implementations on the same adapter into one report, as MergeBackends
// does for backends: every row names its implementation, the summary lines
// and warnings are tagged with it, and the side-by-side table
// (report.Backends, By "implementation") gives per workload each
// implementation's kernel and end-to-end medians, the end-to-end ratio to
// the first implementation with its 95% CI (the ratio of the far ends of
// the two medians' CIs), the kernel ratio, which is faster ("tie" when
// the ratio's CI holds 1), and each implementation's fixed cost of one
// call (the end-to-end break-even fit's intercept).
func MergeImpls(runs []BackendResult) *report.Report {
	for _, run := range runs {
		if run.Report == nil {
			continue
		}
		for i := range run.Report.Measurements {
			run.Report.Measurements[i].Implementation = run.Report.Adapter.Implementation
		}
		for i := range run.Report.BreakEvens {
			run.Report.BreakEvens[i].Implementation = run.Report.Adapter.Implementation
		}
	}
	out := mergeRuns(runs, func(a report.AdapterInfo) string { return a.Implementation })
	if out == nil {
		return nil
	}
	b := out.Backends
	b.By = "implementation"
	for ri := range b.Rows {
		row := &b.Rows[ri]
		for ci := range row.Cells {
			c := &row.Cells[ci]
			c.Implementation = runs[ci].Label
			if runs[ci].Report != nil {
				c.Implementation = runs[ci].Report.Adapter.Implementation
			}
		}
		first := row.Cells[0]
		for ci := 1; ci < len(row.Cells); ci++ {
			c := &row.Cells[ci]
			if first.Missing != "" || c.Missing != "" || first.EndToEnd <= 0 || c.EndToEnd <= 0 {
				continue
			}
			if first.Kernel > 0 && c.Kernel > 0 {
				c.KernelVsFirst = c.Kernel / first.Kernel
			}
			if first.EndToEndLo > 0 && first.EndToEndHi > 0 && c.EndToEndLo > 0 && c.EndToEndHi > 0 {
				c.VsFirstLo = c.EndToEndLo / first.EndToEndHi
				c.VsFirstHi = c.EndToEndHi / first.EndToEndLo
				switch {
				case c.VsFirstHi < 1:
					c.Faster = c.Implementation
				case c.VsFirstLo > 1:
					c.Faster = first.Implementation
				default:
					c.Faster = "tie"
				}
			}
		}
	}
	applyControl(b)
	lines := implLines(b)
	if l := b.Control.Line("implementation"); l != "" {
		lines = append(lines, l)
	}
	out.Verdicts = append(lines, out.Verdicts...)
	return out
}

// applyControl sets b.Control from the CPU rows, which no WebGPU
// implementation or backend touches (the same host code in every run):
// the band of their ratios to the first run, the far ends of the ratios'
// CIs where known, else the medians' ratios, made symmetric about 1
// ([1/m, m]: the host may move either way). The CPU
// cells are then labelled the control, and a GPU cell whose ratio (its
// CI where known) meets the band is within host noise, not faster.
func applyControl(b *report.Backends) {
	c := &report.AAControl{What: "the CPU rows (no WebGPU implementation or backend touches them)", Lo: 1, Hi: 1}
	lo, hi := func(x report.BackendCell) float64 { return cmp.Or(x.VsFirstLo, x.VsFirst) }, func(x report.BackendCell) float64 { return cmp.Or(x.VsFirstHi, x.VsFirst) }
	for _, r := range b.Rows {
		if r.Side != report.SideCPU {
			continue
		}
		for _, x := range r.Cells[1:] {
			if x.Missing != "" || x.VsFirst <= 0 {
				continue
			}
			c.Rows++
			c.Lo, c.Hi = min(c.Lo, lo(x)), max(c.Hi, hi(x))
		}
	}
	if c.Rows == 0 {
		return
	}
	// The host may move either way: the band is symmetric about 1.
	m := max(c.Hi, 1/c.Lo)
	c.Lo, c.Hi = 1/m, m
	b.Control = c
	for ri := range b.Rows {
		r := &b.Rows[ri]
		for ci := 1; ci < len(r.Cells); ci++ {
			x := &r.Cells[ci]
			switch {
			case x.Missing != "" || x.VsFirst <= 0:
			case r.Side == report.SideCPU:
				x.Faster = report.FasterAAControl
			case x.Faster != "tie" && lo(*x) <= c.Hi && hi(*x) >= c.Lo:
				x.Faster = report.FasterWithinNoise
			}
		}
	}
}

// implLines are the answers, one per workload's GPU row: each
// implementation's end-to-end and kernel medians and the comparison.
func implLines(b *report.Backends) []string {
	return gpuLines(b, "by implementation", func(c report.BackendCell) string { return c.Implementation },
		func(c report.BackendCell, first string) string {
			p := "GPU end-to-end " + timing.FormatSeconds(c.EndToEnd)
			if c.Kernel > 0 {
				p += ", kernel " + timing.FormatSeconds(c.Kernel)
			}
			if c.CallCost > 0 {
				p += ", fixed cost per call " + timing.FormatSeconds(c.CallCost)
			}
			if first == "" || c.VsFirst <= 0 {
				return p
			}
			p += fmt.Sprintf(", %.2f× %s's end-to-end time", c.VsFirst, first)
			if c.VsFirstLo > 0 {
				p += fmt.Sprintf(" (95%% CI %.2f–%.2f×)", c.VsFirstLo, c.VsFirstHi)
			}
			switch c.Faster {
			case "tie", report.FasterWithinNoise:
				p += ": " + c.Faster
			case "":
			default:
				p += ": " + c.Faster + " faster"
			}
			return p
		})
}
