package hybrid

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// With an odd number of strategies the chunk order runs 2n rounds, the
// second n mirrored: each strategy runs twice in each position and right
// after each other strategy twice.
func TestWilliamsOrderOdd(t *testing.T) {
	for _, n := range []int{3, 5, 7} {
		pos := map[[2]int]int{}
		after := map[[2]int]int{}
		for r := 0; r < 2*n; r++ {
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
				if pos[[2]int{a, b}] != 2 {
					t.Errorf("n=%d: strategy %d in position %d %d times, want 2", n, a, b, pos[[2]int{a, b}])
				}
				if a != b && after[[2]int{a, b}] != 2 {
					t.Errorf("n=%d: %d right after %d %d times, want 2", n, b, a, after[[2]int{a, b}])
				}
			}
		}
	}
}

// hybridReportFor is a replay's report with the given adaptive ratio on
// totals (a narrow CI) and on per-request medians, and many switches.
func hybridReportFor(total, perReq float64) *report.Hybrid {
	ratio := func(m float64) timing.Summary {
		return timing.Summary{N: 10, Median: m, Lo: m * 0.99, Hi: m * 1.01, Confidence: 0.95}
	}
	h := &report.Hybrid{Workload: "w", Sides: []string{"a", "b"}, Repeats: 10, Stream: "s", Best: 0, SwitchCount: 3000,
		Strategies: []report.HybridStrategy{
			{Name: "a only", Kind: "single", VsBest: ratio(1), Share: []int{10, 0}},
			{Name: "b only", Kind: "single", VsBest: ratio(1.3), Share: []int{0, 10}},
			{Name: "static", Kind: "static", VsBest: ratio(1.1), Share: []int{5, 5}},
			{Name: "adaptive", Kind: "adaptive", VsBest: ratio(total), Share: []int{5, 5}, Probes: 3},
			{Name: "oracle by size", Kind: "oracle", VsBest: ratio(0.9), Share: []int{5, 5}},
		},
		PerRequest: &report.HybridPerRequest{Sums: []float64{1, 1.3, 1.1, perReq, 0.9}, Oracle: 0.85},
	}
	for i := range 3000 {
		h.Switches = append(h.Switches, report.HybridSwitch{Request: i, Bucket: "[1, 1]", From: "a", To: "b", Reason: "r"})
	}
	return h
}

// The verdict is one line per strategy against the better single side,
// no switch listed (they are in the JSON), and a line saying which view
// decides only when totals and per-request medians point opposite ways.
func TestHybridLinesVerdict(t *testing.T) {
	lines := hybridLines(hybridReportFor(0.98, 1.2))
	if len(lines) > 12 {
		t.Errorf("%d lines: %q", len(lines), lines)
	}
	var decide, adaptive int
	for _, l := range lines {
		if strings.Contains(l, "switch at") {
			t.Errorf("a switch listed: %q", l)
		}
		if strings.Contains(l, "the totals decide") {
			decide++
		}
		if strings.Contains(l, "adaptive: 0.980× [95% CI 0.970, 0.990] the better single side's total: faster than it") {
			adaptive++
		}
	}
	if decide != 1 || adaptive != 1 {
		t.Errorf("want one adaptive verdict and one line on which view decides: %q", lines)
	}
	for _, agree := range [][2]float64{{0.98, 0.95}, {1.05, 1.2}, {1.0, 1.3}} {
		for _, l := range hybridLines(hybridReportFor(agree[0], agree[1])) {
			if strings.Contains(l, "decide") {
				t.Errorf("totals %v, per-request %v: %q", agree[0], agree[1], l)
			}
		}
	}
}

// The pilot's range spans at least minBalancedSizes distinct sizes, even
// when noise puts the crossover and the balance at the smallest sizes
// (where the log grid repeats n = 1).
func TestBalancedRangeNotDegenerate(t *testing.T) {
	grid := logGrid(1, 4096, 64)
	var med, mean [2][]float64
	for _, n := range grid {
		x := float64(n)
		med[0], med[1] = append(med[0], 1e-6+1e-8*x), append(med[1], 1e-6+5e-9*x)
	}
	// Side 0 faster at the first point only, by as much as side 1 gains
	// at the second (n = 1 again): the sums of means balance exactly at
	// [1, 1].
	med[1][0] = med[0][0] + 5e-9
	mean = med
	b := balancedRange(grid, med, mean)
	if !b.OK {
		t.Fatalf("no range: %+v", b)
	}
	sizes := map[int]bool{}
	for _, n := range grid[:b.Hi+1] {
		sizes[n] = true
	}
	if len(sizes) < 8 {
		t.Errorf("range [%d, %d]: %d distinct sizes, want at least 8", grid[0], grid[b.Hi], len(sizes))
	}
}
