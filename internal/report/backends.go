package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Backends is one suite measured on several adapters (run --backend
// vulkan,gl), side by side: Adapters in the order they ran, and per
// workload and side one row with a cell per adapter (same order). The
// report's Measurements hold every adapter's rows, each naming its
// backend and adapter.
type Backends struct {
	// By is "implementation" when the runs differ in WebGPU implementation
	// (run --impl wgpu-native,dawn) rather than in backend; "" otherwise.
	By       string       `json:"by,omitempty"`
	Adapters []BackendRun `json:"adapters"`
	Rows     []BackendRow `json:"rows"`
	// Control is the A/A control of the comparison: the rows that cannot
	// differ between the runs (nil when there are none to compare).
	Control *AAControl `json:"aa_control,omitempty"`
}

// AAControl is the A/A control of a side-by-side comparison: rows that
// no difference between the runs touches (the CPU rows: the same host
// code in every run), and the band their ratios to the first run moved
// in (Lo–Hi = 1/m–m, m the farthest end of their ratio CIs either way). A
// difference of the compared rows inside that band is within host noise,
// not a finding.
type AAControl struct {
	What string  `json:"what"`
	Rows int     `json:"rows"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

// FasterAAControl and FasterWithinNoise are BackendCell.Faster's words
// for a control row and for a compared row whose ratio's CI meets the
// control's band.
const (
	FasterAAControl   = "A/A control"
	FasterWithinNoise = "within host noise"
)

// Line is the control's one-line answer.
func (c *AAControl) Line(by string) string {
	if c == nil {
		return ""
	}
	rows := "rows"
	if c.Rows == 1 {
		rows = "row"
	}
	return fmt.Sprintf("A/A control: %s moved %.2f–%.2f× between the %ss' runs (%d %s); a GPU ratio whose CI meets that band is within host noise",
		c.What, c.Lo, c.Hi, by, c.Rows, rows)
}

// BackendRun is one adapter's part of the run: the adapter, its measured
// GPU ceilings, the workloads skipped on it, and why the whole adapter
// failed when it did.
type BackendRun struct {
	Adapter     AdapterInfo        `json:"adapter"`
	GPUCeilings map[string]float64 `json:"gpu_ceilings,omitempty"`
	Skipped     []Skip             `json:"skipped,omitempty"`
	// Latency is the call latency anatomy measured on this adapter.
	Latency *timing.Anatomy `json:"latency,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// BackendRow is one workload's side at its default size on every adapter.
type BackendRow struct {
	Workload string        `json:"workload"`
	Side     string        `json:"side"`
	Params   []Param       `json:"params,omitempty"`
	Cells    []BackendCell `json:"cells"`
}

// BackendCell is one adapter's figures for a row; Missing says why there
// are none (the workload was skipped there, or the adapter failed).
type BackendCell struct {
	Backend string `json:"backend"`
	Adapter string `json:"adapter"`
	Variant string `json:"variant,omitempty"`
	// EndToEnd and Kernel are medians in seconds (Kernel 0 without
	// timestamps); GBs is the row's bandwidth.
	EndToEnd float64 `json:"end_to_end_s,omitempty"`
	Kernel   float64 `json:"kernel_s,omitempty"`
	GBs      float64 `json:"gbs,omitempty"`
	// Verdict compares the GPU with the CPU of the same adapter's run at
	// this size ("GPU 2.3× faster", "CPU 4.1× faster"); GPU rows only.
	Verdict string `json:"verdict,omitempty"`
	// Crossover is the end-to-end break-even of the workload on this
	// adapter (Crossover.String), GPU rows only.
	Crossover string `json:"crossover,omitempty"`
	// VsFirst is this cell's end-to-end median over the first adapter's
	// (below 1: faster than the first); 0 when either is missing.
	VsFirst float64 `json:"vs_first,omitempty"`
	Missing string  `json:"missing,omitempty"`
	// Implementation is the run's WebGPU implementation. EndToEndLo/Hi
	// are the 95% CI of the end-to-end median; VsFirstLo/Hi bound the
	// ratio to the first run's (the ratio of the CIs' far ends), and
	// KernelVsFirst is the kernel medians' ratio. Faster names the faster
	// run by end-to-end time, or "tie" when the ratio's CI holds 1; set
	// in a comparison of implementations (Backends.By).
	Implementation string  `json:"implementation,omitempty"`
	EndToEndLo     float64 `json:"end_to_end_ci_lo_s,omitempty"`
	EndToEndHi     float64 `json:"end_to_end_ci_hi_s,omitempty"`
	VsFirstLo      float64 `json:"vs_first_ci_lo,omitempty"`
	VsFirstHi      float64 `json:"vs_first_ci_hi,omitempty"`
	KernelVsFirst  float64 `json:"kernel_vs_first,omitempty"`
	Faster         string  `json:"faster,omitempty"`
	// CallCost is the fixed cost of one GPU call in seconds: the intercept
	// of the end-to-end break-even fit (the time the fit gives a batch of
	// none: encode, submit, wait and read back around an empty kernel),
	// with its 95% CI in CallCostLo/Hi; 0 without a break-even fit. Set
	// in a comparison of implementations, GPU rows only.
	CallCost   float64 `json:"call_cost_s,omitempty"`
	CallCostLo float64 `json:"call_cost_ci_lo_s,omitempty"`
	CallCostHi float64 `json:"call_cost_ci_hi_s,omitempty"`
}

// callCostString formats a cell's fixed cost per call with its CI, or "-".
func callCostString(c BackendCell) string {
	if c.CallCost <= 0 {
		return "-"
	}
	s := timing.FormatSeconds(c.CallCost)
	if c.CallCostHi > c.CallCostLo && c.CallCostLo >= 0 {
		s += fmt.Sprintf(" [%s, %s]", timing.FormatSeconds(c.CallCostLo), timing.FormatSeconds(c.CallCostHi))
	}
	return s
}

// adapterLabel is "backend (name)".
func adapterLabel(backend, name string) string {
	return fmt.Sprintf("%s (%s)", orDash(backend), orDash(name))
}

// backendTable is the side-by-side table: per row, each adapter's key
// figures and its ratio to the first adapter. Columns are headed by the
// backend; the adapters' names are listed above the table.
func backendTable(b *Backends) [][]string {
	head := []string{"workload", "side", "params"}
	byImpl := b.By == "implementation"
	label := func(a AdapterInfo) string {
		if byImpl {
			return orDash(a.Implementation)
		}
		return orDash(a.Backend)
	}
	for i, a := range b.Adapters {
		l := label(a.Adapter)
		head = append(head, l+" end-to-end", l+" kernel")
		if byImpl {
			head = append(head, l+" fixed/call")
		}
		head = append(head, l+" verdict")
		if i > 0 {
			head = append(head, fmt.Sprintf("%s/%s", l, label(b.Adapters[0].Adapter)))
			if byImpl {
				head = append(head, "95% CI", "kernel ratio", "faster")
			}
		}
	}
	rows := [][]string{head}
	for _, r := range b.Rows {
		row := []string{r.Workload, r.Side, orDash(paramString(r.Params, " "))}
		for i, c := range r.Cells {
			if c.Missing != "" {
				row = append(row, "-", "-")
				if byImpl {
					row = append(row, "-")
				}
				row = append(row, "not measured: "+firstClause(c.Missing))
			} else {
				k := "-"
				if c.Kernel > 0 {
					k = timing.FormatSeconds(c.Kernel)
				}
				row = append(row, timing.FormatSeconds(c.EndToEnd), k)
				if byImpl {
					row = append(row, callCostString(c))
				}
				row = append(row, orDash(c.Verdict))
			}
			if i > 0 {
				ratio := "-"
				if c.VsFirst > 0 {
					ratio = fmt.Sprintf("%.2f×", c.VsFirst)
				}
				row = append(row, ratio)
				if byImpl {
					ci, kr := "-", "-"
					if c.VsFirstLo > 0 && c.VsFirstHi > 0 {
						ci = fmt.Sprintf("%.2f–%.2f×", c.VsFirstLo, c.VsFirstHi)
					}
					if c.KernelVsFirst > 0 {
						kr = fmt.Sprintf("%.2f×", c.KernelVsFirst)
					}
					row = append(row, ci, kr, orDash(c.Faster))
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// anatomyLine is the call latency anatomy of one implementation's run in
// a few words: the medians (95% CI) of an empty call and of the tiny
// call, the fixed cost of a launch and of a readback; "" without one.
func anatomyLine(a *timing.Anatomy) string {
	if a == nil || a.Empty.Median <= 0 {
		return ""
	}
	ci := func(s timing.Summary) string {
		out := timing.FormatSeconds(s.Median)
		if s.Hi > s.Lo && s.Lo > 0 {
			out += fmt.Sprintf(" [%s, %s]", timing.FormatSeconds(s.Lo), timing.FormatSeconds(s.Hi))
		}
		return out
	}
	line := "empty call " + ci(a.Empty) + ", tiny call " + ci(a.Tiny)
	if a.DispatchFit.Overhead > 0 {
		line += ", launch " + timing.FormatSeconds(a.DispatchFit.Overhead)
	}
	if a.ReadbackFit.Overhead > 0 {
		line += ", readback " + timing.FormatSeconds(a.ReadbackFit.Overhead) + " fixed"
	}
	return line
}

// firstClause shortens a reason to its first clause for a table cell (the
// full text is in the JSON and the warnings).
func firstClause(s string) string {
	if i := strings.Index(s, ": "); i > 0 && i < 80 {
		return s[:i]
	}
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// backends writes the side-by-side section of the text report: in the
// short form folded within MaxLine (foldedBackendTable), in --verbose the
// whole table, one line per workload and side.
func (t *textWriter) backends(r *Report) {
	b := r.Backends
	if b == nil || len(b.Adapters) == 0 {
		return
	}
	byImpl := b.By == "implementation"
	switch {
	case byImpl && t.wrap:
		first := runLabel(b, b.Adapters[0].Adapter)
		t.heading("Implementations side by side (each workload at its default size; vs " + first + ": the end-to-end median over " +
			first + "'s [95% CI], below 1× faster; faster: tie when the CI holds 1×; fixed/call: one GPU call's fixed cost, " +
			"the intercept of the end-to-end break-even fit; its CI and the kernel ratio with --verbose)")
	case byImpl:
		t.section("Implementations side by side (each workload at its default size; b/a: b's end-to-end median over a's, below 1× b is faster; faster: tie when the ratio's 95% CI holds 1×; fixed/call: the fixed cost of one GPU call, the end-to-end break-even fit's intercept with its 95% CI)")
	case t.wrap:
		first := runLabel(b, b.Adapters[0].Adapter)
		t.heading("Backends side by side (each workload at its default size; vs " + first + ": the end-to-end median over " +
			first + "'s, below 1× faster)")
	default:
		t.section("Backends side by side (each workload at its default size; b/a: b's end-to-end median over a's, below 1× b is faster)")
	}
	for i, a := range b.Adapters {
		prefix := fmt.Sprintf("  [%d] ", i)
		line := adapterLabel(a.Adapter.Backend, a.Adapter.Name)
		if byImpl {
			line += " through " + implLabel(a.Adapter)
			if l := anatomyLine(a.Latency); l != "" {
				line += "; calls: " + l
			}
		}
		if a.Error != "" {
			line += ": FAILED: " + a.Error
		}
		for _, s := range a.Skipped {
			line += fmt.Sprintf("; %s skipped", s.Workload)
			if t.wrap {
				// The folded table has no room for why.
				line += ": " + firstClause(s.Reason)
			}
		}
		t.bullet(prefix, line)
	}
	if !t.wrap {
		t.table(backendTable(b))
		return
	}
	sizes, rows := foldedBackendTable(b)
	if len(sizes) > 0 {
		t.bullet("sizes: ", strings.Join(sizes, "; "))
	}
	t.table(rows)
}

// shortRatio is a ratio in three figures: 0.73, 2.16, 10.3, 125.
func shortRatio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// runLabel names one run of a side-by-side comparison: its
// implementation, or its backend.
func runLabel(b *Backends, a AdapterInfo) string {
	if b.By == "implementation" {
		return orDash(a.Implementation)
	}
	return orDash(a.Backend)
}

// foldedBackendTable is the side-by-side table of the short text, within
// MaxLine columns: one line per run under each workload and side (the
// first run's line is the baseline of the others' ratios), the params
// moved out of the table into sizes ("cosine-single d=768 n=8192", long
// per-step lists summarised: DisplayParams; whole in --verbose, JSON and
// CSV), the kernel ratio and the CI of the fixed cost per call left to
// --verbose. A row a run did not measure says so; why is on that run's
// line above the table.
func foldedBackendTable(b *Backends) (sizes []string, rows [][]string) {
	byImpl := b.By == "implementation"
	head := foldedHead(b, byImpl)
	rows = [][]string{head}
	seen := map[string]string{}
	for _, r := range b.Rows {
		p := DisplayParams(r.Params)
		if prev, ok := seen[r.Workload]; !ok {
			seen[r.Workload] = p
			if p != "" {
				sizes = append(sizes, r.Workload+" "+p)
			}
		} else if prev != p && p != "" {
			sizes = append(sizes, r.Workload+" "+r.Side+" "+p)
		}
		for i, c := range r.Cells {
			row := foldedCells(b, c, i, len(head), byImpl)
			if i == 0 {
				row[0], row[1] = r.Workload, r.Side
			}
			rows = append(rows, row)
		}
	}
	return sizes, foldedFit(rows)
}

// foldedHead is the folded side-by-side table's header.
func foldedHead(b *Backends, byImpl bool) []string {
	head := []string{"workload", "side", "through", "end to end", "kernel"}
	if !byImpl {
		head[2] = "backend"
	}
	if byImpl {
		head = append(head, "fixed/call")
	}
	head = append(head, "GPU vs CPU", "vs "+runLabel(b, b.Adapters[0].Adapter))
	if byImpl {
		head = append(head, "faster")
	}
	return head
}

// foldedCells is run i's row of the folded table for cell c (the
// workload and side columns left empty).
func foldedCells(b *Backends, c BackendCell, i, width int, byImpl bool) []string {
	row := make([]string, width)
	row[2] = "-"
	if i < len(b.Adapters) {
		row[2] = runLabel(b, b.Adapters[i].Adapter)
	}
	if c.Missing != "" {
		// Why is on the run's line above the table.
		row[3] = "not measured"
		return row
	}
	k := "-"
	if c.Kernel > 0 {
		k = timing.FormatSeconds(c.Kernel)
	}
	j := 3
	set := func(s string) { row[j] = s; j++ }
	set(timing.FormatSeconds(c.EndToEnd))
	set(k)
	if byImpl {
		fixed := "-"
		if c.CallCost > 0 {
			fixed = timing.FormatSeconds(c.CallCost)
		}
		set(fixed)
	}
	set(orDash(c.Verdict))
	if i == 0 {
		// The baseline: no ratio to itself.
		return row
	}
	ratio := "-"
	if c.VsFirst > 0 {
		ratio = shortRatio(c.VsFirst) + "×"
		if byImpl && c.VsFirstLo > 0 && c.VsFirstHi > 0 {
			ratio += " [" + shortRatio(c.VsFirstLo) + ", " + shortRatio(c.VsFirstHi) + "]"
		}
	}
	set(ratio)
	if byImpl {
		set(orDash(c.Faster))
	}
	return row
}

// foldedFit merges the workload and its side into one column and fits
// the table to MaxLine: where it is still wider, GPU vs CPU drops its
// "faster" ("CPU 270×"), and at last the final cell is clipped.
func foldedFit(rows [][]string) [][]string {
	verdict := -1
	for i, c := range rows[0] {
		if c == "GPU vs CPU" {
			verdict = i - 1
		}
	}
	for i, row := range rows {
		merged := strings.TrimSpace(row[0] + " " + row[1])
		if i == 0 {
			merged = "workload, side"
		}
		rows[i] = append([]string{merged}, row[2:]...)
	}
	if tableWidth(rows) > MaxLine {
		for _, row := range rows[1:] {
			row[verdict] = strings.TrimSuffix(row[verdict], " faster")
		}
	}
	fitColumns(rows, MaxLine, tableGap, []int{len(rows[0]) - 1}, 8)
	return rows
}

// backends writes the side-by-side section of report.html.
func (h *htmlWriter) backends(r *Report) {
	b := r.Backends
	if b == nil || len(b.Adapters) == 0 {
		return
	}
	if b.By == "implementation" {
		h.p("<h2 id=\"backends\">Implementations side by side</h2>\n<p class=\"note\">Each workload at its default size through every WebGPU implementation on the same adapter; the ratio is the end-to-end median over the first implementation's (below 1× faster), with the 95%% CI of the ratio; tie when it holds 1×. Fixed/call is the fixed cost of one GPU call (encode, submit, wait, read back), the intercept of the end-to-end break-even fit with its 95%% CI, beside the kernel time.</p>\n<ul>\n")
	} else {
		h.p("<h2 id=\"backends\">Backends side by side</h2>\n<p class=\"note\">Each workload at its default size on every adapter; the ratio is the end-to-end median over the first adapter's (below 1× faster).</p>\n<ul>\n")
	}
	for i, a := range b.Adapters {
		line := fmt.Sprintf("[%d] %s", i, adapterLabel(a.Adapter.Backend, a.Adapter.Name))
		if b.By == "implementation" {
			line += " through " + implLabel(a.Adapter)
			if l := anatomyLine(a.Latency); l != "" {
				line += "; calls: " + l
			}
		}
		if a.Error != "" {
			line += ": FAILED: " + a.Error
		}
		for _, s := range a.Skipped {
			line += fmt.Sprintf("; %s skipped: %s", s.Workload, s.Reason)
		}
		h.p("<li>%s</li>\n", esc(line))
	}
	h.p("</ul>\n")
	head, rows, sizes := htmlBackendTable(b)
	if len(sizes) > 0 {
		h.p("<p class=\"note\">Sizes: %s.</p>\n", esc(strings.Join(sizes, "; ")))
	}
	h.table(head, rows)
}

// htmlBackendTable is the side-by-side table of report.html, folded as
// the short text's (foldedBackendTable) so that it fits the page: a row
// per run under each workload and side, the params in sizes; here every
// figure stays, the fixed cost per call with its CI, the ratio's CI and
// the kernel ratio in columns of their own.
func htmlBackendTable(b *Backends) (head []string, rows [][]cell, sizes []string) {
	byImpl := b.By == "implementation"
	first := runLabel(b, b.Adapters[0].Adapter)
	head = []string{"workload", "side", "implementation", "end-to-end", "kernel"}
	if !byImpl {
		head[2] = "backend"
	}
	if byImpl {
		head = append(head, "fixed/call [95% CI]")
	}
	head = append(head, "GPU vs CPU", "vs "+first)
	if byImpl {
		head = append(head, "95% CI", "kernel ratio", "faster")
	}
	seen := map[string]string{}
	for _, r := range b.Rows {
		p := DisplayParams(r.Params)
		if prev, ok := seen[r.Workload]; !ok {
			seen[r.Workload] = p
			if p != "" {
				sizes = append(sizes, r.Workload+" "+p)
			}
		} else if prev != p && p != "" {
			sizes = append(sizes, r.Workload+" "+r.Side+" "+p)
		}
		for i, c := range r.Cells {
			run := "-"
			if i < len(b.Adapters) {
				run = runLabel(b, b.Adapters[i].Adapter)
			}
			row := []cell{label(r.Workload), label(r.Side), label(run)}
			if i > 0 {
				row[0], row[1] = label(""), label("")
			}
			if c.Missing != "" {
				rows = append(rows, append(row, prose("not measured: "+c.Missing)))
				continue
			}
			k := "-"
			if c.Kernel > 0 {
				k = timing.FormatSeconds(c.Kernel)
			}
			row = append(row, label(timing.FormatSeconds(c.EndToEnd)), label(k))
			if byImpl {
				row = append(row, label(callCostString(c)))
			}
			row = append(row, label(orDash(c.Verdict)))
			ratio, ci, kr, faster := "", "", "", ""
			if i > 0 {
				ratio, ci, kr, faster = "-", "-", "-", orDash(c.Faster)
				if c.VsFirst > 0 {
					ratio = fmt.Sprintf("%.2f×", c.VsFirst)
				}
				if c.VsFirstLo > 0 && c.VsFirstHi > 0 {
					ci = fmt.Sprintf("%.2f–%.2f×", c.VsFirstLo, c.VsFirstHi)
				}
				if c.KernelVsFirst > 0 {
					kr = fmt.Sprintf("%.2f×", c.KernelVsFirst)
				}
			}
			row = append(row, label(ratio))
			if byImpl {
				row = append(row, label(ci), label(kr), label(faster))
			}
			rows = append(rows, row)
		}
	}
	return head, rows, sizes
}

// SideBySideCSVHeader heads WriteSideBySideCSV's rows.
var SideBySideCSVHeader = []string{
	"workload", "side", "params", "by", "run", "backend", "adapter", "implementation", "variant",
	"e2e_median_s", "e2e_lo_s", "e2e_hi_s", "kernel_median_s", "call_cost_s", "call_cost_lo_s", "call_cost_hi_s",
	"vs_first", "vs_first_lo", "vs_first_hi", "kernel_vs_first", "faster", "verdict", "crossover", "missing",
}

// WriteSideBySideCSV writes the side-by-side comparison (r.Backends), one
// row per workload, side and run: run is the index of the adapter or
// implementation in the comparison (0 is the one the ratios divide by),
// times in seconds, ratios as plain numbers. Only the header without a
// comparison.
func WriteSideBySideCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SideBySideCSVHeader); err != nil {
		return fmt.Errorf("report: WriteSideBySideCSV: %w", err)
	}
	g := func(v float64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if r != nil && r.Backends != nil {
		b := r.Backends
		by := b.By
		if by == "" {
			by = "backend"
		}
		for _, row := range b.Rows {
			for i, c := range row.Cells {
				impl := c.Implementation
				if impl == "" && i < len(b.Adapters) {
					impl = b.Adapters[i].Adapter.Implementation
				}
				rec := []string{row.Workload, row.Side, paramString(row.Params, ";"), by, strconv.Itoa(i),
					c.Backend, c.Adapter, impl, c.Variant,
					g(c.EndToEnd), g(c.EndToEndLo), g(c.EndToEndHi), g(c.Kernel), g(c.CallCost), g(c.CallCostLo), g(c.CallCostHi),
					g(c.VsFirst), g(c.VsFirstLo), g(c.VsFirstHi), g(c.KernelVsFirst), c.Faster, c.Verdict, c.Crossover, c.Missing}
				if err := cw.Write(rec); err != nil {
					return fmt.Errorf("report: WriteSideBySideCSV: %w", err)
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: WriteSideBySideCSV: %w", err)
	}
	return nil
}
