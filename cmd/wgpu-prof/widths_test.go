package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// maxStdoutLine is the widest line a command's default stdout may hold:
// the README promises 120 columns, so an answer is read on a screen, not
// scrolled sideways. Prose wraps at report.MaxLine (118); tables fold or
// summarise long cells, whose whole values --verbose, JSON and CSV keep.
const maxStdoutLine = 120

// maxStderrLine is the widest line on stderr: progress, warnings and the
// error a command exits with (an error wraps under its first line).
const maxStderrLine = 160

// widest returns the width (in runes) and the text of out's widest line.
func widest(out string) (int, string) {
	n, line := 0, ""
	for _, l := range strings.Split(out, "\n") {
		if w := utf8.RuneCountInString(l); w > n {
			n, line = w, l
		}
	}
	return n, line
}

// checkWidths fails when a line of out, the stdout of the command cmd, is
// wider than maxStdoutLine (in runes).
func checkWidths(t *testing.T, cmd, out string) {
	t.Helper()
	checkLines(t, cmd, "stdout", out, maxStdoutLine)
}

// checkLines fails for every line of out (the stream named what) wider
// than limit runes.
func checkLines(t *testing.T, cmd, what, out string, limit int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > limit {
			t.Errorf("wgpu-prof %s: %s line %d is %d characters wide (> %d): %.130s…", cmd, what, i+1, n, limit, l)
		}
	}
}

// hybrid --quick's text output fits a screen: its verdict lines wrap, its
// tables keep to their columns (run, breakeven, plan and devices are
// checked by TestREADMEExamples and TestCommandWidths).
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

// TestCommandWidths runs the main commands on small sizes, with their
// progress on, and checks that every stdout line fits 120 columns and
// every stderr line 160: devices, run, breakeven, sweep, plan (on a
// fixture profile and report, nothing measured), plan --suggest, and run
// through both WebGPU implementations side by side (skipped without
// Dawn). It logs each command's widest lines.
func TestCommandWidths(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on the adapter")
	}
	dir := t.TempDir()
	prof := filepath.Join(dir, "app.pprof")
	writeProfile(t, prof)
	be := planReport(t, dir)
	small := []string{"--quick", "--budget", "20ms", "--max-memory", "64MiB"}
	cases := []struct {
		name string
		args []string
		dawn bool
	}{
		{"devices", []string{"devices"}, false},
		{"run", append([]string{"run", "--workloads", "cosine-single", "--n", "4096", "--batches", "64,512,4096"}, small...), false},
		{"breakeven", append([]string{"breakeven", "--kernel", "cosine-single", "--n", "4096", "--batches", "64,512,4096", "--amdahl", "0.3", "--search-budget", "3s"}, small...), false},
		{"sweep", append([]string{"sweep", "workgroup", "--kernel", "cosine-single", "--n", "4096", "--sizes", "32,64"}, small...), false},
		{"plan", []string{"plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single`, "--op", `main\.spread$=spread-uniform`,
			"--n", "1048576", "--report", be, "--no-taxes"}, false},
		{"plan --suggest", []string{"plan", "--pprof", prof, "--suggest"}, false},
		{"run --impl", append([]string{"run", "--impl", "wgpu-native,dawn", "--workloads", "cosine-single,spread-uniform",
			"--n", "4096", "--nodes", "2000", "--batches", "64,256,1024"}, small...), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.dawn {
				if err := wgpu.LoadImpl(wgpu.ImplDawn); errors.Is(err, wgpu.ErrNoDawn) {
					t.Skipf("Dawn is not installed (scripts/setup.sh --with-dawn): %v", err)
				}
			}
			out, stderr, err := runCmd(c.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			cmd := strings.Join(c.args, " ")
			checkWidths(t, cmd, out)
			checkLines(t, cmd, "stderr", stderr, maxStderrLine)
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr)
			}
			no, lo := widest(out)
			ne, _ := widest(stderr)
			t.Logf("%s: widest stdout line %d, stderr %d: %.100s", c.name, no, ne, lo)
		})
	}
}

