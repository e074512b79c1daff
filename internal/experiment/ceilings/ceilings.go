package ceilings

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// cacheLevels are the cache-resident working sets the read ceilings are
// measured at besides DRAM, without a staircase: half the L2 and half the
// last-level cache as threads threads see them (from the machine's cpuid
// description; a level it does not report is skipped), each judging the
// working sets up to its capacity (the one level rule, machine.ReachOf).
func cacheLevels(dram float64, threads int) []experiment.RoofLevel {
	m := machine.Current()
	var out []experiment.RoofLevel
	for _, name := range []string{machine.L2, machine.LLC} {
		c := float64(m.CacheBytes(name, threads))
		if c > 0 && c/2 < dram {
			out = append(out, experiment.RoofLevel{Name: name, Bytes: c / 2, CPUCap: c})
		}
	}
	return out
}

// cacheCeilings measures the read ceilings at each cache-resident working
// set on both sides (FMA peaks do not depend on the working set: the DRAM
// run's are kept) and records them as read_gbs_<level> keys.
func cacheCeilings(e *env.Env, cfg experiment.RunConfig, dram experiment.Roofs, rep *report.Report) ([]experiment.RoofLevel, error) {
	dramBytes := float64(cfg.CeilingBytes)
	if dramBytes == 0 {
		dramBytes = float64(hostsimd.DefaultCeilingBytes())
	}
	threads := e.Host.ThreadCount()
	levels := cacheLevels(dramBytes, threads)
	if rep.Staircase != nil {
		// The levels the staircase found, each side at a working set
		// inside its own plateau.
		levels = stairRoofLevels(rep.Staircase, threads)
	}
	for i := range levels {
		l := &levels[i]
		rk, bk := experiment.LevelKeys(l.Name)
		gpuBytes := l.GPUBytes
		if gpuBytes == 0 && rep.Staircase == nil {
			gpuBytes = l.Bytes
		}
		if gpuBytes >= 4096 {
			if err := e.CheckStop("gpu cache-level ceilings"); err != nil {
				return nil, err
			}
			// Only the read ceiling depends on the level: the read
			// designs alone (compute.MeasureReadAt).
			e.Progressf("gpu read ceiling at the %s working set (%s)", l.Name, experiment.FmtBytes(gpuBytes))
			gc, err := compute.MeasureReadAtUntil(e.Device, uint64(gpuBytes), 0, e.Stopped)
			if errors.Is(err, compute.ErrStopped) {
				return nil, fmt.Errorf("gpu read ceiling (%s working set): %w", l.Name, env.ErrInterrupted)
			}
			if err != nil {
				return nil, fmt.Errorf("gpu read ceiling (%s working set): %w", l.Name, err)
			}
			gbs := gc.GBs
			if rep.Staircase != nil {
				gbs = max(gbs, plateauBest(rep.Staircase, report.SideGPU, l.Name))
			}
			l.GPU = timing.Roof{PeakGFLOPs: dram.GPU.PeakGFLOPs, BandwidthGBs: gbs}
			rep.Ceilings.GPU[rk] = gbs
			rep.Ceilings.GPU[bk] = float64(gc.Bytes)
		}
		if l.Bytes > 0 {
			if err := e.CheckStop("cpu cache-level ceilings"); err != nil {
				return nil, err
			}
			e.Progressf("cpu ceilings at the %s working set (%s)", l.Name, experiment.FmtBytes(l.Bytes))
			before := experiment.ProbeState(e.Host.ThreadCount())
			cc, err := e.Host.MeasureCeilings(hostsimd.CeilingOpts{Bytes: int64(l.Bytes), Budget: env.CeilingBudget(e.Measure), Stop: e.Stopped})
			if errors.Is(err, hostsimd.ErrStopped) {
				return nil, fmt.Errorf("cpu ceilings (%s working set): %w", l.Name, env.ErrInterrupted)
			}
			if err != nil {
				return nil, fmt.Errorf("cpu ceilings (%s working set): %w", l.Name, err)
			}
			rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: rk, GBs: cc.ReadGBs, Bytes: float64(cc.Bytes),
				State: experiment.SpanState(before, experiment.ProbeState(e.Host.ThreadCount())), Why: "first"})
			gbs := cc.ReadGBs
			if rep.Staircase != nil {
				gbs = max(gbs, plateauBest(rep.Staircase, report.SideCPU, l.Name))
			}
			l.CPU = timing.Roof{PeakGFLOPs: dram.CPU.PeakGFLOPs, BandwidthGBs: gbs}
			rep.Ceilings.CPU[rk] = gbs
			rep.Ceilings.CPU[bk] = l.Bytes
		}
	}
	return levels, nil
}

