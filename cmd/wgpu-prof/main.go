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
)

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(os.Stderr, "wgpu-prof:", ee.msg)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "wgpu-prof:", err)
		os.Exit(2)
	}
}

// exitError carries a specific exit status (1 for a regression found by
// compare; 2 for every error).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

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
		{"experiment", "memory-compute: memory-only, compute-only and full shaders, classified", runExperiment},
		{"breakeven", "batch-size sweep on both sides: fitted and measured crossovers, Amdahl", runBreakEven},
		{"hybrid", "replay mixed sizes through two sides: single side, static threshold, adaptive dispatcher", runHybrid},
		{"compare", "compare two JSON reports; exit 1 on a significant regression", runCompare},
		{"kernel", "profile your own WGSL compute shader: buffers by name, timestamps, ceilings, sweeps", runKernel},
		{"host", "CPU only: measured CPU ceilings and the host SIMD kernels at each level", runHost},
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
	fmt.Fprintln(w, "Run 'wgpu-prof <command> --help' for a command's flags.")
}

// run is the whole program; main only maps its error to an exit status.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "help", "-h", "--help":
		usage(stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(stdout, versionString())
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(stdout, stderr, args[1:])
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}
