package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
)

// deviceFlags select the adapter and the measurement budget.
type deviceFlags struct {
	impl         string
	backend      string
	adapter      int
	adapterName  string
	budget       time.Duration
	target       float64
	noTimestamps bool
	cpuLevel     string
	threads      int
	cvWarn       float64
	maxMemory    string
	quick        bool // a quick look: its memory budget (set by suiteFlags.config)
}

func (f *deviceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.impl, "impl", "", "WebGPU implementation: wgpu-native or dawn (default: $WGPU_PROF_IMPL, else wgpu-native); run also takes both, wgpu-native,dawn, and reports them side by side")
	fs.StringVar(&f.backend, "backend", "any", "adapter backend: vulkan, metal, d3d12, gl or any; run also takes several, comma-separated (vulkan,gl), and reports them side by side")
	fs.IntVar(&f.adapter, "adapter", -1, "adapter index among those of --backend (see wgpu-prof devices); -1: the best one")
	fs.StringVar(&f.adapterName, "adapter-name", "", "pick the adapter whose name contains this text")
	fs.DurationVar(&f.budget, "budget", experiment.DefaultBudget, "time budget per measurement (at least 10 samples are always taken)")
	fs.Float64Var(&f.target, "target", 0.02, "stop repeating when the median's 95% CI is within ±target")
	fs.BoolVar(&f.noTimestamps, "no-timestamps", false, "do not use GPU timestamp queries (host clock only)")
	fs.StringVar(&f.cpuLevel, "cpu-level", "", "host SIMD level: generic, avx2, avx512, neon (default: the best available)")
	fs.IntVar(&f.threads, "threads", 0, "host worker threads (0: GOMAXPROCS; at most 8 per logical CPU)")
	fs.Float64Var(&f.cvWarn, "cv-warn", 0.05, "flag a measurement whose coefficient of variation exceeds this (0.05: 5%)")
	maxMemoryVar(fs, &f.maxMemory)
}

// maxMemoryVar defines --max-memory, the memory budget of every
// measuring command.
func maxMemoryVar(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "max-memory", "", "memory budget of the working sets, e.g. 1GiB or 512MiB (default: 25% of the memory available at start, at most 1 GiB with --quick)")
}

// parseMaxMemory parses --max-memory ("": the default budget, 0).
func parseMaxMemory(s string) (int64, error) { return experiment.ParseMaxMemory(s) }

// open validates the flags and opens the device.
func (f *deviceFlags) open(stderr io.Writer) (*experiment.Env, error) {
	if f.adapter < -1 {
		return nil, fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", f.adapter)
	}
	if err := experiment.CheckMeasure(f.budget, f.target); err != nil {
		return nil, err
	}
	host, err := experiment.ParseHost(f.cpuLevel, f.threads)
	if err != nil {
		return nil, err
	}
	if err := experiment.CheckCVWarn(f.cvWarn); err != nil {
		return nil, err
	}
	maxMem, err := parseMaxMemory(f.maxMemory)
	if err != nil {
		return nil, err
	}

	env, err := experiment.Open(experiment.AdapterSelect{Impl: f.impl, Backend: f.backend, Index: f.adapter, Name: f.adapterName},
		experiment.MeasureOpts{Budget: f.budget, TargetRel: f.target, WarnCV: f.cvWarn}, f.noTimestamps)
	if err != nil {
		return nil, err
	}
	env.Host = host
	env.SetMaxMemory(maxMem)
	if f.quick {
		env.SetQuickMemory()
	}
	return env, nil
}

// registerParams defines one flag per workload parameter (--NAME, its
// default and help from the parameter's declaration), bound to c.
func registerParams(fs *pflag.FlagSet, c *experiment.WorkloadConfig) {
	for _, p := range experiment.Params() {
		switch p.Kind {
		case experiment.StringParam, experiment.FileParam:
			fs.StringVar(p.String(c), p.Name, p.Str, p.Help)
		case experiment.Uint64Param:
			fs.Uint64Var(p.Uint64(c), p.Name, p.U64, p.Help)
		default:
			fs.IntVar(p.Int(c), p.Name, p.Default, p.Help)
		}
	}
}

// flagError returns err with its message written by flagMessage (the
// chain kept for errors.Is/As); err itself when it names no parameter.
func flagError(err error) error {
	if err == nil {
		return nil
	}
	if msg := flagMessage(err); msg != err.Error() {
		return flagged{msg: msg, err: err}
	}
	return err
}

type flagged struct {
	msg string
	err error
}

func (f flagged) Error() string { return f.msg }
func (f flagged) Unwrap() error { return f.err }

// flagMessage is err's message with each library parameter it names
// (experiment.ParamError) written as the flag that sets it: "d 766: …"
// becomes "--d 766: …".
func flagMessage(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if pe, ok := e.(*experiment.ParamError); ok {
			if s := pe.Error(); !strings.Contains(msg, "--"+s) {
				msg = strings.Replace(msg, s, "--"+s, 1)
			}
		}
	}
	return msg
}

// parseInts parses "1,2,4" into positive integers, naming a bad element.
func parseInts(flag, s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", flag, part)
		}
		out = append(out, v)
	}
	return out, nil
}