// CeilingCheck is the invariant that no kernel runs above 105% of the
// ceiling it is judged against: a kernel faster than its ceiling means the
// ceiling is not this machine's best. It returns one warning per row above
// it and one line for all the rows between 100% and 105% (each marked
// "above it" in the tables, so each is explained), or a line saying no
// row is above 105%.
func CeilingCheck(rep *report.Report) (warnings []string, ok string) {
	var near []string
	for _, m := range rep.Measurements {
		switch {
		case m.CeilingFrac > 1.05:
			warnings = append(warnings, fmt.Sprintf("%s %s %s %s: %.0f%% of its %s ceiling, above the 105%% the invariant allows: that ceiling is not this machine's best",
				m.Workload, m.Side, m.Variant, env.ParamLabel(m.Params), 100*m.CeilingFrac, m.Bound+"-bound"))
		case m.CeilingFrac > 1:
			near = append(near, fmt.Sprintf("%s %s %s %.1f%%", m.Workload, m.Side, m.Variant, 100*m.CeilingFrac))
		}
	}
	if len(near) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d row(s) between 100%% and 105%% of their ceilings (%s): within the ceilings' own run-to-run spread, so the ceiling is this machine's best as far as this run can tell",
			len(near), strings.Join(near, ", ")))
	}
	if len(warnings) == 0 || (len(near) > 0 && len(warnings) == 1) {
		ok = "ceiling check: no row runs above 105% of the ceiling of its own working set"
	}
	return warnings, ok
}

// RecheckCPUReadCeilings measures again, after the kernels, each CPU read
// ceiling that a memory-bound CPU row ran above. The ceilings are measured
// before the kernels, and a virtual machine's DRAM bandwidth can move
// over seconds (docs/METHOD.md, "Ceilings"); a row above
// its ceiling means the ceiling missed the machine's best, so that
// ceiling is read again right away and the better of the two passes is
// kept, every CPU row judged against it placed again, and the summary
// says so. A row still above 105% after that is left to CeilingCheck.
// TestRecheckCPUReadCeilings checks both outcomes.
// dramBytes is the DRAM ceiling's working set (0: the default); stop, when
// set, ends a measurement early (an error wrapping ErrInterrupted).
func RecheckCPUReadCeilings(rep *report.Report, dramBytes int64, threads int, progress func(string, ...any), stop func() bool) ([]string, error) {
	cs := rep.Ceilings.CPU
	if cs == nil {
		return nil, nil
	}
	var keys []string
	worst := map[string]*report.Measurement{}
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		if m.Side != report.SideCPU || m.Bound != timing.BoundMemory || m.CeilingFrac <= 1 {
			continue
		}
		k := m.ReadCeilingKey()
		if k == "read_gbs" && len(rep.CeilingPasses) > 0 {
			continue // judged by host state (judgeByState)
		}
		if w, ok := worst[k]; !ok || m.CeilingFrac > w.CeilingFrac {
			if !ok {
				keys = append(keys, k)
			}
			worst[k] = m
		}
	}
	var lines []string
	for _, k := range keys {
		old := cs[k]
		var bytes int64
		if lvl, ok := experiment.LevelOf(k); ok {
			_, bk := experiment.LevelKeys(lvl)
			bytes = int64(cs[bk])
		} else if k == "read_gbs" {
			bytes = dramBytes
			if bytes <= 0 {
				bytes = hostsimd.DefaultCeilingBytes()
			}
		} else if k == "cache_read_gbs" {
			bytes = int64(cs["cache_read_bytes"])
		}
		if bytes <= 0 || !(old > 0) {
			continue
		}
		if progress != nil {
			progress("cpu %s ceiling again (a row ran above it)", report.ReadCeilingName(k))
		}
		// On the threads the rows ran on (host --threads), as the first
		// pass was.
		rc, err := hostsimd.MeasureReadUntil(bytes, threads, 0, stop)
		if err != nil {
			return lines, fmt.Errorf("cpu %s ceiling, measured again: %w", report.ReadCeilingName(k), env.Stopped(err))
		}
		w := worst[k]
		line := fmt.Sprintf("%sCPU %s ceiling measured again after the kernels, as %s %s ran at %.0f%% of %.1f GB/s: %.1f GB/s (%s)", experiment.RecheckPrefix,
			report.ReadCeilingName(k), w.Workload, w.Variant, 100*w.CeilingFrac, old, rc.GBs, rc.Kernel)
		if rc.GBs <= old {
			lines = append(lines, line+"; the first pass stands")
			continue
		}
		cs[k] = rc.GBs
		lines = append(lines, line+"; the rows are judged against the better pass (this machine's bandwidth moved during the run)")
		for i := range rep.Measurements {
			m := &rep.Measurements[i]
			if m.Side != report.SideCPU || m.ReadCeilingKey() != k || m.Bound == "" {
				continue
			}
			experiment.Place(m, timing.Roof{PeakGFLOPs: experiment.PeakFor(cs, m, cs["fma_gflops"]), BandwidthGBs: rc.GBs}, m.Time().Median)
		}
	}
	return lines, nil
}

