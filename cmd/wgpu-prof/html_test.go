package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// chromium finds Debian's chromium (scripts/setup.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium: run scripts/setup.sh (installs Debian's chromium) or apt-get install chromium")
	return ""
}

// headless runs chromium on a file: URL with extra flags, offline, and
// returns stdout and the console/log lines of stderr.
func headless(t *testing.T, bin, page string, flags ...string) (string, string) {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "profile")}, flags...)
	args = append(args, "file://"+page)
	cmd := exec.Command(bin, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", flags, err, errb.String())
		}
	case <-time.After(10 * time.Minute):
		// A hang, not a slow render: chromium takes seconds, a loaded
		// 2-core host stretches that to tens of them.
		cmd.Process.Kill()
		t.Fatalf("chromium %v: no exit after 10 minutes", flags)
	}
	return out.String(), errb.String()
}

// TestRunOutHTMLTraceBench: `run --out DIR --plot --trace` on this
// machine's adapter writes report.html, which headless Chromium renders
// offline without console errors (screenshot kept in the test's temp dir),
// shows every table, heading and plot whole at 1280 and 1400 px
// (checkOverflow), whose every table number matches report.json; trace.json's GPU passes
// never overlap on their track; report.bench goes through benchstat.
func TestRunOutHTMLTraceBench(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on the adapter and starts chromium")
	}
	bin := chromium(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r")
	if _, stderr, err := runCmd("run", "--quick", "--workloads", "cosine-single", "--batches", "256,1024,4096,8192",
		"--budget", "50ms", "--out", out, "--plot", "--trace"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	page := filepath.Join(out, "report.html")
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// Self-contained: nothing to fetch (xmlns names are not fetches).
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)|url\(\s*['"]?(https?:|//)|<link |<script[^>]+src`).Find(html); m != nil {
		t.Errorf("report.html references an external resource: %q", m)
	}
	if c := strings.Count(string(html), "<svg"); c < 2 {
		t.Errorf("report.html has %d inline SVG plots, want the roofline and the break-evens", c)
	}

	shot := filepath.Join(dir, "report.png")
	_, log := headless(t, bin, page, "--screenshot="+shot, "--window-size=1280,2400")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Fatalf("no screenshot (%v)", err)
	}
	t.Logf("screenshot: %s", shot)
	dom, log2 := headless(t, bin, page, "--dump-dom")
	for _, l := range strings.Split(log+log2, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Content Security Policy") || strings.Contains(l, "ERR_") {
			t.Errorf("chromium console: %s", l)
		}
	}
	checkTableNumbers(t, dom, filepath.Join(out, "report.json"))
	checkLayout(t, bin, page)
	checkOverflow(t, bin, page, 1280, 1400)
	checkTraceNoOverlap(t, filepath.Join(out, "trace.json"))
	checkBenchstat(t, filepath.Join(out, "report.bench"))
}

