package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

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
	return measureCommand(stdout, stderr, args, "breakeven", usage, examples, func(f *cmdFlags) measurer {
		return &breakEvenArgs{f: f}
	})
}

func (b *breakEvenArgs) ready(*outputFlags) error { return b.read(b.f) }

func (b *breakEvenArgs) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Retune = b.f.on("retune")
	if err := crossover.BreakEvenSearch(e, cfg, b.search, rep); err != nil {
		return err
	}
	return b.answer(rep)
}

// breakEvenArgs are breakeven's inputs, read and checked before the
// device opens.
type breakEvenArgs struct {
	f          *cmdFlags
	search     crossover.SearchConfig
	amdahl     float64
	withAmdahl bool
	mixFile    string
}

// read checks breakeven's own flags and reads the batch mix.
func (b *breakEvenArgs) read(f *cmdFlags) error {
	b.amdahl, b.withAmdahl, b.mixFile = f.float("amdahl"), f.changed("amdahl"), f.str("batch-mix")
	if b.withAmdahl && !(b.amdahl >= 0 && b.amdahl <= 1) {
		return fmt.Errorf("--amdahl %v: the share must be in [0, 1]", b.amdahl)
	}
	if f.duration("search-budget") <= 0 {
		return fmt.Errorf("--search-budget %v: must be positive", f.duration("search-budget"))
	}
	if bs, err := parseInts("--batches", f.str("batches")); err == nil && len(bs) > 0 && len(bs) < 3 {
		return fmt.Errorf("--batches %s: a fit needs at least 3 batch sizes", f.str("batches"))
	}
	b.search = crossover.SearchConfig{Budget: searchBudget(f)}
	if sides := f.str("sides"); strings.TrimSpace(sides) != "" {
		pair, err := experiment.ParseSides(sides)
		if err != nil {
			return err
		}
		b.search.Comparisons = [][2]experiment.SideSpec{pair}
	}
	if b.mixFile != "" {
		m, err := crossover.ParseBatchMix(b.mixFile)
		if err != nil {
			return err
		}
		b.search.Mix = &m
	}
	return nil
}

// answer adds to rep what --amdahl and --batch-mix asked: the Amdahl
// lines, and the answers that lead the answer block.
func (b *breakEvenArgs) answer(rep *report.Report) error {
	if b.withAmdahl {
		lines, err := crossover.AmdahlLines(rep, b.amdahl)
		if err != nil {
			return err
		}
		rep.Summary = append(rep.Summary, lines...)
	}
	for _, be := range rep.BreakEvens {
		if be.Clock != "end-to-end" {
			continue
		}
		if b.search.Mix != nil {
			if s := report.MixAnswer(be); s != "" {
				rep.AddAsked("--batch-mix "+b.mixFile, s)
			}
		}
		if b.withAmdahl {
			s, err := report.AmdahlAnswer(be, b.amdahl)
			if err != nil {
				return err
			}
			if s != "" {
				rep.AddAsked(fmt.Sprintf("--amdahl %g", b.amdahl), s)
			}
		}
	}
	return nil
}