// dramPlan is how the DRAM-level ceilings' working sets were planned in
// the memory budget: what the caches call for on each side, what was
// planned, and where the budget cut the staircase.
type dramPlan struct {
	budget           int64
	source           string
	cpuWant, cpuPlan int64
	gpuWant, gpuPlan uint64
	gpuCapped        bool   // by the budget, not the binding limit
	stair            string // the staircase's cut ("": none)
}

// planDRAM plans the DRAM-level ceilings' working sets inside the memory
// budget before anything is allocated: on the CPU what the caches call
// for (machine.Machine.DRAMWant, and past every cache level the staircase
// found), on the GPU 256 MiB or 8× its largest cache level (on a CPU
// adapter, the CPU's caches too), each for hostsimd.CeilingArrays arrays
// at once, the GPU's also within the adapter's binding limit. A side the
// budget cut is measured over what fits and labelled capped (dramPlan.line).
// maxCeilingBinding bounds the GPU ceilings' buffers below 2^31 bytes,
// whatever larger binding an implementation offers: the kernels address
// them with 32-bit offsets, and a binding of exactly 2^31 bytes is where
// a signed 32-bit size turns negative in a driver or shader compiler.
const maxCeilingBinding = 1<<31 - 16

func planDRAM(e *env.Env, cfg experiment.RunConfig, st *report.Staircase, stairCap string) (gpuBytes uint64, cpuBytes int64, p dramPlan) {
	m := machine.Current()
	threads := e.Host.ThreadCount()
	p.budget, p.source, p.stair = env.MemoryBudget(cfg.QuickStaircase), m.BudgetSource(cfg.QuickStaircase), stairCap
	gpuCache := largestCache(st, report.SideGPU)
	if e.Device.Info.Type == wgpu.DeviceCPU {
		// A CPU adapter (llvmpipe) reads through the CPU's caches, which
		// its own sweep may not resolve on a busy machine.
		gpuCache = max(gpuCache, largestCache(st, report.SideCPU), float64(m.L3))
	}
	p.gpuWant = max(cfg.CeilingBytes, 256<<20, uint64(8*gpuCache))
	if cfg.CeilingBytes > 0 {
		p.gpuWant = max(cfg.CeilingBytes, uint64(8*gpuCache))
	}
	planned, gpuCapped := machine.Plan(int64(p.gpuWant), hostsimd.CeilingArrays, p.budget)
	lim := min(e.Device.Limits.MaxStorageBufferBindingSize, e.Device.Limits.MaxBufferSize, maxCeilingBinding) &^ 15
	p.gpuPlan = min(uint64(planned), lim) &^ 15
	p.gpuCapped = gpuCapped && uint64(planned) < lim
	if p.gpuPlan == lim && lim < uint64(8*gpuCache) {
		st.Notes = append(st.Notes, fmt.Sprintf("gpu dram ceilings over %s, the binding limit: less than 8× the largest cache level (%s)", experiment.FmtBytes(float64(lim)), experiment.FmtBytes(gpuCache)))
	}
	p.cpuWant = max(int64(cfg.CeilingBytes), m.DRAMWant(threads), int64(4*largestCache(st, report.SideCPU)))
	p.cpuPlan, _ = machine.Plan(p.cpuWant, hostsimd.CeilingArrays, p.budget)
	return p.gpuPlan, p.cpuPlan, p
}

