package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/kernel"
)

const kernelUsage = `usage: wgpu-prof kernel FILE.wgsl --buffer NAME=TYPE:COUNT[:INIT]... --dispatch X[,Y,Z] [flags]
Profiles your own WGSL compute shader: its storage buffers are created from
--buffer (bindings found by variable name in the WGSL), one dispatch is timed
with GPU timestamps (≥ 10 samples, median and 95% CI) after a check that it
gives bit-identical, finite outputs from identical inputs, and placed against
the GPU ceilings measured in the same run.

  TYPE   f32, u32, i32 or f16 (a vec4<f32> array is counted in f32 scalars)
  INIT   zero (default); rand (floats in [-1,1), integers in [0,COUNT)); iota
  --dispatch  workgroup counts; each may name override constants: 4194304/WG

example:
  wgpu-prof kernel saxpy.wgsl --buffer x=f32:4194304:rand --buffer y=f32:4194304:rand \
    --dispatch 65536 --bytes 50331648 --sweep WG=32,64,128,256 --dispatch 4194304/WG
`

func runKernel(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("kernel", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o outputFlags
	var dev deviceFlags
	devg, outg := newGroup("device and measurement"), newGroup("output")
	dev.register(devg.fs)
	o.register(outg.fs, true)
	buffers := fs.StringArray("buffer", nil, "a storage buffer: NAME=TYPE:COUNT[:INIT] (repeat for each)")
	dispatch := fs.String("dispatch", "", "workgroup counts X[,Y[,Z]] (integer expressions of the shader's override constants allowed)")
	entry := fs.String("entry", "", "the @compute entry point (default: the only one)")
	consts := fs.StringArray("const", nil, "a pipeline-overridable constant: NAME=VALUE (repeat for each)")
	bytesF := fs.Float64("bytes", 0, "bytes one dispatch moves (default: each buffer read once, read_write ones also written once)")
	flops := fs.Float64("flops", 0, "floating-point operations of one dispatch (for GFLOP/s and the roofline)")
	sweep := fs.String("sweep", "", "sweep an override constant: NAME=v1,v2,...")
	noCheck := fs.Bool("no-check", false, "skip the repeatability check (outputs that legitimately vary between runs); the report marks the result unverified")
	seed := fs.Uint64("seed", 1, "seed of rand-initialised buffers")
	twin := fs.String("cpu-twin", "", "compare with the CPU side of a built-in workload computing the same operation ("+joinNames(kernel.TwinWorkloads())+"): the tool fills the kernel's buffers with the workload's inputs at each batch size N (dispatch expressions may use N), checks its output against the workload's reference, and reports the adaptive break-even")
	twinBudget := fs.Duration("search-budget", experiment.DefaultSearchBudget, "with --cpu-twin: time budget of the crossover search")
	loopIters := fs.Uint64("loop-iterations", 0, "the most loop iterations one invocation runs (each loop's iterations + 1); checked against the adapter's loop budget where it has one (lavapipe), without it a shader with loops there is reported unverified")
	quick := fs.Bool("quick", false, "a shorter look: 32 MiB ceiling buffers and a 250ms budget per measurement")
	usageText, examples, _ := strings.Cut(kernelUsage, "example:\n")
	setHelp(fs, stdout, usageText, examples, devg, outg)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("kernel: give exactly one WGSL file (got %d arguments: %q)", fs.NArg(), fs.Args())
	}
	if err := o.validate(); err != nil {
		return err
	}
	file := fs.Arg(0)
	src, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	cfg := kernel.KernelConfig{File: file, Source: string(src), Entry: *entry, Flops: *flops, Bytes: *bytesF, NoCheck: *noCheck, Seed: *seed, LoopIterations: *loopIters}
	if !(*bytesF >= 0) || !(*flops >= 0) {
		return fmt.Errorf("--bytes %v / --flops %v: must be ≥ 0", *bytesF, *flops)
	}
	if len(*buffers) == 0 && *twin == "" {
		return fmt.Errorf("kernel: declare the shader's storage buffers with --buffer NAME=TYPE:COUNT[:INIT]")
	}
	for _, b := range *buffers {
		spec, err := kernel.ParseBufferSpec(b)
		if err != nil {
			return err
		}
		cfg.Buffers = append(cfg.Buffers, spec)
	}
	if strings.TrimSpace(*dispatch) == "" {
		return fmt.Errorf("kernel: --dispatch X[,Y,Z] is required")
	}
	for _, d := range strings.Split(*dispatch, ",") {
		cfg.Dispatch = append(cfg.Dispatch, strings.TrimSpace(d))
	}
	cfg.Constants = map[string]float64{}
	for _, c := range *consts {
		name, val, ok := strings.Cut(c, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || name == "" || err != nil {
			return fmt.Errorf("--const %q: want NAME=VALUE with a number", c)
		}
		cfg.Constants[strings.TrimSpace(name)] = v
	}
	if *sweep != "" {
		name, list, ok := strings.Cut(*sweep, "=")
		if !ok || name == "" || list == "" {
			return fmt.Errorf("--sweep %q: want NAME=v1,v2,...", *sweep)
		}
		cfg.SweepName = strings.TrimSpace(name)
		for _, s := range strings.Split(list, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return fmt.Errorf("--sweep %s: %q is not a number", name, s)
			}
			cfg.SweepValues = append(cfg.SweepValues, v)
		}
	}
	if *quick {
		cfg.CeilingBytes = 32 << 20
		if !fs.Changed("budget") {
			dev.budget = 250 * time.Millisecond
		}
	}
	check := cfg
	if *twin != "" {
		// The dispatch may name N, known per batch size only.
		check.Dispatch = []string{"1"}
		found := false
		for _, w := range kernel.TwinWorkloads() {
			found = found || w == *twin
		}
		if !found {
			return fmt.Errorf("--cpu-twin %q: want one of %s", *twin, joinNames(kernel.TwinWorkloads()))
		}
		if *twinBudget <= 0 {
			return fmt.Errorf("--search-budget %v: must be positive", *twinBudget)
		}
	}
	if err := kernel.CheckKernelConfig(check); err != nil {
		return err
	}
	env, err := dev.open(stderr)
	if err != nil {
		return err
	}
	defer env.Close()
	prog := o.startProgress(stderr)
	env.Progress = progressWriter(prog)
	rep := env.NewReport(versionString())
	if *twin != "" {
		var rc experiment.RunConfig
		sb := *twinBudget
		if *quick {
			rc.N = 8192
			if !fs.Changed("search-budget") {
				sb = quickSearchBudget
			}
		}
		err = kernel.Twin(context.Background(), env, cfg, *twin, rc, sb, rep)
	} else {
		err = kernel.Run(env, cfg, rep)
	}
	prog.finish()
	if err != nil {
		// A parameter the adapter cannot take (a buffer past its binding
		// limit, a dispatch past its grid) is found as the kernel is
		// built, before the ceilings: an input error, exit status 2,
		// nothing written.
		var pe *experiment.ParamError
		if errors.As(err, &pe) && !hasResults(rep) {
			return &experiment.UsageError{Err: pe}
		}
		return reportPartial(stdout, &o, rep, err)
	}
	return failed(o.emit(stdout, rep))
}
