package ceilings

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/machine"
)

// The cache staircase (docs/METHOD.md, "Staircase"): read bandwidth over
// working sets of 16 KiB, 32 KiB, … until the DRAM level is reached (the
// bandwidth stops changing when the working set doubles, past every cache
// the CPU reports) or the memory budget stops it, on both sides (the GPU
// up to the same working set and its binding limit), the levels found
// from the curve's plateaus and knees, and from them the working sets the
// level ceilings are measured at and the working sets each level judges.

// stairMin is the smallest working set of the sweep.
const stairMin = 16 << 10

// stairSizes are the sweep's working sets: powers of two (quick: of four)
// from stairMin up to the first at or above top, none above limit.
func stairSizes(top, limit uint64, quick bool) []uint64 {
	step := uint64(2)
	if quick {
		step = 4
	}
	var out []uint64
	for b := uint64(stairMin); b <= limit; b *= step {
		out = append(out, b)
		if b >= top {
			break
		}
	}
	return out
}

// stairFlat: the DRAM level is reached where a point's bandwidth is
// within this factor of the previous point's (one step of the sweep
// smaller) either way. A step from one level to the next changes the
// bandwidth by a factor of 1.5 or more (plateauTol), well past it.
const stairFlat = 0.85

// stairPast is the smallest working set the DRAM level may be found at
// on m with threads threads: twice the largest cache they see (a set that
// size cannot sit in it), or 256 MiB where cpuid reports no cache.
func stairPast(m machine.Machine, threads int) uint64 {
	if c := m.LargestCache(threads); c > 0 {
		return uint64(2 * c)
	}
	return 256 << 20
}

// sweepCPU runs the CPU side's sweep: measure at stairMin, step×, …
// (from half of past on, 2×: the DRAM level is where doubling the working
// set no longer changes the bandwidth) while the working set is within
// budget, until dramReached (past: see stairPast). It returns the last
// working set measured and whether the DRAM level was reached before the
// budget stopped it.
func sweepCPU(budget, past, step uint64, measure func(bytes uint64) (report.StairPoint, error)) (top uint64, reached bool, err error) {
	var pts []report.StairPoint
	next := func(b uint64) uint64 {
		if 2*b >= past {
			return 2 * b
		}
		return b * step
	}
	for b := uint64(stairMin); b <= budget; b = next(b) {
		pt, err := measure(b)
		if err != nil {
			return top, false, err
		}
		pts, top = append(pts, pt), b
		if dramReached(pts, past) {
			return top, true, nil
		}
	}
	return top, false, nil
}

// dramReached reports whether the CPU sweep's points (ascending) have
// reached the DRAM level: the last point is at or past past and within
// stairFlat of the one before it (half its size).
func dramReached(pts []report.StairPoint, past uint64) bool {
	n := len(pts)
	if n < 2 || pts[n-1].Bytes < float64(past) {
		return false
	}
	a, b := pts[n-2].GBs, pts[n-1].GBs
	return a > 0 && b > 0 && b >= stairFlat*a && a >= stairFlat*b
}

// plateauTol: a point belongs to the current plateau while its bandwidth
// stays above plateauTol × the plateau's median; a larger drop is a knee.
// The drop from one cache level to the next is a factor of 1.5 or more,
// well past what noise on a shared machine does to a single point
// (TestFindLevels).
const plateauTol = 0.75

