package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runHost(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("host", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o outputFlags
	outg := newGroup("output")
	o.register(outg.fs, false)
	levels := fs.String("cpu-level", "all", "SIMD levels to run, comma-separated: generic, avx2, avx512, neon, or all available")
	dim := fs.Int("d", 768, "vector dimension")
	n := fs.Int("n", 200_000, "rows for the out-of-cache cosine (default 614 MB at d=768)")
	nCached := fs.Int("n-cached", 2_000, "rows for the cache-resident cosine")
	q := fs.Int("q", 64, "queries for the batch cosine")
	threads := fs.Int("threads", 0, "worker threads (0: GOMAXPROCS; 1: single-core speed; at most 8 per logical CPU)")
	budget := fs.Duration("budget", experiment.DefaultBudget, "time budget per measurement (at least 10 samples are always taken)")
	var maxMemory string
	maxMemoryVar(fs, &maxMemory)
	setHelp(fs, stdout, "usage: wgpu-prof host [flags]\n"+
		"CPU only (no GPU needed): measures the host's read/write/copy/triad bandwidth and\n"+
		"FMA peak, then the host SIMD kernels at each level against those ceilings.",
		`  wgpu-prof host --n 20000 --budget 300ms
  wgpu-prof host --cpu-level generic,avx512 --threads 1   # single-core, two levels`, outg)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("host: unexpected argument(s) %q (every input is a --flag)", fs.Args())
	}
	if err := o.validate(); err != nil {
		return err
	}
	if *dim <= 0 || *n <= 0 || *nCached <= 0 || *q <= 0 {
		return fmt.Errorf("sizes must be positive: --d %d --n %d --n-cached %d --q %d", *dim, *n, *nCached, *q)
	}
	if err := experiment.CheckThreads(*threads); err != nil {
		return err
	}
	if err := experiment.CheckMeasure(*budget, 0.02); err != nil {
		return err
	}
	lv, err := experiment.ParseLevels(*levels)
	if err != nil {
		return err
	}
	maxMem, err := parseMaxMemory(maxMemory)
	if err != nil {
		return err
	}
	defer experiment.SetMaxMemory(maxMem)()
	rep := report.New(versionString(), time.Now().UTC())
	cfg := experiment.HostConfig{
		Levels: lv, Dim: *dim, N: *n, NCached: *nCached, Q: *q, Threads: *threads,
		Measure: experiment.MeasureOpts{Budget: *budget},
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	rep.Host = cfg.Info()
	var progress func(string)
	prog := o.startProgress(stderr)
	if prog != nil {
		progress = func(s string) { fmt.Fprintln(prog, s) }
	}
	err = experiment.RunHost(cfg, rep, progress)
	prog.finish()
	if err != nil {
		return reportPartial(stdout, &o, rep, err)
	}
	rep.Summary = experiment.HostSummary(rep)
	return failed(o.emit(stdout, rep))
}
