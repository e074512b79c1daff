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
