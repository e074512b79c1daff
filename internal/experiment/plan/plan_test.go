package plan

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// appSource is an independent program: main.similarity and main.spread
// burn CPU in proportions of about 5:3 beside main.other, and the program
// writes its own CPU profile with runtime/pprof.
const appSource = `package main

import (
	"math"
	"os"
	"runtime/pprof"
	"time"
)

var sink float64

//go:noinline
func similarity(v, q []float32) {
	for r := 0; r+len(q) <= len(v); r += len(q) {
		var d float64
		for k, x := range q {
			d += float64(x * v[r+k])
		}
		sink += d
	}
}

//go:noinline
func spread(a []float64) {
	for i := range a {
		a[i] = math.Sqrt(a[i]*0.5 + 1)
	}
	sink += a[0]
}

//go:noinline
func other(n int) {
	x := 1.0
	for i := 0; i < n; i++ {
		x = x*1.0000001 + 1e-9
	}
	sink += x
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	v, q, a := make([]float32, 768*512), make([]float32, 768), make([]float64, 100000)
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		for i := 0; i < 6; i++ {
			similarity(v, q)
		}
		for i := 0; i < 3; i++ {
			spread(a)
		}
		other(200000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
`

// profileApp builds and runs appSource and returns the binary and its
// CPU profile.
func profileApp(t *testing.T) (bin, prof string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a program for its profile")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(appSource), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module app\n\ngo 1.22\n"), 0o644)
	bin, prof = filepath.Join(dir, "app"), filepath.Join(dir, "app.pprof")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, prof).CombinedOutput(); err != nil {
		t.Fatalf("app: %v\n%s", err, out)
	}
	return bin, prof
}

// pprofCum returns the cum% column of go tool pprof -top -cum for each
// function named.
func pprofCum(t *testing.T, bin, prof string, funcs ...string) map[string]float64 {
	t.Helper()
	out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=1000", bin, prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	got := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		for _, fn := range funcs {
			if f[5] == fn {
				v, err := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
				if err == nil {
					got[fn] = v / 100
				}
			}
		}
	}
	for _, fn := range funcs {
		if _, ok := got[fn]; !ok {
			t.Fatalf("go tool pprof lists no %s:\n%s", fn, out)
		}
	}
	return got
}

// synthetic break-even: CPU 1 µs + 1 ns·n, GPU 40 µs + 0.1 ns·n, measured
// crossover between 40,000 and 50,000.
func syntheticBE(name string) report.BreakEven {
	line := func(a, b float64) *timing.Model {
		f := timing.LinearFit{Overhead: a, PerItem: b}
		return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 22, Fit: f}}, Single: f}
	}
	return report.BreakEven{Workload: name, Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		ModelA: line(1e-6, 1e-9), ModelB: line(40e-6, 1e-10),
		Search: &timing.SearchResult{Found: true, Lo: 40000, Hi: 50000, Before: timing.FasterA,
			Points: []timing.SearchPoint{{N: 40000, Faster: timing.FasterA}, {N: 50000, Faster: timing.FasterB}}}}
}