// MemoryPrefix starts the summary line about the memory budget and the
// levels it capped.
const MemoryPrefix = "memory budget: "

// line is the one summary line on the budget: which DRAM levels it
// capped (measured over less than the caches call for, so possibly
// partly cache-resident), or that it capped none; capped says which. It
// also marks the capped sides' ceilings in rep (dram_capped, bytes_want).
func (p dramPlan) line(rep *report.Report) (line string, capped bool) {
	var levels []string
	if p.cpuPlan < p.cpuWant {
		levels = append(levels, fmt.Sprintf("cpu dram ceilings over %s per array (the caches call for %s)", experiment.FmtBytes(float64(p.cpuPlan)), experiment.FmtBytes(float64(p.cpuWant))))
		rep.Ceilings.CPU["dram_capped"], rep.Ceilings.CPU["bytes_want"] = 1, float64(p.cpuWant)
	}
	if p.gpuCapped {
		levels = append(levels, fmt.Sprintf("gpu dram ceilings over %s (the caches call for %s)", experiment.FmtBytes(float64(p.gpuPlan)), experiment.FmtBytes(float64(p.gpuWant))))
		rep.Ceilings.GPU["dram_capped"], rep.Ceilings.GPU["bytes_want"] = 1, float64(p.gpuWant)
	}
	if p.stair != "" {
		levels = append(levels, p.stair)
	}
	head := fmt.Sprintf("%s%s (%s)", MemoryPrefix, experiment.FmtBytes(float64(p.budget)), p.source)
	if len(levels) == 0 {
		return head + ": no level capped", false
	}
	return head + ": capped " + strings.Join(levels, "; ") + ": a capped level may be partly cache-resident, its ceiling an upper bound", true
}

// RaiseGPUComputeCeiling keeps the GPU compute ceiling from being left
// below a measured kernel: the FMA microbenchmarks (every design of
// compute.MeasureCeilings) are this adapter's best known FMA streamers,
// but a verified kernel that ran faster shows the adapter does more. The
// ceiling is then raised to the fastest such kernel's rate (the rows are
// placed again against it) and the summary says which kernel set it.
// TestRaiseGPUComputeCeiling checks both outcomes.
func RaiseGPUComputeCeiling(rep *report.Report) []string {
	return raiseComputeCeiling(rep, report.SideGPU, nil)
}

// RecheckCPUComputeCeiling does the same for the CPU's FMA peak, after
// measuring it again first (remeasure, when not nil: the peak's
// register-held chains are this CPU's best, so a kernel above them means
// the load moved since the first pass).
func RecheckCPUComputeCeiling(rep *report.Report, remeasure func() (float64, error)) []string {
	return raiseComputeCeiling(rep, report.SideCPU, remeasure)
}

