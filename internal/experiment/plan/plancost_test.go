package plan

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A plan priced by hand. CPU kernel 1 µs + 1 ns·n, GPU end-to-end 41 µs
// + 0.1 ns·n, GPU kernel 5 µs + 0.05 ns·n; a profile of 0.1 s of CPU.
//   - similarity (cosine-single): 83.2 ms over 1,000 calls, 600 at
//     n = 1,000 and 400 at n = 100,000, its samples labelled with their
//     size: 2.4 ms at n = 1,000 (4 µs a call) and 80.8 ms at 100,000
//     (202 µs), twice the tool's kernel at each; own 83.2 µs per call,
//     twice the tool's 41.6 µs; the GPU beats own code (2 µs + 2 ns·n
//     between the two sizes) from n = 20,527: routed 22.8 µs per call,
//     83.2/22.8 = 3.649×. Best: the GPU from the measured 50,000 and the
//     host SIMD kernel below, 21.6 µs (600·2 µs + 400·51 µs).
//   - spread (spread-uniform): 10 ms over 10 calls at n = 1,000: own
//     1 ms per call against the tool's 2 µs (a likely wrong mapping);
//     every call on the GPU, 1 ms/41.1 µs.
//   - candidates (hnsw): 3% of CPU: not worth porting.
func handPlan(transfer string) Input {
	line := func(a, b float64) *timing.Model {
		f := timing.LinearFit{Overhead: a, PerItem: b}
		return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 20, Fit: f}}, Single: f}
	}
	be := func(w string) report.BreakEven {
		return report.BreakEven{Workload: w, Clock: "end-to-end", Sides: []string{"cpu", "gpu"}, ModelA: line(1e-6, 1e-9), ModelB: line(41e-6, 1e-10),
			Search: &timing.SearchResult{Found: true, Status: timing.SearchLocated, Lo: 40000, Hi: 50000, Before: timing.FasterA}}
	}
	kernel := report.BreakEven{Workload: "cosine-single", Clock: "kernel", ModelA: line(1e-6, 1e-9), ModelB: line(5e-6, 0.5e-10)}
	re := regexp.MustCompile
	return Input{
		Ops: []Op{
			{Regex: re(`sim`), Workload: "cosine-single", Mix: &crossover.BatchMix{File: "sizes.txt", Sizes: []int{1000, 100000}, Counts: []int64{600, 400}}},
			{Regex: re(`spread`), Workload: "spread-uniform", Calls: 10},
			{Regex: re(`cand`), Workload: "hnsw", Calls: 50},
		},
		Shares: []ProfileShare{{Value: 83_200_000, Samples: 832, BySize: map[int]SizeTime{1000: {2_400_000, 24}, 100000: {80_800_000, 808}}},
			{Value: 10_000_000, Samples: 1}, {Value: 3_000_000}},
		SizeLabel:  "size",
		Total:      100_000_000,
		Unit:       "cpu/nanoseconds",
		BreakEvens: []report.BreakEven{be("cosine-single"), be("spread-uniform"), be("hnsw")},
		Kernels:    []*report.BreakEven{&kernel, nil, nil},
		Sizes:      [][]int{nil, {1000}, {1000}},
		IO:         []CallIO{{Resident: [2]float64{0, 3072}, Up: [2]float64{3072, 0}, Down: [2]float64{0, 4}}},
		Rows: []report.Measurement{
			{Workload: "cosine-single", Side: report.SideGPU, Params: []report.Param{{Key: "n", Value: "1024"}}, Bound: "memory", CeilingFrac: 0.43},
			{Workload: "cosine-single", Side: report.SideGPU, Params: []report.Param{{Key: "n", Value: "131072"}}, Bound: "compute", CeilingFrac: 0.9},
		},
		Taxes: &GPUTaxes{Launch: report.Estimate{Value: 30e-6, Lo: 28e-6, Hi: 33e-6}, Upload: report.Estimate{Value: 1e9, Lo: 0.9e9, Hi: 1.1e9},
			Readback: report.Estimate{Value: 2e9, Lo: 1.8e9, Hi: 2.2e9}, Source: "hand"},
		Transfer: transfer,
	}
}

