package report_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// The short text fits a 120-column terminal: the measurement table
// summarises long params and variants, answers and warnings wrap, and no
// sentence appears twice in the answer block.
func TestShortTextFitsAScreen(t *testing.T) {
	r := fixture()
	r.Sweeps, r.Experiments = nil, nil
	long := []report.Param{{Key: "nodes", Value: "10000"}, {Key: "edges", Value: "159880"}, {Key: "steps", Value: "10"},
		{Key: "active", Value: "169/2313/9491/10000/10000/10000/10000/10000/10000/10000"}, {Key: "saturated", Value: "0/0/0/0/0/0/0/0/0/0"}}
	for i, side := range []string{report.SideGPU, report.SideCPU} {
		m := r.Measurements[i]
		m.Workload, m.Side, m.Params = "spread-uniform", side, long
		m.Variant = "row-per-thread-vec4-atomic-queue-wg256"
		m.CeilingFrac = 2.48
		r.Measurements = append(r.Measurements, m)
	}
	same := "the adapter runs on this CPU: these results say where the WebGPU path stands here, not what a GPU would do"
	r.Verdicts = append(r.Verdicts, same, same, strings.Repeat("a long verdict ", 20))
	r.AddAsked("--amdahl 0.3", strings.Repeat("an answer with many words ", 12))
	r.Warnings = append(r.Warnings, strings.Repeat("a long warning ", 20))
	var buf bytes.Buffer
	if err := report.WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("line %d is %d wide (> 120): %q", i+1, n, l)
		}
	}
	if n := strings.Count(out, "stands here, not what"); n != 1 {
		t.Errorf("the same sentence %d times in the answer block:\n%s", n, out)
	}
	if !strings.Contains(out, "- --amdahl 0.3: an answer") || strings.Index(out, "--amdahl 0.3") > strings.Index(out, "stands here") {
		t.Errorf("the asked-for answer does not lead the answer block:\n%s", out)
	}
}

// A wrapped line never breaks between a number and its unit.
func TestWrapKeepsUnits(t *testing.T) {
	s := strings.Repeat("x", 100) + " is 19.92× slower than reg16x4-bcast at 3.97 ms, over q = 64 queries"
	for _, width := range []int{104, 110, 118, 130, 150} {
		lines := report.WrapBullet("- ", s, width)
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "ms") || strings.HasPrefix(strings.TrimSpace(l), "queries") {
				t.Errorf("width %d: a line starts with a unit: %q", width, lines)
			}
		}
		if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != "- "+strings.Join(strings.Fields(s), " ") {
			t.Errorf("width %d: wrapping changed the words: %q", width, got)
		}
	}
}
