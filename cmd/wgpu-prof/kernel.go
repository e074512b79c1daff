package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/kernel"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
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
	usageText, examples, _ := strings.Cut(kernelUsage, "example:\n")
	f := newFlags("kernel", stdout, stderr, usageText, examples)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if f.NArg() != 1 {
		return fmt.Errorf("kernel: give exactly one WGSL file (got %d arguments: %q)", f.NArg(), f.Args())
	}
	o := readOutput(f)
	if err := o.validate(); err != nil {
		return err
	}
	if err := checkDumpShaders(f, &o); err != nil {
		return err
	}
	cfg, err := kernelConfig(f, f.Arg(0))
	if err != nil {
		return err
	}
	if err := checkKernel(f, cfg); err != nil {
		return err
	}
	dev := readDevice(f)
	ev, err := dev.open(stderr)
	if err != nil {
		return err
	}
	defer ev.Close()
	prog := o.startProgress(stderr)
	ev.Progress = progressWriter(prog)
	rep := ev.NewReport(versionString())
	if twin := f.str("cpu-twin"); twin != "" {
		rc := experiment.RunConfig{}
		rc.Stop = ev.Stopped
		if f.on("quick") {
			rc.N = 8192
		}
		err = kernel.Twin(ev.Context(), ev, cfg, twin, rc, searchBudget(f), rep)
	} else {
		err = kernel.Run(ev, cfg, rep)
	}
	prog.finish()
	var files []report.DirFile
	if f.on("dump-shaders") {
		file, line := shaderDump(ev)
		files = append(files, file)
		rep.Summary = append(rep.Summary, line)
	}
	if err != nil {
		// A parameter the adapter cannot take (a buffer past its binding
		// limit, a dispatch past its grid) is found as the kernel is
		// built, before the ceilings: an input error, exit status 2,
		// nothing written.
		var pe *env.ParamError
		if errors.As(err, &pe) && !hasResults(rep) {
			return &env.UsageError{Err: pe}
		}
		return reportPartial(stdout, &o, rep, err, files...)
	}
	return failed(o.emit(stdout, rep, files...))
}

// kernelConfig reads the shader file and kernel's flags into its
// configuration.
func kernelConfig(f *cmdFlags, file string) (kernel.Config, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return kernel.Config{}, fmt.Errorf("kernel: %w", err)
	}
	bytesF, flops := f.float("bytes"), f.float("flops")
	cfg := kernel.Config{File: file, Source: string(src), Entry: f.str("entry"), Flops: flops, Bytes: bytesF,
		NoCheck: f.on("no-check"), Seed: f.unsigned("seed"), LoopIterations: f.unsigned("loop-iterations")}
	if !(bytesF >= 0) || !(flops >= 0) {
		return cfg, fmt.Errorf("--bytes %v / --flops %v: must be ≥ 0", bytesF, flops)
	}
	if len(f.list("buffer")) == 0 && f.str("cpu-twin") == "" {
		return cfg, fmt.Errorf("kernel: declare the shader's storage buffers with --buffer NAME=TYPE:COUNT[:INIT]")
	}
	for _, b := range f.list("buffer") {
		spec, err := kernel.ParseBufferSpec(b)
		if err != nil {
			return cfg, err
		}
		cfg.Buffers = append(cfg.Buffers, spec)
	}
	dispatch := f.str("dispatch")
	if strings.TrimSpace(dispatch) == "" {
		return cfg, fmt.Errorf("kernel: --dispatch X[,Y,Z] is required")
	}
	for _, d := range strings.Split(dispatch, ",") {
		cfg.Dispatch = append(cfg.Dispatch, strings.TrimSpace(d))
	}
	if cfg.Constants, err = parseConsts(f.list("const")); err != nil {
		return cfg, err
	}
	if cfg.SweepName, cfg.SweepValues, err = parseKernelSweep(f.str("sweep")); err != nil {
		return cfg, err
	}
	if f.on("quick") {
		cfg.CeilingBytes = 32 << 20
	}
	return cfg, nil
}

// parseConsts parses --const NAME=VALUE (each given).
func parseConsts(consts []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, c := range consts {
		name, val, ok := strings.Cut(c, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("--const %q: want NAME=VALUE with a number", c)
		}
		out[strings.TrimSpace(name)] = v
	}
	return out, nil
}

// parseKernelSweep parses --sweep NAME=v1,v2,... ("": no sweep).
func parseKernelSweep(sweep string) (string, []float64, error) {
	if sweep == "" {
		return "", nil, nil
	}
	name, list, ok := strings.Cut(sweep, "=")
	if !ok || name == "" || list == "" {
		return "", nil, fmt.Errorf("--sweep %q: want NAME=v1,v2,...", sweep)
	}
	var values []float64
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return "", nil, fmt.Errorf("--sweep %s: %q is not a number", name, s)
		}
		values = append(values, v)
	}
	return strings.TrimSpace(name), values, nil
}

// checkKernel checks cfg (and --cpu-twin, --search-budget) before the
// device opens.
func checkKernel(f *cmdFlags, cfg kernel.Config) error {
	check := cfg
	if twin := f.str("cpu-twin"); twin != "" {
		// The dispatch may name N, known per batch size only.
		check.Dispatch = []string{"1"}
		if !slices.Contains(kernel.TwinWorkloads(), twin) {
			return fmt.Errorf("--cpu-twin %q: want one of %s", twin, joinNames(kernel.TwinWorkloads()))
		}
		if b := f.duration("search-budget"); b <= 0 {
			return fmt.Errorf("--search-budget %v: must be positive", b)
		}
	}
	return kernel.CheckConfig(check)
}
