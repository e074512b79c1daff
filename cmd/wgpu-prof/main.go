// Command wgpu-prof measures, on this machine, where GPU compute (WebGPU
// through wgpu-native) beats the CPU (host SIMD) for vector-search and
// memory-graph workloads, and how close each side runs to its measured
// limits. Run `wgpu-prof help` for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func main() {
	code, msg := exitStatus(run(os.Stdout, os.Stderr, os.Args[1:]))
	if msg != "" {
		fmt.Fprint(os.Stderr, errorText(msg))
	}
	os.Exit(code)
}

// maxErrLine is the widest line wgpu-prof writes to stderr; a longer
// error or note wraps (stderrLines).
const maxErrLine = 160

// errorText is msg as main prints it: "wgpu-prof: " before its first
// line, every line within maxErrLine columns (stderrLines), a newline
// after each.
func errorText(msg string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		prefix := ""
		if i == 0 {
			prefix = "wgpu-prof: "
		}
		for _, part := range stderrLines(prefix, l) {
			b.WriteString(part + "\n")
		}
	}
	return b.String()
}

// stderrLines is prefix+s broken at spaces into lines of at most
// maxErrLine runes, each continuation indented under s's text (two
// spaces past it where prefix is empty), a number kept with its unit.
func stderrLines(prefix, s string) []string {
	if utf8.RuneCountInString(prefix+s) <= maxErrLine {
		return []string{prefix + s}
	}
	body := strings.TrimLeft(s, " ")
	lead := prefix + s[:len(s)-len(body)]
	extra := ""
	if prefix == "" {
		extra = "  "
	}
	lines := report.WrapBullet(extra+lead, body, maxErrLine)
	lines[0] = strings.TrimPrefix(lines[0], extra)
	return lines
}

// exitStatus maps run's error to the exit status and the message: 0;
// 1 for a failure during a measurement or a regression; 130 for an
// interrupted run; 2 for every usage error.
func exitStatus(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code, ee.msg
	}
	return 2, err.Error()
}

// exitError carries a specific exit status: 1 for a failure during a
// measurement or its output and for a regression found by compare; every
// other error (a usage error, found before anything is measured) exits 2.
type exitError struct {
	code int
	msg  string
	err  error
}

func (e exitError) Error() string { return e.msg }
func (e exitError) Unwrap() error { return e.err }

// failed marks err, a failure during a measurement, for exit status 1;
// a usage error found by the experiment's validation keeps status 2.
func failed(err error) error {
	var ee exitError
	if err == nil || env.IsUsage(err) || errors.As(err, &ee) {
		return err
	}
	if err = env.Stopped(err); errors.Is(err, env.ErrInterrupted) {
		return exitError{code: 130, msg: err.Error(), err: err}
	}
	return exitError{code: 1, msg: err.Error(), err: err}
}

type command struct {
	name    string
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

func commands() []command {
	return []command{
		{"devices", "list WebGPU adapters, their limits and features, and whether timestamps work", runDevices},
		{"run", "the default suite: ceilings, every workload on GPU and CPU, break-even, summary", runRun},
		{"sweep", "workgroup-size or tile-size sweep of one GPU kernel", runSweep},
		{"experiment", "memory-compute: memory-only, compute-only and full shaders, classified; quantization: f32, f16, int8", runExperiment},
		{"breakeven", "batch-size sweep on both sides: fitted and measured crossovers, Amdahl", runBreakEven},
		{"hybrid", "replay mixed sizes through two sides: single side, static threshold, adaptive dispatcher", runHybrid},
		{"compare", "compare two JSON reports; exit 1 on a significant regression", runCompare},
		{"plan", "from an application's CPU profile: which operations to port, at which sizes, the gain", runPlan},
		{"kernel", "profile your own WGSL compute shader: buffers by name, timestamps, ceilings, sweeps", runKernel},
		{"latency", "the anatomy of one GPU call: round trip, cost per dispatch, readback and upload curves", runLatency},
		{"stream", "BabelStream's five kernels on the GPU (WGSL) or the CPU, its table and CSV", runStream},
		{"host", "CPU only: measured CPU ceilings and the host SIMD kernels at each level", runHost},
		{"version", "tool version, commit, wgpu-native and Go versions", runVersion},
		{"workloads", "list the workloads and the sweeps and experiments that apply to each", runWorkloads},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: wgpu-prof <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'wgpu-prof <command> --help' (or 'wgpu-prof help <command>') for a")
	fmt.Fprintln(w, "command's flags and examples. Progress goes to stderr (--quiet: none), the")
	fmt.Fprintln(w, "report to stdout; --out DIR also writes report.{json,txt,csv,bench,html}.")
}

// commandFirst moves the command to the front when flags come before it
// ("wgpu-prof --threads 4 host" is "wgpu-prof host --threads 4"): flags
// belong to the command, wherever they are written. Args that do not start
// with a flag are returned as they are.
func commandFirst(args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	for i, a := range args {
		for _, c := range commands() {
			if c.name == a {
				out := append([]string{a}, args[:i]...)
				return append(out, args[i+1:]...)
			}
		}
	}
	return args
}

// run is the whole program; main only maps its error to an exit status.
// A library parameter an error names is written as its flag (flagError).
func run(stdout, stderr io.Writer, args []string) error {
	return withWorkloadHint(flagError(runCommand(stdout, stderr, args)))
}

func runCommand(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			for _, c := range commands() {
				if c.name == args[1] {
					return c.run(stdout, stderr, []string{"--help"})
				}
			}
			usage(stderr)
			return fmt.Errorf("help: unknown command %q", args[1])
		}
		usage(stdout)
		return nil
	case "--version":
		return runVersion(stdout, stderr, nil)
	}
	args = commandFirst(args)
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(stdout, stderr, args[1:])
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	err := fmt.Errorf("unknown command %q", args[0])
	if s := nearest(args[0], names); s != "" {
		err = fmt.Errorf("%w (did you mean %s?)", err, s)
	}
	return hinted{err: err, hint: helpHint("")}
}
