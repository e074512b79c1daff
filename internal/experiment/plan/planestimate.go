package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// What plan's duration estimate assumes, a software adapter's costs (the
// GPU API on the CPU), so that it errs long on a GPU: a call's round
// trip, a pipeline's build with its first verified run, the rate at
// which transfers and kernels move bytes and the rate of the FMA chain.
const (
	estimateCallSeconds     = 2e-3
	estimatePipelineSeconds = 1.0
	estimateRate            = 1e9
	estimateFLOPRate        = 10e9
	// estimateCeilingKernels are the ceilings' kernels besides the FMA
	// chain's intensities (read designs, write, copy).
	estimateCeilingKernels = 10
	// estimateTuneBudgets are the measurement budgets one configuration
	// of a variant selection takes beside its build (its verified runs
	// and timed calls), as run's estimate counts them.
	estimateTuneBudgets = 3
)

// Estimate is how long plan will measure, in parts (seconds), said
// before anything is measured: the GPU taxes (the latency anatomy), the
// GPU ceilings, the GPU variant selections the cache does not hold, and
// the break-even searches.
type Estimate struct {
	Taxes, Roof float64
	// Selecting are the workloads whose variant selection runs, trying
	// SelectConfigs configurations in all.
	Selecting     []string
	SelectConfigs int
	Select        float64
	// QuickSelect: the selections are quick ones (RunConfig.QuickVariants).
	QuickSelect bool
	Searches    int
	Search      float64
}

// Total is the estimate's seconds.
func (e Estimate) Total() float64 { return e.Taxes + e.Roof + e.Select + e.Search }

// Line is the estimate in one line.
func (e Estimate) Line() string {
	var parts []string
	if e.Taxes > 0 {
		parts = append(parts, fmt.Sprintf("GPU taxes (the latency anatomy) about %.0f s", e.Taxes))
	}
	if e.Roof > 0 {
		parts = append(parts, fmt.Sprintf("GPU ceilings about %.0f s", e.Roof))
	}
	if len(e.Selecting) > 0 {
		s := fmt.Sprintf("GPU variant selection for %s about %.0f s (%d configurations, none cached", strings.Join(e.Selecting, ", "), e.Select, e.SelectConfigs)
		if e.QuickSelect {
			s += "; --quick: the default workgroup size only"
		}
		parts = append(parts, s+")")
	} else if e.Searches > 0 {
		parts = append(parts, "GPU variants from the cache")
	}
	if e.Searches > 0 {
		parts = append(parts, fmt.Sprintf("%d break-even search(es) of at most %.0f s in all", e.Searches, e.Search))
	}
	if len(parts) == 0 {
		return "plan: nothing to measure (every model from --report)"
	}
	return fmt.Sprintf("plan: about %s to measure (estimate: %s)", fmtDuration(e.Total()), strings.Join(parts, ", "))
}

// fmtDuration is seconds as "42 s" or "3 min 5 s".
func fmtDuration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// EstimatePlan estimates what measurePlan will measure on e: the taxes
// (when taxes, unless rep holds this adapter's anatomy) and the GPU
// ceilings (unless rep holds them; quick: run --quick's), then for each
// operation in measure its variant selection where the cache holds none
// (experiment.PendingSelections with its configuration, quick where
// that asks for it; each workload once) and its break-even search
// (budget, and the sizes it measures again).
func EstimatePlan(e *env.Env, rep *report.Report, ops []Op, cfgs []experiment.RunConfig, measure []int, budget time.Duration, taxes, quick bool) Estimate {
	var est Estimate
	mb := e.Measure.Budget.Seconds()
	if taxes {
		if rep == nil || rep.Latency == nil || e.Device == nil || rep.Latency.Adapter != e.Device.Info.Name {
			est.Taxes = anatomySeconds(LatencyConfigFor(quick))
		}
		if rep == nil || !(rep.Ceilings.GPU["read_gbs"] > 0 && rep.Ceilings.GPU["fma_gflops"] > 0) {
			o := roofOptions(e, RoofBytes, quick)
			runs, intensities := 7, []float64{0.25, 1, 4, 16, 64, 256} // compute.CeilingOptions' defaults
			if o.Runs > 0 {
				runs, intensities = o.Runs, o.Intensities
			}
			kernels := float64(estimateCeilingKernels + len(intensities))
			est.Roof = kernels * (estimatePipelineSeconds + float64(runs)*2*RoofBytes/estimateRate)
			for _, x := range intensities {
				est.Roof += float64(runs) * x * RoofBytes / estimateFLOPRate
			}
		}
	}
	seen := map[string]bool{}
	for _, i := range measure {
		est.Searches++
		est.Search += budget.Seconds() + 2*crossover.MaxRemeasured*mb
		w, err := workload.Lookup(ops[i].Workload)
		if err != nil || seen[w.Name] {
			continue
		}
		seen[w.Name] = true
		names, configs := experiment.PendingSelections(e, cfgs[i], []*workload.Descriptor{w})
		est.QuickSelect = est.QuickSelect || cfgs[i].QuickVariants
		est.Selecting = append(est.Selecting, names...)
		est.SelectConfigs += configs
		est.Select += float64(configs) * (estimatePipelineSeconds + estimateTuneBudgets*mb)
	}
	return est
}

// anatomySeconds estimates the latency anatomy of c: per round, the
// empty and tiny calls and the dispatch curve's points, four calls each,
// and each transfer size both ways (four calls each below 1 MiB, one
// from there), each call a round trip and its bytes at estimateRate.
func anatomySeconds(c latency.Config) float64 {
	rounds := c.Rounds
	if rounds == 0 {
		rounds = 10
	}
	maxBytes := c.MaxBytes
	if maxBytes == 0 {
		maxBytes = compute.DefaultLatencyMaxBytes
	}
	calls := float64(4 * (2 + len(compute.DefaultLatencyDispatches)))
	var bytes float64
	for _, s := range compute.LatencySizes(maxBytes) {
		k := 4.0
		if s >= 1<<20 {
			k = 1
		}
		calls += 2 * k
		bytes += 2 * k * float64(s)
	}
	return float64(rounds) * (calls*estimateCallSeconds + bytes/estimateRate)
}
