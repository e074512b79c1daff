package hybrid

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func TestParseFaultAndSizes(t *testing.T) {
	f, err := ParseFault("b:slow=3@500-1000")
	if err != nil || f.Side != 1 || f.Slow != 3 || f.From != 500 || f.To != 1000 || f.Fail {
		t.Fatalf("%+v %v", f, err)
	}
	if f, err = ParseFault("a:fail@7-9"); err != nil || !f.Fail || f.Side != 0 {
		t.Fatalf("%+v %v", f, err)
	}
	for _, bad := range []string{"c:fail@1-2", "a:slow=0.5@1-2", "a:fail@5-5", "a:fail", "a:boom@1-2"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ns, err := ParseSizes("1, 2 3\n# comment\n40\n")
	if err != nil || len(ns) != 4 || ns[3] != 40 {
		t.Fatalf("%v %v", ns, err)
	}
	var many strings.Builder
	for n := 1; n <= MaxHybridSizes+1; n++ {
		fmt.Fprintln(&many, n, n) // each twice: 513 distinct
	}
	if _, err := ParseSizes(many.String()); err == nil || !strings.Contains(err.Error(), "513 distinct sizes; at most 512") {
		t.Errorf("513 distinct sizes: %v", err)
	}
	if _, err := ParseSizes(strings.Repeat("7 ", 1000)); err != nil {
		t.Errorf("1,000 requests of one size: %v", err)
	}
	if _, err := ParseSizes("1 -2"); err == nil {
		t.Error("negative size accepted")
	}
}

// perRequest sums each request's median over the replays, and the oracle
// takes, request by request, the lower of the two single sides.
func TestHybridPerRequest(t *testing.T) {
	// 2 requests, 3 replays; strategies 0 and 1 are the single sides.
	times := [][]float64{
		{1, 10, 1, 10, 100, 10}, // side A: medians 1, 10 (one preempted call)
		{5, 2, 5, 2, 5, 2},      // side B: medians 5, 2
		{1, 2, 1, 2, 1, 2},      // static
		{1, 10, 1, 2, 1, 2},     // adaptive: medians 1, 2
	}
	p := perRequest(2, 3, times)
	want := []float64{11, 7, 3, 3}
	for k, w := range want {
		if p.Sums[k] != w {
			t.Errorf("strategy %d: sum %g, want %g", k, p.Sums[k], w)
		}
	}
	if p.Oracle != 3 {
		t.Errorf("oracle %g, want 3 (1 from A, 2 from B)", p.Oracle)
	}
}

// The replay's chunk order is a Williams design: over n rounds each
// strategy runs once in each position and right after each other once.
func TestWilliamsOrder(t *testing.T) {
	for _, n := range []int{2, 4, 6} {
		pos := map[[2]int]int{}
		after := map[[2]int]int{}
		for r := 0; r < n; r++ {
			seen := map[int]bool{}
			for j := 0; j < n; j++ {
				k := williams(n, r, j)
				if seen[k] {
					t.Fatalf("n=%d round %d: strategy %d twice", n, r, k)
				}
				seen[k] = true
				pos[[2]int{k, j}]++
				if j > 0 {
					after[[2]int{williams(n, r, j-1), k}]++
				}
			}
		}
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if pos[[2]int{a, b}] != 1 {
					t.Errorf("n=%d: strategy %d in position %d %d times", n, a, b, pos[[2]int{a, b}])
				}
				if a != b && after[[2]int{a, b}] != 1 {
					t.Errorf("n=%d: %d right after %d %d times", n, b, a, after[[2]int{a, b}])
				}
			}
		}
	}
}

