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
	fs.IntVar(&s.cfg.Dim, "d", 768, "vector dimension (multiple of 4)")
	fs.IntVar(&s.cfg.N, "n", 65536, "stored vectors")
	fs.IntVar(&s.cfg.Q, "q", 64, "queries (cosine-batch, hnsw)")
	fs.IntVar(&s.cfg.C, "c", 32, "candidates per query (hnsw)")
	fs.IntVar(&s.cfg.K, "k", 10, "top-k")
	fs.IntVar(&s.cfg.Nodes, "nodes", 100_000, "graph nodes (spreading)")
	fs.IntVar(&s.cfg.Degree, "degree", 16, "average graph degree (spreading)")
	fs.IntVar(&s.cfg.Steps, "steps", 10, "spreading steps")
	fs.IntVar(&s.cfg.Workgroup, "wg", 0, "workgroup size for every kernel that has one (0: each kernel's default)")
	fs.IntVar(&s.cfg.Tile, "tile", 0, "tile side of tiled kernels (cosine-batch; 0: the kernel's default)")
	fs.StringVar(&s.batches, "batches", "", "break-even batch sizes, e.g. 1,4,16,64 (default: powers of 4 up to each workload's size)")
	fs.Uint64Var(&s.cfg.Seed, "seed", 1, "seed of the generated data")
	fs.StringVar(&s.cfg.Candidates, "candidates", "random", "hnsw candidate ids: hnsw (replayed from real searches of an index over the stored vectors; the index build costs ~1 min of CPU at the default --n/--d) or random (uniform, the stress case)")
	fs.StringVar(&s.cfg.Metric, "metric", "l2sq", "hnsw distance: l2sq, ip or cosine")
	fs.StringVar(&s.cfg.Precision, "precision", "f32", "storage type of the GPU kernel's stored vectors: f32 or f16 (kernels with an f16 variant: cosine-single; verified against the f32 reference with the f16 rounding bound)")
	fs.IntVar(&s.cfg.Ef, "ef", 64, "search breadth of the hnsw index whose visits --candidates hnsw replays")
	fs.BoolVar(&s.quick, "quick", false, "a shorter look: smaller sizes and a 250ms budget per measurement")
}

func (s *suiteFlags) config(fs *pflag.FlagSet, dev *deviceFlags) (experiment.RunConfig, error) {
	cfg := s.cfg
	for _, name := range []string{"d", "n", "q", "c", "k", "nodes", "degree", "steps"} {
		if fs.Changed(name) {
			if v, _ := fs.GetInt(name); v <= 0 {
				return cfg, fmt.Errorf("--%s %d: must be positive", name, v)
			}
		}
	}
	if fs.Changed("wg") && (cfg.Workgroup <= 0 || cfg.Workgroup&(cfg.Workgroup-1) != 0) {
		return cfg, fmt.Errorf("--wg %d: must be a positive power of two", cfg.Workgroup)
	}
	if fs.Changed("tile") && (cfg.Tile < 4 || cfg.Tile&(cfg.Tile-1) != 0) {
		return cfg, fmt.Errorf("--tile %d: must be a power of two ≥ 4", cfg.Tile)
	}
	var err error
	if cfg.Workloads, err = experiment.ParseWorkloads(s.workloads); err != nil {
		return cfg, err
	}
	if cfg.Batches, err = parseInts("--batches", s.batches); err != nil {
		return cfg, err
	}
	if s.quick {
		shrink := func(name string, p *int, v int) {
			if !fs.Changed(name) {
				*p = v
			}
		}
		shrink("n", &cfg.N, 8192)
		shrink("nodes", &cfg.Nodes, 10_000)
		shrink("q", &cfg.Q, 16)
		if !fs.Changed("budget") {
			dev.budget = 250 * time.Millisecond
		}
		cfg.CeilingBytes = 32 << 20
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
  wgpu-prof run --quick --format json > r.json          # progress stays on stderr`
	return measureCommand(stdout, stderr, args, "run", usage, examples, false, func(fs *pflag.FlagSet) measureHooks {
		trace := fs.Bool("trace", false, "with --out: write trace.json (Chrome trace of every GPU call; open in Perfetto)")
		retune := retuneFlag(fs)
		return measureHooks{
			ready: func(o *outputFlags) error {
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