func raiseComputeCeiling(rep *report.Report, side string, remeasure func() (float64, error)) []string {
	cs := rep.Ceilings.GPU
	if side == report.SideCPU {
		cs = rep.Ceilings.CPU
	}
	old := cs["fma_gflops"]
	if !(old > 0) {
		return nil
	}
	best := func() *report.Measurement {
		var b *report.Measurement
		for i := range rep.Measurements {
			m := &rep.Measurements[i]
			// An int8 row's ops are judged against the int8 peak, not
			// this one.
			if m.Side == side && m.Verified && m.Bound == timing.BoundCompute && m.PeakKey() != report.Int8PeakKey &&
				m.GFLOPs > cs["fma_gflops"] && (b == nil || m.GFLOPs > b.GFLOPs) {
				b = m
			}
		}
		return b
	}
	b := best()
	if b == nil {
		return nil
	}
	var lines []string
	if remeasure != nil {
		if g, err := remeasure(); err == nil && g > old {
			cs["fma_gflops"] = g
			lines = append(lines, fmt.Sprintf("%s%s FMA peak measured again after the kernels, as %s %s ran at %.1f GFLOP/s above %.1f: %.1f GFLOP/s",
				experiment.RecheckPrefix, strings.ToUpper(side), b.Workload, b.Variant, b.GFLOPs, old, g))
		}
	}
	peak := cs["fma_gflops"]
	if b = best(); b != nil {
		peak = b.GFLOPs
		lines = append(lines, fmt.Sprintf("%s%s FMA ceiling raised from %.1f to %.1f GFLOP/s, the rate of %s %s %s (verified): it ran faster than every FMA microbenchmark",
			experiment.RecheckPrefix, strings.ToUpper(side), cs["fma_gflops"], b.GFLOPs, b.Workload, b.Variant, env.ParamLabel(b.Params)))
		if side == report.SideGPU {
			lines[len(lines)-1] += " (fma() and x*a+b chains, two and four elements per invocation)"
		}
		cs["fma_gflops"] = peak
	}
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		if m.Side != side || m.Bound == "" {
			continue
		}
		bw := cs[m.ReadCeilingKey()]
		if !(bw > 0) {
			bw = cs["read_gbs"]
		}
		experiment.Place(m, timing.Roof{PeakGFLOPs: experiment.PeakFor(cs, m, peak), BandwidthGBs: bw}, m.Time().Median)
	}
	return lines
}

// estimateRate is the streaming rate the duration estimate assumes for
// the ceilings' and the staircase's bytes: a small virtual machine's
// DRAM, so the estimate errs long.
const estimateRate = 10e9

// tuneConfigBudgets is how many measurement budgets the duration
// estimate allows one configuration of a variant selection: its build
// (shaders compiled), a verified call, autotuneCalls timed calls and a
// second verification, at the workload's full size.
const tuneConfigBudgets = 3

// DurationLine is durationLine for cfg's workloads (the CLI says it on
// stderr when run starts).
func DurationLine(e *env.Env, cfg experiment.RunConfig) string {
	return durationLine(e, cfg, nil)
}

// durationLine says, before anything is measured, about how long the
// suite will take: the bytes the staircase and the ceilings stream at
// estimateRate, the variant selections the cache does not hold
// (experiment.PendingSelections; tuneConfigBudgets budgets a configuration), plus
// every planned measurement (both sides of each break-even batch, the
// timestamp cost's two) at its full time budget.
func durationLine(e *env.Env, cfg experiment.RunConfig, ds []*workload.Descriptor) string {
	cfg.Defaults()
	if ds == nil {
		ds, _ = cfg.Descriptors()
	}
	est := estimateOf(e, cfg, ds)
	line := fmt.Sprintf("run: about %.0f s to measure (estimate: the staircase and the ceilings about %.0f s at %.0f GB/s",
		est.total(), est.streamSeconds, estimateRate/1e9)
	if len(est.selecting) > 0 {
		line += fmt.Sprintf(", GPU variant selection for %s about %.0f s (%d configurations, none cached)",
			strings.Join(est.selecting, ", "), est.tuneSeconds, est.tuneConfigs)
	} else if est.tuned > 0 {
		line += ", GPU variants from the cache"
	}
	return line + fmt.Sprintf(", then %d measurements of at most %v each, %d workloads)", est.measurements, e.Measure.Budget, len(ds))
}

// runEstimate is durationLine's estimate in parts.
type runEstimate struct {
	streamSeconds float64  // the staircase's and the ceilings' bytes at estimateRate
	selecting     []string // workloads whose variant selection runs
	tuned         int      // workloads with a variant selection, cached or not
	tuneConfigs   int      // configurations the selections try
	tuneSeconds   float64
	measurements  int
	measSeconds   float64
}

