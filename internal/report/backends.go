package report

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Backends is one suite measured on several adapters (run --backend
// vulkan,gl), side by side: Adapters in the order they ran, and per
// workload and side one row with a cell per adapter (same order). The
// report's Measurements hold every adapter's rows, each naming its
// backend and adapter.
type Backends struct {
	Adapters []BackendRun `json:"adapters"`
	Rows     []BackendRow `json:"rows"`
}

// BackendRun is one adapter's part of the run: the adapter, its measured
// GPU ceilings, the workloads skipped on it, and why the whole adapter
// failed when it did.
type BackendRun struct {
	Adapter     AdapterInfo        `json:"adapter"`
	GPUCeilings map[string]float64 `json:"gpu_ceilings,omitempty"`
	Skipped     []Skip             `json:"skipped,omitempty"`
	Error       string             `json:"error,omitempty"`
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
	for i, a := range b.Adapters {
		l := orDash(a.Adapter.Backend)
		head = append(head, l+" end-to-end", l+" kernel", l+" verdict")
		if i > 0 {
			head = append(head, fmt.Sprintf("%s/%s", l, orDash(b.Adapters[0].Adapter.Backend)))
		}
	}
	rows := [][]string{head}
	for _, r := range b.Rows {
		row := []string{r.Workload, r.Side, orDash(paramString(r.Params, " "))}
		for i, c := range r.Cells {
			if c.Missing != "" {
				row = append(row, "-", "-", "not measured: "+firstClause(c.Missing))
			} else {
				k := "-"
				if c.Kernel > 0 {
					k = timing.FormatSeconds(c.Kernel)
				}
				row = append(row, timing.FormatSeconds(c.EndToEnd), k, orDash(c.Verdict))
			}
			if i > 0 {
				ratio := "-"
				if c.VsFirst > 0 {
					ratio = fmt.Sprintf("%.2f×", c.VsFirst)
				}
				row = append(row, ratio)
			}
		}
		rows = append(rows, row)
	}
	return rows
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

// backends writes the side-by-side section of the text report.
func (t *textWriter) backends(r *Report) {
	b := r.Backends
	if b == nil || len(b.Adapters) == 0 {
		return
	}
	t.section("Backends side by side (each workload at its default size; b/a: b's end-to-end median over a's, below 1× b is faster)")
	for i, a := range b.Adapters {
		line := fmt.Sprintf("  [%d] %s", i, adapterLabel(a.Adapter.Backend, a.Adapter.Name))
		if a.Error != "" {
			line += ": FAILED: " + a.Error
		}
		for _, s := range a.Skipped {
			line += fmt.Sprintf("; %s skipped", s.Workload)
		}
		t.printf("%s\n", line)
	}
	t.table(backendTable(b))
}

// backends writes the side-by-side section of report.html.
func (h *htmlWriter) backends(r *Report) {
	b := r.Backends
	if b == nil || len(b.Adapters) == 0 {
		return
	}
	h.p("<h2 id=\"backends\">Backends side by side</h2>\n<p class=\"note\">Each workload at its default size on every adapter; the ratio is the end-to-end median over the first adapter's (below 1× faster).</p>\n<ul>\n")
	for i, a := range b.Adapters {
		line := fmt.Sprintf("[%d] %s", i, adapterLabel(a.Adapter.Backend, a.Adapter.Name))
		if a.Error != "" {
			line += ": FAILED: " + a.Error
		}
		for _, s := range a.Skipped {
			line += fmt.Sprintf("; %s skipped: %s", s.Workload, s.Reason)
		}
		h.p("<li>%s</li>\n", esc(line))
	}
	h.p("</ul>\n")
	t := backendTable(b)
	rows := make([][]cell, 0, len(t)-1)
	for _, r := range t[1:] {
		row := make([]cell, len(r))
		for i, s := range r {
			row[i] = label(s)
		}
		rows = append(rows, row)
	}
	h.table(t[0], rows)
}
