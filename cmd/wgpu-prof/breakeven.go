package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// quickSearchBudget is each crossover search's budget under --quick.
const quickSearchBudget = 20 * time.Second

func runBreakEven(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof breakeven --kernel K [--sides A,B] [--batches 1,4,16,...] [--search-budget 2m] [--amdahl SHARE]\n" +
		"Finds where the faster of two sides changes: a coarse sweep of the batch size,\n" +
		"extended geometrically past the default size until the faster side changes or a\n" +
		"stated limit stops it, then bisected until the crossover is located within ±10%\n" +
		"or the sides are statistically indistinguishable. Fits t(n) = a + b·n (a, b ≥ 0;\n" +
		"two regimes where the data has a knee) on each side and reports the measured\n" +
		"interval, the predicted crossover (flagged when extrapolated) and its error.\n" +
		"Sides: gpu, cpu, cpu:threads=N, cpu:level=L, gpu:wg=N, gpu:data=shipped|resident\n" +
		"(settings are forced: threads=2 means two workers even for one row). Default:\n" +
		"cpu,gpu and cpu,gpu:data=shipped (V resident on the GPU, and shipped per call)."
	examples := `  wgpu-prof breakeven --kernel cosine-single --sides cpu:threads=1,cpu:threads=2 --format json
  wgpu-prof breakeven --kernel cosine-single --quick --batches 256,1024,4096,8192
  wgpu-prof breakeven --kernel hnsw --amdahl 0.3 --out be --plot
  wgpu-prof breakeven --kernel cosine-single --quick --batch-mix mix.txt  # your calls' sizes, priced`
	return measureCommand(stdout, stderr, args, "breakeven", usage, examples, true, func(fs *pflag.FlagSet) measureHooks {
		amdahl := fs.Float64("amdahl", -1, "share (0..1) of an application's time this operation takes: print the end-to-end application speedup the measurement allows")
		sides := fs.String("sides", "", "the two sides to compare, e.g. cpu:threads=1,cpu:threads=2 (default: cpu,gpu and cpu,gpu:data=shipped)")
		retune := retuneFlag(fs)
		mixFile := fs.String("batch-mix", "", "FILE of the batch sizes an application calls the operation with (one size per line, or 'size count' pairs): price the mix CPU-only, GPU-only and routed at the measured crossover, with the saving's CI")
		var mix *experiment.BatchMix
		budget := fs.Duration("search-budget", experiment.DefaultSearchBudget, "time budget of each crossover search (the first three sizes are always measured; 20s with --quick)")
		var pair [2]experiment.SideSpec
		return measureHooks{ready: func(*outputFlags) error {
			if fs.Changed("amdahl") && !(*amdahl >= 0 && *amdahl <= 1) {
				return fmt.Errorf("--amdahl %v: the share must be in [0, 1]", *amdahl)
			}
			if *budget <= 0 {
				return fmt.Errorf("--search-budget %v: must be positive", *budget)
			}
			if b, err := parseInts("--batches", fs.Lookup("batches").Value.String()); err == nil && len(b) > 0 && len(b) < 3 {
				return fmt.Errorf("--batches %s: a fit needs at least 3 batch sizes", fs.Lookup("batches").Value.String())
			}
			if strings.TrimSpace(*sides) != "" {
				var err error
				if pair, err = experiment.ParseSides(*sides); err != nil {
					return err
				}
			}
			if *mixFile != "" {
				m, err := experiment.ParseBatchMix(*mixFile)
				if err != nil {
					return err
				}
				mix = &m
			}
			return nil
		}, run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
			withAmdahl := fs.Changed("amdahl")
			cfg.Retune = *retune
			sc := experiment.SearchConfig{Budget: *budget, Mix: mix}
			if q, _ := fs.GetBool("quick"); q && !fs.Changed("search-budget") {
				sc.Budget = quickSearchBudget
			}
			if strings.TrimSpace(*sides) != "" {
				sc.Comparisons = [][2]experiment.SideSpec{pair}
			}
			if err := env.BreakEvenSearch(cfg, sc, rep); err != nil {
				return err
			}
			if withAmdahl {
				lines, err := experiment.AmdahlLines(rep, *amdahl)
				if err != nil {
					return err
				}
				rep.Summary = append(rep.Summary, lines...)
			}
			// What the flags asked for leads the answer block.
			for _, be := range rep.BreakEvens {
				if be.Clock != "end-to-end" {
					continue
				}
				if mix != nil {
					if s := report.MixAnswer(be); s != "" {
						rep.AddAsked("--batch-mix "+*mixFile, s)
					}
				}
				if withAmdahl {
					s, err := report.AmdahlAnswer(be, *amdahl)
					if err != nil {
						return err
					}
					if s != "" {
						rep.AddAsked(fmt.Sprintf("--amdahl %g", *amdahl), s)
					}
				}
			}
			return nil
		}}
	})
}