// Every command's help, the workloads list and the version fit 120
// columns; the errors a command exits with (as main prints them) fit 160,
// a long one wrapped under its first line with no word lost.
func TestHelpAndErrorWidths(t *testing.T) {
	forms := [][]string{{"help"}, {"workloads"}, {"version"}, {"sweep", "workgroup", "--help"}, {"sweep", "tile", "--help"},
		{"sweep", "variant", "--help"}, {"experiment", "memory-compute", "--help"}, {"experiment", "quantization", "--help"}}
	for _, c := range commands() {
		forms = append(forms, []string{c.name, "--help"})
	}
	for _, args := range forms {
		out, stderr, err := runCmd(args...)
		if err != nil {
			t.Errorf("%v: %v\n%s", args, err, stderr)
			continue
		}
		checkWidths(t, strings.Join(args, " "), out)
	}
	dir := t.TempDir()
	prof := filepath.Join(dir, "app.pprof")
	writeProfile(t, prof)
	for _, args := range [][]string{
		{"plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single`, "--op", `main\.nosuch$=cosine-single`},
		{"run", "--workloads", "cosine-singel"},
		{"run", "--search-budget", "3s"},
		{"breakeven", "--kernel", "hnsw", "--batches", "1,2,x"},
		{"kernel", "testdata/syntax_error.wgsl", "--buffer", "x=f32:64", "--dispatch", "1", "--quiet"},
	} {
		_, _, err := runCmd(args...)
		if err == nil {
			t.Errorf("%v: no error", args)
			continue
		}
		_, msg := exitStatus(err)
		checkLines(t, strings.Join(args, " "), "stderr", errorText(msg), maxStderrLine)
	}
	long := "not every implementation was measured in full (the others are reported): " + strings.Repeat("dawn: break-even cosine-single (cpu vs gpu): a fit needs at least 3 sizes, measured [64 512]; ", 4) +
		"\nrun 'wgpu-prof run --help' for its flags and examples"
	text := errorText(long)
	checkLines(t, "(a long error)", "stderr", text, maxStderrLine)
	if got, want := strings.Join(strings.Fields(text), " "), "wgpu-prof: "+strings.Join(strings.Fields(long), " "); got != want {
		t.Errorf("wrapping changed the words:\n%s\nwant\n%s", got, want)
	}
	if lines := strings.Split(text, "\n"); len(lines) < 4 || !strings.HasPrefix(lines[1], strings.Repeat(" ", len("wgpu-prof: "))) {
		t.Errorf("a long error does not wrap under its first line:\n%s", text)
	}
}

// fitHelpLines wraps a flag's long help under the help's column, a long
// usage line under its text, and breaks a long example into shell
// continuations, its comment on a line above it; no word is lost.
func TestFitHelpLines(t *testing.T) {
	flag := "      --op stringArray   " + strings.Repeat("an operation REGEX=WORKLOAD[@MIXFILE][,calls=N][,vectors=FILE][,queries=FILE][,graph=FILE] ", 2)
	usage := "usage: wgpu-prof hybrid " + strings.Repeat("[--sides A,B] [--report breakeven.json] ", 4)
	example := "  wgpu-prof plan --pprof before.pprof --op 'main\\.similarity$=cosine-single@sizes.txt' --report plan.json --validate after.pprof --ported gpu   # check the port"
	for _, c := range []struct {
		in       string
		examples bool
		indent   string
	}{{flag, false, strings.Repeat(" ", len("      --op stringArray   "))}, {usage, false, "       "}, {example, true, "      --"}} {
		out := fitHelpLines(c.in, c.examples)
		lines := strings.Split(out, "\n")
		if len(lines) < 2 {
			t.Errorf("not wrapped: %q", out)
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > helpWidth {
				t.Errorf("%d wide: %q", n, l)
			}
			if i > 0 && !c.examples && !strings.HasPrefix(l, c.indent) {
				t.Errorf("continuation not under its column: %q", l)
			}
		}
		words := strings.Fields(strings.NewReplacer(" \\\n", " ", "\n", " ").Replace(out))
		want := strings.Fields(c.in)
		if c.examples {
			// The comment moved above the command.
			want = append([]string{"#", "check", "the", "port"}, want[:len(want)-4]...)
		}
		if got := strings.Join(words, ""); got != strings.Join(want, "") {
			t.Errorf("words changed:\n%s\nwant\n%s", strings.Join(words, " "), strings.Join(want, " "))
		}
	}
	if out := fitHelpLines(example, true); !strings.HasPrefix(out, "  # check the port\n  wgpu-prof plan") || !strings.Contains(out, " \\\n      --") {
		t.Errorf("example:\n%s", out)
	}
}