func (r runEstimate) total() float64 { return r.streamSeconds + r.tuneSeconds + r.measSeconds }

// estimateOf computes the parts of durationLine for cfg (defaults filled).
func estimateOf(e *env.Env, cfg experiment.RunConfig, ds []*workload.Descriptor) runEstimate {
	quick := cfg.QuickStaircase
	m := machine.Current()
	threads := e.Host.ThreadCount()
	budget := float64(env.MemoryBudget(quick))
	runs, stairRuns, step := 7.0, 3.0, uint64(2)
	if quick {
		runs, stairRuns, step = 3, 2, 4
	}
	// Staircase: each point reads at least 256 MiB per run, with six
	// reader/layout candidates, as far as the DRAM level is usually found
	// (twice stairPast), within the budget.
	var stair float64
	top := min(2*stairPast(m, threads), uint64(budget))
	_, _, _ = sweepCPU(top, 0, step, func(b uint64) (report.StairPoint, error) {
		stair += max(float64(b), 256<<20) * stairRuns * 6
		return report.StairPoint{}, nil
	})
	// Ceilings: three arrays streamed by about ten kernels, all threads
	// and one, on the CPU; about twenty kernels over two buffers on the GPU.
	cpuB, _ := machine.Plan(m.DRAMWant(threads), hostsimd.CeilingArrays, int64(budget))
	ceil := float64(cpuB)*3*runs*10*2 + float64(min(cpuB, 256<<20))*2*runs*20
	var est runEstimate
	est.streamSeconds = (stair + ceil) / estimateRate
	for _, w := range ds {
		size := 1
		if bp := w.BatchParam(); bp != nil {
			size = *bp.Int(&cfg.Config)
		}
		batches := len(experiment.PowersOf4(1, size))
		if len(cfg.Batches) > 0 {
			batches = len(cfg.Batches)
		}
		est.measurements += 2*batches + 2
		if len(w.Variants) > 1 {
			est.tuned++
		}
	}
	est.selecting, est.tuneConfigs = experiment.PendingSelections(e, cfg, ds)
	est.tuneSeconds = float64(est.tuneConfigs) * tuneConfigBudgets * e.Measure.Budget.Seconds()
	est.measSeconds = float64(est.measurements) * e.Measure.Budget.Seconds()
	return est
}

// Ceilings measures the GPU and CPU ceilings and records them.
func Ceilings(e *env.Env, cfg experiment.RunConfig, rep *report.Report) (experiment.Roofs, error) {
	st, stairCap, err := staircase(e, cfg.QuickStaircase, rep)
	if err != nil {
		return experiment.Roofs{}, err
	}
	gpuBytes, cpuBytes, capped := planDRAM(e, cfg, st, stairCap)
	gc, err := gpuCeilings(e, gpuBytes, cfg.QuickStaircase, rep)
	if err != nil {
		return experiment.Roofs{}, err
	}
	all, err := cpuCeilings(e, cpuBytes, rep)
	if err != nil {
		return experiment.Roofs{}, err
	}
	roofs := experiment.Roofs{
		GPU: timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs},
		CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs},
	}
	if err := int8Peaks(e, &roofs, rep); err != nil {
		return experiment.Roofs{}, err
	}
	levels, err := cacheCeilings(e, cfg, roofs, rep)
	if err != nil {
		return experiment.Roofs{}, err
	}
	roofs.Levels = levels
	rep.Ceilings.CPU["bytes"] = float64(all.Bytes)
	rep.Ceilings.GPU["bytes"] = float64(gc.Bytes)
	// The budget's line is in the summary; a level it capped is also a
	// warning, so the default output says which.
	budgetLine, anyCapped := capped.line(rep)
	rep.Summary = append(rep.Summary, budgetLine)
	if anyCapped {
		rep.Warnings = append(rep.Warnings, budgetLine)
	}
	st.Notes = append(st.Notes, orderNotes(rep)...)
	for _, n := range st.Notes {
		rep.Summary = append(rep.Summary, StaircasePrefix+n)
	}
	return roofs, nil
}

