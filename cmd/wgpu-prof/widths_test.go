package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// maxStdoutLine is the widest line a command's default stdout may hold:
// an answer is read on a screen, not scrolled sideways. Tables keep to
// 120 columns (report.MaxLine wraps prose at 118); 160 leaves room for a
// long adapter or file name.
const maxStdoutLine = 160

// checkWidths fails when a line of out, the stdout of the command cmd, is
// wider than maxStdoutLine (in runes).
func checkWidths(t *testing.T, cmd, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > maxStdoutLine {
			t.Errorf("wgpu-prof %s: stdout line %d is %d characters wide (> %d): %.100s…", cmd, i+1, n, maxStdoutLine, l)
		}
	}
}

// hybrid --quick's text output fits a screen: its verdict lines wrap, its
// tables keep to their columns (run, breakeven, plan and devices are
// checked by TestREADMEExamples, which runs them).
func TestHybridOutputWidth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a hybrid replay")
	}
	args := []string{"hybrid", "--kernel", "cosine-single", "--sides", "cpu:threads=1,cpu:threads=2", "--quick",
		"--min", "1", "--max", "64", "--requests", "60", "--search-budget", "5s", "--quiet"}
	out, stderr, err := runCmd(args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkWidths(t, strings.Join(args, " "), out)
}