// findLevels finds the plateaus of one side's curve (points sorted by
// working set): a knee wherever the bandwidth drops below plateauTol of
// the current plateau's median. A single point between two plateaus is a
// transition (a working set partly in each) and is dropped. The plateaus
// are named from the largest working set down: dram, llc, l2, l1; each
// level's ceiling is measured at its plateau's middle working set and it
// judges working sets below the next plateau's first one.
func findLevels(side string, pts []report.StairPoint) []report.StairLevel {
	var groups [][]report.StairPoint
	med := func(g []report.StairPoint) float64 {
		v := make([]float64, len(g))
		for i, p := range g {
			v[i] = p.GBs
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	for _, p := range pts {
		if !(p.GBs > 0) {
			continue
		}
		if n := len(groups); n > 0 && p.GBs >= plateauTol*med(groups[n-1]) {
			groups[n-1] = append(groups[n-1], p)
			continue
		}
		groups = append(groups, []report.StairPoint{p})
	}
	// Drop single-point transitions between two plateaus.
	var kept [][]report.StairPoint
	for i, g := range groups {
		if len(g) == 1 && i > 0 && i < len(groups)-1 {
			continue
		}
		kept = append(kept, g)
	}
	names := []string{"dram", "llc", "l2", "l1"}
	var out []report.StairLevel
	for i, g := range kept {
		k := len(kept) - 1 - i // 0 for the largest plateau
		name := fmt.Sprintf("level%d", i)
		if k < len(names) {
			name = names[k]
		}
		// The ceiling in the middle of the plateau (its middle point; the
		// points are spaced geometrically): a plateau's first working set
		// may still sit partly in the level below it, whose per-thread
		// caches the sweep's coarse steps do not resolve, and would pass
		// that level's bandwidth off as this one's
		// (TestFindLevelsMeasuresInsideThePlateau). The ceiling is then
		// raised to the plateau's best point (plateauBest), so no working
		// set the level judges is held to less than the curve showed.
		lv := report.StairLevel{Side: side, Name: name, FromBytes: g[0].Bytes, ToBytes: g[len(g)-1].Bytes,
			CeilingBytes: g[len(g)/2].Bytes, GBs: med(g)}
		if i+1 < len(kept) {
			lv.ReachBytes = kept[i+1][0].Bytes / 2 // the last working set before the next plateau
		}
		out = append(out, lv)
	}
	return out
}

// cpuidCaches are the caches cpuid reports as threads threads see them
// (per-core caches threads times over), with the level names they give.
func cpuidCaches(threads int) []struct {
	level, name string
	bytes       float64
} {
	t := float64(max(threads, 1))
	var out []struct {
		level, name string
		bytes       float64
	}
	add := func(level, name string, b int, per bool) {
		if b <= 0 {
			return
		}
		x := float64(b)
		desc := fmt.Sprintf("%s (%s)", name, experiment.FmtBytes(x))
		if per {
			x *= t
			desc = fmt.Sprintf("%s (%s × %d threads)", name, experiment.FmtBytes(float64(b)), threads)
		}
		out = append(out, struct {
			level, name string
			bytes       float64
		}{level, desc, x})
	}
	m := machine.Current()
	add("l1", "L1d", int(m.L1D), true)
	add("l2", "L2", int(m.L2), true)
	add("llc", "L3", int(m.L3), false)
	return out
}

// nameByCPUID names the CPU's cache plateaus after the reported cache
// their last working set is nearest (l1, l2, llc) rather than by their
// count from the top: on a busy machine two levels can merge into one
// plateau. A name a larger plateau already took is not reused, and a
// plateau whose first working set does not fit a cache is not named after
// it (the one level rule's cap: past the L3, a plateau of working sets
// partly in the L3s of several chiplets is not the L3's,
// TestNameByCPUIDCapsByCapacity).
func nameByCPUID(levels []report.StairLevel, threads int) {
	caches := cpuidCaches(threads)
	if len(caches) == 0 {
		return
	}
	used := map[string]bool{"dram": true}
	for i := len(levels) - 2; i >= 0; i-- {
		best, ratio := "", math.Inf(1)
		for _, c := range caches {
			if levels[i].FromBytes > c.bytes {
				continue
			}
			if r := math.Abs(math.Log2(levels[i].ToBytes / c.bytes)); r < ratio {
				best, ratio = c.level, r
			}
		}
		if best == "" || used[best] {
			best = fmt.Sprintf("level%d", i)
		}
		used[best] = true
		levels[i].Name = best
	}
}

// capReachByCPUID keeps each named CPU cache level from judging a working
// set larger than the cache cpuid reports for it, as threads threads see
// it: where the sweep missed a level (two levels merged into one plateau,
// or a level between two sweep steps) the reach, which runs up to the
// next plateau, would otherwise take in working sets that do not fit the
// cache, and judge them against its faster ceiling
// (TestReachCappedByCPUID).
func capReachByCPUID(levels []report.StairLevel, threads int) {
	for _, c := range cpuidCaches(threads) {
		for i := range levels {
			if levels[i].Name == c.level && levels[i].ReachBytes > 0 {
				levels[i].ReachBytes = machine.ReachOf(c.bytes, levels[i].ReachBytes)
			}
		}
	}
}

// cpuidNotes compares the CPU levels' knees with the cache sizes cpuid
// reports: a per-core cache seen by threads threads holds threads times
// its size. A knee within a factor of 2 (one step of the sweep) either way
// of a reported size agrees with it.
func cpuidNotes(levels []report.StairLevel, threads int) []string {
	caches := cpuidCaches(threads)
	var out []string
	for _, l := range levels {
		if l.Side != report.SideCPU || l.Name == "dram" {
			continue
		}
		best, ratio := "", math.Inf(1)
		for _, c := range caches {
			if r := math.Abs(math.Log2(l.ToBytes / c.bytes)); r < ratio {
				best, ratio = c.name, r
			}
		}
		verdict := "agrees with"
		if ratio > 1 {
			verdict = "does not match (nearest:"
		}
		line := fmt.Sprintf("cpu %s plateau %s … %s at %.1f GB/s: %s cpuid's %s", l.Name, experiment.FmtBytes(l.FromBytes), experiment.FmtBytes(l.ToBytes), l.GBs, verdict, best)
		if ratio > 1 {
			line += ")"
		}
		out = append(out, line)
	}
	return out
}

// staircase sweeps both sides and records the curve and its levels. The
// CPU sweep doubles (quick: quadruples) the working set until the DRAM
// level is reached (dramReached) or the next set would pass the memory
// budget; the GPU sweep goes as far (within the adapter's binding limit
// and the budget for its buffers). Each point's array is freed before the
// next phase. capped says where the memory budget stopped the CPU sweep
// before it reached the DRAM level ("": it did not).
func staircase(e *env.Env, quick bool, rep *report.Report) (_ *report.Staircase, capped string, _ error) {
	st := &report.Staircase{}
	rep.Staircase = st // what was measured stays reported if the run stops
	defer env.FreeMemory()
	m := machine.Current()
	threads := e.Host.ThreadCount()
	runs := 3
	if quick {
		runs = 2
	}
	step := uint64(2)
	if quick {
		step = 4
	}
	budget := uint64(env.MemoryBudget(quick))
	past := stairPast(m, threads)
	e.Progressf("cache staircase: cpu read bandwidth from %d KiB until it stops changing (past %s, within the %s memory budget)",
		stairMin>>10, experiment.FmtBytes(float64(past)), experiment.FmtBytes(float64(budget)))
	top, reached, err := sweepCPU(budget, past, step, func(b uint64) (report.StairPoint, error) {
		if err := e.CheckStop("cache staircase"); err != nil {
			return report.StairPoint{}, err
		}
		rc, err := hostsimd.MeasureReadUntil(int64(b), threads, runs, e.Stopped)
		if errors.Is(err, hostsimd.ErrStopped) {
			return report.StairPoint{}, fmt.Errorf("cache staircase (cpu, %s): %w", experiment.FmtBytes(float64(b)), env.ErrInterrupted)
		}
		if err != nil {
			return report.StairPoint{}, fmt.Errorf("staircase (cpu, %d bytes): %w", b, err)
		}
		pt := report.StairPoint{Side: report.SideCPU, Bytes: float64(rc.Bytes), GBs: rc.GBs}
		st.Points = append(st.Points, pt)
		return pt, nil
	})
	if err != nil {
		return st, "", err
	}
	env.FreeMemory()
	if !reached {
		capped = fmt.Sprintf("the cpu staircase at %s, before its bandwidth stopped changing", experiment.FmtBytes(float64(top)))
	}
	if e.Device != nil {
		// A ceiling bench holds its buffer twice on the device and once
		// on the host (CeilingArrays buffers of it).
		lim := min(e.Device.Limits.MaxStorageBufferBindingSize, e.Device.Limits.MaxBufferSize, budget/hostsimd.CeilingArrays)
		e.Progressf("cache staircase: gpu read bandwidth, %d KiB … %s", stairMin>>10, experiment.FmtBytes(float64(min(top, lim))))
		for _, b := range stairSizes(top, lim, quick) {
			if err := e.CheckStop("cache staircase"); err != nil {
				return st, "", err
			}
			pt, err := compute.MeasureReadAtUntil(e.Device, b, runs, e.Stopped)
			if errors.Is(err, compute.ErrStopped) {
				return st, "", fmt.Errorf("cache staircase (gpu, %s): %w", experiment.FmtBytes(float64(b)), env.ErrInterrupted)
			}
			if err != nil {
				return nil, "", fmt.Errorf("staircase (gpu, %d bytes): %w", b, err)
			}
			st.Points = append(st.Points, report.StairPoint{Side: report.SideGPU, Bytes: float64(pt.Bytes), GBs: pt.GBs})
		}
	}
	for _, side := range []string{report.SideCPU, report.SideGPU} {
		var pts []report.StairPoint
		for _, p := range st.Points {
			if p.Side == side {
				pts = append(pts, p)
			}
		}
		lv := findLevels(side, pts)
		if side == report.SideCPU {
			nameByCPUID(lv, threads)
			capReachByCPUID(lv, threads)
		}
		if len(lv) == 1 {
			st.Notes = append(st.Notes, fmt.Sprintf("%s: the sweep found no cache level (one plateau, %s … %s): its rows are judged against the dram ceilings only", side, experiment.FmtBytes(lv[0].FromBytes), experiment.FmtBytes(lv[0].ToBytes)))
		}
		st.Levels = append(st.Levels, lv...)
	}
	st.Notes = append(cpuidNotes(st.Levels, threads), st.Notes...)
	return st, capped, nil
}

// stairRoofLevels turns the staircase's cache levels (l2 and llc; l1 is
// too small for a kernel's working set and dram is the main roof) into
// the RoofLevels cacheCeilings measures: each side at its own plateau's
// working set, judging working sets up to its own reach.
func stairRoofLevels(st *report.Staircase, threads int) []experiment.RoofLevel {
	m := machine.Current()
	var out []experiment.RoofLevel
	for _, name := range []string{"l2", "llc"} {
		l := experiment.RoofLevel{CPUCap: float64(m.CacheBytes(name, threads))}
		for _, sl := range st.Levels {
			if sl.Name != name {
				continue
			}
			l.Name = name
			if sl.Side == report.SideCPU {
				l.Bytes, l.CPUReach = sl.CeilingBytes, sl.ReachBytes
			} else {
				l.GPUBytes, l.GPUReach = sl.CeilingBytes, sl.ReachBytes
			}
		}
		if l.Name != "" {
			out = append(out, l)
		}
	}
	return out
}

// plateauBest is the fastest staircase point of side's level name: the
// level's ceiling is at least that (the same read kernels measured it).
func plateauBest(st *report.Staircase, side, name string) float64 {
	best := 0.0
	for _, l := range st.Levels {
		if l.Side != side || l.Name != name {
			continue
		}
		for _, p := range st.Points {
			if p.Side == side && p.Bytes >= l.FromBytes && p.Bytes <= l.ToBytes {
				best = max(best, p.GBs)
			}
		}
	}
	return best
}

// largestCache is the largest non-dram level's last working set on side.
func largestCache(st *report.Staircase, side string) float64 {
	b := 0.0
	for _, l := range st.Levels {
		if l.Side == side && l.Name != "dram" {
			b = max(b, l.ToBytes)
		}
	}
	return b
}

// orderNotes checks each side's read ceilings are ordered l2 ≥ llc ≥
// dram and says, for each pair that is not, by how much and why it can
// happen.
func orderNotes(rep *report.Report) []string {
	var out []string
	for _, side := range []string{report.SideCPU, report.SideGPU} {
		cs := rep.Ceilings.CPU
		if side == report.SideGPU {
			cs = rep.Ceilings.GPU
		}
		keys := []string{"read_gbs_l2", "read_gbs_llc", "read_gbs"}
		for i := 0; i+1 < len(keys); i++ {
			a, b := cs[keys[i]], cs[keys[i+1]]
			if !(a > 0) || !(b > 0) || a >= b {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %.1f GB/s < %s %.1f GB/s: the levels' ceilings are not ordered; each is the best read at a working set inside its own plateau, so the smaller set ran slower on this run (a shorter timed pass carries more fixed cost per byte, and a shared machine's load moves between passes)",
				side, report.ReadCeilingName(keys[i]), a, report.ReadCeilingName(keys[i+1]), b))
		}
	}
	return out
}

// StaircasePrefix starts the summary lines about the staircase's levels.
const StaircasePrefix = "staircase: "
