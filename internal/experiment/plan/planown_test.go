package plan

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// lineModel is a model of one linear segment a + b·n over 1 … 2^22.
func lineModel(a, b float64) *timing.Model {
	f := timing.LinearFit{Overhead: a, PerItem: b}
	return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 22, Fit: f}}, Single: f}
}

var labelSink float64

// labelWork does work proportional to n (a fixed number of dependent
// multiply-adds per unit).
//
//go:noinline
func labelWork(n int) {
	x := 1.0
	for i := 0; i < n*40_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	labelSink += x
}

// A Go service labels each call with its size (pprof.Do); its profile
// gives its own CPU time per size, within 30% of the calls timed
// directly per size (wider where the samples are too few for 30%: 2.5
// standard errors of their count), compared as ratios between the sizes
// (a busy host moves every size's wall time alike) and each alone. The
// profile runs until it holds about 1.6 s of the work's CPU time (2 s on
// an idle core, at most 6 s); with too few samples the test is skipped.
func TestOwnPerSizeFromLabels(t *testing.T) {
	sizes := []int{1, 16}
	reps := map[int]int{1: 16, 16: 1} // calls per size per round: the same work at each size
	var unit []float64
	for range 21 {
		t0 := time.Now()
		labelWork(1)
		unit = append(unit, time.Since(t0).Seconds())
	}
	sort.Float64s(unit)
	dir := t.TempDir()
	path := filepath.Join(dir, "labelled.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		t.Skipf("no CPU profile in this process: %v", err)
	}
	counts := map[int]int64{}
	timed := map[int][]float64{}
	ctx := context.Background()
	work := 0.0
	for start := time.Now(); work < 1.6 && time.Since(start) < 6*time.Second; {
		for _, n := range sizes {
			for range reps[n] {
				pprof.Do(ctx, pprof.Labels(DefaultSizeLabel, strconv.Itoa(n)), func(context.Context) {
					t0 := time.Now()
					labelWork(n)
					timed[n] = append(timed[n], time.Since(t0).Seconds())
				})
				counts[n]++
				work += float64(n) * unit[len(unit)/2]
			}
		}
	}
	pprof.StopCPUProfile()
	f.Close()

	re := regexp.MustCompile(`plan\.labelWork$`)
	shares, total, unit2, err := ProfileSharesBy(path, []*regexp.Regexp{re}, DefaultSizeLabel)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		if k := shares[0].BySize[n].Samples; k < 40 || unit2 != "cpu/nanoseconds" {
			t.Skipf("too few labelled samples for a per-size comparison (%d at n = %d, unit %s): the host gave the test little CPU", k, n, unit2)
		}
	}
	mix := &crossover.BatchMix{File: "sizes.txt", Sizes: sizes}
	for _, n := range sizes {
		mix.Counts = append(mix.Counts, counts[n])
	}
	in := Input{Ops: []Op{{Regex: re, Workload: "cosine-single", Mix: mix}}, Shares: shares, Total: total, Unit: unit2,
		BreakEvens: []report.BreakEven{syntheticBE("cosine-single")}, Sizes: [][]int{nil}, SizeLabel: DefaultSizeLabel}
	op := Decide(in).Ops[0]
	if op.OwnBasis != report.OwnLabels || len(op.OwnPerSize) != len(sizes) || len(op.OwnSamples) != len(sizes) {
		t.Fatalf("own basis %q, per size %v, samples %v (note %q); want labels at %v", op.OwnBasis, op.OwnPerSize, op.OwnSamples, op.OwnNote, sizes)
	}
	median := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	direct := make([]float64, len(sizes))
	for i, n := range sizes {
		direct[i] = median(timed[n])
	}
	t.Logf("own per size %v from the labels (samples %v), timed medians %v", op.OwnPerSize, op.OwnSamples, direct)
	limit := func(se float64) float64 { return math.Max(0.3, 2.5*se) }
	k0 := float64(op.OwnSamples[0])
	for i := 1; i < len(sizes); i++ {
		got, want := op.OwnPerSize[i]/op.OwnPerSize[0], direct[i]/direct[0]
		if lim := limit(math.Sqrt(1/k0 + 1/float64(op.OwnSamples[i]))); math.Abs(got/want-1) > lim {
			t.Errorf("n = %d over n = %d: %.2f from the labels, %.2f timed directly (more than %.0f%% apart)", sizes[i], sizes[0], got, want, 100*lim)
		}
	}
	for i := range sizes {
		if lim := limit(1 / math.Sqrt(float64(op.OwnSamples[i]))); math.Abs(op.OwnPerSize[i]/direct[i]-1) > lim {
			t.Errorf("n = %d: %v s from the labels, %v s timed directly (more than %.0f%% apart)", sizes[i], op.OwnPerSize[i], direct[i], 100*lim)
		}
	}
}

