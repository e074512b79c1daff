package crossover

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// BreakEven runs the adaptive crossover search of each configured
// workload for the default comparisons (gpu vs cpu, V resident and
// shipped per call); see BreakEvenSearch.
func BreakEven(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	return BreakEvenSearch(e, cfg, SearchConfig{}, rep)
}

// BreakEvenSearch runs, for each configured workload and each pair of
// sides, the adaptive crossover search (coarse sweep from --batches or
// powers of 4, extension past the default size to a stated limit,
// bisection to ±10%), fits both sides' constrained models and reports the
// measured and predicted crossovers (no ceilings: the rows carry times
// and rates, not fractions of a roof).
func BreakEvenSearch(e *env.Env, cfg experiment.RunConfig, sc SearchConfig, rep *report.Report) error {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	comps := sc.Comparisons
	if len(comps) == 0 {
		comps = DefaultComparisons()
	}
	for _, pair := range comps {
		for _, sp := range pair {
			if sp.Workgroup > 0 {
				if err := e.Device.CheckWorkgroup(sp.Workgroup); err != nil {
					return &env.ParamError{Name: "sides", Value: sp.Label, Limit: err.Error()}
				}
			}
		}
	}
	for _, w := range ds {
		cfg, err := reachMix(cfg, w, sc.Mix, e)
		if err != nil {
			return err
		}
		cache, emitted := map[string]SideRun{}, map[string]bool{}
		for _, pair := range comps {
			bes, ms, err := SearchOne(e, w, cfg, sc, pair, experiment.Roofs{}, cache, emitted, rep)
			if err != nil {
				return err
			}
			if sc.Mix != nil {
				for i := range bes {
					if bes[i].Clock == "end-to-end" && bes[i].ModelA != nil && bes[i].ModelB != nil {
						m := MixOf(bes[i], *sc.Mix)
						bes[i].Mix = &m
						rep.Summary = append(rep.Summary, MixSummary(bes[i].Workload, m))
					}
				}
			}
			rep.Measurements = append(rep.Measurements, ms...)
			rep.BreakEvens = append(rep.BreakEvens, bes...)
			for _, be := range bes {
				rep.Summary = append(rep.Summary, CrossoverLines(be)...)
			}
		}
	}
	rep.Summary = append(rep.Summary, experiment.Summarize(rep)...)
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
		out = append(out, fmt.Sprintf("%s (%s): at %s the GPU is %.2f× the CPU; for an operation taking %.0f%% of the application's time that makes the application %.2f× as fast",
			be.Workload, be.Clock, report.BatchCount(be.Batch, float64(be.Batches[last])), speedup, 100*share, app))
	}
	return out, nil
}
