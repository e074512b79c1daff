package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// WriteHTML writes r as one self-contained page: inline CSS, the summary,
// every table of WriteText, and the plots of Figures as inline SVG. It
// fetches nothing (a Content-Security-Policy forbids every network load),
// so it opens from disk anywhere. Each number in a table carries the JSON
// Pointer (RFC 6901) of the value it shows (data-path, into report.json) and the factor
// from that value to the displayed unit's base (data-scale), so a reader
// or a test can check every figure against the JSON. A plot that cannot be
// drawn is replaced by a note saying why.
func WriteHTML(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: WriteHTML: nil report")
	}
	h := &htmlWriter{}
	h.page(r)
	if _, err := w.Write(h.buf.Bytes()); err != nil {
		return fmt.Errorf("report: WriteHTML: %w", err)
	}
	return nil
}

type htmlWriter struct{ buf bytes.Buffer }

func (h *htmlWriter) p(format string, args ...any) { fmt.Fprintf(&h.buf, format, args...) }

func esc(s string) string { return html.EscapeString(s) }

// htmlCSS lays the page out for a window of 1280 px or more
// (TestHTMLFitsTheWindow): the body is at most 1200 px wide and every
// table fits it — headers and cells wrap at spaces (a number keeps its
// unit: numCell), a long label (a regex, a list of params) anywhere —
// so no table needs its box's sideways scroll (kept as a last resort for
// narrower windows, its first column staying in view); plots scale to
// the width.
const htmlCSS = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#1b1b1b}
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}h1,h2,h3{overflow-wrap:anywhere}
.box{max-width:100%;overflow-x:auto;margin:.5em 0}
table{border-collapse:collapse;font-size:13px}th,td{padding:.25em .45em;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.label{max-width:28em}td.long{overflow-wrap:anywhere}td.wide{max-width:none}
.box th:first-child,.box td:first-child{position:sticky;left:0;background:#fff;z-index:1}.box th:first-child{background:#f4f4f4}
.answer{font-size:15px;padding-left:1.2em}.answer li{margin:.25em 0}.noise{color:#8a4b00;font-weight:600}
.summary li{margin:.2em 0;font-size:13px}.meta{font-size:13px}.meta td{padding:.1em .6em}.meta td:first-child{color:#666}.warn{color:#8a4b00}
li,p{overflow-wrap:anywhere}
figure{margin:1em 0;max-width:100%}figure svg{display:block;width:100%;max-width:960px;height:auto;border:1px solid #eee}figcaption{font-weight:600}
details>summary{cursor:pointer;color:#333}
.note{color:#666;font-size:13px}`

func (h *htmlWriter) page(r *Report) {
	title := "wgpu-prof report"
	if r.Adapter.Name != "" {
		title += " — " + r.Adapter.Name
	}
	title += " — " + r.Created.UTC().Format("2006-01-02")
	h.p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	h.p("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:\">\n")
	h.p("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(title), htmlCSS)
	h.p("<h1>%s</h1>\n", esc(title))
	a := r.Adapter
	ts := "timestamps unavailable"
	if a.TimestampsOK {
		ts = "timestamps ok"
	}
	h.p("<table class=\"meta\">\n")
	meta := [][2]string{
		{"tool", r.Tool},
		{"created", r.Created.UTC().Format(time.RFC3339)},
		{"adapter", fmt.Sprintf("%s (%s, %s, %s, driver %s), %s", orDash(a.Name), orDash(a.Vendor), orDash(a.Backend), orDash(a.DeviceType), orDash(a.Driver), ts)},
	}
	if a.Implementation != "" {
		meta = append(meta, [2]string{"webgpu", implsLabel(r)})
	}
	meta = append(meta, [][2]string{
		{"host", fmt.Sprintf("%s, %s, SIMD %s", orDash(r.Host.CPU), Cores(r.Host.Cores), orDash(r.Host.SIMDLevel))},
		{"wgpu-native", orDash(r.WgpuNativeVersion)},
		{"schema", r.Schema},
	}...)
	for _, kv := range meta {
		h.p("<tr><td class=\"label\">%s</td><td class=\"label\">%s</td></tr>\n", kv[0], esc(kv[1]))
	}
	h.p("</table>\n")
	noise := NoiseLine(r.Noise)
	if answers := AnswerLines(r); len(answers) > 0 {
		h.p("<h2 id=\"answer\">Answer</h2>\n<ul class=\"answer\">\n")
		for _, s := range answers {
			if s == noise {
				h.p("<li class=\"noise\">%s</li>\n", esc(s))
			} else {
				h.p("<li>%s</li>\n", esc(s))
			}
		}
		h.p("</ul>\n")
	}
	h.plan(r)
	h.backends(r)
	h.measurements(r)
	h.breakEvens(r)
	h.latency(r)
	h.sweeps(r)
	h.experiments(r)
	h.figures(r)
	h.ceilings(r)
	if summaryIsDetail(r) && len(r.Summary) > 0 {
		h.p("<h2 id=\"summary\">Details</h2>\n<details><summary>%d lines: choices made, fits, what was timed</summary>\n<ul class=\"summary\">\n", len(r.Summary))
		for _, s := range r.Summary {
			h.p("<li>%s</li>\n", esc(s))
		}
		h.p("</ul>\n</details>\n")
	}
	h.warnings(r)
	h.p("<p class=\"note\">Times are medians with the 95%% confidence interval of the median; bandwidth counts the fewest bytes each operation must move; every ceiling was measured in this run. Generated by %s.</p>\n", esc(r.Tool))
	h.p("</body>\n</html>\n")
}

// cell is one table cell: a label, or a number with its JSON path.
type cell struct {
	text  string
	path  string  // JSON path of the value shown; "" for a label
	scale float64 // displayed base-unit value = JSON value × scale
	wide  bool    // a label that spans the row (prose); no width cap
}

func label(s string) cell { return cell{text: s} }

// prose is a label cell of sentences, spanning its row (colspan).
func prose(s string) cell { return cell{text: s, wide: true} }

func num(text, path string, scale float64) cell { return cell{text: text, path: path, scale: scale} }

// table writes a table in its box. A row of one prose cell spans every
// column (a reason under the row it explains). A number keeps its unit on
// its line (numCell).
func (h *htmlWriter) table(head []string, rows [][]cell) {
	h.p("<div class=\"box\"><table>\n<thead><tr>")
	for _, c := range head {
		h.p("<th>%s</th>", esc(c))
	}
	h.p("</tr></thead>\n<tbody>\n")
	for _, row := range rows {
		h.p("<tr>")
		for _, c := range row {
			switch {
			case c.wide:
				h.p("<td class=\"label wide\" colspan=\"%d\">%s</td>", len(head)-len(row)+1, esc(c.text))
			case c.path == "" && longWord(c.text):
				h.p("<td class=\"label long\">%s</td>", esc(c.text))
			case c.path == "":
				h.p("<td class=\"label\">%s</td>", esc(c.text))
			default:
				h.p("<td class=\"num\" data-path=\"%s\" data-scale=\"%g\">%s</td>", esc(c.path), c.scale, esc(numCell(c.text)))
			}
		}
		h.p("</tr>\n")
	}
	h.p("</tbody>\n</table></div>\n")
}

// longWord reports whether s holds a word of more than 24 runes (a
// path, a long regex, a per-step list), which its cell may break
// anywhere; shorter words break only at spaces and hyphens.
func longWord(s string) bool {
	for _, w := range strings.Fields(s) {
		if utf8.RuneCountInString(w) > 24 {
			return true
		}
	}
	return false
}

// numCell joins a number to the unit after it with a no-break space
// ("4.53 TB/s", "2.23 ms"), so a cell that wraps never leaves a unit at
// the start of a line.
func numCell(s string) string {
	r := []rune(s)
	for i := 1; i+1 < len(r); i++ {
		if r[i] == ' ' && r[i-1] >= '0' && r[i-1] <= '9' && !(r[i+1] >= '0' && r[i+1] <= '9') && r[i+1] != '[' && r[i+1] != '(' {
			r[i] = '\u00a0'
		}
	}
	return string(r)
}

func (h *htmlWriter) ceilings(r *Report) {
	rows := orderedCeilingRows(r.Ceilings)
	if len(rows) == 0 {
		return
	}
	h.p("<h2 id=\"ceilings\">Measured ceilings</h2>\n<p class=\"note\">Measured in this run, grouped by kind; the CPU on the run's threads (all cores unless limited) and on one core.</p>\n")
	var out [][]cell
	last := ""
	for _, c := range rows {
		kind := ""
		if c.Kind != last {
			kind, last = c.Kind, c.Kind
		}
		cl := func(side string, m map[string]float64, key string) cell {
			v, ok := m[key]
			if !ok {
				return label("-")
			}
			if c.Kind != "bandwidth" && c.Kind != "arithmetic" {
				return label(c.Format(v)) // a size in binary units, not a rate
			}
			return num(c.Format(v), "/ceilings/"+side+"/"+key, 1e9)
		}
		out = append(out, []cell{label(kind), label(c.Label()), cl("gpu", r.Ceilings.GPU, c.Key), cl("cpu", r.Ceilings.CPU, c.Key), cl("cpu", r.Ceilings.CPU, c.Key+"_1core")})
	}
	h.table([]string{"kind", "ceiling", "GPU", "CPU", "CPU 1 core"}, out)
}

func (h *htmlWriter) measurements(r *Report) {
	if len(r.Measurements) == 0 {
		return
	}
	h.p("<h2 id=\"measurements\">Measurements</h2>\n<p class=\"note\">Median ±95%% CI of the median. “%% of ceiling” names the measured ceiling it compares with.</p>\n")
	var rows [][]cell
	for i := range r.Measurements {
		m := &r.Measurements[i]
		base := fmt.Sprintf("/measurements/%d/", i)
		kernel := label("-")
		if m.Kernel != nil {
			kernel = num(FormatSummary(*m.Kernel), base+"kernel/median", 1)
		}
		speed := label("-")
		if m.Side == SideGPU {
			if cpu, ok := fastestCPU(r, m); ok && m.EndToEnd.Median > 0 {
				speed = label(speedupString(cpu / m.EndToEnd.Median))
			}
		}
		ceil := label("-")
		if c := CeilingOf(r, m); c != "" {
			ceil = num(ceilingCell(r, m), base+"ceiling_frac", 1)
		}
		verified := "no"
		if m.Verified {
			verified = "yes"
		}
		// The key columns first; the run's adapter only where several
		// runs stand side by side (the header names the one adapter).
		row := []cell{label(m.Workload + " " + m.Side), num(FormatSummary(m.EndToEnd), base+"end_to_end/median", 1), kernel,
			speed, ceil, label(verified), label(orDash(m.Variant)),
			num(FormatRate(m.GBs), base+"gbs", 1e9), num(FormatRateOf(m), base+"gflops", 1e9),
			label(orDash(m.Bound)), label(orDash(DisplayParams(m.Params)))}
		if r.Backends != nil {
			run := orDash(m.Backend)
			if r.Backends.By == "implementation" {
				run = orDash(m.Implementation)
			}
			row = append(row, label(run))
		}
		rows = append(rows, row)
	}
	head := []string{"workload, side", "end-to-end time", "kernel time", "GPU vs CPU (end to end)", "% of its own ceiling", "verified", "variant", "bandwidth", "arithmetic", "bound", "params"}
	if r.Backends != nil {
		// The adapters are listed with the side-by-side table.
		head = append(head, "backend")
		if r.Backends.By == "implementation" {
			head[len(head)-1] = "implementation"
		}
	}
	h.table(head, rows)
}

func (h *htmlWriter) breakEvens(r *Report) {
	if len(r.BreakEvens) == 0 {
		return
	}
	h.p("<h2 id=\"breakeven\">Break-even</h2>\n<p class=\"note\">Each verdict rests on the measured sizes alone (sizes where the faster side changed are measured again, the two sides interleaved); the fits are shown, and used for a prediction only above R² %.2f.</p>\n", timing.Policy{}.WithDefaults().MinPredictR2)
	var rows [][]cell
	for _, b := range r.BreakEvens {
		la, lb := sidesOf(b)
		fits := fmt.Sprintf("%s: %s; %s: %s", shortSide(la), fitString(b.CPUFit), shortSide(lb), fitString(b.GPUFit))
		if b.Predicted != nil && b.Predicted.Refused != "" {
			fits += " — " + b.Predicted.Refused
		}
		rows = append(rows, []cell{label(b.Workload), label(SideName(lb) + " vs " + SideName(la)), label(orDash(b.Clock)),
			label(orDash(b.Verdict)), label(Answer(b)), label(fits)})
	}
	h.table([]string{"workload", "compared (B vs A)", "clock", "verdict", "answer", "fits t(n) = a + b·n"}, rows)
}

func (h *htmlWriter) sweeps(r *Report) {
	for si, s := range r.Sweeps {
		h.p("<h2>Sweep: %s (%s, %s)</h2>\n", esc(s.Name), esc(s.Workload), esc(s.Side))
		var rows [][]cell
		for pi, pt := range s.Points {
			base := fmt.Sprintf("/sweeps/%d/points/%d/", si, pi)
			bw := label("-")
			if pt.GBs > 0 {
				bw = num(FormatRate(pt.GBs), base+"gbs", 1e9)
			}
			rows = append(rows, []cell{label(pt.Label), num(FormatSummary(pt.Time), base+"time/median", 1), bw})
		}
		for _, rj := range s.Rejected {
			rows = append(rows, []cell{label(rj.Label), label("rejected: " + rj.Reason), label("-")})
		}
		h.table([]string{"config", "time", "bandwidth"}, rows)
		if s.Best != "" {
			h.p("<p>best: %s</p>\n", esc(s.Best))
		}
	}
}

func (h *htmlWriter) experiments(r *Report) {
	if len(r.Experiments) == 0 {
		return
	}
	h.p("<h2 id=\"memcompute\">Memory vs compute</h2>\n<p class=\"note\">A: memory only, B: compute only, C: the full kernel.</p>\n")
	var rows [][]cell
	for i, e := range r.Experiments {
		base := fmt.Sprintf("/experiments/%d/", i)
		rows = append(rows, []cell{label(e.Workload), label(e.Side), label(orDash(DisplayParams(e.Params))),
			num(FormatSummary(e.A), base+"a/median", 1), num(FormatSummary(e.B), base+"b/median", 1), num(FormatSummary(e.C), base+"c/median", 1),
			label(e.Classification.Kind), label(e.Classification.Explanation)})
	}
	h.table([]string{"workload", "side", "params", "A", "B", "C", "verdict", "why"}, rows)
}

func (h *htmlWriter) figures(r *Report) {
	figs := Figures(r)
	if len(figs) == 0 {
		return
	}
	h.p("<h2 id=\"plots\">Plots</h2>\n")
	for _, f := range figs {
		var svg bytes.Buffer
		h.p("<figure id=\"%s\">\n<figcaption>%s</figcaption>\n", esc(f.Name), esc(f.Title))
		if err := f.Draw(&svg, "svg"); err != nil {
			h.p("<p class=\"note\">not drawn: %s</p>\n", esc(err.Error()))
		} else {
			h.buf.Write(inlineSVG(svg.Bytes()))
		}
		h.p("</figure>\n")
	}
}

// inlineSVG drops the XML prolog and comments before <svg so the document
// can sit inside HTML, and names metric twins of the plots' Liberation
// Serif after it, so that a browser without it draws the text at the
// widths gonum measured (and a wider serif only where it has none of
// them: fitScale).
func inlineSVG(b []byte) []byte {
	if i := bytes.Index(b, []byte("<svg")); i >= 0 {
		b = b[i:]
	}
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Serif;"),
		[]byte("font-family:'Liberation Serif','Times New Roman',Tinos,'Nimbus Roman',Times,serif;"))
}

func (h *htmlWriter) warnings(r *Report) {
	lines := warningLines(r)
	if len(lines) == 0 {
		return
	}
	h.p("<h2 id=\"warnings\">Warnings (%d)</h2>\n<details><summary>show</summary>\n<ul class=\"warn\">\n", len(lines))
	for _, l := range lines {
		h.p("<li>%s</li>\n", esc(l))
	}
	h.p("</ul>\n</details>\n")
}
