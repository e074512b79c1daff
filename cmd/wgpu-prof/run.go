package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/suite"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// runConfig is the workloads' configuration from f's flags: the
// workload parameters, the workloads named (--workloads, --kernel or the
// command's own list), --batches and --quick (the parameters' quick
// defaults where not given, smaller ceilings), the data files read.
func runConfig(f *cmdFlags, workloads string) (experiment.RunConfig, error) {
	f = f.sharedReads()
	var cfg experiment.RunConfig
	for _, p := range experiment.Params() {
		if !f.takes(p.Name) {
			continue
		}
		switch p.Kind {
		case experiment.StringParam, experiment.FileParam:
			*p.String(&cfg.Config) = f.str(p.Name)
		case experiment.Uint64Param:
			*p.Uint64(&cfg.Config) = f.unsigned(p.Name)
		default:
			*p.Int(&cfg.Config) = f.integer(p.Name)
		}
		if f.changed(p.Name) {
			if err := p.Check(cfg.Config); err != nil {
				return cfg, err
			}
		}
	}
	var err error
	if cfg.Workloads, err = experiment.ParseWorkloads(workloads); err != nil {
		return cfg, err
	}
	if cfg.Batches, err = parseInts("--batches", f.str("batches")); err != nil {
		return cfg, err
	}
	if f.on("quick") {
		for _, p := range experiment.Params() {
			if p.Kind == experiment.IntParam && !f.changed(p.Name) {
				*p.Int(&cfg.Config) = p.QuickDefault()
			}
		}
		cfg.CeilingBytes = 32 << 20
		cfg.QuickStaircase = true
		cfg.QuickLatency = true
	}
	if err := cfg.LoadData(f.changed); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func joinNames(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func runRun(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof run [flags]\n" +
		"The default suite on one adapter: measured GPU and CPU ceilings, then every\n" +
		"workload on both sides (each result verified before it is timed), break-even\n" +
		"sweeps, roofline positions and a plain-language summary."
	examples := `  wgpu-prof run --quick                                  # a shorter look, every workload
  wgpu-prof run --workloads cosine-single,hnsw --out results --plot --trace
  wgpu-prof run --quick --format json > r.json          # progress stays on stderr
  wgpu-prof run --quick --backend vulkan,gl             # the same suite on two backends, side by side
  wgpu-prof run --quick --impl wgpu-native,dawn --out impls --dump-shaders   # two WebGPU implementations, side by side`
	return measureCommand(stdout, stderr, args, "run", usage, examples, func(f *cmdFlags) measurer {
		return &runMeasurer{f: f, stderr: stderr}
	})
}

// runMeasurer runs the default suite, with its trace and shader dump,
// on each backend or implementation asked for.
type runMeasurer struct {
	f       *cmdFlags
	stderr  io.Writer
	shaders report.DirFile // the run's shaders.txt (--dump-shaders)
}

func (*runMeasurer) several() {}

func (r *runMeasurer) ready(o *outputFlags) error {
	if r.f.on("trace") && o.out == "" {
		return fmt.Errorf("--trace needs --out DIR")
	}
	return checkDumpShaders(r.f, o)
}

func (r *runMeasurer) opened(e *env.Env) {
	if r.f.on("trace") {
		e.EnableTrace()
	}
}

func (r *runMeasurer) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Retune = r.f.on("retune")
	if !r.f.on("quiet") {
		fmt.Fprintln(r.stderr, strings.Join(stderrLines("wgpu-prof: ", ceilings.DurationLine(e, cfg)), "\n"))
	}
	err := suite.Run(e, cfg, rep)
	if r.f.on("dump-shaders") {
		var line string
		r.shaders, line = shaderDump(e)
		rep.Summary = append(rep.Summary, line)
	}
	return err
}

func (r *runMeasurer) files(e *env.Env) []report.DirFile {
	var files []report.DirFile
	if r.f.on("trace") {
		files = append(files, report.DirFile{Name: "trace.json", Write: func(w io.Writer) error {
			return report.WriteChromeTrace(w, e.Trace())
		}})
	}
	if r.f.on("dump-shaders") {
		files = append(files, r.shaders)
	}
	return files
}
