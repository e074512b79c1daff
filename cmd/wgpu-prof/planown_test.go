package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// writeLabelledProfile writes a CPU profile whose main.similarity samples
// carry the label key with their call's size: 0.3 s at n = 1,000, 0.6 s
// at n = 100,000; main.other takes 0.1 s.
func writeLabelledProfile(t *testing.T, path, key string) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	loc := map[string]*profile.Location{}
	for i, name := range []string{"main.main", "main.similarity", "main.other"} {
		f := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "main.go"}
		loc[name] = &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: f, Line: int64(10 * (i + 1))}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, loc[name])
	}
	add := func(n int64, fn string, labels map[string][]string) {
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc[fn], loc["main.main"]},
			Value: []int64{n, n * 10_000_000}, Label: labels})
	}
	if key != "" {
		add(30, "main.similarity", map[string][]string{key: {"1000"}})
		add(60, "main.similarity", map[string][]string{key: {"100000"}})
	} else {
		add(90, "main.similarity", nil)
	}
	add(10, "main.other", nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// plan reads the own code per size from the profile's size labels
// (--size-label) or from a Go benchmark (bench=FILE), says which in
// own_basis, and its text keeps to 120 columns.
func TestPlanOwnPerSize(t *testing.T) {
	dir := t.TempDir()
	be := planReport(t, dir)
	mix := filepath.Join(dir, "mix.txt")
	os.WriteFile(mix, []byte("1000 3000\n100000 600\n"), 0o644)
	bench := filepath.Join(dir, "bench.txt")
	os.WriteFile(bench, []byte("goos: linux\nBenchmarkSimilarity/n=1000-8  1000  100000 ns/op\nBenchmarkSimilarity/n=100000-8  10  1000000 ns/op\nPASS\n"), 0o644)
	labelled, custom, plain := filepath.Join(dir, "l.pprof"), filepath.Join(dir, "q.pprof"), filepath.Join(dir, "p.pprof")
	writeLabelledProfile(t, labelled, "size")
	writeLabelledProfile(t, custom, "q")
	writeLabelledProfile(t, plain, "")
	op := `main\.similarity$=cosine-single@` + mix
	for _, c := range []struct {
		name  string
		args  []string
		basis string
		own   []float64
	}{
		// 0.3 s over 3,000 calls, 0.6 s over 600.
		{"labels", []string{"--pprof", labelled, "--op", op}, report.OwnLabels, []float64{100e-6, 1e-3}},
		{"custom label", []string{"--pprof", custom, "--op", op, "--size-label", "q"}, report.OwnLabels, []float64{100e-6, 1e-3}},
		// The benchmark's 100 µs and 1 ms, its mean over the mix being
		// the profile's 250 µs.
		{"benchmarks", []string{"--pprof", plain, "--op", op + ",bench=" + bench}, report.OwnBenchmarks, []float64{100e-6, 1e-3}},
		{"mean", []string{"--pprof", plain, "--op", op}, report.OwnMean, nil},
	} {
		args := append([]string{"plan", "--report", be, "--no-taxes", "--format", "json"}, c.args...)
		stdout, stderr, err := runCmd(args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr)
		}
		var pl report.Plan
		if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		po := pl.Ops[0]
		if po.OwnBasis != c.basis || len(po.OwnPerSize) != len(c.own) || len(po.Comparisons) != 3 {
			t.Errorf("%s: own basis %q per size %v, %d comparisons; want %q %v", c.name, po.OwnBasis, po.OwnPerSize, len(po.Comparisons), c.basis, c.own)
			continue
		}
		for i, want := range c.own {
			if got := po.OwnPerSize[i]; got < want*(1-1e-9) || got > want*(1+1e-9) {
				t.Errorf("%s: own at n = %d %v, want %v", c.name, po.Sizes[i], got, want)
			}
		}
		text, _, err := runCmd(append([]string{"plan", "--report", be, "--no-taxes"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "\nbest plan: application ") || !strings.Contains(text, "the GPU vs your code") {
			t.Errorf("%s: text names no best plan or baseline:\n%s", c.name, text)
		}
		for i, l := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("%s: line %d is %d columns: %s", c.name, i+1, n, l)
			}
		}
	}
	_, _, err := runCmd("plan", "--pprof", plain, "--report", be, "--no-taxes", "--op", op+",bench="+mix)
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, "bench="+mix) || !strings.Contains(msg, "names a size") {
		t.Errorf("a bench file with no sized benchmark: exit %d %q", code, msg)
	}
}
