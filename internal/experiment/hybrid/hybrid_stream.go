package hybrid

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// hybridStream is the stream to replay and its description.
func hybridStream(hc Config, be *report.BreakEven, size int) ([]int, string, error) {
	if len(hc.Sizes) > 0 {
		for i, n := range hc.Sizes {
			if n < 1 || n > size {
				return nil, "", &env.ParamError{Name: "sizes-file", Limit: fmt.Sprintf("size %d (line %d) outside [1, %d] (the workload's size; raise it with n, q or nodes)", n, i+1, size)}
			}
		}
		return hc.Sizes, fmt.Sprintf("%d sizes from a file", len(hc.Sizes)), nil
	}
	points := hc.points
	if len(points) == 0 {
		lo, hi := hc.Min, hc.Max
		if lo == 0 || hi == 0 {
			clo, chi := 1, size
			if be.Search != nil && be.Search.Found {
				clo, chi = max(1, be.Search.Lo/16), min(size, be.Search.Hi*16)
			}
			if lo == 0 {
				lo = clo
			}
			if hi == 0 {
				hi = chi
			}
		}
		if lo < 1 || hi > size || lo > hi {
			return nil, "", env.Invalid("min", lo, "with max %d: want 1 ≤ min ≤ max ≤ %d (the workload's size)", hi, size)
		}
		grid := hc.Grid
		if grid <= 0 {
			grid = 48
		}
		points = logGrid(lo, hi, grid)
	}
	count := hc.Requests
	if count <= 0 {
		count = 2000
	}
	r := rand.New(rand.NewPCG(hc.Seed, 0x9e3779b97f4a7c15))
	out := make([]int, count)
	for i := range out {
		out[i] = points[int(r.Float64()*float64(len(points)))]
	}
	return out, fmt.Sprintf("%d requests, log-uniform over [%d, %d] on %d log-spaced sizes, seed %d", count, points[0], points[len(points)-1], len(points), hc.Seed), nil
}

// logGrid is k sizes log-spaced over [lo, hi], rounded (small sizes
// repeat, so each keeps its share of the log scale).
func logGrid(lo, hi, k int) []int {
	out := make([]int, k)
	steps := math.Max(float64(k-1), 1)
	for i := range out {
		out[i] = int(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), float64(i)/steps)))
	}
	return out
}

// pilotCalls is how many calls of each size each side makes in the pilot.
// The pilot's means decide the stream's range, and a side's mean is its
// median plus its tail: the rare slow calls of a side that waits on a
// worker's core weigh in its mean and need this many calls per size to
// show in the sum over a range's sizes.
const pilotCalls = 25

// pilotClip is the most a pilot call counts for in its size's mean, as a
// multiple of the size's median: the side's own tail stays below it, while
// a call preempted by the machine is not the side's, and one among a
// size's calls would weigh as much as all the rest.
const pilotClip = 20

// hybridCandidates are the sizes the pilot measures: 64 log-spaced from
// 1 to the measured crossover's high end times 64 (within the workload's
// size). The range is wider above the crossover than that of a stream
// without a pilot: in the replay's context a side can lose far more of
// its advantage than the profile says (a worker paying for data it last
// saw in the caller's cache). It starts at 1: the pilot finds the
// crossover itself, and a stream that starts above 1 leaves out the
// sizes where the side faster below the crossover gains most.
func hybridCandidates(be *report.BreakEven, size int) []int {
	hi := min(size, be.Search.Hi*64)
	return logGrid(1, max(hi, 1), 64)
}

// pilot is each side's median and mean at each grid point (means with
// each call clipped at pilotClip× its size's median).
type pilot struct {
	med, mean [2][]float64
}

// hybridPilot measures both sides at every size of grid in the replay's
// context: each request poisoned before and verified after its call, one
// side's calls in a row (a round of every size, in a shuffled order, then
// the other side's), pilotCalls rounds, the sides' order alternating.
func hybridPilot(e *env.Env, hc Config, built [2]map[int]workload.Side, grid []int) (pilot, error) {
	sizes := slices.Compact(slices.Clone(grid))
	times := [2]map[int][]float64{{}, {}}
	r := rand.New(rand.NewPCG(hc.Seed, 0x5851f42d4c957f2d))
	e.Progressf("hybrid: pilot of %s and %s at %d sizes", hc.Sides[0].Label, hc.Sides[1].Label, len(sizes))
	call := func(i, n int) (time.Duration, error) {
		smp, err := experiment.VerifiedRun(fmt.Sprintf("hybrid: pilot: %s n=%d", hc.Sides[i].Label, n), built[i][n])
		return smp.Host, err
	}
	for round := range pilotCalls {
		for j := range 2 {
			i := (round + j) % 2
			if e.Stopped() {
				return pilot{}, fmt.Errorf("hybrid: pilot: %w", env.ErrInterrupted)
			}
			r.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
			if _, err := call(i, sizes[0]); err != nil { // warm, untimed
				return pilot{}, err
			}
			for _, n := range sizes {
				t, err := call(i, n)
				if err != nil {
					return pilot{}, err
				}
				times[i][n] = append(times[i][n], t.Seconds())
			}
		}
	}
	var p pilot
	for i := range 2 {
		p.med[i] = make([]float64, len(grid))
		p.mean[i] = make([]float64, len(grid))
		for j, n := range grid {
			p.med[i][j], p.mean[i][j] = clippedMean(times[i][n], pilotClip)
		}
	}
	return p, nil
}

