package timing_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// noisy returns a summary of 15 samples of t with relative noise rel.
func noisy(r *rand.Rand, t, rel float64) timing.Summary {
	s := make([]float64, 15)
	for i := range s {
		s[i] = t * (1 + rel*(2*r.Float64()-1))
	}
	return timing.Summarize(s)
}

// lines probes two sides a0 + a1·n and b0 + b1·n with relative noise.
func lines(r *rand.Rand, a0, a1, b0, b1, rel float64) func(n int) (timing.Summary, timing.Summary, error) {
	return func(n int) (timing.Summary, timing.Summary, error) {
		x := float64(n)
		return noisy(r, a0+a1*x, rel), noisy(r, b0+b1*x, rel), nil
	}
}

func TestSearchLocatesKnownCrossover(t *testing.T) {
	// A: 1µs + 100ns·n; B: 5µs + 50ns·n: B faster above n = 80.
	r := rand.New(rand.NewPCG(1, 2))
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 1 << 20, MaxReason: "test limit"},
		"A", "B", lines(r, 1e-6, 100e-9, 5e-6, 50e-9, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Status != timing.SearchLocated {
		t.Fatalf("got %+v", res)
	}
	if float64(res.Hi) > 1.2*float64(res.Lo) || res.Lo > 80 || res.Hi < 80 {
		t.Errorf("bracket [%d, %d] does not locate 80 within ±10%%: %s", res.Lo, res.Hi, res.Reason)
	}
	if res.Before != timing.FasterA || res.AtLo.Faster != timing.FasterA || res.AtHi.Faster != timing.FasterB {
		t.Errorf("sides at the ends: before %d, lo %d, hi %d", res.Before, res.AtLo.Faster, res.AtHi.Faster)
	}
	// The crossover at 80 is past the sweep's 16: the search extended.
	if res.Points[len(res.Points)-1].N < 80 {
		t.Errorf("did not extend past the sweep: %+v", res.Points)
	}
}

func TestSearchNoCrossoverStopsAtLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 5000, MaxReason: "maxStorageBufferBindingSize"},
		"cpu", "gpu", lines(r, 1e-6, 10e-9, 50e-6, 20e-9, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || res.Status != timing.SearchNoCrossover {
		t.Fatalf("got %+v", res)
	}
	if last := res.Points[len(res.Points)-1].N; last != 5000 {
		t.Errorf("last size %d, want the limit 5000", last)
	}
	want := "gpu slower at every size up to 5000 (limit: maxStorageBufferBindingSize)"
	if res.Reason != want {
		t.Errorf("reason %q, want %q", res.Reason, want)
	}
}

func TestSearchIndistinguishable(t *testing.T) {
	// Identical sides with 20% noise: no size separates them.
	r := rand.New(rand.NewPCG(5, 6))
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 1024},
		"A", "B", lines(r, 1e-6, 10e-9, 1e-6, 10e-9, 0.2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || res.Status != timing.SearchIndistinguishable {
		t.Fatalf("got %+v", res)
	}
}

func TestSearchIndistinguishableInsideBracket(t *testing.T) {
	// A wins below 100, B above 1000, and between them both take the same
	// time: the search narrows to the tie region and says so.
	a := func(n int) float64 { return 1e-6 + 1e-8*float64(n) }
	b := func(n int) float64 {
		switch {
		case n < 100:
			return 2 * a(n)
		case n > 1000:
			return a(n) / 2
		}
		return a(n)
	}
	r := rand.New(rand.NewPCG(7, 8))
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 10, 10000}},
		"A", "B", func(n int) (timing.Summary, timing.Summary, error) {
			return noisy(r, a(n), 0.01), noisy(r, b(n), 0.01), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Status != timing.SearchIndistinguishable {
		t.Fatalf("got %+v", res)
	}
	if res.Lo < 80 || res.Lo >= 100 || res.Hi <= 1000 || res.Hi > 1200 {
		t.Errorf("bracket [%d, %d], want about [<100, >1000]", res.Lo, res.Hi)
	}
}

func TestSearchBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, MaxProbes: 4},
		"A", "B", lines(r, 1e-6, 100e-9, 5e-6, 50e-9, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != timing.SearchBudget {
		t.Fatalf("got %+v", res)
	}
}

func TestFitConstrainedNeverNegative(t *testing.T) {
	// The data imply a negative overhead (t = −2 + 3n): the constrained
	// fit goes through the origin instead.
	n := []float64{1, 2, 4, 8, 16}
	ts := make([]float64, len(n))
	for i, x := range n {
		ts[i] = math.Max(0.5, -2+3*x)
	}
	u, err := timing.FitLinear(n, ts)
	if err != nil {
		t.Fatal(err)
	}
	if u.Overhead >= 0 {
		t.Fatalf("test data do not give a negative overhead: %+v", u)
	}
	f, err := timing.FitConstrained(n, ts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Overhead != 0 || f.PerItem <= 0 || f.Constrained != timing.BoundOverhead || f.OverheadCI[0] < 0 {
		t.Errorf("constrained fit %+v", f)
	}
	// Decreasing times imply a negative slope: the fit is a constant.
	g, err := timing.FitConstrained(n, []float64{5, 4.9, 4.8, 4.7, 4.6})
	if err != nil {
		t.Fatal(err)
	}
	if g.PerItem != 0 || g.Overhead <= 0 || g.Constrained != timing.BoundPerItem {
		t.Errorf("constrained fit %+v", g)
	}
	// Feasible data: identical to FitLinear.
	h, _ := timing.FitConstrained(n, []float64{5, 6, 8, 12, 20})
	if !near(h.Overhead, 4, 1e-9) || !near(h.PerItem, 1, 1e-9) || h.Constrained != "" {
		t.Errorf("unconstrained data: %+v", h)
	}
}

func TestFitModelFindsKnee(t *testing.T) {
	// 1µs + 1ns·n in cache up to n = 4096, then 4ns·n: a knee.
	r := rand.New(rand.NewPCG(11, 12))
	var n, ts []float64
	for x := 16.0; x <= 1<<20; x *= 2 {
		y := 1e-6 + 1e-9*x
		if x > 4096 {
			y = 1e-6 + 1e-9*4096 + 4e-9*(x-4096)
		}
		n = append(n, x)
		ts = append(ts, y*(1+0.01*(2*r.Float64()-1)))
	}
	m, err := timing.FitModel(n, ts, timing.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) != 2 {
		t.Fatalf("no knee found: %+v", m)
	}
	if m.Knee < 2048 || m.Knee > 16384 {
		t.Errorf("knee at %v, want near 4096", m.Knee)
	}
	for _, s := range m.Segments {
		if s.R2 < 0.95 || s.Fit.Overhead < 0 || s.Fit.PerItem < 0 {
			t.Errorf("segment %+v", s)
		}
	}
	if last := m.Segments[1].Fit.PerItem; !near(last, 4e-9, 0.05) || m.Segments[1].Origin != m.Knee {
		t.Errorf("DRAM per-item %v, want 4ns", last)
	}
	// A straight line has no knee.
	for i := range ts {
		ts[i] = 1e-6 + 2e-9*n[i]
	}
	m, _ = timing.FitModel(n, ts, timing.Policy{})
	if len(m.Segments) != 1 {
		t.Errorf("knee found in a straight line: %+v", m)
	}
}

func TestPredictCrossoverExtrapolated(t *testing.T) {
	fit := func(a, b float64) timing.Model {
		var n, ts []float64
		for x := 1.0; x <= 64; x *= 2 {
			n, ts = append(n, x), append(ts, a+b*x)
		}
		m, err := timing.FitModel(n, ts, timing.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// Crossover at 20: inside [1, 64].
	p := timing.PredictCrossover(fit(1, 1), fit(11, 0.5))
	if p.Kind != timing.CrossAt || !near(p.N, 20, 1e-6) || p.Extrapolated {
		t.Errorf("inside: %+v", p)
	}
	// Crossover at 200: outside, flagged.
	p = timing.PredictCrossover(fit(1, 1), fit(101, 0.5))
	if p.Kind != timing.CrossAt || !near(p.N, 200, 1e-6) || !p.Extrapolated {
		t.Errorf("outside: %+v", p)
	}
	// No crossover.
	p = timing.PredictCrossover(fit(1, 1), fit(2, 2))
	if p.Kind != timing.CrossNever {
		t.Errorf("never: %+v", p)
	}
	if e := timing.IntervalError(110, 80, 100); !near(e, 0.1, 1e-12) {
		t.Errorf("IntervalError = %v", e)
	}
	if e := timing.IntervalError(90, 80, 100); e != 0 {
		t.Errorf("IntervalError inside = %v", e)
	}
}

func TestMeasurePairInterleaves(t *testing.T) {
	var order []byte
	mk := func(tag byte, d time.Duration) func() (timing.Sample, error) {
		return func() (timing.Sample, error) {
			order = append(order, tag)
			return timing.Sample{Host: d}, nil
		}
	}
	ra, rb, err := timing.MeasurePair(timing.MeasureOpts{Warmup: 1}, mk('a', time.Millisecond), mk('b', 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if ra.Host.N < 10 || rb.Host.N != ra.Host.N || ra.Host.Median != 1e-3 || rb.Host.Median != 2e-3 {
		t.Errorf("a %v, b %v", ra.Host, rb.Host)
	}
	// One warm-up round a b, then timed rounds alternating a b, b a, …
	if len(order)%2 != 0 || string(order[:2]) != "ab" {
		t.Fatalf("calls not in rounds of two: %s", order)
	}
	for r := 1; 2*r+1 < len(order); r++ {
		want := "ab"
		if (r-1)%2 == 1 {
			want = "ba"
		}
		if got := string(order[2*r : 2*r+2]); got != want {
			t.Fatalf("timed round %d is %q, want %q (the order alternates): %s", r-1, got, want, order)
		}
	}
}

func TestPredictCrossoverSegmentsNoSpuriousBelow(t *testing.T) {
	// Measured on lavapipe: the GPU (data shipped per call) slower at every
	// size. Intersecting the lines past both knees gives a "crossover" at
	// 178, below where those lines apply: it must not be reported.
	lf := func(a, b float64) timing.LinearFit { return timing.LinearFit{Overhead: a, PerItem: b} }
	cpu := timing.Model{Knee: 64, Segments: []timing.Segment{
		{From: 1, To: 64, Fit: lf(422e-9, 47.1e-9)}, {From: 64, To: 262144, Origin: 64, Fit: lf(3.44e-6, 134e-9)}}}
	gpu := timing.Model{Knee: 256, Segments: []timing.Segment{
		{From: 1, To: 256, Fit: lf(288e-6, 7.3e-6)}, {From: 256, To: 262144, Origin: 256, Fit: lf(2.16e-3, 27.5e-6)}}}
	if p := timing.PredictCrossover(cpu, gpu); p.Kind != timing.CrossNever {
		t.Errorf("got %+v, want never", p)
	}
	if p := timing.PredictCrossover(gpu, cpu); p.Kind != timing.CrossAlways {
		t.Errorf("swapped: got %+v, want always", p)
	}
}

// A tie is measured again through Refine: with noise too large for a
// probe to separate sides 6% apart near the crossover, the coarse probes
// leave a wide indistinguishable band; refined with tighter noise, the
// search locates the crossover within ±10%. Refine is called only for
// ties.
func TestSearchRefinesTies(t *testing.T) {
	// A: 1µs + 100ns·n; B: 5µs + 50ns·n: B faster above n = 80.
	mk := func(seed uint64, rel float64) func(n int) (timing.Summary, timing.Summary, error) {
		return lines(rand.New(rand.NewPCG(seed, 1)), 1e-6, 100e-9, 5e-6, 50e-9, rel)
	}
	opts := timing.SearchOpts{Sizes: []int{1, 4, 16, 64, 256, 1024}, Max: 1 << 20}
	coarse, err := timing.SearchCrossover(opts, "A", "B", mk(7, 0.2))
	if err != nil {
		t.Fatal(err)
	}
	if coarse.Status == timing.SearchLocated {
		t.Fatalf("without Refine the noisy probes should not locate the crossover: %+v", coarse)
	}
	refined := 0
	fine := mk(8, 0.005)
	opts.Refine = func(n, round int) (timing.Summary, timing.Summary, error) {
		if round != 1 {
			t.Errorf("round %d at n=%d: the first refinement already separates the sides", round, n)
		}
		refined++
		return fine(n)
	}
	probe := mk(7, 0.2)
	var ties int
	res, err := timing.SearchCrossover(opts, "A", "B", func(n int) (timing.Summary, timing.Summary, error) {
		a, b, err := probe(n)
		if timing.Faster(a, b) == timing.Tie {
			ties++
		}
		return a, b, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != timing.SearchLocated || res.Lo > 80 || res.Hi < 80 || float64(res.Hi) > 1.2*float64(res.Lo) {
		t.Fatalf("refined search: %s [%d, %d] %s", res.Status, res.Lo, res.Hi, res.Reason)
	}
	if refined != ties || ties == 0 {
		t.Errorf("Refine called %d times for %d ties", refined, ties)
	}
}

// A tie that stays a tie is refined round after round, up to Refines.
func TestSearchRefineRounds(t *testing.T) {
	rounds := map[int][]int{}
	r := rand.New(rand.NewPCG(9, 10))
	same := lines(r, 1e-6, 10e-9, 1e-6, 10e-9, 0.2)
	_, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 64, Refines: 3,
		Refine: func(n, round int) (timing.Summary, timing.Summary, error) {
			rounds[n] = append(rounds[n], round)
			return same(n)
		}}, "A", "B", same)
	if err != nil {
		t.Fatal(err)
	}
	for n, rs := range rounds {
		if len(rs) > 3 || rs[0] != 1 || rs[len(rs)-1] != len(rs) {
			t.Errorf("n=%d refined in rounds %v; want 1, 2, … at most 3", n, rs)
		}
	}
	if len(rounds) == 0 {
		t.Error("identical sides were never refined")
	}
}

// One size measured while a side ran slow (a vCPU taken away for a second)
// gets the wrong winner; the located bracket's ends are measured again, the
// wrong end turns into a tie, and the search finds the true crossover.
func TestSearchConfirmsEnds(t *testing.T) {
	// A: 1µs + 100ns·n; B: 3µs flat: B faster above n = 20.
	r := rand.New(rand.NewPCG(11, 12))
	good := lines(r, 1e-6, 100e-9, 3e-6, 0, 0.01)
	seen := map[int]int{}
	probe := func(n int) (timing.Summary, timing.Summary, error) {
		seen[n]++
		a, b, err := good(n)
		if n == 64 && seen[n] == 1 {
			b = noisy(r, 20e-6, 0.01) // B ran slow while 64 was first measured
		}
		return a, b, err
	}
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16, 64, 256}, Max: 1 << 16}, "A", "B", probe)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Lo > 20 || res.Hi < 20 || float64(res.Hi) > 1.2*float64(res.Lo) {
		t.Fatalf("got %s [%d, %d]: %s", res.Status, res.Lo, res.Hi, res.Reason)
	}
	if seen[64] < 2 {
		t.Errorf("the end at 64 was not measured again: %v", seen)
	}
}
