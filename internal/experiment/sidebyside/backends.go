package sidebyside

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ParseBackendList parses --backend's comma-separated list of several
// backends ("vulkan,gl"): each one backend (not "any"), none twice. The
// names come back as the reports spell them.
func ParseBackendList(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		b, err := wgpu.ParseBackend(part)
		if err != nil || b == wgpu.BackendUndefined {
			return nil, env.Usage(fmt.Errorf("--backend %q: %q is not one backend (want vulkan, metal, d3d12 or gl)", s, strings.TrimSpace(part)))
		}
		if seen[b.String()] {
			return nil, env.Usage(fmt.Errorf("--backend %q: %s is named twice", s, b))
		}
		seen[b.String()] = true
		out = append(out, b.String())
	}
	return out, nil
}

// BackendResult is one adapter's run of a suite: its report (nil when the
// adapter could not be opened) and the error that stopped it, if any.
type BackendResult struct {
	// Label names the adapter as asked for ("vulkan", "gl") when it could
	// not be opened.
	Label  string
	Report *report.Report
	Err    error
}

// MergeBackends puts the runs of one suite on several adapters into one
// report: every row (each naming its backend and adapter), break-even,
// skip and warning of each run, the summary lines prefixed with their
// backend, and the side-by-side table (report.Backends) of each workload's
// rows at its default size with the ratio to the first adapter. The
// report's Adapter and Ceilings are the first run's. It returns nil when
// no run has a report.
func MergeBackends(runs []BackendResult) *report.Report {
	out := mergeRuns(runs, func(a report.AdapterInfo) string { return a.Backend })
	if out != nil {
		applyControl(out.Backends)
		lines := compareLines(out.Backends)
		if l := out.Backends.Control.Line("backend"); l != "" {
			lines = append(lines, l)
		}
		out.Verdicts = append(lines, out.Verdicts...)
	}
	return out
}

// mergeRuns is MergeBackends with the runs' tags taken from label and
// without the side-by-side lines, which each caller writes its own way.
func mergeRuns(runs []BackendResult, label func(report.AdapterInfo) string) *report.Report {
	var out *report.Report
	b := &report.Backends{}
	for _, run := range runs {
		br := report.BackendRun{Adapter: report.AdapterInfo{Backend: run.Label}}
		if run.Err != nil {
			br.Error = run.Err.Error()
		}
		r := run.Report
		if r == nil {
			b.Adapters = append(b.Adapters, br)
			continue
		}
		br.Adapter, br.GPUCeilings, br.Skipped, br.Latency = r.Adapter, r.Ceilings.GPU, r.Skipped, r.Latency
		b.Adapters = append(b.Adapters, br)
		tag := fmt.Sprintf("[%s] ", label(r.Adapter))
		if out == nil {
			c := *r
			c.Measurements, c.BreakEvens, c.Skipped, c.Summary, c.Warnings = nil, nil, nil, nil, nil
			c.Sweeps, c.Experiments, c.Verdicts, c.Noise, c.Plan, c.Data, c.CeilingPasses = nil, nil, nil, nil, nil, r.Data, nil
			out = &c
		}
		out.Measurements = append(out.Measurements, r.Measurements...)
		out.BreakEvens = append(out.BreakEvens, r.BreakEvens...)
		out.Sweeps = append(out.Sweeps, r.Sweeps...)
		out.Experiments = append(out.Experiments, r.Experiments...)
		out.Skipped = append(out.Skipped, r.Skipped...)
		for _, s := range r.Verdicts {
			out.Verdicts = append(out.Verdicts, tag+s)
		}
		for _, s := range r.Summary {
			out.Summary = append(out.Summary, tag+s)
		}
		for _, w := range r.Warnings {
			out.Warnings = append(out.Warnings, tag+w)
		}
		if run.Err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%sINCOMPLETE: the run on %s stopped early: %v", tag, r.Adapter.Name, run.Err))
		}
	}
	if out == nil {
		return nil
	}
	for _, run := range runs {
		if run.Report == nil && run.Err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("[%s] not measured: %v", run.Label, run.Err))
		}
	}
	b.Rows = sideBySide(runs)
	out.Backends = b
	return out
}

// compareLines are the side-by-side answers, one per workload: each
// adapter's GPU end-to-end time and verdict against its CPU, and the
// ratio of each later adapter's time to the first's.
func compareLines(b *report.Backends) []string {
	return gpuLines(b, "side by side", func(c report.BackendCell) string { return c.Backend },
		func(c report.BackendCell, first string) string {
			p := fmt.Sprintf("GPU %s", timing.FormatSeconds(c.EndToEnd))
			if c.Verdict != "" {
				p += " (" + c.Verdict + ")"
			}
			if first != "" && c.VsFirst > 0 {
				p += fmt.Sprintf(", %.2f× %s's time", c.VsFirst, first)
				if c.Faster == report.FasterWithinNoise {
					p += " (" + c.Faster + ")"
				}
			}
			return p
		})
}