// A Go benchmark of the own code per size: read with benchfmt (the
// size from /q=N, medians of the runs, the unsized benchmark left out),
// interpolated between its sizes, scaled to the profile's mean per call.
// A service whose scorer is linear with no fixed part (11.9 ms at
// q = 1, 742 ms at q = 64), the GPU flat near 40 ms: the GPU from q = 4,
// the own code below; the tool's host SIMD kernel (0.5 ms + 2 ms·q)
// beats both below q = 20.
func TestOwnPerSizeFromBenchmarks(t *testing.T) {
	b, err := ReadBench(filepath.Join("testdata", "score-bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "BenchmarkScore" || len(b.Sizes) != 4 || b.Sizes[3] != 64 || b.PerCall[0] != 11.9e-3 || b.PerCall[3] != 742e-3 || b.Runs[0] != 3 || !(b.RelSE[0] > 0) {
		t.Fatalf("bench %+v", b)
	}
	for _, c := range []struct{ file, want string }{
		{"two-bench.txt", "holds 2 benchmarks with sizes (BenchmarkRank, BenchmarkScore)"},
		{"no-size-bench.txt", "names a size"},
		{"none.txt", "no such file"},
	} {
		if _, err := ReadBench(filepath.Join("testdata", c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.file, err, c.want)
		}
	}
	op, err := ParseOp(`main\.score$=cosine-single,bench=` + filepath.Join("testdata", "score-bench.txt"))
	if err != nil || op.Bench == nil || op.Bench.Name != "BenchmarkScore" {
		t.Fatalf("ParseOp bench=: %+v, %v", op, err)
	}
	mix := &crossover.BatchMix{File: "sizes.txt", Sizes: []int{1, 2, 4, 16, 64}, Counts: []int64{1000, 500, 300, 150, 50}}
	op.Mix = mix
	benchAt := []float64{11.9e-3, 11.9e-3 + (47.7e-3-11.9e-3)/3, 47.7e-3, 190e-3, 742e-3}
	var sum float64
	for i, c := range mix.Counts {
		sum += float64(c) * benchAt[i]
	}
	const k = 1.1 // the profile's mean is 10% above the benchmarks'
	be := report.BreakEven{Workload: "cosine-single", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		ModelA: lineModel(0.5e-3, 2e-3), ModelB: lineModel(40e-3, 0),
		Search: &timing.SearchResult{Found: true, Status: timing.SearchLocated, Lo: 16, Hi: 20, Before: timing.FasterA,
			Points: []timing.SearchPoint{{N: 16, Faster: timing.FasterA}, {N: 20, Faster: timing.FasterB}}}}
	value := int64(math.Round(k * sum * 1e9))
	in := Input{Ops: []Op{op}, Shares: []ProfileShare{{Value: value, Samples: 5000}}, Total: value * 2, Unit: "cpu/nanoseconds",
		BreakEvens: []report.BreakEven{be}, Sizes: [][]int{nil}, SizeLabel: DefaultSizeLabel}
	pl := Decide(in)
	po := pl.Ops[0]
	if po.OwnBasis != report.OwnBenchmarks || len(po.OwnPerSize) != 5 || !strings.Contains(po.OwnNote, "scaled ×1.10") {
		t.Fatalf("own basis %q per size %v note %q", po.OwnBasis, po.OwnPerSize, po.OwnNote)
	}
	for i, want := range benchAt {
		if got := po.OwnPerSize[i]; math.Abs(got/(k*want)-1) > 1e-6 {
			t.Errorf("n = %d: own %v, want %v", mix.Sizes[i], got, k*want)
		}
	}
	if po.Verdict != "port above n = 4" || po.Route == nil || po.Route.Crossover != 4 || po.Route.OwnBasis != report.OwnBenchmarks || po.Route.CPU == nil {
		t.Errorf("verdict %q (%s), route %+v", po.Verdict, po.Reason, po.Route)
	}
	if !strings.Contains(po.Reason, "your code (per size, from Go benchmarks)") {
		t.Errorf("reason %q names no baseline", po.Reason)
	}
	got := map[string]report.PlanComparison{}
	for _, pc := range po.Comparisons {
		got[pc.Candidate+" vs "+pc.Baseline] = pc
	}
	for key, want := range map[string]struct {
		cross float64
		text  string
	}{
		"gpu vs own code":       {4, "the GPU vs your code: crossover n = 4, the GPU from there (25% of calls), your code below"},
		"host simd vs own code": {0, "the host SIMD kernel vs your code: the host SIMD kernel faster at every size of the mix"},
		"gpu vs host simd":      {20, "the GPU vs the host SIMD kernel: crossover n = 20, the GPU from there"},
	} {
		pc, ok := got[key]
		if !ok || pc.Crossover != want.cross || !strings.HasPrefix(pc.Verdict, want.text) || pc.At != "per size" {
			t.Errorf("%s: %+v; want crossover %v, %q", key, pc, want.cross, want.text)
		}
	}
	// The best against the own code: the GPU from 20, the host SIMD
	// kernel below.
	routed := 0.0
	for i, n := range mix.Sizes {
		c := 0.5e-3 + 2e-3*float64(n)
		if n >= 20 {
			c = 40e-3
		}
		routed += float64(mix.Counts[i]) * c
	}
	if sp := k * sum / routed; po.Choice != "route by size" || math.Abs(po.ChoiceSpeedup/sp-1) > 1e-9 || po.ChoiceBaseline != "own code" ||
		math.Abs(po.ChoiceAppSpeedup-amdahl(0.5, sp)) > 1e-9 || !strings.Contains(po.ChoiceReason, "the GPU from n = 20, the host SIMD kernel below") {
		t.Errorf("choice %q ×%v (app ×%v) against %q: %s; want route by size ×%v", po.Choice, po.ChoiceSpeedup, po.ChoiceAppSpeedup, po.ChoiceBaseline, po.ChoiceReason, sp)
	}
	// The program summary, the first line after the operations' blocks,
	// leads with the best plan.
	lines, lead := Lines(pl), ""
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, " ") {
			lead = l
			break
		}
	}
	if !strings.HasPrefix(lead, `best plan: application 1.78×: main\.score$: route by size (8.05× on its calls against your code`) {
		t.Errorf("the summary does not lead with the best plan:\n%s", strings.Join(lines, "\n"))
	}
}