var (
	tdRe    = regexp.MustCompile(`<td( [^>]*)?>([^<]*)</td>`)
	attrRe  = regexp.MustCompile(`(class|data-path|data-scale)="([^"]*)"`)
	valueRe = regexp.MustCompile(`^(-?[0-9]+(?:\.([0-9]+))?)\s?(%|([nµmkMGT]?)(s|B/s|FLOP/s)?)`)
	prefix  = map[string]float64{"": 1, "n": 1e-9, "µ": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
)

// checkTableNumbers: every table cell of the rendered DOM is a label or a
// number carrying the JSON Pointer of its value; each number, as shown
// (with its unit), equals that value to the precision shown.
func checkTableNumbers(t *testing.T, dom, jsonPath string) {
	t.Helper()
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, m := range tdRe.FindAllStringSubmatch(dom, -1) {
		attrs := map[string]string{}
		for _, a := range attrRe.FindAllStringSubmatch(m[1], -1) {
			attrs[a[1]] = a[2]
		}
		text := strings.NewReplacer("&nbsp;", " ", "\u00a0", " ", "&amp;", "&").Replace(m[2])
		if attrs["class"] == "label" {
			continue
		}
		if attrs["data-path"] == "" {
			t.Errorf("cell %q is neither a label nor a number with its JSON path", text)
			continue
		}
		want, err := pointer(doc, attrs["data-path"])
		if err != nil {
			t.Errorf("cell %q: %v", text, err)
			continue
		}
		scale, _ := strconv.ParseFloat(attrs["data-scale"], 64)
		v := valueRe.FindStringSubmatch(text)
		if v == nil {
			t.Errorf("cell %q (%s): no number", text, attrs["data-path"])
			continue
		}
		mant, _ := strconv.ParseFloat(v[1], 64)
		mult := prefix[v[4]]
		if v[3] == "%" {
			mult = 0.01
		}
		half := 0.5 * math.Pow(10, -float64(len(v[2]))) * mult
		got := mant * mult
		if d := math.Abs(got - want*scale); d > half*(1+1e-9)+1e-15 {
			t.Errorf("cell %q shows %g, report.json %s is %g (×%g = %g)", text, got, attrs["data-path"], want, scale, want*scale)
			continue
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d numbers checked", checked)
	}
	t.Logf("%d table numbers match report.json", checked)
}

// pointer resolves an RFC 6901 JSON Pointer to a number.
func pointer(doc any, ptr string) (float64, error) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return 0, fmt.Errorf("%s: no key %q", ptr, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return 0, fmt.Errorf("%s: bad index %q", ptr, tok)
			}
			cur = c[i]
		default:
			return 0, fmt.Errorf("%s: %q into a scalar", ptr, tok)
		}
	}
	f, ok := cur.(float64)
	if !ok {
		return 0, fmt.Errorf("%s is %T, not a number", ptr, cur)
	}
	return f, nil
}

// checkTraceNoOverlap: no two complete events on one track overlap
// (the GPU queue runs one pass at a time; the host makes one call at a
// time), and the GPU track is named.
func checkTraceNoOverlap(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name, Ph string
			Ts, Dur  float64
			Tid      int
			Args     map[string]any
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	type iv struct {
		name   string
		ts, te float64
	}
	tracks := map[int][]iv{}
	named := map[int]bool{}
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				named[e.Tid] = true
			}
		case "X":
			tracks[e.Tid] = append(tracks[e.Tid], iv{e.Name, e.Ts, e.Ts + e.Dur})
		}
	}
	if len(tracks[report.TraceTidGPU]) < 10 || !named[report.TraceTidGPU] {
		t.Fatalf("GPU track: %d passes, named %v", len(tracks[report.TraceTidGPU]), named[report.TraceTidGPU])
	}
	for tid, evs := range tracks {
		sort.Slice(evs, func(i, j int) bool { return evs[i].ts < evs[j].ts })
		for i := 1; i < len(evs); i++ {
			// Timestamps are printed in µs with ns resolution.
			if evs[i-1].te > evs[i].ts+1e-3 {
				t.Errorf("track %d: %q [%.3f, %.3f] overlaps %q at %.3f µs", tid, evs[i-1].name, evs[i-1].ts, evs[i-1].te, evs[i].name, evs[i].ts)
			}
		}
	}
}

// checkBenchstat runs golang.org/x/perf/cmd/benchstat (a dependency of
// this module) on the run's report.bench, and on two synthetic runs, one
// with a planted 20% slowdown of one benchmark: benchstat must read every
// benchmark and show the slowdown as significant.
func checkBenchstat(t *testing.T, bench string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, rep *report.Report) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := report.WriteBench(f, rep); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.bench", syntheticReport(t, 1, nil))
	slow := write("new.bench", syntheticReport(t, 3, map[string]float64{"cosine-batch/gpu": 1.2}))
	benchstat := func(files ...string) string {
		cmd := exec.Command("go", append([]string{"run", "golang.org/x/perf/cmd/benchstat"}, files...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("benchstat %v: %v\n%s", files, err, out)
		}
		return string(out)
	}
	got := benchstat(bench)
	if !strings.Contains(got, "CosineSingle") || !strings.Contains(got, "sec/op") {
		t.Errorf("benchstat did not read the run's report.bench:\n%s", got)
	}
	got = benchstat(old, slow)
	// The first table benchstat prints is sec/op.
	var line string
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, "CosineBatch/side=gpu") {
			line = l
			break
		}
	}
	if !regexp.MustCompile(`\+(19|20|21)\.[0-9]+%.*p=0\.000`).MatchString(line) {
		t.Errorf("benchstat does not show the planted +20%% on cosine-batch gpu as significant: %q\n%s", line, got)
	}
}