// gpuLines is one line per workload's GPU row, "<workload> <by>: " and
// a part per cell: the cell's name, then "not measured (why)" or what
// figures writes of it. figures gets the first cell's name, or "" for
// the first cell itself.
func gpuLines(b *report.Backends, by string, name func(report.BackendCell) string, figures func(c report.BackendCell, first string) string) []string {
	var out []string
	for _, r := range b.Rows {
		if r.Side != report.SideGPU {
			continue
		}
		parts := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			first := ""
			if i > 0 {
				first = name(r.Cells[0])
			}
			if c.Missing != "" {
				parts[i] = fmt.Sprintf("%s not measured (%s)", name(c), c.Missing)
			} else {
				parts[i] = name(c) + " " + figures(c, first)
			}
		}
		out = append(out, fmt.Sprintf("%s %s: %s", r.Workload, by, strings.Join(parts, "; ")))
	}
	return out
}

// sideBySide builds the rows of report.Backends: per workload and side
// (in the first run's order, then any only later runs have), each run's
// row at the workload's default size.
func sideBySide(runs []BackendResult) []report.BackendRow {
	type key struct{ workload, side string }
	var order []key
	seen := map[key]bool{}
	for _, run := range runs {
		if run.Report == nil {
			continue
		}
		for _, m := range run.Report.Measurements {
			k := key{m.Workload, m.Side}
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
		for _, s := range run.Report.Skipped {
			for _, side := range []string{report.SideGPU, report.SideCPU} {
				k := key{s.Workload, side}
				if !seen[k] {
					seen[k] = true
					order = append(order, k)
				}
			}
		}
	}
	var rows []report.BackendRow
	for _, k := range order {
		row := report.BackendRow{Workload: k.workload, Side: k.side}
		var first float64
		for i, run := range runs {
			c := backendCell(run, k.workload, k.side)
			if m := rowOf(run.Report, k.workload, k.side); m != nil && row.Params == nil {
				row.Params = m.Params
			}
			if i == 0 {
				first = c.EndToEnd
			} else if first > 0 && c.EndToEnd > 0 {
				c.VsFirst = c.EndToEnd / first
			}
			row.Cells = append(row.Cells, c)
		}
		rows = append(rows, row)
	}
	return rows
}

// rowOf is r's last row of workload on side (the suite's default-size
// row), or nil.
func rowOf(r *report.Report, workload, side string) *report.Measurement {
	if r == nil {
		return nil
	}
	var found *report.Measurement
	for i := range r.Measurements {
		if m := &r.Measurements[i]; m.Workload == workload && m.Side == side {
			found = m
		}
	}
	return found
}

// backendCell is one run's figures for a workload's side.
func backendCell(run BackendResult, workload, side string) report.BackendCell {
	r := run.Report
	c := report.BackendCell{Backend: run.Label}
	if r == nil {
		c.Missing = "adapter not opened"
		if run.Err != nil {
			c.Missing += ": " + run.Err.Error()
		}
		return c
	}
	c.Backend, c.Adapter = r.Adapter.Backend, r.Adapter.Name
	m := rowOf(r, workload, side)
	if m == nil {
		c.Missing = "not measured"
		for _, s := range r.Skipped {
			if s.Workload == workload {
				c.Missing = "skipped: " + s.Reason
			}
		}
		if run.Err != nil && c.Missing == "not measured" {
			c.Missing = "the run stopped early: " + run.Err.Error()
		}
		return c
	}
	c.Variant, c.EndToEnd, c.GBs = m.Variant, m.EndToEnd.Median, m.GBs
	c.EndToEndLo, c.EndToEndHi = m.EndToEnd.Lo, m.EndToEnd.Hi
	if m.Kernel != nil {
		c.Kernel = m.Kernel.Median
	}
	if side == report.SideGPU {
		if cpu := rowOf(r, workload, report.SideCPU); cpu != nil && m.EndToEnd.Median > 0 && cpu.EndToEnd.Median > 0 {
			x := cpu.EndToEnd.Median / m.EndToEnd.Median
			if x >= 1 {
				c.Verdict = "GPU " + times(x) + " faster"
			} else {
				c.Verdict = "CPU " + times(1/x) + " faster"
			}
		}
		for _, be := range r.BreakEvens {
			if be.Workload == workload && be.Clock == "end-to-end" {
				c.Crossover = be.Fitted.String()
				if f := be.GPUFit; gpuIsSideB(be) && f.Overhead > 0 {
					c.CallCost, c.CallCostLo, c.CallCostHi = f.Overhead, max(f.OverheadCI[0], 0), f.OverheadCI[1]
				}
			}
		}
	}
	return c
}

// gpuIsSideB reports whether be's side B (GPUFit) is the GPU: a
// GPU-vs-CPU break-even, not one between two CPU executors.
func gpuIsSideB(be report.BreakEven) bool {
	return len(be.Sides) < 2 || strings.HasPrefix(be.Sides[1], report.SideGPU)
}

// times formats a ratio ≥ 1 as "2.3×" (under 10) or "42×".
func times(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}