// Without labels or a benchmark the own code is known at its mean only:
// no curve, every comparison with it at the mean, all calls or none.
func TestOwnAtTheMeanOnly(t *testing.T) {
	mix := &crossover.BatchMix{File: "sizes.txt", Sizes: []int{1, 64}, Counts: []int64{900, 100}}
	be := syntheticBE("cosine-single")
	be.ModelA, be.ModelB = lineModel(0.5e-3, 2e-3), lineModel(40e-3, 0)
	// Own 12 ms·q: mean (900·12 + 100·768)/1000 = 87.6 ms; the GPU's
	// mean 40 ms beats it at the mean: every call, though it loses at
	// q = 1 (which the plan cannot know).
	in := Input{Ops: []Op{{Regex: regexp.MustCompile("score"), Workload: "cosine-single", Mix: mix}},
		Shares: []ProfileShare{{Value: 87_600_000_000, Samples: 8760}}, Total: 100_000_000_000, Unit: "cpu/nanoseconds",
		BreakEvens: []report.BreakEven{be}, Sizes: [][]int{nil}, SizeLabel: DefaultSizeLabel}
	po := Decide(in).Ops[0]
	if po.OwnBasis != report.OwnMean || len(po.OwnPerSize) != 0 || !strings.Contains(po.OwnNote, "known only at its mean") ||
		!strings.Contains(po.OwnNote, `no sample of it carries a pprof label "size"`) {
		t.Fatalf("own basis %q per size %v note %q", po.OwnBasis, po.OwnPerSize, po.OwnNote)
	}
	if po.Verdict != "port" || !strings.Contains(po.Reason, "at the mean of this mix") || po.Route.CPU != nil || po.Route.Crossover != 0 ||
		math.Abs(po.Route.OwnMean/87.6e-3-1) > 1e-9 || math.Abs(po.Route.GPUMean/40e-3-1) > 1e-9 {
		t.Errorf("verdict %q (%s), route %+v", po.Verdict, po.Reason, po.Route)
	}
	for _, pc := range po.Comparisons {
		if want := map[bool]string{true: "at the mean", false: "per size"}[pc.Baseline == "own code"]; pc.At != want {
			t.Errorf("%s vs %s compared %s, want %s", pc.Candidate, pc.Baseline, pc.At, want)
		}
	}
}
