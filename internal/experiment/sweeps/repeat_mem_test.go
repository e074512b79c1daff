package sweeps

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/testmem"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
)

// TestRepeatedPhasesMemoryFlat runs the ceilings (with the staircase) and
// a workgroup sweep twice in one process, inside a 512 MiB memory budget:
// each phase hands its arrays back before the next (the resident set
// after a pass is far below what the ceilings' arrays alone took), and
// the second pass does not grow the resident set by more than a quarter
// of the budget (less than one of the ceilings' arrays).
func TestRepeatedPhasesMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the ceilings twice")
	}
	if _, ok := testmem.RSS(); !ok {
		t.Skip("no VmRSS on this OS")
	}
	const budget = 512 << 20
	m := machine.Current()
	m.MaxMemory = budget
	defer machine.Set(m)()
	e := openEnv(t)
	var cfg experiment.RunConfig
	for _, p := range workload.Params() {
		if p.Kind == experiment.IntParam {
			*p.Int(&cfg.Config) = p.QuickDefault()
		}
	}
	cfg.QuickStaircase = true
	cfg.Defaults()
	rss := func() int64 {
		env.FreeMemory()
		b, _ := testmem.RSS()
		return b
	}
	start := rss()
	var after []int64
	for pass := 0; pass < 2; pass++ {
		rep := e.NewReport("test")
		if _, err := ceilings.Ceilings(e, cfg, rep); err != nil {
			t.Fatal(err)
		}
		afterCeilings := rss()
		if err := Sweep(e, workload.CosineSingle.Name, cfg, []int{64, 128}, nil, rep); err != nil {
			t.Fatal(err)
		}
		after = append(after, rss())
		held := float64(rep.Ceilings.CPU["bytes"]) * 3
		t.Logf("pass %d: resident %s at start, %s after the ceilings (their arrays: %s), %s after the sweep",
			pass+1, machine.IEC(float64(start)), machine.IEC(float64(afterCeilings)), machine.IEC(held), machine.IEC(float64(after[pass])))
		if grew := afterCeilings - start; float64(grew) > held/2+64<<20 {
			t.Errorf("pass %d: %s more resident after the ceilings than before: their %s of arrays were not handed back",
				pass+1, machine.IEC(float64(grew)), machine.IEC(held))
		}
	}
	// A phase that kept its arrays would add at least one of them (a
	// third of the budget) per pass; the driver's and the allocator's own
	// caches settle within a quarter of it.
	if grew := after[1] - after[0]; grew > budget/4 {
		t.Errorf("the second pass grew the resident set by %s (first pass ended at %s, second at %s)",
			machine.IEC(float64(grew)), machine.IEC(float64(after[0])), machine.IEC(float64(after[1])))
	}
}
