package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/hybrid"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runHybrid(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof hybrid --kernel K [--sides A,B] [--profile breakeven.json] [--requests N] [--min N --max N | --sizes-file F] [--fault a:slow=3@500-1000] [--fault b:fail@700-900]\n" +
		"Replays a stream of calls of mixed sizes through side A only, side B only, a\n" +
		"static threshold at the measured crossover, and the adaptive dispatcher (package\n" +
		"dispatch), every output verified; reports total time, per-request p50/p99, the\n" +
		"share of each side and every switch with its reason. The profiles come from a\n" +
		"break-even report (--profile) or are measured at start-up. Default sides: cpu,gpu.\n" +
		"Without --min, --max or --sizes-file the stream is log-uniform over the range\n" +
		"where neither side alone is the answer: a pilot times both sides at 64 sizes\n" +
		"from 1 to 64× the crossover in the replay's own context (each call poisoned and\n" +
		"verified), and the range runs from the smallest of them to where the two\n" +
		"sides' totals come closest (no crossover in the pilot: 1/16 to 16× break-even's).\n" +
		"With --out DIR --requests-csv it also writes requests.csv: every request of\n" +
		"every replay and strategy (size, side, time, routing time, probe)."
	examples := `  wgpu-prof hybrid --kernel cosine-single --sides cpu:threads=1,cpu:threads=2
  wgpu-prof hybrid --kernel cosine-single --sides cpu:threads=1,cpu:threads=2 --fault b:slow=3@700-1300`
	return measureCommand(stdout, stderr, args, "hybrid", usage, examples, true, func(fs *pflag.FlagSet) measureHooks {
		sides := fs.String("sides", "cpu,gpu", "the two sides, as for breakeven (e.g. cpu:threads=1,cpu:threads=2)")
		profile := fs.String("profile", "", "break-even report (JSON) to take the two sides' profiles from (default: measure them at start-up)")
		requests := fs.Int("requests", 2000, "requests in a generated stream")
		minN := fs.Int("min", 0, "smallest size of a generated stream (both 0: the pilot's range, see above; 0: 1/16 of the measured crossover)")
		maxN := fs.Int("max", 0, "largest size of a generated stream (both 0: the pilot's range; 0: 16× the measured crossover, at most the workload's size)")
		sizesFile := fs.String("sizes-file", "", "replay the sizes in this file (integers separated by spaces, commas or lines) instead")
		faults := fs.StringArray("fault", nil, "inject a fault: a:slow=F@FROM-TO (side a F× slower for requests FROM..TO-1) or b:fail@FROM-TO; repeatable")
		retune := retuneFlag(fs)
		budget := fs.Duration("search-budget", 0, "time budget of the start-up crossover search (default 1m)")
		rows := fs.Bool("requests-csv", false, "with --out: also write requests.csv, every request of every replay and strategy (about 7 MB for the default stream)")
		mixFile := fs.String("batch-mix", "", "FILE of the application's batch sizes (one per line, or 'size count' pairs): price the mix with the break-even's models, one side only and routed at the crossover, with the saving's CI")
		var mix *experiment.BatchMix
		var hc hybrid.HybridConfig // from the flags (ready)
		var hy *report.Hybrid      // the replay, for requests.csv
		return measureHooks{
			files: func(*experiment.Env) []report.DirFile {
				if !*rows || hy == nil || len(hy.Rows) == 0 {
					return nil
				}
				return []report.DirFile{{Name: "requests.csv", Write: func(w io.Writer) error { return report.WriteHybridRequests(w, hy) }}}
			},
			// Every input is read and checked here, before the device
			// opens: a bad one exits 2 and nothing is measured.
			ready: func(o *outputFlags) error {
				if *rows && o.out == "" {
					return fmt.Errorf("--requests-csv needs --out DIR")
				}
				if *requests <= 0 {
					return fmt.Errorf("--requests %d: must be positive", *requests)
				}
				if *minN < 0 || *maxN < 0 || (*minN > 0 && *maxN > 0 && *minN > *maxN) {
					return fmt.Errorf("--min %d --max %d: want 0 < min ≤ max (0: from the crossover)", *minN, *maxN)
				}
				if *budget < 0 {
					return fmt.Errorf("--search-budget %v: must be positive", *budget)
				}
				pair, err := experiment.ParseSides(*sides)
				if err != nil {
					return err
				}
				hc = hybrid.HybridConfig{Sides: pair, Requests: *requests, Min: *minN, Max: *maxN, SearchBudget: *budget, Rows: *rows}
				for _, f := range *faults {
					ft, err := hybrid.ParseFault(f)
					if err != nil {
						return err
					}
					hc.Faults = append(hc.Faults, ft)
				}
				if *sizesFile != "" {
					data, err := os.ReadFile(*sizesFile)
					if err != nil {
						return fmt.Errorf("--sizes-file: %w", err)
					}
					if hc.Sizes, err = hybrid.ParseSizes(string(data)); err != nil {
						return fmt.Errorf("--sizes-file %s: %w", *sizesFile, err)
					}
				}
				if *mixFile != "" {
					m, err := experiment.ParseBatchMix(*mixFile)
					if err != nil {
						return err
					}
					mix = &m
				}
				if *profile != "" {
					if hc.Profile, err = report.Read(*profile); err != nil {
						return fmt.Errorf("--profile: %w", err)
					}
					// The kernel's name is checked later with the others;
					// a profile must hold its break-even for these sides.
					if k := fs.Lookup("kernel"); k != nil && k.Value.String() != "" {
						if _, err := hybrid.HybridProfile(hc.Profile, k.Value.String(), pair); err != nil {
							return err
						}
					}
				}
				return nil
			},
			run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
				// The sizes of a file must fit the workload's size before
				// the profile is measured: an input error, exit status 2.
				if err := checkStreamSizes(cfg, *sizesFile, hc.Sizes); err != nil {
					return err
				}
				cfg.Retune = *retune
				hc.Seed = cfg.Seed
				err := hybrid.Run(env, cfg, hc, rep)
				hy = rep.Hybrid
				if err == nil && mix != nil {
					experiment.PriceMix(rep, *mix)
				}
				return err
			},
		}
	})
}

// checkStreamSizes refuses a size of the --sizes-file stream outside
// [1, the workload's batch size at cfg] (the data prepared reach no
// further), naming the file, the size, its place and the limit.
func checkStreamSizes(cfg experiment.RunConfig, file string, sizes []int) error {
	if len(sizes) == 0 || len(cfg.Workloads) != 1 {
		return nil
	}
	size, err := experiment.DefaultBatch(cfg, cfg.Workloads[0])
	if err != nil {
		return &experiment.UsageError{Err: err}
	}
	for i, n := range sizes {
		if n < 1 || n > size {
			return &experiment.UsageError{Err: &experiment.ParamError{Name: "sizes-file", Value: file,
				Limit: fmt.Sprintf("size %d (the %s) is outside [1, %d], the %s of %s: raise it with --%s, or trim the file",
					n, ordinal(i+1), size, batchName(cfg.Workloads[0]), cfg.Workloads[0], batchName(cfg.Workloads[0]))}}
		}
	}
	return nil
}

// ordinal writes 1 as "1st", 2 as "2nd", 11 as "11th".
func ordinal(i int) string {
	suffix := "th"
	if i%100 < 11 || i%100 > 13 {
		switch i % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprint(i) + suffix
}

// batchName is the parameter a workload's batch size counts ("n", "q",
// "nodes").
func batchName(name string) string {
	for _, w := range experiment.Workloads() {
		if w.Name == name && w.Batch != "" {
			return w.Batch
		}
	}
	return "n"
}