// clippedMean returns the median of xs and their mean with each value
// counted at most clip× the median.
func clippedMean(xs []float64, clip float64) (med, mean float64) {
	med = experiment.Median(xs)
	for _, x := range xs {
		mean += math.Min(x, clip*med)
	}
	return med, mean / float64(max(len(xs), 1))
}

// balance is the pilot's range for the stream: grid points 0..Hi.
type balance struct {
	OK bool // the sides cross within the grid
	Hi int  // the range's last grid point
	// Small is the side faster below the crossover, which lies between
	// grid points Cross−1 and Cross; Wrong counts the grid points on the
	// wrong side of it (noise near the crossover).
	Small, Cross, Wrong int
	// Totals are each side's sum of means over the range's points (its
	// expected total on a log-uniform stream over them, per request),
	// Oracle the sum of the lower of the two.
	Totals [2]float64
	Oracle float64
}

// balancedRange finds where the sides cross in the pilot's medians (the
// split of the grid that leaves the fewest points on the wrong side) and,
// among the ranges from the first grid point to a point at or past the
// crossover, the one over which the two sides' totals of means are
// closest (ties: the widest). On such a stream neither side alone is the
// answer: each is faster for about half of the time. Past it the side
// faster at large sizes takes a growing share of the time, before it the
// other; either way routing has less to gain (for linear costs the
// balanced range is the one whose mean size is the crossover).
//
// The crossover is the medians' (the typical call's), the balance the
// means': a stream's total is the sum of its calls, tails included, and
// a side with the heavier tail (threads=2, which needs both cores) costs
// more per call on the total than its median says, and a range balanced
// on medians moves from run to run with the noise (TestBalancedRange).
func balancedRange(grid []int, med, mean [2][]float64) balance {
	m := len(grid)
	best := balance{Wrong: m + 1}
	for small := range 2 {
		for cut := 1; cut < m; cut++ {
			wrong := 0
			for j := range m {
				faster := med[small][j] < med[1-small][j]
				if faster != (j < cut) {
					wrong++
				}
			}
			if wrong < best.Wrong {
				best = balance{Small: small, Cross: cut, Wrong: wrong}
			}
		}
	}
	// A side faster at every point (or at all but a few near an end) is
	// no crossover: the split must beat calling every point one side's.
	for s := range 2 {
		n := 0
		for j := range m {
			if med[s][j] < med[1-s][j] {
				n++
			}
		}
		if m-n <= best.Wrong {
			return balance{Small: s}
		}
	}
	bestImb := math.Inf(1)
	var t [2]float64
	oracle := 0.0
	distinct := 0
	for j := range m {
		t[0] += mean[0][j]
		t[1] += mean[1][j]
		oracle += math.Min(mean[0][j], mean[1][j])
		if j == 0 || grid[j] != grid[j-1] {
			distinct++
		}
		if j < best.Cross || distinct < minBalancedSizes {
			continue
		}
		if imb := math.Abs(t[0]-t[1]) / math.Min(t[0], t[1]); imb <= bestImb {
			bestImb = imb
			best.OK, best.Hi, best.Totals, best.Oracle = true, j, t, oracle
		}
	}
	return best
}

// minBalancedSizes is the fewest distinct sizes of the pilot's range: a
// stream of one or two sizes (a crossover the noise put at the smallest
// sizes) tests no routing (TestBalancedRangeNotDegenerate).
const minBalancedSizes = 8

// describe says how the pilot chose the stream's range.
func (b balance) describe(grid []int, sides [2]experiment.SideSpec, be *report.BreakEven) string {
	calls := fmt.Sprintf("a pilot (%d calls per size and side over %d log-spaced sizes in [%d, %d], in the replay's context: poisoned and verified around each call, one side's calls in a row)",
		pilotCalls, len(grid), grid[0], grid[len(grid)-1])
	if !b.OK {
		return fmt.Sprintf("; %s found no crossover: %s was faster at every size but a few, so the range is break-even's crossover [%d, %d] /16 to ×16",
			calls, sides[b.Small].Label, be.Search.Lo, be.Search.Hi)
	}
	bs := math.Min(b.Totals[0], b.Totals[1])
	return fmt.Sprintf("; the range is where neither side alone is the answer: %s put the crossover in that context between n=%d and n=%d (%s faster below, %d of %d sizes on the other side of it; break-even's, calls back to back: [%d, %d]), "+
		"and over [%d, %d] the two sides' totals come closest, %s %s and %s %s per request (means, each call counted at most %d× its size's median), an oracle %.3f× the better",
		calls, grid[b.Cross-1], grid[b.Cross], sides[b.Small].Label, b.Wrong, len(grid), be.Search.Lo, be.Search.Hi,
		grid[0], grid[b.Hi], sides[0].Label, timing.FormatSeconds(b.Totals[0]/float64(b.Hi+1)), sides[1].Label, timing.FormatSeconds(b.Totals[1]/float64(b.Hi+1)), pilotClip, b.Oracle/bs)
}
