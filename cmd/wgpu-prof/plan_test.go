package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/plan"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// writeProfile writes a CPU profile in the pprof format with stacks
// main.main → main.similarity (60 samples), main.main → main.spread
// (25, 5 of them through main.similarity too) and main.main → main.other
// (15), 10 ms each.
func writeProfile(t *testing.T, path string) {
	t.Helper()
	fn := map[string]*profile.Function{}
	loc := map[string]*profile.Location{}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	for i, name := range []string{"main.main", "main.similarity", "main.spread", "main.other"} {
		f := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "main.go"}
		fn[name] = f
		loc[name] = &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: f, Line: int64(10 * (i + 1))}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, loc[name])
	}
	add := func(n int64, stack ...string) {
		var ls []*profile.Location
		for i := len(stack) - 1; i >= 0; i-- {
			ls = append(ls, loc[stack[i]])
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: []int64{n, n * 10_000_000}})
	}
	add(60, "main.main", "main.similarity")
	add(20, "main.main", "main.spread")
	add(5, "main.main", "main.similarity", "main.spread")
	add(15, "main.main", "main.other")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// planReport is a report whose end-to-end CPU-vs-GPU models cross at
// n = 50,000 (measured between 40,000 and 50,000) for both workloads.
func planReport(t *testing.T, dir string) string {
	rep := syntheticReport(t, 1, nil)
	line := func(a, b float64) *timing.Model {
		f := timing.LinearFit{Overhead: a, PerItem: b}
		return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 22, Fit: f}}, Single: f}
	}
	for _, w := range []string{"cosine-single", "spread-uniform"} {
		s := []float64{1e-3, 1.1e-3, 0.9e-3}
		rep.BreakEvens = append(rep.BreakEvens, report.BreakEven{Workload: w, Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
			Batches: []int{1000, 40000, 50000}, CPU: []timing.Summary{timing.Summarize(s), timing.Summarize(s), timing.Summarize(s)},
			GPU:    []timing.Summary{timing.Summarize(s), timing.Summarize(s), timing.Summarize(s)},
			ModelA: line(1e-6, 1e-9), ModelB: line(40e-6, 1e-10),
			Search: &timing.SearchResult{Found: true, Status: timing.SearchLocated, Lo: 40000, Hi: 50000, Before: timing.FasterA,
				Points: []timing.SearchPoint{{N: 40000, Faster: timing.FasterA}, {N: 50000, Faster: timing.FasterB}}}})
	}
	return writeReport(t, dir, "be.json", rep)
}

