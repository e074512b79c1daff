package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// plan's estimate counts the GPU taxes, the ceilings, the variant
// selection (every design at every workgroup size; under --quick the
// default size only, and fewer ceiling runs) and each search at its
// budget, and says them in its line; with --report holding the anatomy
// and the ceilings it counts neither.
func TestEstimatePlan(t *testing.T) {
	e := &env.Env{}
	e.Measure.Budget = 250 * time.Millisecond
	ops := []Op{{Workload: "cosine-single"}, {Workload: "cosine-single"}}
	cfgs := make([]experiment.RunConfig, 2)
	for i := range cfgs {
		cfgs[i].Workloads = []string{"cosine-single"}
		cfgs[i].Defaults()
	}
	full := EstimatePlan(e, nil, ops, cfgs, []int{0, 1}, 20*time.Second, true, false)
	for i := range cfgs {
		cfgs[i].QuickVariants = true
	}
	quick := EstimatePlan(e, nil, ops, cfgs, []int{0, 1}, 20*time.Second, true, true)
	if full.SelectConfigs != 12 || quick.SelectConfigs != 3 || len(quick.Selecting) != 1 {
		t.Errorf("configurations: full %d, quick %d (%q); want 3 designs × 4 sizes, × 1 size, the workload once", full.SelectConfigs, quick.SelectConfigs, quick.Selecting)
	}
	if !(quick.Roof < full.Roof) || !(quick.Taxes < full.Taxes) || quick.Taxes <= 0 {
		t.Errorf("quick ceilings %.1f s, taxes %.1f s; full %.1f s, %.1f s", quick.Roof, quick.Taxes, full.Roof, full.Taxes)
	}
	if want := 2 * (20 + 2*crossover.MaxRemeasured*0.25); quick.Searches != 2 || quick.Search != want {
		t.Errorf("searches %d, %.1f s; want 2, %.1f s", quick.Searches, quick.Search, want)
	}
	if got := quick.Total(); got != quick.Taxes+quick.Roof+quick.Select+quick.Search {
		t.Errorf("total %.1f s is not the sum of its parts", got)
	}
	line := quick.Line()
	for _, want := range []string{"plan: about ", "GPU variant selection for cosine-single", "3 configurations, none cached; --quick", "2 break-even search(es)"} {
		if !strings.Contains(line, want) {
			t.Errorf("no %q in %q", want, line)
		}
	}
	rep := &report.Report{Latency: nil}
	rep.Ceilings.GPU = map[string]float64{"read_gbs": 10, "fma_gflops": 100}
	if est := EstimatePlan(e, rep, ops, cfgs, nil, 20*time.Second, true, true); est.Roof != 0 || est.Search != 0 {
		t.Errorf("ceilings in --report, nothing to search: %+v", est)
	}
	if line := (Estimate{}).Line(); !strings.Contains(line, "nothing to measure") {
		t.Errorf("empty estimate: %q", line)
	}
}
