package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/workload"
)

// BreakEven runs the break-even sweep of each configured workload (no
// ceilings: the rows carry times and rates, not fractions of a roof).
func (e *Env) BreakEven(cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	knobs := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
	for _, w := range ds {
		pr, err := w.Prepare(cfg.Config)
		if err != nil {
			return fmt.Errorf("%s: %w", w.Name, err)
		}
		batches := batchesFor(cfg, pr)
		if len(batches) < 3 {
			return usage(fmt.Errorf("--batches: a fit needs at least 3 batch sizes, got %v (for %s at --%s %d)", batches, w.Name, w.Batch, pr.Size))
		}
		at := func(n int) workload.Case { return pr.At(n, knobs) }
		bes, ms, err := e.breakEven(w, pr.Fixed, batches, at, Roofs{})
		if err != nil {
			return err
		}
		rep.Measurements = append(rep.Measurements, ms...)
		rep.BreakEvens = append(rep.BreakEvens, bes...)
	}
	rep.Summary = append(rep.Summary, Summarize(rep)...)
	return nil
}

// AmdahlLines turns each break-even's speedup at its largest batch into
// the application speedup Amdahl's law allows for an operation taking
// share of the application's time.
func AmdahlLines(rep *report.Report, share float64) ([]string, error) {
	var out []string
	for _, be := range rep.BreakEvens {
		last := len(be.Batches) - 1
		if last < 0 || be.GPU[last].Median <= 0 {
			continue
		}
		speedup := be.CPU[last].Median / be.GPU[last].Median
		app, err := timing.Amdahl(share, speedup)
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s (%s): at batch %d the GPU is %.2f× the CPU; for an operation taking %.0f%% of the application's time that makes the application %.2f× as fast",
			be.Workload, be.Clock, be.Batches[last], speedup, 100*share, app))
	}
	return out, nil
}