// faultResponse reads each replay's moves off the faulty side and back,
// including a replay where probes brought the calls back before the fault
// ended (reported negative) and one that moved off again and then back.
func TestFaultResponse(t *testing.T) {
	sides, err := experiment.ParseSides("cpu:threads=1,cpu:threads=2")
	if err != nil {
		t.Fatal(err)
	}
	a, b := sides[0].Label, sides[1].Label
	hc := Config{Sides: sides, Faults: []Fault{{Side: 1, Slow: 3, From: 100, To: 200}}}
	sw := []dispatch.Switch{
		{Call: 50, From: b, To: a},   // before the fault: not a response
		{Call: 60, From: a, To: b},   // (back before it: neither)
		{Call: 112, From: b, To: a},  // replay 0: off at 12,
		{Call: 207, From: a, To: b},  // back at 7
		{Call: 410, From: b, To: a},  // replay 1: off at 10,
		{Call: 490, From: a, To: b},  // back before the end (a false recovery?)
		{Call: 495, From: b, To: a},  // off again,
		{Call: 504, From: a, To: b},  // back at 4
		{Call: 715, From: b, To: a},  // replay 2: off at 15,
		{Call: 792, From: a, To: b},  // back 8 requests before the end
		{Call: 1015, From: b, To: a}, // replay 3: off at 15, never back
	}
	got := faultResponse("w", hc, sw, 300, 4, nil)
	if len(got) != 1 {
		t.Fatalf("%d lines, want 1: %q", len(got), got)
	}
	for _, want := range []string{"at most 15 requests after it began (each replay: [12 10 15 15]; 0 replays without a move)",
		"back at most 7 requests after it ended (each: [7 4 -8], negative: back before it ended; 1 replays without a move back)"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("%s\nwant it to contain %q", got[0], want)
		}
	}
	// Replays 2 and 3 began with the side already given no size (from
	// the host's own noise): their moves off are not responses to the
	// fault.
	got = faultResponse("w", hc, sw, 300, 4, [][]bool{{false, false, true, true}})
	for _, want := range []string{"at most 12 requests after it began (each replay: [12 10]; 0 replays without a move; 2 replays where it had given " + b + " no size before it began, nothing to move)",
		"back at most 7 requests after it ended (each: [7 4 -8]"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("%s\nwant it to contain %q", got[0], want)
		}
	}
}

