package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// resultReports are the reports of docs/results that this version reads:
// real runs, with real adapter names, params and reasons.
func resultReports(t *testing.T) map[string]*report.Report {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(filepath.Join("..", "..", "docs", "results"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*report.Report{}
	for _, p := range paths {
		if r, err := report.Read(p); err == nil {
			out[p] = r
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d reports of docs/results read", len(out))
	}
	return out
}

// The short text of every report in docs/results fits 120 columns: the
// side-by-side tables fold, long params are summarised (whole in
// --verbose, JSON and CSV), the header and prose wrap.
func TestResultReportsFitAScreen(t *testing.T) {
	for p, r := range resultReports(t) {
		var b bytes.Buffer
		if err := report.WriteText(&b, r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		n, line := 0, ""
		for _, l := range strings.Split(b.String(), "\n") {
			if w := utf8.RuneCountInString(l); w > n {
				n, line = w, l
			}
		}
		if n > 120 {
			t.Errorf("%s: a line %d wide (> 120): %s", p, n, line)
		}
	}
}

// The folded side-by-side table fits 120 columns even with the widest
// cells it holds: a three-figure ratio with its CI, "within host noise",
// "CPU 2000× faster".
func TestFoldedSideBySideFits(t *testing.T) {
	r, err := report.Read(filepath.Join("..", "..", "docs", "results", "2026-11-27-epyc-zen5-impls", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Backends.Rows {
		for j := range r.Backends.Rows[i].Cells {
			c := &r.Backends.Rows[i].Cells[j]
			c.EndToEnd, c.Kernel, c.CallCost = 0.1234, 0.1234, 0.01234
			if r.Backends.Rows[i].Side == report.SideGPU {
				c.Verdict = "CPU 2000× faster"
			}
			if j > 0 {
				c.VsFirst, c.VsFirstLo, c.VsFirstHi, c.Faster = 10.3, 8.9, 12.5, report.FasterWithinNoise
			}
		}
	}
	var b bytes.Buffer
	if err := report.WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a line %d wide (> 120): %s", n, l)
		}
	}
	if !strings.Contains(b.String(), "10.3× [8.90, 12.5]  within host noise") {
		t.Errorf("the ratio, its CI or the verdict is cut:\n%s", b.String())
	}
}

// A sweep's rejected configuration says why under its table, wrapped,
// in the short form; --verbose keeps the reason in the table.
func TestSweepRejectionsFitAScreen(t *testing.T) {
	r := fixture()
	why := "the adapter refused it: " + strings.Repeat("workgroup memory of 65536 bytes is past its limit of 32768 bytes; ", 3)
	r.Sweeps[0].Rejected = append(r.Sweeps[0].Rejected, report.Rejection{Label: "wg=1024", Reason: why})
	var short, verbose bytes.Buffer
	if err := report.WriteText(&short, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteTextOpts(&verbose, r, report.TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(short.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a line %d wide (> 120): %s", n, l)
		}
	}
	if got := strings.Join(strings.Fields(short.String()), " "); !strings.Contains(got, "rejected wg=1024: "+strings.Join(strings.Fields(why), " ")) {
		t.Errorf("the short form lacks the reason:\n%s", short.String())
	}
	if !strings.Contains(verbose.String(), "rejected: "+why) {
		t.Errorf("--verbose lacks the reason in its table:\n%s", verbose.String())
	}
}
