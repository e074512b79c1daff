package plan

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// stack is one sample of a synthesized CPU profile: its functions,
// outermost first, its CPU time (ms) and its labels.
type stack struct {
	funcs  []string
	ms     float64
	labels map[string][]string
}

// writeCPUProfile writes a CPU profile in the pprof format whose samples
// are stacks, each sampled every 10 ms.
func writeCPUProfile(t *testing.T, path string, stacks ...stack) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	loc := map[string]*profile.Location{}
	for _, s := range stacks {
		var ls []*profile.Location
		for i := len(s.funcs) - 1; i >= 0; i-- {
			name := s.funcs[i]
			if loc[name] == nil {
				id := uint64(len(loc) + 1)
				f := &profile.Function{ID: id, Name: name, SystemName: name, Filename: "main.go"}
				loc[name] = &profile.Location{ID: id, Address: 0x1000 * id, Line: []profile.Line{{Function: f, Line: int64(id)}}}
				p.Function = append(p.Function, f)
				p.Location = append(p.Location, loc[name])
			}
			ls = append(ls, loc[name])
		}
		n := max(1, int64(math.Round(s.ms/10)))
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: []int64{n, int64(math.Round(s.ms * 1e6))}, Label: s.labels})
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// validatePlan is handPlan with its operations named as a service names
// its functions, and its profile before the port (100 ms of CPU time:
// similarity 83.2 ms, spread 10 ms, candidates 3 ms, the rest 3.8 ms).
func validatePlan(t *testing.T, dir string) (report.Plan, Input, string) {
	in := handPlan(TransferOnce)
	for i, re := range []string{`main\.sim$`, `main\.spread$`, `main\.cand$`} {
		in.Ops[i].Regex = regexp.MustCompile(re)
	}
	before := filepath.Join(dir, "before.pprof")
	writeCPUProfile(t, before,
		stack{funcs: []string{"main.main", "main.sim"}, ms: 83.2},
		stack{funcs: []string{"main.main", "main.spread"}, ms: 10},
		stack{funcs: []string{"main.main", "main.cand"}, ms: 3},
		stack{funcs: []string{"main.main", "main.other"}, ms: 3.8})
	return Decide(in), in, before
}

func portedOf(t *testing.T, in Input, values ...string) ([]PortedOp, string) {
	t.Helper()
	specs, err := ParsePorted(values)
	if err != nil {
		t.Fatal(err)
	}
	shares := []ProfileShare{{Functions: []string{"main.sim"}}, {Functions: []string{"main.spread"}}, {Functions: []string{"main.cand"}}}
	p, err := AssignPorted(specs, in.Ops, shares)
	if err != nil {
		t.Fatal(err)
	}
	return p, strings.Join(values, ",")
}

func opNamed(v *report.PlanValidation, name string) report.ValidatedTime {
	for _, o := range v.Ops {
		if o.Name == name {
			return o
		}
	}
	return report.ValidatedTime{}
}