// The pilot's range: for linear costs the sides' totals over a
// log-uniform stream from the grid's first point balance where the mean
// size is the crossover; a side faster everywhere is no crossover.
func TestBalancedRange(t *testing.T) {
	grid := logGrid(1, 640, 64)
	lin := func(a, b float64) []float64 {
		out := make([]float64, len(grid))
		for j, n := range grid {
			out[j] = a + b*float64(n)
		}
		return out
	}
	t1, t2 := lin(300e-9, 40e-9), lin(500e-9, 20e-9) // cross at n = 10
	bal := balancedRange(grid, [2][]float64{t1, t2}, [2][]float64{t1, t2})
	if !bal.OK || bal.Small != 0 || bal.Wrong != 0 || grid[bal.Cross-1] > 10 || grid[bal.Cross] < 10 {
		t.Fatalf("crossover: %+v (grid %v)", bal, grid)
	}
	if d := math.Abs(bal.Totals[0]-bal.Totals[1]) / bal.Totals[0]; d > 0.03 {
		t.Errorf("totals %v differ by %.1f%%", bal.Totals, 100*d)
	}
	mean := 0.0
	for _, n := range grid[:bal.Hi+1] {
		mean += float64(n)
	}
	mean /= float64(bal.Hi + 1)
	if mean < 8 || mean > 12.5 {
		t.Errorf("range [1, %d]: mean size %.1f, want about the crossover 10", grid[bal.Hi], mean)
	}
	if r := bal.Oracle / bal.Totals[0]; r > 0.92 || r < 0.7 {
		t.Errorf("oracle %.3f× the better side", r)
	}
	// The sides swapped: side 1 is the small one, same range.
	sw := balancedRange(grid, [2][]float64{t2, t1}, [2][]float64{t2, t1})
	if !sw.OK || sw.Small != 1 || sw.Hi != bal.Hi {
		t.Errorf("swapped: %+v, want small 1 and Hi %d", sw, bal.Hi)
	}
	// One noisy point near the crossover does not move it.
	noisy := slices.Clone(t2)
	j := slices.Index(grid, 8)
	noisy[j] = t1[j] * 0.9
	if nb := balancedRange(grid, [2][]float64{t1, noisy}, [2][]float64{t1, noisy}); !nb.OK || nb.Wrong != 1 || nb.Cross < j || nb.Cross > bal.Cross || nb.Hi != bal.Hi {
		t.Errorf("noisy: %+v, want the crossover between grid points %d and %d with 1 point wrong, the range to %d", nb, j, bal.Cross, bal.Hi)
	}
	// Side 1's calls have a tail that adds 15% to its mean, not to its
	// median: the crossover stays, the range balances the means and so
	// reaches further up (side 1, faster at large sizes, must make up
	// its tail there).
	tail := lin(500e-9*1.15, 20e-9*1.15)
	tb := balancedRange(grid, [2][]float64{t1, t2}, [2][]float64{t1, tail})
	if !tb.OK || tb.Cross != bal.Cross || tb.Hi <= bal.Hi {
		t.Errorf("tail: %+v, want the crossover at grid point %d and the range past %d", tb, bal.Cross, grid[bal.Hi])
	}
	if d := math.Abs(tb.Totals[0]-tb.Totals[1]) / tb.Totals[0]; d > 0.03 {
		t.Errorf("tail: totals %v differ by %.1f%%", tb.Totals, 100*d)
	}
	// A side faster everywhere: no range.
	if nb := balancedRange(grid, [2][]float64{t1, lin(600e-9, 80e-9)}, [2][]float64{t1, lin(600e-9, 80e-9)}); nb.OK || nb.Small != 0 {
		t.Errorf("no crossover: %+v", nb)
	}
}

// A stream drawn from the pilot's points uses only them, each about
// equally often; one from --min/--max spans the range log-uniformly.
func TestHybridStreamPoints(t *testing.T) {
	pts := logGrid(1, 53, 37)
	s, desc, err := hybridStream(Config{Requests: 20000, points: pts}, &report.BreakEven{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, n := range s {
		count[n]++
	}
	for n, c := range count {
		k := 0
		for _, p := range pts {
			if p == n {
				k++
			}
		}
		if k == 0 {
			t.Fatalf("size %d is not a point", n)
		}
		if want := 20000 * k / len(pts); math.Abs(float64(c-want)) > 0.25*float64(want) {
			t.Errorf("size %d: %d requests, want about %d", n, c, want)
		}
	}
	if !strings.Contains(desc, "over [1, 53] on 37 log-spaced sizes") {
		t.Errorf("description %q", desc)
	}
	s, _, err = hybridStream(Config{Requests: 5000, Min: 4, Max: 400}, &report.BreakEven{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	below := 0
	for _, n := range s {
		if n < 4 || n > 400 {
			t.Fatalf("size %d outside [4, 400]", n)
		}
		if n < 40 {
			below++
		}
	}
	if f := float64(below) / 5000; f < 0.4 || f > 0.6 {
		t.Errorf("%.2f of the sizes below 40 (the range's log midpoint), want about half", f)
	}
	if _, _, err := hybridStream(Config{Min: 0, Max: 2000}, &report.BreakEven{}, 1000); err == nil {
		t.Error("--max above the workload's size accepted")
	}
}

// A pilot size's mean counts each call at most clip× the median.
func TestClippedMean(t *testing.T) {
	med, mean := clippedMean([]float64{1, 2, 2, 3, 1000}, 10)
	if med != 2 || mean != (1+2+2+3+20)/5.0 {
		t.Errorf("clippedMean: median %v mean %v, want 2 and %v", med, mean, (1+2+2+3+20)/5.0)
	}
}
