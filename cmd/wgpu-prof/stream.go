package main

import (
	"fmt"
	"io"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const streamUsage = "usage: wgpu-prof stream [flags]\n" +
	"BabelStream's five kernels (Copy c=a, Mul b=s·c, Add c=a+b, Triad a=b+s·c,\n" +
	"Dot Σa·b) with its definitions: start values 0.1, 0.2, 0.0, scalar 0.4, the\n" +
	"Classic order, the final arrays checked, the minimum time over the runs after\n" +
	"the first, bytes counted 2N (Copy, Mul, Dot) and 3N (Add, Triad) elements.\n" +
	"The table and --csv match BabelStream's, so the rows can be set beside a\n" +
	"BabelStream run of the same machine. GPU times are from timestamps, with the\n" +
	"host clock's MB/s beside them. BabelStream's spellings are kept where no other\n" +
	"flag of wgpu-prof has them: --arraysize (-s), --numtimes, --float, --double,\n" +
	"--csv; its -n is --numtimes here (-n/--n is the row count of the other\n" +
	"commands), and OMP_NUM_THREADS is --threads."

func runStream(stdout, stderr io.Writer, args []string) error {
	f := newFlags("stream", stdout, stderr, streamUsage,
		`  wgpu-prof stream --side gpu --csv
  wgpu-prof stream --side cpu --arraysize 33554432 --numtimes 20
  wgpu-prof stream --backend gl -s 1048576`)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if err := f.noArgs(); err != nil {
		return err
	}
	side := f.str("side")
	if side != "gpu" && side != "cpu" {
		return fmt.Errorf("--side %q: want gpu or cpu", side)
	}
	maxMem, err := parseMaxMemory(f.str("max-memory"))
	if err != nil {
		return err
	}
	defer env.SetMaxMemory(maxMem)()
	cfg, err := streamConfig(f, side)
	if err != nil {
		return err
	}
	var run ceilings.StreamRun
	if side == "cpu" {
		run, err = ceilings.RunStreamCPU(cfg)
	} else {
		dev := readDevice(f)
		env, oerr := ceilings.OpenStream(env.AdapterSelect{Impl: dev.impl, Backend: dev.backend, Index: dev.adapter, Name: dev.adapterName}, dev.noTimestamps)
		if oerr != nil {
			return failed(oerr)
		}
		defer env.Close()
		run, err = ceilings.RunStreamGPU(env, cfg)
	}
	if err != nil {
		return failed(err)
	}
	return failed(writeStream(stdout, run, f.on("csv")))
}

// streamConfig is stream's configuration from its flags, the flags of
// the other side refused.
func streamConfig(f *cmdFlags, side string) (ceilings.StreamConfig, error) {
	double := f.on("double")
	cfg := ceilings.StreamConfig{ArraySize: f.integer("arraysize"), NumTimes: f.integer("numtimes"), F64: double, Threads: f.integer("threads")}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if double && f.on("float") {
		return cfg, fmt.Errorf("--float and --double: give one element type")
	}
	if side == "gpu" {
		if f.changed("threads") || f.changed("cpu-level") {
			return cfg, fmt.Errorf("--threads and --cpu-level apply to --side cpu")
		}
		if a := f.integer("adapter"); a < -1 {
			return cfg, fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", a)
		}
		return cfg, nil
	}
	if double {
		return cfg, fmt.Errorf("--double: not available with --side cpu (the host SIMD kernels are float32)")
	}
	for _, name := range []string{"backend", "impl", "adapter", "adapter-name", "no-timestamps"} {
		if f.changed(name) {
			return cfg, fmt.Errorf("--backend, --impl, --adapter, --adapter-name and --no-timestamps apply to --side gpu")
		}
	}
	var err error
	cfg.Host, err = env.ParseHost(f.str("cpu-level"), 0)
	return cfg, err
}

// writeStream prints the verdict line and BabelStream's table, or (csv)
// BabelStream's CSV alone.
func writeStream(w io.Writer, r ceilings.StreamRun, csv bool) error {
	if csv {
		return report.WriteStreamCSV(w, r.NumTimes, r.ArraySize, r.Sizeof, r.Rows)
	}
	prec := "float32"
	if r.Sizeof == 8 {
		prec = "float64"
	}
	arr := float64(r.ArraySize) * float64(r.Sizeof) / 1e6
	if err := writeWrapped(w, []string{fmt.Sprintf("stream %s: %s: verified (BabelStream's check of the final arrays); %s, %d elements (%.1f MB per array, %.1f MB total), %d times in Classic order; times from %s",
		r.Side, r.Device, prec, r.ArraySize, arr, 3*arr, r.NumTimes, r.Timed)}); err != nil {
		return err
	}
	if r.Parts > 1 {
		fmt.Fprintf(w, "each array bound in %d parts (past maxStorageBufferBindingSize), dispatched in one pass per kernel\n", r.Parts)
	}
	var extra func(int) string
	if r.HostRows != nil {
		extra = func(i int) string { return fmt.Sprintf("%.3f", r.HostRows[i].MBytesPerSec) }
	}
	return report.WriteStreamTable(w, r.Rows, "host MB/s", extra)
}
