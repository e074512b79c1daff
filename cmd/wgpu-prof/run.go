package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// suiteFlags size the workloads.
type suiteFlags struct {
	workloads string
	cfg       experiment.RunConfig
	batches   string
	quick     bool
}

func (s *suiteFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.workloads, "workloads", "all", "comma-separated: "+joinNames(experiment.AllWorkloads()))
	registerParams(fs, &s.cfg.Config)
	fs.StringVar(&s.batches, "batches", "", "break-even batch sizes, e.g. 1,4,16,64 (default: powers of 4 up to each workload's size)")
	fs.BoolVar(&s.quick, "quick", false, "a shorter look: smaller sizes and a 250ms budget per measurement")
}

func (s *suiteFlags) config(fs *pflag.FlagSet, dev *deviceFlags) (experiment.RunConfig, error) {
	cfg := s.cfg
	for _, p := range experiment.Params() {
		if fs.Changed(p.Name) {
			if err := p.Check(cfg.Config); err != nil {
				return cfg, err
			}
		}
	}
	var err error
	if cfg.Workloads, err = experiment.ParseWorkloads(s.workloads); err != nil {
		return cfg, err
	}
	if cfg.Batches, err = parseInts("--batches", s.batches); err != nil {
		return cfg, err
	}
	if s.quick {
		for _, p := range experiment.Params() {
			if p.Kind == experiment.IntParam && !fs.Changed(p.Name) {
				*p.Int(&cfg.Config) = p.QuickDefault()
			}
		}
		if !fs.Changed("budget") {
			dev.budget = 250 * time.Millisecond
		}
		cfg.CeilingBytes = 32 << 20
		cfg.QuickStaircase = true
		cfg.QuickLatency = true
		dev.quick = true
	}
	if err := cfg.LoadData(fs.Changed); err != nil {
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
  wgpu-prof run --quick --backend vulkan,gl             # the same suite on two backends, side by side`
	return measureCommand(stdout, stderr, args, "run", usage, examples, false, func(fs *pflag.FlagSet) measureHooks {
		trace := fs.Bool("trace", false, "with --out: write trace.json (Chrome trace of every GPU call; open in Perfetto)")
		retune := retuneFlag(fs)
		quiet := false
		return measureHooks{
			several: true,
			ready: func(o *outputFlags) error {
				quiet = o.quiet
				if *trace && o.out == "" {
					return fmt.Errorf("--trace needs --out DIR")
				}
				return nil
			},
			opened: func(env *experiment.Env) {
				if *trace {
					env.EnableTrace()
				}
			},
			run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
				cfg.Retune = *retune
				if !quiet {
					fmt.Fprintln(stderr, "wgpu-prof:", env.DurationLine(cfg))
				}
				return env.RunSuite(cfg, rep)
			},
			files: func(env *experiment.Env) []report.DirFile {
				if !*trace {
					return nil
				}
				return []report.DirFile{{Name: "trace.json", Write: func(w io.Writer) error {
					return report.WriteChromeTrace(w, env.Trace())
				}}}
			},
		}
	})
}

// retuneFlag defines --retune on a command whose GPU sides run the variant
// selected by measurement (run, breakeven, hybrid).
func retuneFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("retune", false, "re-measure which GPU variant of each workload is fastest on this adapter instead of reading the cached choice")
}