func TestPlanCommand(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "app.pprof")
	writeProfile(t, prof)
	mix := filepath.Join(dir, "mix.txt")
	// 9,346 calls during the profile: the application's own time per call
	// (250 ms / 9,346) equals the tool's CPU kernel's on this mix.
	os.WriteFile(mix, []byte("1000 7009\n100000 2337\n"), 0o644)
	be := planReport(t, dir)
	out := filepath.Join(dir, "out")
	stdout, stderr, err := runCmd("plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single`, "--op", `main\.spread$=spread-uniform@`+mix,
		"--n", "1048576", "--report", be, "--format", "json", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var pl report.Plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	want := map[string]float64{"cosine-single": 0.65, "spread-uniform": 0.25}
	var sum, over float64
	for _, op := range pl.Ops {
		if math.Abs(op.Share-want[op.Workload]) > 1e-12 {
			t.Errorf("%s: share %v, want %v (each sample once)", op.Workload, op.Share, want[op.Workload])
		}
		if op.Ported {
			sum += op.Share
			over += op.Share / op.Speedup
		}
	}
	// similarity: no call count, against the tool's CPU kernel at the
	// measured crossover; spread: its own code known only at its mean
	// (no size labels, no benchmark), compared there: the GPU's mean over
	// the mix (40 µs + 0.1 ns·n) loses to it, and the best is the GPU
	// from the measured 50,000 with the host SIMD kernel below.
	own := 0.25 / 9346
	tool := (7009*(1e-6+1000e-9) + 2337*(1e-6+100000e-9)) / 9346
	gpu := (7009*(40e-6+1000e-10) + 2337*(40e-6+100000e-10)) / 9346
	routed := (7009*(1e-6+1000e-9) + 2337*(40e-6+100000e-10)) / 9346
	if len(pl.Ops) != 2 || pl.Ops[0].Verdict != "port" || pl.Ops[1].Verdict != "do not port" ||
		!strings.HasPrefix(pl.Ops[1].Reason, "GPU slower at the mean of this mix") {
		t.Fatalf("verdicts: %+v", pl.Ops)
	}
	spread := pl.Ops[1]
	if spread.Calls != 9346 || spread.CallsFrom != "mix file" || math.Abs(spread.OwnPerCall/own-1) > 1e-12 || math.Abs(spread.ToolCPU.Value/tool-1) > 1e-12 ||
		math.Abs(spread.GPU.Value/gpu-1) > 1e-12 {
		t.Errorf("spread: %d calls (%s), own %v tool %v GPU %v per call; want 9346, %v, %v, %v", spread.Calls, spread.CallsFrom,
			spread.OwnPerCall, spread.ToolCPU.Value, spread.GPU.Value, own, tool, gpu)
	}
	if spread.OwnBasis != report.OwnMean || len(spread.OwnPerSize) != 0 || spread.Route == nil || spread.Route.CPU != nil ||
		spread.Route.OwnBasis != report.OwnMean || spread.Route.Crossover != -1 || len(spread.Comparisons) != 3 {
		t.Errorf("spread: own basis %q per size %v, route %+v, %d comparisons", spread.OwnBasis, spread.OwnPerSize, spread.Route, len(spread.Comparisons))
	}
	if spread.Choice != "route by size" || spread.Warning != "" || math.Abs(spread.ChoiceSpeedup/(own/routed)-1) > 1e-9 ||
		!strings.Contains(spread.ChoiceReason, "the GPU from n = 50000, the host SIMD kernel below") {
		t.Errorf("spread: choice %q ×%v (%s), warning %q; want route by size ×%v", spread.Choice, spread.ChoiceSpeedup, spread.ChoiceReason, spread.Warning, own/routed)
	}
	for _, op := range pl.Ops {
		for name, e := range map[string]report.Estimate{"launch": op.Launch, "transfer": op.Transfer, "gpu": op.GPU, "tool cpu": op.ToolCPU} {
			if !(e.Value > 0) || !(e.Lo <= e.Value && e.Value <= e.Hi) {
				t.Errorf("%s: %s per call %+v: want a positive value inside its CI", op.Workload, name, e)
			}
		}
		if op.BoundedBy == "" || op.Reason == "" || op.ChoiceReason == "" {
			t.Errorf("%s: bounded by %q, reason %q, choice reason %q", op.Workload, op.BoundedBy, op.Reason, op.ChoiceReason)
		}
	}
	if s := pl.Summary; s == nil || s.NumberPorted != 1 || math.Abs(s.FractionPorted-0.65) > 1e-12 || math.Abs(s.TimeBefore-1.0) > 1e-12 ||
		math.Abs(s.TimeAfter-1/pl.AppSpeedup) > 1e-12 || !(s.AppSpeedup.Lo <= s.AppSpeedup.Value && s.AppSpeedup.Value <= s.AppSpeedup.Hi) ||
		!strings.HasPrefix(s.TopPorted, `main\.similarity$`) || !strings.HasPrefix(s.TopNotPorted, `main\.spread$`) ||
		!strings.Contains(s.BestPlan, `main\.spread$: route by size`) {
		t.Errorf("summary: %+v", pl.Summary)
	}
	if app := 1 / ((1 - sum) + over); math.Abs(pl.AppSpeedup/app-1) > 1e-9 {
		t.Errorf("app_speedup %v, want %v", pl.AppSpeedup, app)
	}
	for _, f := range []string{"plan.json", "plan.txt", "report.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(html), "Plan: which operations to port") {
		t.Error("report.html has no plan section")
	}
	checkTableNumbers(t, string(html), filepath.Join(out, "report.json"))
	text, _, err := runCmd("plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single`, "--n", "1048576", "--report", be, "--no-taxes")
	if err != nil || !strings.HasPrefix(text, `main\.similarity$ (cosine-single = 65.0%): port:`) {
		t.Errorf("text: %v\n%s", err, text)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--op", "x=cosine-single"}, "--pprof is required"},
		{[]string{"plan", "--pprof", prof}, "--op is required"},
		{[]string{"plan", "--pprof", prof, "--op", "main.x"}, "--op"},
		{[]string{"plan", "--pprof", prof, "--op", "(=cosine-single"}, "--op"},
		{[]string{"plan", "--pprof", prof, "--op", "x=nosuch"}, "nosuch"},
		{[]string{"plan", "--pprof", mix, "--op", "x=cosine-single"}, "--pprof " + mix + ": not a pprof profile"},
		{[]string{"plan", "--pprof", prof, "--op", "x=cosine-single@" + prof}, "--batch-mix " + prof},
		{[]string{"plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single`, "--op", `main\.nosuch$=cosine-single`}, "matches no function of " + prof + "; its top functions (cumulative CPU): main.similarity (65.0%), main.spread (25.0%), main.other (15.0%)"},
		{[]string{"plan", "--pprof", prof, "--op", "main=cosine-single,calls=0"}, "calls=0"},
		{[]string{"plan", "--pprof", prof, "--op", "main=cosine-single,colour=red"}, "unknown option"},
		{[]string{"plan", "--pprof", prof, "--op", "main=cosine-single", "--transfer", "sometimes"}, "--transfer"},
		{[]string{"plan", "--pprof", prof, "--op", "main=cosine-single", "--min-speedup", "0"}, "--min-speedup"},
	} {
		_, _, err := runCmd(c.args...)
		if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, msg, c.want)
		}
	}
}

// plan --suggest maps the profile's top functions by their names; an
// --op carries its own calls and data files.
func TestPlanSuggestAndOpOptions(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "app.pprof")
	writeProfile(t, prof)
	out, _, err := runCmd("plan", "--pprof", prof, "--suggest")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`--op 'main\.similarity$=cosine-single'`, `--op 'main\.spread$=spread-uniform'`, "65.0%  main.similarity"} {
		if !strings.Contains(out, want) {
			t.Errorf("--suggest: no %q in\n%s", want, out)
		}
	}
	op, err := plan.ParseOp(`main\.x=y$=cosine-single,calls=40,vectors=v.npy,queries=q.fvecs`)
	if err != nil || op.Regex.String() != `main\.x=y$` || op.Calls != 40 || op.Files["vectors"] != "v.npy" || op.Files["queries"] != "q.fvecs" {
		t.Errorf("op with options: %+v %v", op, err)
	}
	// Its own vectors are read for this operation alone (and checked:
	// a missing file is an input error naming the parameter).
	_, _, err = runCmd("plan", "--pprof", prof, "--op", `main\.similarity$=cosine-single,vectors=`+filepath.Join(dir, "none.npy"), "--no-taxes")
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, "--vectors") {
		t.Errorf("missing per-op vectors: exit %d %q", code, msg)
	}
}
