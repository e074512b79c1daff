package plan

import (
	"math"
	"regexp"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A search that found a change of the faster side but could not tell the
// sides apart around it routes no call to the GPU, not those of n ≥ hi:
// no size is known to be faster there.
func TestMixOfIndistinguishableRoutesNothing(t *testing.T) {
	be := syntheticBE("cosine-single")
	be.Search = &timing.SearchResult{Found: true, Status: timing.SearchIndistinguishable, Lo: 40000, Hi: 50000, Before: timing.FasterA,
		Points: []timing.SearchPoint{{N: 40000, Faster: timing.FasterA}, {N: 50000, Faster: timing.Tie}}}
	mix := crossover.BatchMix{File: "m", Sizes: []int{1000, 50000, 1 << 20}, Counts: []int64{1, 2, 3}}
	r := crossover.MixOf(be, mix)
	if r.ShareAbove != 0 || r.Speedup != 1 || r.Crossover != 0 {
		t.Errorf("indistinguishable change: %.0f%% of calls routed to the GPU at n ≥ %v, speedup %v; want none, 1×", 100*r.ShareAbove, r.Crossover, r.Speedup)
	}
	// The same search, located, routes the calls from hi.
	be.Search.Status = timing.SearchLocated
	if r := crossover.MixOf(be, mix); r.ShareAbove != 5.0/6 || r.Crossover != 50000 {
		t.Errorf("located change: share above %v crossover %v, want 5/6 from 50000", r.ShareAbove, r.Crossover)
	}
}

// Each operation's Amdahl figure by hand: share s, speedup k on its calls,
// 1/((1 − s) + s/k); the plan-wide figure over the ported ones.
func TestPlanPerOperationAmdahl(t *testing.T) {
	re := regexp.MustCompile("x")
	// Every call at 2^20, past the crossover: k = (1e-6 + n·1e-9)/(40e-6 + n·1e-10).
	n := float64(1 << 20)
	k := (1e-6 + n*1e-9) / (40e-6 + n*1e-10)
	in := Input{Ops: []Op{{Regex: re, Workload: "cosine-single"}, {Regex: re, Workload: "hnsw"}},
		Shares:     []ProfileShare{{Value: 60}, {Value: 20}},
		Total:      100,
		BreakEvens: []report.BreakEven{syntheticBE("cosine-single"), syntheticBE("hnsw")},
		Sizes:      [][]int{{1 << 20}, {1 << 20}}}
	pl := Decide(in)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for _, op := range pl.Ops {
		s := map[string]float64{"cosine-single": 0.6, "hnsw": 0.2}[op.Workload]
		want := 1 / ((1 - s) + s/k)
		if !near(op.Speedup, k) || !near(op.AppSpeedup, want) {
			t.Errorf("%s: share %v speedup %v app %v; want speedup %v, app 1/((1 − %v) + %v/%v) = %v", op.Workload, op.Share, op.Speedup, op.AppSpeedup, k, s, s, k, want)
		}
		if !near(op.Return, s*(1-1/k)) {
			t.Errorf("%s: return %v, want %v", op.Workload, op.Return, s*(1-1/k))
		}
	}
	if want := 1 / ((1 - 0.8) + 0.8/k); !near(pl.AppSpeedup, want) || !near(pl.PortedShare, 0.8) {
		t.Errorf("plan: app %v ported share %v, want %v and 0.8", pl.AppSpeedup, pl.PortedShare, want)
	}
}