func TestPlanOnAnIndependentProfile(t *testing.T) {
	bin, prof := profileApp(t)
	want := pprofCum(t, bin, prof, "main.similarity", "main.spread")
	sim, spr := regexp.MustCompile(`main\.similarity$`), regexp.MustCompile(`main\.spread$`)
	shares, total, unit, err := ProfileShares(prof, []*regexp.Regexp{sim, spr})
	if err != nil {
		t.Fatal(err)
	}
	if unit != "cpu/nanoseconds" || total <= 0 {
		t.Fatalf("unit %q total %d", unit, total)
	}
	for i, fn := range []string{"main.similarity", "main.spread"} {
		got := float64(shares[i].Value) / float64(total)
		if math.Abs(got-want[fn]) > 0.02 {
			t.Errorf("%s: share %.4f, go tool pprof -top -cum %.4f", fn, got, want[fn])
		}
		if shares[i].Samples <= 0 || len(shares[i].Functions) != 1 || shares[i].Functions[0] != fn {
			t.Errorf("%s: %+v", fn, shares[i])
		}
	}
	// similarity's calls are all past the crossover, spread's straddle it,
	// a third op matches nothing that takes time.
	ops := []Op{{Regex: sim, Workload: "cosine-single"}, {Regex: spr, Workload: "spread-uniform",
		Mix: &crossover.BatchMix{File: "m", Sizes: []int{1000, 100000}, Counts: []int64{1, 1}}}}
	in := Input{Profile: prof, Ops: ops, Shares: shares, Total: total,
		BreakEvens: []report.BreakEven{syntheticBE("cosine-single"), syntheticBE("spread-uniform")},
		Sizes:      [][]int{{1 << 20}, nil}}
	pl := Decide(in)
	var sum, sumOver float64
	for _, op := range pl.Ops {
		if !op.Ported {
			t.Errorf("%s: %s (%s), want ported", op.Workload, op.Verdict, op.Reason)
			continue
		}
		sum += op.Share
		sumOver += op.Share / op.Speedup
	}
	if wantApp := 1 / ((1 - sum) + sumOver); math.Abs(pl.AppSpeedup/wantApp-1) > 0.01 {
		t.Errorf("app speedup %v, Amdahl over the ported ops %v", pl.AppSpeedup, wantApp)
	}
	// cosine-single: every call at 2^20 on the GPU: 1/(1e-6+2^20e-9) over
	// 1/(40e-6+2^20·1e-10).
	for _, op := range pl.Ops {
		switch op.Workload {
		case "cosine-single":
			n := float64(1 << 20)
			if s := (1e-6 + n*1e-9) / (40e-6 + n*1e-10); math.Abs(op.Speedup/s-1) > 1e-9 || op.Verdict != "port" {
				t.Errorf("cosine-single: speedup %v (want %v), verdict %q", op.Speedup, s, op.Verdict)
			}
		case "spread-uniform":
			if op.Verdict != "port above n = 50000" {
				t.Errorf("spread-uniform: verdict %q", op.Verdict)
			}
		}
	}
	if pl.Ops[0].Return < pl.Ops[1].Return {
		t.Errorf("not ranked by return: %v then %v", pl.Ops[0].Return, pl.Ops[1].Return)
	}
}

func TestPlanVerdicts(t *testing.T) {
	re := regexp.MustCompile("x")
	never := syntheticBE("cosine-single")
	never.Search = &timing.SearchResult{Points: []timing.SearchPoint{{N: 1, Faster: timing.FasterA}, {N: 100, Faster: timing.FasterA}}}
	in := Input{Ops: []Op{{Regex: re, Workload: "cosine-single"}, {Regex: re, Workload: "cosine-topk"}, {Regex: re, Workload: "hnsw"}},
		Shares:     []ProfileShare{{Value: 50}, {Value: 3}, {Value: 30}},
		Total:      100,
		BreakEvens: []report.BreakEven{never, syntheticBE("cosine-topk"), syntheticBE("hnsw")},
		Sizes:      [][]int{{1 << 20}, {1 << 20}, {100}}}
	pl := Decide(in)
	got := map[string]string{}
	for _, op := range pl.Ops {
		got[op.Workload] = op.Verdict + ": " + op.Reason
	}
	for w, want := range map[string]string{
		"cosine-single": "do not port: GPU never faster on this adapter",
		"cosine-topk":   "do not port: share below 5%: not worth the work",
		"hnsw":          "do not port: GPU faster only from n = 50000, above every call of this mix",
	} {
		if !strings.HasPrefix(got[w], want) {
			t.Errorf("%s: %q, want %q", w, got[w], want)
		}
	}
	if pl.AppSpeedup != 1 || pl.PortedShare != 0 {
		t.Errorf("nothing ported: app %v, share %v", pl.AppSpeedup, pl.PortedShare)
	}
	if _, err := ParseOp("main.x=nosuch"); err == nil {
		t.Error("unknown workload accepted")
	}
	if op, err := ParseOp(`a=b\.c$=cosine-single`); err != nil || op.Regex.String() != `a=b\.c$` {
		t.Errorf("regex with '=': %v %v", op, err)
	}
}