// A host-SIMD port of one operation of three: each is validated on CPU
// time from its own samples after the port, the ported one against its
// calls × the host SIMD kernel's time per call, the other two (not
// ported) against their samples before, near 0%; so is the application.
// The SIMD kernel is called in place of the function the --op named: the
// --ported expression names both.
func TestValidateHostPortOwnSamples(t *testing.T) {
	dir := t.TempDir()
	pl, in, before := validatePlan(t, dir)
	after := filepath.Join(dir, "after.pprof")
	// 1,000 calls × 41.6 µs = 41.6 ms predicted; 40 ms measured.
	writeCPUProfile(t, after,
		stack{funcs: []string{"main.main", "hostsimd.CosineSingle"}, ms: 40},
		stack{funcs: []string{"main.main", "main.spread"}, ms: 10.2},
		stack{funcs: []string{"main.main", "main.cand"}, ms: 2.9},
		stack{funcs: []string{"main.main", "main.other"}, ms: 3.8})
	ported, text := portedOf(t, in, `main\.sim$|hostsimd\.Cosine=simd`)
	v, err := Validate(pl, ValidateInput{Before: before, After: after, Ops: in.Ops, Ported: ported, PortedText: text, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	sim, spr, cand := opNamed(v, `main\.sim$`), opNamed(v, `main\.spread$`), opNamed(v, `main\.cand$`)
	near("simd predicted", sim.Predicted, 1000*41.6e-6)
	near("simd measured", sim.Measured, 0.04)
	near("spread predicted", spr.Predicted, 0.01)
	near("spread measured", spr.Measured, 0.0102)
	near("candidates measured", cand.Measured, 0.0029)
	for _, o := range []report.ValidatedTime{sim, spr, cand} {
		if o.Basis != report.BasisCPU || o.Flagged || math.Abs(o.Error) > 0.30 {
			t.Errorf("%s (%s): basis %q, error %+.1f%%, flagged %v: want CPU against CPU within 30%%", o.Name, o.Ported, o.Basis, 100*o.Error, o.Flagged)
		}
	}
	if spr.Ported != PortedKeep || math.Abs(spr.Error) > 0.05 || math.Abs(cand.Error) > 0.05 {
		t.Errorf("unported: %s %+.1f%%, %+.1f%%: want keep near 0%%", spr.Ported, 100*spr.Error, 100*cand.Error)
	}
	if v.App == nil || v.App.Basis != report.BasisCPU {
		t.Fatalf("application not validated on CPU time: %+v (%s)", v.App, v.AppNote)
	}
	near("application predicted", v.App.Predicted, 0.1-(0.0832-0.0416))
	near("application measured", v.App.Measured, 0.0569)
	lines := ValidationLines(v)
	for _, l := range lines[1:4] {
		if !strings.Contains(l, "CPU time vs CPU time") {
			t.Errorf("line names no basis: %q", l)
		}
	}

	// Named by its --op expression alone, the port has no sample after.
	ported, text = portedOf(t, in, "simd")
	v, err = Validate(pl, ValidateInput{Before: before, After: after, Ops: in.Ops, Ported: ported, PortedText: text})
	if err != nil {
		t.Fatal(err)
	}
	if o := opNamed(v, `main\.sim$`); o.Basis != "" || !strings.Contains(o.NotValidated, "no sample of the after profile matches") {
		t.Errorf("simd port not found after: %+v", o)
	}
	if o := opNamed(v, `main\.spread$`); o.Ported != PortedSIMD || o.Basis != report.BasisCPU {
		t.Errorf("a bare --ported simd applies to every operation: %+v", o)
	}
}

// An operation ported to the GPU is not validated from CPU profiles:
// without benchmarks it says so, with no number, and so does the
// application; with them, its wall time after against its wall time
// before × the plan's GPU time per call over the own code's.
func TestValidateGPUPortWallTime(t *testing.T) {
	dir := t.TempDir()
	pl, in, before := validatePlan(t, dir)
	after := filepath.Join(dir, "after.pprof")
	writeCPUProfile(t, after,
		stack{funcs: []string{"main.main", "main.sim"}, ms: 5},
		stack{funcs: []string{"main.main", "main.spread"}, ms: 10},
		stack{funcs: []string{"main.main", "main.cand"}, ms: 3},
		stack{funcs: []string{"main.main", "main.other"}, ms: 3.8})
	ported, text := portedOf(t, in, `main\.sim$=gpu`)
	base := ValidateInput{Before: before, After: after, Ops: in.Ops, Ported: ported, PortedText: text}
	v, err := Validate(pl, base)
	if err != nil {
		t.Fatal(err)
	}
	sim := opNamed(v, `main\.sim$`)
	if sim.Basis != "" || sim.Predicted != 0 || sim.Measured != 0 || !strings.Contains(sim.NotValidated, "--wall-before") {
		t.Errorf("GPU port without benchmarks: %+v", sim)
	}
	if v.App != nil || !strings.Contains(v.AppNote, `main\.sim$ ran on the GPU`) {
		t.Errorf("application validated without the GPU's time: %+v %q", v.App, v.AppNote)
	}
	if o := opNamed(v, `main\.spread$`); o.Ported != PortedKeep || o.Basis != report.BasisCPU || math.Abs(o.Error) > 1e-9 {
		t.Errorf("unnamed operation: %+v, want keep at 0%%", o)
	}

	wb, wa := filepath.Join(dir, "wb.txt"), filepath.Join(dir, "wa.txt")
	os.WriteFile(wb, []byte("goos: linux\nBenchmarkSimReplay-8   10   100000000 ns/op\nBenchmarkSimReplay-8   10   101000000 ns/op\nBenchmarkSimReplay-8   10   99000000 ns/op\n"), 0o644)
	os.WriteFile(wa, []byte("BenchmarkSimReplay-8   10   50000000 ns/op\n"), 0o644)
	in2 := base
	in2.WallBefore, in2.WallAfter = wb, wa
	v, err = Validate(pl, in2)
	if err != nil {
		t.Fatal(err)
	}
	sim = opNamed(v, `main\.sim$`)
	gpu := (600*41.1e-6 + 400*51e-6) / 1000
	if want := 0.1 * gpu / 83.2e-6; sim.Basis != report.BasisWall || math.Abs(sim.Predicted-want) > 1e-12 || sim.Measured != 0.05 || sim.Flagged {
		t.Errorf("GPU port on wall time: %+v, want predicted %v", sim, want)
	}
	if l := ValidationLines(v)[1]; !strings.Contains(l, "wall vs wall") || !strings.Contains(l, "BenchmarkSimReplay") {
		t.Errorf("line %q", l)
	}
}

// A routed port whose route did the opposite of the plan (every call on
// the own code where the plan sends the calls from n = 20,527 to the
// GPU) is flagged: with the route's calls per side in the benchmark,
// compared with the plan's prediction for what it did; without them, as
// nearer the plan's prediction for another choice than for its route.
func TestValidateRoutedOpposite(t *testing.T) {
	dir := t.TempDir()
	pl, in, before := validatePlan(t, dir)
	after := filepath.Join(dir, "after.pprof")
	writeCPUProfile(t, after, stack{funcs: []string{"main.main", "main.sim"}, ms: 83}, stack{funcs: []string{"main.main", "main.other"}, ms: 16.8})
	ported, text := portedOf(t, in, `main\.sim$=routed@SimReplay`)
	wb, wa := filepath.Join(dir, "wb.txt"), filepath.Join(dir, "wa.txt")
	os.WriteFile(wb, []byte("BenchmarkSimReplay 1 100000000 ns/op 1000 calls/op 0 gpu-calls/op\nBenchmarkOther 1 5 ns/op\n"), 0o644)
	os.WriteFile(wa, []byte("BenchmarkSimReplay 1 100000000 ns/op 1000 calls/op 0 gpu-calls/op\nBenchmarkOther 1 5 ns/op\n"), 0o644)
	in2 := ValidateInput{Before: before, After: after, Ops: in.Ops, Ported: ported, PortedText: text, WallBefore: wb, WallAfter: wa}
	v, err := Validate(pl, in2)
	if err != nil {
		t.Fatal(err)
	}
	sim := opNamed(v, `main\.sim$`)
	if !sim.Flagged || sim.Predicted != 0.1 || sim.Error != 0 || !strings.Contains(sim.Note, "the GPU answered 0% of its calls where the plan sends it 40%") {
		t.Errorf("opposite route, calls per side known: %+v", sim)
	}
	if l := ValidationLines(v)[1]; !strings.Contains(l, "FLAGGED") {
		t.Errorf("line %q", l)
	}

	os.WriteFile(wb, []byte("BenchmarkSimReplay 1 100000000 ns/op\n"), 0o644)
	os.WriteFile(wa, []byte("BenchmarkSimReplay 1 95000000 ns/op\n"), 0o644)
	ported, text = portedOf(t, in, `main\.sim$=routed`)
	in2.Ported, in2.PortedText = ported, text
	if v, err = Validate(pl, in2); err != nil {
		t.Fatal(err)
	}
	sim = opNamed(v, `main\.sim$`)
	if !sim.Flagged || !strings.Contains(sim.Note, "nearer the plan's prediction for every call on your code") {
		t.Errorf("opposite route, calls per side unknown: %+v", sim)
	}
	// Followed: 0.1 × 22.8/83.2 predicted, 28 ms measured.
	os.WriteFile(wa, []byte("BenchmarkSimReplay 1 28000000 ns/op\n"), 0o644)
	if v, err = Validate(pl, in2); err != nil {
		t.Fatal(err)
	}
	if sim = opNamed(v, `main\.sim$`); sim.Flagged || math.Abs(sim.Predicted-0.1*22.8/83.2) > 1e-12 {
		t.Errorf("route followed: %+v", sim)
	}
}

// --ported values: per operation or one for all, comma-separated where a
// comma inside an expression stays in it; a bad mode names the value and
// the modes; an entry naming no operation, or two, is refused.
func TestParsePorted(t *testing.T) {
	specs, err := ParsePorted([]string{`main\.a{1,2}$=simd,main\.spread$=gpu@Replay`, "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 || specs[0].Pattern.String() != `main\.a{1,2}$` || specs[0].Mode != PortedSIMD ||
		specs[1].Bench != "BenchmarkReplay" || specs[2].Pattern != nil || specs[2].Mode != PortedKeep {
		t.Fatalf("specs %+v", specs)
	}
	for _, bad := range [][]string{{"fast"}, {`main\.sim$=fastest`}, {"gpu", "simd"}, {"=simd"}, {"keep@X"}} {
		_, err := ParsePorted(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "ported") {
			t.Errorf("%q: %v names no flag", bad, err)
		}
	}
	_, err = ParsePorted([]string{"fast"})
	if msg := err.Error(); !strings.Contains(msg, `"fast"`) || !strings.Contains(msg, "keep, simd, gpu or routed") {
		t.Errorf("bad mode: %v", err)
	}
	in := handPlan(TransferOnce)
	shares := []ProfileShare{{Functions: []string{"main.sim"}}, {Functions: []string{"main.spread"}}, {Functions: []string{"main.cand"}}}
	for _, bad := range []string{`main\.=gpu`, `nothing=gpu`, `sim=gpu,main\.sim=simd`} {
		specs, err := ParsePorted([]string{bad})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := AssignPorted(specs, in.Ops, shares); err == nil {
			t.Errorf("%q assigned", bad)
		}
	}
}
