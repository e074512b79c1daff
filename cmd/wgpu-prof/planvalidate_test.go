package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// writeStacks writes a CPU profile whose samples are stacks (functions,
// outermost first) of n samples of 10 ms each.
func writeStacks(t *testing.T, path string, stacks map[string]int64) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	loc := map[string]*profile.Location{}
	for st, n := range stacks {
		funcs := strings.Split(st, " ")
		var ls []*profile.Location
		for i := len(funcs) - 1; i >= 0; i-- {
			name := funcs[i]
			if loc[name] == nil {
				id := uint64(len(loc) + 1)
				f := &profile.Function{ID: id, Name: name, SystemName: name, Filename: "main.go"}
				loc[name] = &profile.Location{ID: id, Address: 0x1000 * id, Line: []profile.Line{{Function: f, Line: int64(id)}}}
				p.Function = append(p.Function, f)
				p.Location = append(p.Location, loc[name])
			}
			ls = append(ls, loc[name])
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: []int64{n, n * 10_000_000}})
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

// validateSetup writes a three-operation service's profile before the
// port (1 s of CPU: similarity 0.6 s over the mix's 9,346 calls, spread
// 0.25 s, the other 0.15 s) and the plan's models (planReport), and
// returns the plan's arguments.
func validateSetup(t *testing.T, dir string) []string {
	before := filepath.Join(dir, "before.pprof")
	writeStacks(t, before, map[string]int64{"main.main main.similarity": 60, "main.main main.spread": 25, "main.main main.other": 15})
	mix := filepath.Join(dir, "mix.txt")
	os.WriteFile(mix, []byte("1000 7009\n100000 2337\n"), 0o644)
	return []string{"plan", "--pprof", before, "--op", `main\.similarity$=cosine-single@` + mix,
		"--op", `main\.spread$=spread-uniform,calls=400`, "--op", `main\.other$=spread-uniform,calls=100`,
		"--n", "1048576", "--report", planReport(t, dir), "--no-taxes"}
}

