package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// Lines written by a command itself (plan, stream, latency) wrap within
// 120 columns, each continuation indented under its line, the answers to
// the flags first.
func TestWriteWrappedLeadsWithAsked(t *testing.T) {
	var r report.Report
	r.AddAsked("--min-speedup 2", "port main.f above n = 4096 rows: 2.3× on its calls")
	r.AddAsked("--min-speedup 2", "port main.f above n = 4096 rows: 2.3× on its calls")
	lines := []string{strings.Repeat("verdict ", 30), "  " + strings.Repeat("detail ", 30)}
	var b bytes.Buffer
	if err := writeWrapped(&b, append(askedLines(&r), lines...)); err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if !strings.HasPrefix(out[0], "--min-speedup 2: port main.f") || strings.Count(b.String(), "--min-speedup") != 1 {
		t.Errorf("the asked-for answer does not lead, once:\n%s", b.String())
	}
	for _, l := range out {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("%d wide: %q", n, l)
		}
	}
	if !strings.HasPrefix(out[2], "  verdict") || !strings.HasPrefix(out[len(out)-1], "    detail") {
		t.Errorf("continuations are not indented under their line:\n%s", b.String())
	}
}