func TestPlanCostsByHand(t *testing.T) {
	pl := Decide(handPlan(TransferOnce))
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	by := map[string]report.PlanOp{}
	for _, op := range pl.Ops {
		by[op.Workload] = op
	}
	sim, spr, cand := by["cosine-single"], by["spread-uniform"], by["hnsw"]
	near("similarity own per call", sim.OwnPerCall, 83.2e-6)
	near("similarity own at n = 1,000", sim.OwnPerSize[0], 4e-6)
	near("similarity own at n = 100,000", sim.OwnPerSize[1], 202e-6)
	near("similarity tool CPU", sim.ToolCPU.Value, 41.6e-6)
	near("similarity GPU (every call)", sim.GPU.Value, (600*41.1e-6+400*51e-6)/1000)
	near("similarity GPU kernel", sim.Kernel.Value, 5e-6+0.5e-10*40600)
	near("similarity launch tax", sim.Launch.Value, 30e-6)
	near("similarity transfer tax", sim.Transfer.Value, 3072/1e9+4*40600/2e9)
	near("similarity routed per call", sim.Predicted, 22.8e-6)
	near("similarity speedup", sim.Speedup, 83.2/22.8)
	near("similarity Amdahl", sim.AppSpeedup, 1/((1-0.832)+0.832/(83.2/22.8)))
	near("similarity SIMD speedup", sim.SpeedupSIMD.Value, 2)
	if sim.Verdict != "port above n = 20527" || sim.Choice != "route by size" || sim.BoundedBy != "transfer tax" || sim.Warning != "" {
		t.Errorf("similarity: %q / %q / bounded by %q / warning %q", sim.Verdict, sim.Choice, sim.BoundedBy, sim.Warning)
	}
	if sim.Calls != 1000 || sim.CallsFrom != "mix file" || sim.Route == nil || sim.Route.Crossover != 20527 || sim.Route.Sides[0] != "own" ||
		sim.OwnBasis != report.OwnLabels || sim.Route.OwnBasis != report.OwnLabels || sim.Route.CPU == nil {
		t.Errorf("similarity: calls %d (%s), route %+v", sim.Calls, sim.CallsFrom, sim.Route)
	}
	if !strings.Contains(sim.Reason, "transfer tax") {
		t.Errorf("similarity: reason %q names no dominant cost", sim.Reason)
	}
	for name, e := range map[string]report.Estimate{"launch": sim.Launch, "transfer": sim.Transfer, "tool": sim.ToolCPU, "gpu": sim.GPU, "kernel": sim.Kernel} {
		if !(e.Lo <= e.Value && e.Value <= e.Hi) {
			t.Errorf("similarity %s: %+v: value outside its CI", name, e)
		}
	}
	if !(sim.Transfer.Lo < sim.Transfer.Value && sim.Transfer.Value < sim.Transfer.Hi) {
		t.Errorf("similarity transfer tax %+v: uncertain rates, want a CI around it", sim.Transfer)
	}
	near("spread own per call", spr.OwnPerCall, 1e-3)
	near("spread speedup", spr.Speedup, 1e-3/41.1e-6)
	if spr.Verdict != "port" || spr.Choice != "use the host SIMD kernel" || !strings.Contains(spr.Warning, "likely wrong mapping") || spr.CallsFrom != "--calls" {
		t.Errorf("spread: %q / %q / warning %q / calls from %q", spr.Verdict, spr.Choice, spr.Warning, spr.CallsFrom)
	}
	if cand.Ported || !strings.HasPrefix(cand.Reason, "share below 5%") || cand.AppSpeedup <= 1 && cand.Speedup > 1 && cand.AppSpeedup != amdahl(0.03, cand.Speedup) {
		t.Errorf("candidates: %q %q", cand.Verdict, cand.Reason)
	}
	// The summary.
	s := pl.Summary
	over := 0.832/(83.2/22.8) + 0.1/(1e-3/41.1e-6)
	app := 1 / ((1 - 0.932) + over)
	near("app speedup", pl.AppSpeedup, app)
	near("summary app speedup", s.AppSpeedup.Value, app)
	near("time before", s.TimeBefore, 0.1)
	near("time after", s.TimeAfter, 0.1/app)
	near("fraction ported", s.FractionPorted, 0.932)
	near("ported code speedup", s.PortedSpeedup, 0.932/over)
	// Best choices: similarity routed between the GPU and the host SIMD
	// kernel (21.6/83.2 of its time), spread on the SIMD kernel
	// (2 µs/1 ms), candidates kept.
	near("best-choice speedup", s.BestSpeedup, 1/((1-0.962)+0.832*21.6/83.2+0.1*2e-6/1e-3+0.03))
	near("similarity choice speedup", sim.ChoiceSpeedup, 83.2/21.6)
	if !strings.HasPrefix(s.BestPlan, "sim: route by size (3.85× on its calls against your code") {
		t.Errorf("best plan %q", s.BestPlan)
	}
	if s.NumberPorted != 2 || !strings.HasPrefix(s.TopPorted, "sim (cosine-single, 83.2%): port above n = 20527") ||
		!strings.HasPrefix(s.TopNotPorted, "cand (hnsw, 3.0%): do not port: share below 5%") || s.AppSpeedup.Lo > app || s.AppSpeedup.Hi < app {
		t.Errorf("summary: %+v", s)
	}
	if pl.Ops[0].Workload != "cosine-single" || pl.Ops[2].Workload != "hnsw" {
		t.Errorf("order: %s, %s, %s", pl.Ops[0].Workload, pl.Ops[1].Workload, pl.Ops[2].Workload)
	}
}

