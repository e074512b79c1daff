package report

import (
	"fmt"
	"time"
)

// plan writes the port-or-not decision matrix (wgpu-prof plan): one row
// per operation, ranked by the share of application time it saves, then
// the application's speedup with every ported operation on the GPU.
func (h *htmlWriter) plan(r *Report) {
	p := r.Plan
	if p == nil {
		return
	}
	h.p("<h2 id=\"plan\">Plan: which operations to port</h2>\n<p class=\"note\">Profile %s: each operation's share of CPU time (cumulative samples of its functions), the speedup of its calls routed at the measured crossover, and the application speedup by Amdahl's law; ranked by the share of application time saved.</p>\n", esc(p.Profile))
	// Two tables that fit the page, the decision and the times per call,
	// and between them each operation's reason as a line of prose.
	var rows, times [][]cell
	for i, op := range p.Ops {
		base := fmt.Sprintf("/plan/ops/%d/", i)
		rows = append(rows, []cell{
			label(op.Regex), label(op.Workload), label(op.Verdict), label(op.Choice),
			num(fmt.Sprintf("%.1f%%", 100*op.Share), base+"share", 1),
			num(fmt.Sprint(op.Samples), base+"samples", 1),
			num(fmt.Sprintf("%.2f×", op.Speedup), base+"speedup", 1),
			num(fmt.Sprintf("%.2f×", op.AppSpeedup), base+"app_speedup", 1),
		})
		times = append(times, []cell{
			label(op.Regex), label(planSeconds(op.OwnPerCall)), label(planEstimate(op.ToolCPU)), label(planEstimate(op.GPU)),
			label(planEstimate(op.Kernel)), label(planEstimate(op.Launch)), label(planEstimate(op.Transfer)), label(op.BoundedBy),
		})
	}
	h.table([]string{"functions", "workload", "verdict", "best choice", "share of CPU time", "samples", "speedup on its calls", "application if ported alone"}, rows)
	h.p("<ul class=\"summary\">\n")
	for _, op := range p.Ops {
		h.p("<li><b>%s</b> (%s): %s</li>\n", esc(op.Regex), esc(op.Workload), esc(op.Reason))
	}
	h.p("</ul>\n")
	h.p("<p class=\"note\">Per call, each with its 95%% CI: the application's own code, the tool's CPU kernel, and the GPU in parts.</p>\n")
	h.table([]string{"functions", "own code per call", "tool's CPU kernel per call", "GPU per call", "GPU kernel", "launch tax", "transfer tax", "GPU bounded by"}, times)
	h.p("<p>Application speedup with the ported operations on the GPU: <b>%s</b></p>\n",
		esc(fmt.Sprintf("%.2f× (%.1f%% of CPU time ported)", p.AppSpeedup, 100*p.PortedShare)))
}

// planSeconds formats a time per call ("—" when unknown).
func planSeconds(t float64) string {
	if !(t > 0) {
		return "—"
	}
	return FormatDuration(time.Duration(t * 1e9))
}

// planEstimate formats an estimate with its 95% CI.
func planEstimate(e Estimate) string {
	if !(e.Value > 0) {
		return "—"
	}
	if !(e.Hi > e.Lo) {
		return planSeconds(e.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", planSeconds(e.Value), planSeconds(e.Lo), planSeconds(e.Hi))
}
