package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// WriteText writes r in its short form (TextOptions{}): the verdicts
// first, then the measurements, sweeps and experiments, then the warnings
// aggregated one line per kind.
func WriteText(w io.Writer, r *Report) error { return WriteTextOpts(w, r, TextOptions{}) }

// TextOptions select how much WriteTextOpts writes.
type TextOptions struct {
	// Verbose adds the details: the measured ceilings, the break-even
	// table with its fits, every line of Summary (choices, fits, what was
	// timed) and, with EveryWarning, every warning on its own line.
	Verbose bool
	// EveryWarning lists every warning on its own line instead of one
	// line per kind with a count and the worst case (AggregateWarnings).
	EveryWarning bool
}

// maxShortRows is the most measurement rows the short form lists; a
// longer table (a break-even's every size) is left to --verbose, JSON and
// HTML, its verdict lines saying what it showed.
const maxShortRows = 16

// WriteTextOpts writes r as human-readable aligned tables. It leads with
// the verdicts (one line per workload or point, Report.Verdicts) and the
// noise line; empty sections are omitted.
//
// In the measurement table, times are "median −lo%/+hi%" (95% CI of the
// median), "% of ceiling" is CeilingFrac against the ceiling named, and
// "GPU vs CPU" on a GPU row compares it with the fastest CPU end-to-end
// median of the same workload and params.
func WriteTextOpts(w io.Writer, r *Report, o TextOptions) error {
	if r == nil {
		return errors.New("report: WriteText: nil report")
	}
	tw := &textWriter{w: w, wrap: !o.Verbose}
	if o.Verbose {
		tw.header(r)
	} else {
		tw.shortHeader(r)
	}
	tw.backends(r)
	// The answers to what the flags asked for, then the verdicts (without
	// verdicts, as for host, kernel or a report of the older form, the
	// summary is the answer), then the noise line: AnswerLines.
	if answers := AnswerLines(r); len(answers) > 0 {
		tw.section("Answer")
		for _, s := range answers {
			tw.bullet("- ", s)
		}
	}
	if o.Verbose {
		tw.ceilings(r)
	}
	// A sweep's table lists its rows; the short form does not repeat them.
	if o.Verbose || len(r.Sweeps) == 0 {
		tw.measurements(r, o.Verbose)
	}
	if o.Verbose {
		tw.breakEvens(r)
	}
	tw.sweeps(r)
	tw.experiments(r)
	tw.latency(r)
	if o.Verbose {
		if len(r.Summary) > 0 && summaryIsDetail(r) {
			tw.section("Details")
			for _, s := range r.Summary {
				tw.printf("- %s\n", s)
			}
		}
		if o.EveryWarning {
			tw.warnings(warningLines(r))
		} else {
			tw.warnings(AggregateWarnings(r))
		}
	} else {
		tw.warnings(AggregateWarnings(r))
		if len(r.Summary) > 0 && summaryIsDetail(r) || len(r.Measurements) > maxShortRows {
			tw.printf("\n(details: --verbose, --format json, or --out DIR for report.html)\n")
		}
	}
	if tw.err != nil {
		return fmt.Errorf("report: WriteText: %w", tw.err)
	}
	return nil
}

// textWriter remembers the first write error so the section code stays
// linear.
type textWriter struct {
	w     io.Writer
	err   error
	wrote bool
	wrap  bool // break prose lines at MaxLine (the short form)
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
		t.wrote = true
	}
}

func (t *textWriter) section(title string) {
	if t.wrote {
		t.printf("\n")
	}
	t.printf("%s\n", title)
}

// heading is section for a title that may be long: in the short form
// wrapped within MaxLine, its continuation lines indented by two.
func (t *textWriter) heading(title string) {
	if !t.wrap {
		t.section(title)
		return
	}
	lines := WrapBullet("  ", title, MaxLine)
	lines[0] = strings.TrimPrefix(lines[0], "  ")
	t.section(strings.Join(lines, "\n"))
}

// tableGap is the space between two columns of a text table.
const tableGap = 2

// table writes rows as aligned columns; the first row is the header. A
// row's last cell is not aligned (text/tabwriter), and no line ends in
// spaces.
func (t *textWriter) table(rows [][]string) {
	for _, l := range tableLines(rows) {
		t.printf("%s\n", l)
	}
}