// With the data shipped on every call, the resident vectors' upload
// (n·d·4 bytes at the upload rate) joins the GPU's time per call.
func TestPlanTransferPerCall(t *testing.T) {
	pl := Decide(handPlan(TransferPerCall))
	for _, op := range pl.Ops {
		if op.Workload != "cosine-single" {
			continue
		}
		want := (600*41.1e-6+400*51e-6)/1000 + 3072*40600/1e9
		if math.Abs(op.GPU.Value/want-1) > 1e-9 || op.TransferMode != "per-call" {
			t.Errorf("GPU per call %v, want %v", op.GPU.Value, want)
		}
		if want := 3072/1e9 + 3072*40600/1e9 + 4*40600/2e9; math.Abs(op.Transfer.Value/want-1) > 1e-9 {
			t.Errorf("transfer tax %v, want %v", op.Transfer.Value, want)
		}
		if op.Ported || op.Choice != "use the host SIMD kernel" {
			t.Errorf("shipping 125 MB a call: %q, best %q", op.Verdict, op.Choice)
		}
	}
}

// --min-speedup keeps an operation whose gain is below it.
func TestPlanMinSpeedup(t *testing.T) {
	in := handPlan(TransferOnce)
	in.MinSpeedup = 4
	for _, op := range Decide(in).Ops {
		if op.Workload == "cosine-single" && (op.Ported || !strings.Contains(op.Reason, "below --min-speedup 4.00×")) {
			t.Errorf("3.7× with --min-speedup 4: %q: %s", op.Verdict, op.Reason)
		}
	}
}

// Without a call count the GPU is routed at the measured crossover; with
// the data shipped every call, a mix the search keeps on the CPU stays
// there (no call to the GPU), and one it routes pays the upload.
func TestPlanTransferPerCallWithoutCalls(t *testing.T) {
	in := handPlan(TransferPerCall)
	in.Ops = in.Ops[:1]
	in.Ops[0].Mix = &crossover.BatchMix{Sizes: []int{1000, 100000}, Counts: []int64{600, 400}}
	op := Decide(in).Ops[0]
	if op.CallsFrom != "" || op.Mix.ShareAbove != 0.4 || op.Mix.Crossover != 50000 {
		t.Errorf("routed %v of calls from %v (%s), want 0.4 from the measured 50000", op.Mix.ShareAbove, op.Mix.Crossover, op.Mix.Route)
	}
	in.BreakEvens[0].Search.Points = []timing.SearchPoint{{N: 1, Faster: timing.FasterA}}
	in.BreakEvens[0].Search.Found = false
	if op := Decide(in).Ops[0]; op.Mix.ShareAbove != 0 || op.Ported {
		t.Errorf("GPU never faster: %v of calls routed, %q", op.Mix.ShareAbove, op.Verdict)
	}
}