// layoutProbe, appended to a copy of the page (without its
// Content-Security-Policy, which forbids scripts), writes what the layout
// test checks into the body's attributes for --dump-dom to show: the
// document's width, the window's, and where the answer block ends.
const layoutProbe = `<script>
const b = document.body, a = document.getElementById("answer");
let end = 0;
if (a) { let e = a.nextElementSibling; if (e) end = e.getBoundingClientRect().bottom + window.scrollY; }
b.setAttribute("data-doc-width", document.documentElement.scrollWidth);
b.setAttribute("data-win-width", window.innerWidth);
b.setAttribute("data-answer-end", Math.round(end));
// The right edge of the measurement table's key columns (the first five:
// workload and side, end-to-end time, kernel time, GPU vs CPU, % of its
// ceiling), which must show without scrolling its box.
const m = document.getElementById("measurements");
let keyRight = 0;
if (m) {
  let e = m.nextElementSibling;
  while (e && !e.querySelector("table")) e = e.nextElementSibling;
  if (e) {
    const th = e.querySelectorAll("thead th");
    for (let i = 0; i < Math.min(5, th.length); i++) keyRight = Math.max(keyRight, th[i].getBoundingClientRect().right);
  }
}
b.setAttribute("data-key-right", Math.round(keyRight));
</script>`

var probeRe = regexp.MustCompile(`data-(doc-width|win-width|answer-end|key-right)="([0-9]+)"`)

// checkLayout renders the page in a 1400×900 window: the document is no
// wider than the window (checkOverflow says that no table even scrolls
// inside its box), and the answer block ends within the first screen. The screenshot is kept
// under os.TempDir()/wgpu-prof-html (its path logged) for a person to
// look at.
func checkLayout(t *testing.T, bin, page string) {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAll(src, nil)
	probe = bytes.Replace(probe, []byte("</body>"), []byte(layoutProbe+"</body>"), 1)
	probed := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probed, probe, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, bin, probed, "--window-size=1400,900", "--dump-dom")
	got := map[string]int{}
	for _, m := range probeRe.FindAllStringSubmatch(dom, -1) {
		got[m[1]], _ = strconv.Atoi(m[2])
	}
	if got["win-width"] == 0 {
		t.Fatalf("layout probe did not run: %v", got)
	}
	if got["doc-width"] > got["win-width"] {
		t.Errorf("at a %d-px window the document is %d px wide: something does not fit or scroll in its box", got["win-width"], got["doc-width"])
	}
	if got["key-right"] > got["win-width"] {
		t.Errorf("the measurement table's key columns end at %d px, past the %d-px window", got["key-right"], got["win-width"])
	}
	if got["answer-end"] > 900 {
		t.Errorf("the answer block ends at %d px, below the first 900-px screen", got["answer-end"])
	}
	shots := filepath.Join(os.TempDir(), "wgpu-prof-html")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sz := range []string{"1400,900", "1400,6000"} {
		shot := filepath.Join(shots, "report-"+strings.Replace(sz, ",", "x", 1)+".png")
		headless(t, bin, page, "--screenshot="+shot, "--window-size="+sz, "--hide-scrollbars")
		t.Logf("screenshot at %s px: %s", sz, shot)
	}
	t.Logf("layout at 1400 px: document %d px wide, answer block ends at %d px", got["doc-width"], got["answer-end"])
}