// gpuCeilings measures the GPU's DRAM-level ceilings over gpuBytes (quick:
// fewer runs and FMA intensities, no stream kernels) and records them.
func gpuCeilings(e *env.Env, gpuBytes uint64, quick bool, rep *report.Report) (compute.Ceilings, error) {
	runs := 0
	var intensities []float64 // the default set
	if quick {
		// --quick: fewer runs, and the FMA chain at fewer intensities
		// (each streams the whole DRAM-level buffer).
		runs, intensities = 3, []float64{0.25, 4, 64}
	}
	if err := e.CheckStop("gpu ceilings"); err != nil {
		return compute.Ceilings{}, err
	}
	e.Progressf("gpu ceilings (read, write, copy, FMA intensities) over %s", experiment.FmtBytes(float64(gpuBytes)))
	gc, err := compute.MeasureCeilings(e.Device, compute.CeilingOptions{Bytes: gpuBytes, Runs: runs, Intensities: intensities, Stop: e.Stopped})
	env.FreeMemory()
	if errors.Is(err, compute.ErrStopped) {
		return gc, fmt.Errorf("gpu ceilings: %w", env.ErrInterrupted)
	}
	if err != nil {
		return gc, fmt.Errorf("gpu ceilings: %w", err)
	}
	rep.Warnings = append(rep.Warnings, gc.FailedLines()...)
	// BabelStream's kernels over the same bytes join the read and copy
	// ceilings where faster (not under --quick: five kernels × runs over
	// the DRAM-level arrays cost more than the ceilings themselves on a
	// software adapter).
	var sk map[string]float64
	if !quick {
		e.Progressf("gpu stream kernels (BabelStream's) over %s", experiment.FmtBytes(float64(gpuBytes)))
		if sk, err = streamIntoGPUCeilings(e, &gc); err != nil {
			return gc, err
		}
	}
	rep.Ceilings.GPU = map[string]float64{
		"read_gbs": gc.ReadGBs, "write_gbs": gc.WriteGBs, "copy_gbs": gc.CopyGBs, "fma_gflops": gc.PeakGFLOPs,
	}
	for k, v := range sk {
		rep.Ceilings.GPU[k] = v
	}
	for _, pt := range gc.FMA {
		rep.Ceilings.GPU[fmt.Sprintf("fma_gflops_at_%g", pt.Intensity)] = pt.GFLOPs
	}
	rep.Summary = append(rep.Summary, experiment.ReadCeilingSummary(gc))
	if gc.Timed != "timestamps" {
		rep.Warnings = append(rep.Warnings, "GPU ceilings timed by the host clock ("+gc.Timed+"): they include submission overhead")
	}
	env.FreeMemory()
	return gc, nil
}

// cpuCeilings measures the CPU's DRAM-level ceilings over cpuBytes per
// array, with the host's state around the first read pass, and records
// them.
func cpuCeilings(e *env.Env, cpuBytes int64, rep *report.Report) (hostsimd.Ceilings, error) {
	if err := e.CheckStop("cpu ceilings"); err != nil {
		return hostsimd.Ceilings{}, err
	}
	e.Progressf("cpu ceilings (read, write, copy, triad, FMA; all cores and one) over %s per array", experiment.FmtBytes(float64(cpuBytes)))
	before := experiment.ProbeState(e.Host.ThreadCount())
	all, _, keys, err := CPUCeilings(hostsimd.CeilingOpts{Bytes: cpuBytes, Budget: env.CeilingBudget(e.Measure), Stop: e.Stopped})
	env.FreeMemory()
	if errors.Is(err, hostsimd.ErrStopped) {
		return all, fmt.Errorf("cpu ceilings: %w", env.ErrInterrupted)
	}
	if err != nil {
		return all, err
	}
	rep.Ceilings.CPU = keys
	if n := StreamArrayNote(keys, all.Bytes); n != "" {
		rep.Summary = append(rep.Summary, n)
	}
	rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: "read_gbs", GBs: all.ReadGBs, Bytes: float64(all.Bytes),
		State: experiment.SpanState(before, experiment.ProbeState(e.Host.ThreadCount())), Why: "first"})
	return all, nil
}
