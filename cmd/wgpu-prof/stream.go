package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runStream(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("stream", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	side := fs.String("side", "gpu", "where the kernels run: gpu (WGSL) or cpu (host SIMD kernels, all threads)")
	arraySize := fs.IntP("arraysize", "s", experiment.StreamDefaultArraySize, "elements per array (BabelStream's -s)")
	numTimes := fs.IntP("numtimes", "n", experiment.StreamDefaultNumTimes, "runs of the five kernels, the first excluded (≥ 2)")
	fs.Bool("float", true, "float32 elements (the default; BabelStream's --float)")
	double := fs.Bool("double", false, "float64 elements (GPU only, where the adapter has shader-f64)")
	csv := fs.Bool("csv", false, "print BabelStream's CSV instead of the table")
	threads := fs.Int("threads", 0, "CPU threads (0: GOMAXPROCS), like OMP_NUM_THREADS")
	cpuLevel := fs.String("cpu-level", "", "host SIMD level: generic, avx2, avx512, neon (default: the best available)")
	backend := fs.String("backend", "any", "GPU adapter backend: vulkan, metal, d3d12, gl or any")
	impl := fs.String("impl", "", "WebGPU implementation: wgpu-native or dawn (default: $WGPU_PROF_IMPL, else wgpu-native)")
	adapter := fs.Int("adapter", -1, "GPU adapter index (see wgpu-prof devices); -1: the best one")
	adapterName := fs.String("adapter-name", "", "pick the adapter whose name contains this text")
	noTS := fs.Bool("no-timestamps", false, "time by the host clock only")
	var maxMemory string
	maxMemoryVar(fs, &maxMemory)
	setHelp(fs, stdout, "usage: wgpu-prof stream [flags]\n"+
		"BabelStream's five kernels (Copy c=a, Mul b=s·c, Add c=a+b, Triad a=b+s·c,\n"+
		"Dot Σa·b) with its definitions: start values 0.1, 0.2, 0.0, scalar 0.4, the\n"+
		"Classic order, the final arrays checked, the minimum time over the runs after\n"+
		"the first, bytes counted 2N (Copy, Mul, Dot) and 3N (Add, Triad) elements.\n"+
		"The table and --csv match BabelStream's, so the rows can be set beside a\n"+
		"BabelStream run of the same machine. GPU times are from timestamps, with the\n"+
		"host clock's MB/s beside them.",
		`  wgpu-prof stream --side gpu --csv
  wgpu-prof stream --side cpu --arraysize 33554432 --numtimes 20
  wgpu-prof stream --backend gl --arraysize 1048576`)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("stream: unexpected argument(s) %q (every input is a --flag)", fs.Args())
	}
	if *side != "gpu" && *side != "cpu" {
		return fmt.Errorf("--side %q: want gpu or cpu", *side)
	}
	maxMem, err := parseMaxMemory(maxMemory)
	if err != nil {
		return err
	}
	defer experiment.SetMaxMemory(maxMem)()
	cfg := experiment.StreamConfig{ArraySize: *arraySize, NumTimes: *numTimes, F64: *double, Threads: *threads}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if *double && *side == "cpu" {
		return fmt.Errorf("--double: not available with --side cpu (the host SIMD kernels are float32)")
	}
	var run experiment.StreamRun
	if *side == "cpu" {
		if fs.Changed("backend") || fs.Changed("impl") || fs.Changed("adapter") || fs.Changed("adapter-name") || *noTS {
			return fmt.Errorf("--backend, --impl, --adapter, --adapter-name and --no-timestamps apply to --side gpu")
		}
		if cfg.Host, err = experiment.ParseHost(*cpuLevel, 0); err != nil {
			return err
		}
		run, err = experiment.RunStreamCPU(cfg)
	} else {
		if fs.Changed("threads") || fs.Changed("cpu-level") {
			return fmt.Errorf("--threads and --cpu-level apply to --side cpu")
		}
		if *adapter < -1 {
			return fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", *adapter)
		}
		env, oerr := experiment.OpenStream(experiment.AdapterSelect{Impl: *impl, Backend: *backend, Index: *adapter, Name: *adapterName}, *noTS)
		if oerr != nil {
			return failed(oerr)
		}
		defer env.Close()
		run, err = experiment.RunStreamGPU(env, cfg)
	}
	if err != nil {
		return failed(err)
	}
	return failed(writeStream(stdout, run, *csv))
}

// writeStream prints the verdict line and BabelStream's table, or (csv)
// BabelStream's CSV alone.
func writeStream(w io.Writer, r experiment.StreamRun, csv bool) error {
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
