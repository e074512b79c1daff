package main

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// overflowProbe, appended to a copy of a report page (without its
// Content-Security-Policy, which forbids scripts), lists in
// <pre id="overflow-probe"> everything that does not show whole in the
// window: a table, heading, figure, paragraph, list, plot or image whose
// right edge passes the window's, or that is wider than the box holding
// it (a table its box would scroll), or whose own content is wider than
// it; and every text of an inline SVG plot (title, legend, axis labels)
// that reaches past the plot's edges. "ok" when there is none.
const overflowProbe = `<script>
(function () {
  const vw = document.documentElement.clientWidth, bad = [];
  const name = e => {
    let t = (e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 70);
    let id = e.id || (e.closest("[id]") || {}).id || "";
    return e.tagName.toLowerCase() + (id ? " in #" + id : "") + " «" + t + "»";
  };
  const sel = "table, h1, h2, h3, h4, h5, h6, p, ul, ol, li, figure, figcaption, details, summary, svg, img, pre";
  for (const e of document.querySelectorAll(sel)) {
    if (e.id === "overflow-probe") continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > vw + 0.5 || r.left < -0.5)
      bad.push("past the " + vw + "-px window (" + Math.round(r.left) + " … " + Math.round(r.right) + " px): " + name(e));
    const box = e.parentElement;
    if (box && box !== document.documentElement && box.scrollWidth > box.clientWidth + 1)
      bad.push("wider than its box (" + box.scrollWidth + " > " + box.clientWidth + " px): " + name(e));
    if (e.tagName !== "svg" && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== "inline")
      bad.push("its content wider than it (" + e.scrollWidth + " > " + e.clientWidth + " px): " + name(e));
  }
  for (const s of document.querySelectorAll("svg")) {
    const sr = s.getBoundingClientRect();
    for (const t of s.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || !(t.textContent || "").trim()) continue;
      if (r.left < sr.left - 1 || r.right > sr.right + 1 || r.top < sr.top - 1 || r.bottom > sr.bottom + 1)
        bad.push("plot text cut at the plot's edge (" + Math.round(r.left - sr.left) + " … " + Math.round(r.right - sr.left) +
          " px of " + Math.round(sr.width) + "): " + name(t) + " in " + name(s.closest("figure") || s));
    }
  }
  const out = document.createElement("pre");
  out.id = "overflow-probe";
  out.textContent = bad.length ? bad.join("\n") : "ok";
  document.body.appendChild(out);
})();
</script>`

var probeOut = regexp.MustCompile(`(?s)<pre id="overflow-probe">(.*?)</pre>`)

// wideSerif draws the plots' text in DejaVu Serif, the serif many Linux
// systems fall back to without Liberation Serif and its metric twins,
// about a quarter wider than they are.
const wideSerif = `<style>svg text{font-family:'DejaVu Serif',serif !important}</style>`

// checkOverflow renders page at each window width (CSS px) in headless
// Chromium and fails for everything overflowProbe finds cut off; at the
// first width it renders it again with the plots' text in a wider serif
// (wideSerif).
func checkOverflow(t *testing.T, bin, page string, widths ...int) {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAll(src, nil)
	probe = bytes.Replace(probe, []byte("</body>"), []byte(overflowProbe+"</body>"), 1)
	dir := t.TempDir()
	probed, wide := filepath.Join(dir, "overflow.html"), filepath.Join(dir, "overflow-wide-serif.html")
	if err := os.WriteFile(probed, probe, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wide, bytes.Replace(probe, []byte("</head>"), []byte(wideSerif+"</head>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	type run struct {
		page, how string
		width     int
	}
	var runs []run
	for _, w := range widths {
		runs = append(runs, run{probed, "", w})
	}
	if len(widths) > 0 {
		runs = append(runs, run{wide, ", plot text in DejaVu Serif", widths[0]})
	}
	for _, r := range runs {
		dom, _ := headless(t, bin, r.page, "--window-size="+strconv.Itoa(r.width)+",1000", "--hide-scrollbars", "--dump-dom")
		m := probeOut.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s at %d px%s: the overflow probe did not run", filepath.Base(page), r.width, r.how)
		}
		res := strings.TrimSpace(html.UnescapeString(m[1]))
		if res == "ok" {
			continue
		}
		for _, l := range strings.Split(res, "\n") {
			t.Errorf("%s at %d px%s: %s", filepath.Base(page), r.width, r.how, l)
		}
	}
}

// TestHTMLFitsTheWindow renders report.html for reports of docs/results
// — a full run with its plots, implementations side by side (one with
// a failed run and the spreading workloads' long params), a sweep, a
// memory-vs-compute experiment and a plan — and checks in headless
// Chromium, at 1280 and 1400 px, that no table, heading, plot title or
// legend is cut off or scrolls (checkOverflow).
func TestHTMLFitsTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts chromium")
	}
	bin := chromium(t)
	dir := t.TempDir()
	for _, rel := range []string{
		"2026-11-23-lavapipe/report.json",
		"2026-11-27-epyc-zen5-impls/report.json",
		"2026-11-28-h200/run/report.json",
		"2026-11-28-h200/job/sweep-workgroup-spread-uniform/report.json",
		"2026-11-28-h200/job/memory-compute-cosine-batch/report.json",
		"2026-11-27-epyc-zen5/plan-vsearch/plan/report.json",
	} {
		r, err := report.Read(filepath.Join("..", "..", "docs", "results", rel))
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, strings.NewReplacer("/", "_", ".json", ".html").Replace(rel))
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := report.WriteHTML(f, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
		checkOverflow(t, bin, page, 1280, 1400)
	}
}