// The similarity ported to the host SIMD kernel, the two others not:
// --ported simd for it validates it on CPU time against its calls × the
// kernel's time per call (the mix's 9,346 calls at 26.8 µs: 0.25 s
// predicted, 0.24 s measured), the unported ones each from its own
// samples near 0%, the application on CPU time too; every line names its
// basis and keeps to 120 columns.
func TestPlanValidateSIMDPort(t *testing.T) {
	dir := t.TempDir()
	args := validateSetup(t, dir)
	after := filepath.Join(dir, "after.pprof")
	writeStacks(t, after, map[string]int64{"main.main main.similarity hostsimd.CosineSingle": 24, "main.main main.spread": 25, "main.main main.other": 15})
	stdout, stderr, err := runCmd(append(args, "--validate", after, "--ported", `main\.similarity$=simd`, "--format", "json")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var pl report.Plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	v := pl.Validation
	if v == nil || len(v.Ops) != 3 || v.App == nil {
		t.Fatalf("validation %+v", v)
	}
	tool := (7009*(1e-6+1000e-9) + 2337*(1e-6+100000e-9)) / 9346
	for _, o := range v.Ops {
		if o.Basis != report.BasisCPU {
			t.Errorf("%s: basis %q, want CPU against CPU", o.Name, o.Basis)
		}
		switch o.Name {
		case `main\.similarity$`:
			if o.Ported != "simd" || math.Abs(o.Predicted-9346*tool) > 1e-9 || math.Abs(o.Measured-0.24) > 1e-9 || o.Flagged || math.Abs(o.Error) > 0.30 {
				t.Errorf("SIMD port: %+v", o)
			}
		default:
			if o.Ported != "keep" || math.Abs(o.Error) > 1e-9 {
				t.Errorf("unported %s: %+v, want 0%% from its own samples", o.Name, o)
			}
		}
	}
	if math.Abs(v.App.Measured-0.64) > 1e-9 || math.Abs(v.App.Predicted-(1-0.6+9346*tool)) > 1e-9 {
		t.Errorf("application %+v", v.App)
	}

	text, _, err := runCmd(append(args, "--validate", after, "--ported", `main\.similarity$=simd`)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "--validate "+after+": 3 of 3 operation(s) validated, 0 flagged;") {
		t.Errorf("first line of\n%s", text)
	}
	for _, want := range []string{`main\.similarity$ (simd): CPU time vs CPU time: predicted 250 ms, measured 240 ms: error +4.2%`,
		`main\.spread$ (keep): CPU time vs CPU time: predicted 250 ms, measured 250 ms: error +0.0%`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	checkWidths(t, "plan --validate", text)
}

// --ported gpu for one of three operations: the other two validate from
// their own samples, the ported one says why it cannot be validated from
// CPU profiles (no number); with benchmarks it is compared wall with
// wall.
func TestPlanValidateOneOfThreeOnGPU(t *testing.T) {
	dir := t.TempDir()
	args := validateSetup(t, dir)
	after := filepath.Join(dir, "after.pprof")
	writeStacks(t, after, map[string]int64{"main.main main.similarity": 2, "main.main main.spread": 26, "main.main main.other": 15})
	stdout, _, err := runCmd(append(args, "--validate", after, "--ported", `main\.similarity$=gpu`, "--format", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	var pl report.Plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatal(err)
	}
	v := pl.Validation
	for _, o := range v.Ops {
		switch o.Name {
		case `main\.similarity$`:
			if o.Basis != "" || o.Measured != 0 || !strings.Contains(o.NotValidated, "in no CPU profile") {
				t.Errorf("GPU port from CPU profiles: %+v", o)
			}
		case `main\.spread$`:
			if o.Basis != report.BasisCPU || math.Abs(o.Error-(0.25-0.26)/0.26) > 1e-9 {
				t.Errorf("spread: %+v", o)
			}
		default:
			if o.Basis != report.BasisCPU || math.Abs(o.Error) > 1e-9 {
				t.Errorf("other: %+v", o)
			}
		}
	}
	if v.App != nil || v.AppNote == "" {
		t.Errorf("application validated from CPU profiles with an operation on the GPU: %+v", v.App)
	}
	wb, wa := filepath.Join(dir, "wb.txt"), filepath.Join(dir, "wa.txt")
	os.WriteFile(wb, []byte("BenchmarkReplay-2 5 600000000 ns/op\n"), 0o644)
	os.WriteFile(wa, []byte("BenchmarkReplay-2 5 400000000 ns/op\n"), 0o644)
	text, _, err := runCmd(append(args, "--validate", after, "--ported", `main\.similarity$=gpu`, "--wall-before", wb, "--wall-after", wa)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `main\.similarity$ (gpu): wall vs wall: predicted`) || !strings.Contains(text, "BenchmarkReplay") {
		t.Errorf("wall vs wall:\n%s", text)
	}
}

// Bad --ported values exit 2 naming the value and the modes; --ported
// without --validate, and --validate without --ported, are refused.
func TestPlanValidateBadPorted(t *testing.T) {
	dir := t.TempDir()
	args := validateSetup(t, dir)
	after := filepath.Join(dir, "after.pprof")
	writeStacks(t, after, map[string]int64{"main.main main.similarity": 60})
	for _, c := range []struct {
		extra []string
		want  []string
	}{
		{[]string{"--validate", after, "--ported", "fast"}, []string{`"fast"`, "keep, simd, gpu or routed"}},
		{[]string{"--validate", after, "--ported", `main\.similarity$=fastest`}, []string{`"fastest"`, "keep, simd, gpu or routed"}},
		{[]string{"--validate", after, "--ported", `main\.nothing$=gpu`}, []string{`nothing`, "names no --op"}},
		{[]string{"--validate", after}, []string{"--validate needs --ported", "keep, simd, gpu, routed"}},
		{[]string{"--ported", "simd"}, []string{"--ported is for --validate"}},
		{[]string{"--validate", after, "--ported", "gpu", "--wall-before", "x.txt"}, []string{"--wall-before and --wall-after go together"}},
	} {
		_, _, err := runCmd(append(args, c.extra...)...)
		if err == nil || exitCodeOf(err) != 2 {
			t.Errorf("%q: %v (exit %d), want exit 2", c.extra, err, exitCodeOf(err))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v: no %q", c.extra, err, w)
			}
		}
	}
}
