package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const hostUsage = "usage: wgpu-prof host [flags]\n" +
	"CPU only (no GPU needed): measures the host's read/write/copy/triad bandwidth and\n" +
	"FMA peak, then the host SIMD kernels at each level against those ceilings. --d, --n\n" +
	"and --q size the kernels as in the other commands (--n: the out-of-cache cosine's rows)."

// testHookHostStep, set by tests, sees each step host starts.
var testHookHostStep func(step string)

func runHost(stdout, stderr io.Writer, args []string) error {
	f := newFlags("host", stdout, stderr, hostUsage,
		`  wgpu-prof host --n 20000 --budget 300ms
  wgpu-prof host --cpu-levels generic,avx512 --threads 1   # single-core, two levels`)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if err := f.noArgs(); err != nil {
		return err
	}
	o := readOutput(f)
	if err := o.validate(); err != nil {
		return err
	}
	cfg, err := hostConfig(f)
	if err != nil {
		return err
	}
	maxMem, err := parseMaxMemory(f.str("max-memory"))
	if err != nil {
		return err
	}
	defer env.SetMaxMemory(maxMem)()
	if err := cfg.Validate(); err != nil {
		return err
	}
	rep := report.New(versionString(), time.Now().UTC())
	rep.Host = cfg.Info()
	prog := o.startProgress(stderr)
	progress := func(s string) {
		if prog != nil {
			fmt.Fprintln(prog, s)
		}
		if testHookHostStep != nil {
			testHookHostStep(s)
		}
	}
	var stop atomic.Bool
	cfg.Stop = stop.Load
	listening := onInterrupt(stderr, func() { stop.Store(true) })
	err = ceilings.RunHost(cfg, rep, progress)
	listening()
	prog.finish()
	if err != nil {
		return reportPartial(stdout, &o, rep, err)
	}
	rep.Summary = experiment.HostSummary(rep)
	return failed(o.emit(stdout, rep))
}

// hostConfig is host's configuration from its flags: the sizes checked
// as every command checks them (--d a multiple of 4, as the kernels
// load vec4s), the threads, the budget and the levels.
func hostConfig(f *cmdFlags) (ceilings.HostConfig, error) {
	var wc experiment.WorkloadConfig
	for _, p := range experiment.Params() {
		if p.Name != "d" && p.Name != "n" && p.Name != "q" {
			continue
		}
		*p.Int(&wc) = f.integer(p.Name)
		if err := p.Check(wc); err != nil {
			return ceilings.HostConfig{}, err
		}
	}
	if wc.Dim%4 != 0 {
		return ceilings.HostConfig{}, &env.ParamError{Name: "d", Value: fmt.Sprint(wc.Dim), Limit: "the dimension must be a multiple of 4 (the kernels load vec4s)"}
	}
	if n := f.integer("n-cached"); n <= 0 {
		return ceilings.HostConfig{}, &env.ParamError{Name: "n-cached", Value: fmt.Sprint(n), Limit: "must be positive"}
	}
	threads, budget := f.integer("threads"), f.duration("budget")
	if err := env.CheckThreads(threads); err != nil {
		return ceilings.HostConfig{}, err
	}
	if err := env.CheckMeasure(budget, 0.02); err != nil {
		return ceilings.HostConfig{}, err
	}
	lv, err := env.ParseLevels(f.str("cpu-levels"))
	if err != nil {
		return ceilings.HostConfig{}, err
	}
	return ceilings.HostConfig{
		Levels: lv, Dim: wc.Dim, N: wc.N, NCached: f.integer("n-cached"), Q: wc.Q, Threads: threads,
		Measure: env.MeasureOpts{Budget: budget},
	}, nil
}