// tableLines are rows as the lines of an aligned table: each column as
// wide as its widest cell, tableGap spaces between columns, no line
// ending in spaces.
func tableLines(rows [][]string) []string {
	var b strings.Builder
	tab := tabwriter.NewWriter(&b, 0, 0, tableGap, ' ', 0)
	for _, row := range rows {
		fmt.Fprintf(tab, "%s\n", strings.Join(row, "\t"))
	}
	tab.Flush() // a strings.Builder takes every write
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// tableWidth is the width in runes of the widest line tableLines makes
// of rows.
func tableWidth(rows [][]string) int {
	w := 0
	for _, l := range tableLines(rows) {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

func (t *textWriter) header(r *Report) {
	t.printf("wgpu-prof report (%s)\n", r.Schema)
	rows := [][]string{
		{"tool:", orDash(r.Tool)},
		{"created:", r.Created.UTC().Format(time.RFC3339)},
	}
	a := r.Adapter
	ts := "timestamps unavailable"
	if a.TimestampsOK {
		ts = "timestamps ok"
	}
	rows = append(rows,
		[]string{"adapter:", fmt.Sprintf("%s (%s, %s, %s, driver %s), %s",
			orDash(a.Name), orDash(a.Vendor), orDash(a.Backend), orDash(a.DeviceType), orDash(a.Driver), ts)},
		[]string{"host:", fmt.Sprintf("%s, %s, SIMD %s", orDash(r.Host.CPU), Cores(r.Host.Cores), orDash(r.Host.SIMDLevel))},
		[]string{"wgpu-native:", orDash(r.WgpuNativeVersion)},
	)
	if a.Implementation != "" {
		rows = append(rows[:len(rows)-2], append([][]string{{"webgpu:", implsLabel(r)}}, rows[len(rows)-2:]...)...)
	}
	t.table(rows)
}

// shortHeader is the header in two lines: tool and time, adapter and
// host (the host on a line of its own where the two do not fit MaxLine).
func (t *textWriter) shortHeader(r *Report) {
	a := r.Adapter
	ts := ""
	if !a.TimestampsOK {
		ts = ", no timestamps"
	}
	t.bullet("", fmt.Sprintf("wgpu-prof report, %s, %s", orDash(r.Tool), r.Created.UTC().Format(time.RFC3339)))
	through := ""
	if a.Implementation != "" {
		through = " through " + implsLabel(r)
	}
	adapter := fmt.Sprintf("adapter %s (%s, %s%s)%s", orDash(a.Name), orDash(a.Backend), orDash(a.DeviceType), ts, through)
	host := fmt.Sprintf("host %s, %s, SIMD %s", orDash(r.Host.CPU), Cores(r.Host.Cores), orDash(r.Host.SIMDLevel))
	if utf8.RuneCountInString(adapter)+2+utf8.RuneCountInString(host) <= MaxLine {
		t.printf("%s; %s\n", adapter, host)
		return
	}
	t.bullet("", adapter)
	t.bullet("", host)
}

// Cores is n with its noun: "1 core", "2 cores".
func Cores(n int) string {
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

func (t *textWriter) ceilings(r *Report) {
	rows := orderedCeilingRows(r.Ceilings)
	if len(rows) == 0 {
		return
	}
	t.section("Measured ceilings (this run; grouped by kind; CPU on the run's threads and on one core)")
	out := [][]string{{"kind", "ceiling", "GPU", "CPU", "CPU 1 core"}}
	last := ""
	for _, c := range rows {
		kind := ""
		if c.Kind != last {
			kind, last = c.Kind, c.Kind
		}
		cell := func(m map[string]float64, key string) string {
			v, ok := m[key]
			if !ok {
				return "-"
			}
			return c.Format(v)
		}
		out = append(out, []string{kind, c.Label(), cell(r.Ceilings.GPU, c.Key), cell(r.Ceilings.CPU, c.Key), cell(r.Ceilings.CPU, c.Key+"_1core")})
	}
	t.table(out)
}

func (t *textWriter) measurements(r *Report, verbose bool) {
	if len(r.Measurements) == 0 {
		return
	}
	if !verbose && len(r.Measurements) > maxShortRows {
		t.section(fmt.Sprintf("Measurements: %d rows (listed with --verbose)", len(r.Measurements)))
		return
	}
	if !verbose {
		t.shortMeasurements(r)
		return
	}
	t.section("Measurements")
	rows := [][]string{{"workload", "side", "variant", "params", "kernel time", "end-to-end time", "bandwidth", "arithmetic", "bound", "% of its ceiling", "GPU vs CPU (end to end)", "verified"}}
	several := r.Backends != nil
	if several {
		rows[0] = append([]string{"backend"}, rows[0]...)
	}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		kernel := "-"
		if m.Kernel != nil {
			kernel = FormatSummary(*m.Kernel)
		}
		speedup := "-"
		if m.Side == SideGPU {
			if cpu, ok := fastestCPU(r, m); ok && m.EndToEnd.Median > 0 {
				speedup = speedupString(cpu / m.EndToEnd.Median)
			}
		}
		verified := "no"
		if m.Verified {
			verified = "yes"
		}
		row := []string{m.Workload, m.Side, orDash(m.Variant), orDash(DisplayParams(m.Params)),
			kernel, FormatSummary(m.EndToEnd), FormatRate(m.GBs), FormatRateOf(m), orDash(m.Bound),
			ceilingCell(r, m), speedup, verified}
		if several {
			row = append([]string{orDash(m.Backend)}, row...)
		}
		rows = append(rows, row)
	}
	t.table(rows)
}

// ceilingCell is "80% of CPU read 54.4 GB/s", or "-" without a bound.
func ceilingCell(r *Report, m *Measurement) string {
	c := CeilingOf(r, m)
	if c == "" {
		return "-"
	}
	out := fmt.Sprintf("%.0f%% of %s", 100*m.CeilingFrac, c)
	if m.CeilingFrac > 1 {
		out += " (above it: see warnings)"
	}
	return out
}

// speedupString says which side is faster and by how much, given the CPU
// time over the GPU time: "GPU 2.3× faster", "CPU 130× faster".
func speedupString(cpuOverGPU float64) string {
	switch {
	case cpuOverGPU >= 1:
		return "GPU " + ratioString(cpuOverGPU) + " faster"
	case cpuOverGPU > 0:
		return "CPU " + ratioString(1/cpuOverGPU) + " faster"
	}
	return "-"
}

func ratioString(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}

// fastestCPU returns the smallest CPU end-to-end median with the same
// workload and params as m.
func fastestCPU(r *Report, m *Measurement) (float64, bool) {
	best, found := math.Inf(1), false
	ps := paramString(m.Params, ",")
	for i := range r.Measurements {
		c := &r.Measurements[i]
		if c.Side == SideCPU && c.Workload == m.Workload && paramString(c.Params, ",") == ps && c.EndToEnd.Valid() {
			best, found = math.Min(best, c.EndToEnd.Median), true
		}
	}
	return best, found
}

func (t *textWriter) breakEvens(r *Report) {
	if len(r.BreakEvens) == 0 {
		return
	}
	t.section("Break-even (side B against side A; verdicts from the measured sizes, fits t(n) = a + b·n per side)")
	rows := [][]string{{"workload", "B vs A", "clock", "verdict", "sizes it rests on", "fitted crossover (95% CI)", "side A fit", "side B fit"}}
	for _, b := range r.BreakEvens {
		la, lb := sidesOf(b)
		rests := "-"
		if len(b.Interval) == 2 {
			rests = BatchSpan(b.Batch, float64(b.Interval[0]), float64(b.Interval[1]))
		}
		fitted := b.Fitted.String()
		if b.Predicted != nil && b.Predicted.Refused != "" {
			fitted = "not used (R² below " + fmt.Sprintf("%.2f", timing.Policy{}.WithDefaults().MinPredictR2) + ")"
		}
		row := []string{b.Workload, SideName(lb) + " vs " + SideName(la), orDash(b.Clock), orDash(b.Verdict), rests,
			fitted, shortSide(la) + ": " + fitString(b.CPUFit), shortSide(lb) + ": " + fitString(b.GPUFit)}
		if r.Backends != nil {
			row = append([]string{orDash(b.Backend)}, row...)
		}
		rows = append(rows, row)
	}
	if r.Backends != nil {
		rows[0] = append([]string{"backend"}, rows[0]...)
	}
	t.table(rows)
}

func fitString(f timing.LinearFit) string {
	return fmt.Sprintf("%s + %s·n (R² %.3f)", timing.FormatSeconds(f.Overhead), timing.FormatSeconds(f.PerItem), f.R2)
}

func (t *textWriter) sweeps(r *Report) {
	for _, s := range r.Sweeps {
		t.section(fmt.Sprintf("Sweep: %s (%s, %s)", s.Name, s.Workload, s.Side))
		best := math.Inf(1)
		for _, p := range s.Points {
			if p.Time.Valid() && p.Time.Median > 0 {
				best = math.Min(best, p.Time.Median)
			}
		}
		rows := [][]string{{"config", "time (median, 95% CI)", "bandwidth", "time vs best"}}
		for _, p := range s.Points {
			vs := "-"
			if p.Time.Median > 0 && !math.IsInf(best, 0) {
				vs = fmt.Sprintf("%.2f×", p.Time.Median/best)
			}
			bw := "-"
			if p.GBs > 0 {
				bw = FormatRate(p.GBs)
			}
			rows = append(rows, []string{p.Label, FormatSummary(p.Time), bw, vs})
		}
		for _, rj := range s.Rejected {
			if t.wrap {
				// Why, under the table: a reason is a sentence.
				rows = append(rows, []string{rj.Label, "rejected (below)", "-", "-"})
			} else {
				rows = append(rows, []string{rj.Label, "rejected: " + rj.Reason, "-", "-"})
			}
		}
		t.table(rows)
		if t.wrap {
			for _, rj := range s.Rejected {
				t.bullet("rejected "+rj.Label+": ", rj.Reason)
			}
		}
		if s.Verdict != "" {
			t.bullet("", s.Verdict)
		} else if s.Best != "" {
			t.bullet("", "best: "+s.Best)
		}
		for _, n := range s.Notes {
			t.bullet("note: ", n)
		}
	}
}

func (t *textWriter) experiments(r *Report) {
	if len(r.Experiments) == 0 {
		return
	}
	t.section("Memory vs compute (A: memory only, B: compute only, C: full kernel)")
	rows := [][]string{{"workload", "side", "params", "A", "B", "C", "verdict"}}
	for _, e := range r.Experiments {
		rows = append(rows, []string{e.Workload, e.Side, orDash(paramString(e.Params, " ")),
			FormatSummary(e.A), FormatSummary(e.B), FormatSummary(e.C), e.Classification.Kind})
	}
	if t.wrap {
		// The short form summarises the params to fit 120 columns; JSON
		// and --verbose have them whole.
		fitColumns(rows, MaxLine, 2, []int{2}, 16)
	}
	t.table(rows)
	for _, e := range r.Experiments {
		t.bullet("  ", fmt.Sprintf("%s/%s: %s", e.Workload, e.Side, e.Classification.Explanation))
	}
}

func (t *textWriter) warnings(lines []string) {
	if len(lines) == 0 {
		return
	}
	t.section("Warnings")
	for _, l := range lines {
		t.bullet("! ", l)
	}
}

// bullet writes s after prefix, broken into lines of at most MaxLine
// runes in the short form (WrapBullet); verbose output keeps one line per
// item, for grep.
func (t *textWriter) bullet(prefix, s string) {
	if !t.wrap {
		t.printf("%s%s\n", prefix, s)
		return
	}
	for _, l := range WrapBullet(prefix, s, MaxLine) {
		t.printf("%s\n", l)
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// warningLines lists every warning of r, the run's first, then each
// measurement's (its own, then its clocks'), each prefixed with the row
// it belongs to; the text and HTML writers print the same list.
func warningLines(r *Report) []string {
	var lines []string
	lines = append(lines, r.Warnings...)
	for i := range r.Measurements {
		m := &r.Measurements[i]
		name := strings.Join(nonEmpty(m.Workload, m.Side, m.Variant, DisplayParams(m.Params)), " ")
		for _, w := range m.Warnings {
			lines = append(lines, name+": "+w)
		}
		for _, w := range m.EndToEnd.Warnings {
			lines = append(lines, name+": end-to-end: "+w)
		}
		if m.Kernel != nil {
			for _, w := range m.Kernel.Warnings {
				lines = append(lines, name+": kernel: "+w)
			}
		}
	}
	return lines
}

// shortMeasurements is the measurement table within a terminal's 120
// columns: workload, side, variant, the params that differ between rows
// of a workload (those every row shares on one line above it, those of
// one workload on a line of their own, long per-step lists summarised:
// DisplayParams), the end-to-end time, the fraction of its ceiling and
// GPU vs CPU. Kernel time, rates, bound and verification are in
// --verbose, JSON and HTML. Where several runs stand side by side, a
// first column names each row's run (its implementation or backend) and
// GPU vs CPU is left to the side-by-side table, which has it per run.
func (t *textWriter) shortMeasurements(r *Report) {
	t.section("Measurements (end to end; kernel times, rates and checks with --verbose)")
	several := r.Backends != nil
	byImpl := several && r.Backends.By == "implementation"
	common := commonParams(r.Measurements)
	if len(r.Measurements) < 2 {
		common = nil
	}
	if len(common) > 0 {
		t.bullet("in every row that has them: ", DisplayParams(common))
	}
	perWorkload := workloadParams(r.Measurements, common)
	var byWorkload []string
	for _, w := range perWorkload.order {
		if ps := perWorkload.params[w]; len(ps) > 0 {
			byWorkload = append(byWorkload, w+" "+DisplayParams(ps))
		}
	}
	if len(byWorkload) > 0 {
		t.bullet("by workload: ", strings.Join(byWorkload, "; "))
	}
	head := []string{"workload", "side", "variant", "params", "end to end", "% of its ceiling", "GPU vs CPU"}
	rows := [][]string{head}
	anyOwn := false
	for i := range r.Measurements {
		m := &r.Measurements[i]
		speedup := "-"
		if m.Side == SideGPU {
			if cpu, ok := fastestCPU(r, m); ok && m.EndToEnd.Median > 0 {
				speedup = speedupString(cpu / m.EndToEnd.Median)
			}
		}
		var own []Param
		for _, p := range m.Params {
			if !hasParam(common, p) && !hasParam(perWorkload.params[m.Workload], p) {
				own = append(own, p)
			}
		}
		anyOwn = anyOwn || len(own) > 0
		ceil := "-"
		if c := CeilingOf(r, m); c != "" {
			ceil = fmt.Sprintf("%.0f%% of %s", 100*m.CeilingFrac, c)
			if m.CeilingFrac > 1 {
				ceil += " (!)" // above its ceiling: the warnings say why
			}
		}
		rows = append(rows, []string{m.Workload, m.Side, orDash(m.Variant), orDash(DisplayParams(own)), FormatSummary(m.EndToEnd), ceil, speedup})
	}
	// Columns to leave out: params where no row has its own, GPU vs CPU
	// beside a side-by-side table.
	rows = keepColumns(r, rows, map[int]bool{3: !anyOwn, 6: several}, several, byImpl)
	// Fit 120 columns: params, then variant, then (as a last resort) the
	// ceiling's name give up width (summarised with "…"; --verbose and JSON
	// have them whole).
	col := func(name string) int {
		for j, c := range rows[0] {
			if c == name {
				return j
			}
		}
		return len(rows[0])
	}
	fitColumns(rows, MaxLine, tableGap, []int{col("params"), col("variant")}, 12)
	fitColumns(rows, MaxLine, tableGap, []int{col("% of its ceiling")}, 24)
	t.table(rows)
}

// keepColumns drops the columns of rows marked in drop and, beside a
// side-by-side table (several), leads each row with its run: the
// backend, or the implementation (byImpl).
func keepColumns(r *Report, rows [][]string, drop map[int]bool, several, byImpl bool) [][]string {
	for i, row := range rows {
		var kept []string
		for j, c := range row {
			if !drop[j] {
				kept = append(kept, c)
			}
		}
		if several {
			run := "backend"
			if byImpl {
				run = "through"
			}
			if i > 0 {
				m := &r.Measurements[i-1]
				run = orDash(m.Backend)
				if byImpl {
					run = orDash(m.Implementation)
				}
			}
			kept = append([]string{run}, kept...)
		}
		rows[i] = kept
	}
	return rows
}

// paramsByWorkload are, per workload (in the order first seen), the
// params every row of that workload has with one value, less those of
// common.
type paramsByWorkload struct {
	order  []string
	params map[string][]Param
}

func workloadParams(ms []Measurement, common []Param) paramsByWorkload {
	out := paramsByWorkload{params: map[string][]Param{}}
	rows := map[string][]*Measurement{}
	for i := range ms {
		w := ms[i].Workload
		if _, ok := rows[w]; !ok {
			out.order = append(out.order, w)
		}
		rows[w] = append(rows[w], &ms[i])
	}
	for _, w := range out.order {
		for _, p := range rows[w][0].Params {
			if hasParam(common, p) {
				continue
			}
			all := true
			for _, m := range rows[w][1:] {
				all = all && hasParam(m.Params, p)
			}
			if all {
				out.params[w] = append(out.params[w], p)
			}
		}
	}
	return out
}

// fitColumns clips the cells of the columns in shrink (in that order,
// each to no fewer than minWidth runes) until the table, columns joined
// by gap spaces, is at most width runes wide.
func fitColumns(rows [][]string, width, gap int, shrink []int, minWidth int) {
	widths := func() ([]int, int) {
		var w []int
		for _, row := range rows {
			for i, c := range row {
				for len(w) <= i {
					w = append(w, 0)
				}
				w[i] = max(w[i], utf8.RuneCountInString(c))
			}
		}
		total := 0
		for _, x := range w {
			total += x
		}
		return w, total + gap*max(0, len(w)-1)
	}
	for _, col := range shrink {
		w, total := widths()
		if total <= width {
			return
		}
		if col >= len(w) {
			continue
		}
		to := max(minWidth, w[col]-(total-width))
		for _, row := range rows[1:] {
			if col < len(row) {
				row[col] = clip(row[col], to)
			}
		}
	}
}

// commonParams are the params (key and value) that every measurement
// having the key has with that value, each held by two rows or more (d=768
// and n=8192 of a run, beside the graph workloads' nodes and edges), in
// the order first seen.
func commonParams(ms []Measurement) []Param {
	values := map[string]string{}
	count := map[string]int{}
	var order []string
	for i := range ms {
		for _, p := range ms[i].Params {
			v, seen := values[p.Key]
			switch {
			case !seen:
				values[p.Key] = p.Value
				order = append(order, p.Key)
			case v != p.Value:
				values[p.Key] = "\x00" // differs between rows
			}
			count[p.Key]++
		}
	}
	var out []Param
	for _, k := range order {
		if v := values[k]; v != "\x00" && count[k] > 1 {
			out = append(out, Param{Key: k, Value: v})
		}
	}
	return out
}

func hasParam(ps []Param, p Param) bool {
	for _, q := range ps {
		if q.Key == p.Key && q.Value == p.Value {
			return true
		}
	}
	return false
}

// clip shortens s to at most n runes, ending in "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// implLabel is the implementation and its version ("dawn 133.0.6940.0");
// wgpu-native for reports written before they named it.
// implsLabel is the implementation r ran through (implLabel), or in a
// comparison of implementations every one: "wgpu-native 29.0.1.1, dawn
// 133.0.6940.0 (side by side)".
func implsLabel(r *Report) string {
	b := r.Backends
	if b == nil || b.By != "implementation" {
		return implLabel(r.Adapter)
	}
	var all []string
	for _, x := range b.Adapters {
		all = append(all, implLabel(x.Adapter))
	}
	return strings.Join(all, ", ") + " (side by side)"
}

func implLabel(a AdapterInfo) string {
	if a.Implementation == "" {
		return "wgpu-native"
	}
	if a.ImplementationVersion == "" {
		return a.Implementation
	}
	return a.Implementation + " " + a.ImplementationVersion
}
