package ceilings

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// HostConfig configures the CPU-only suite (wgpu-prof host).
type HostConfig struct {
	Levels  []hostsimd.Level // nil: every level this CPU has
	Dim     int              // default 768
	N       int              // out-of-cache rows, default 200,000
	NCached int              // cache-resident rows, default 2,000
	Q       int              // batch queries, default 64
	Threads int              // 0: GOMAXPROCS
	Ceiling hostsimd.CeilingOpts
	Measure timing.MeasureOpts
	Seed    uint64
	// Stop, when set, is polled between the phases and within them
	// (between timed calls): once it returns true RunHost returns an
	// error wrapping ErrInterrupted, the report keeping what finished.
	Stop func() bool
}

func (c *HostConfig) defaults() {
	if c.Dim == 0 {
		c.Dim = 768
	}
	if c.N == 0 {
		c.N = 200_000
	}
	if c.NCached == 0 {
		c.NCached = 2_000
	}
	if c.Q == 0 {
		c.Q = 64
	}
	if len(c.Levels) == 0 {
		c.Levels = hostsimd.Available()
	}
}

// CPUCeilings measures the host's roofs on all cores and on one core and
// returns them as report keys.
func CPUCeilings(opts hostsimd.CeilingOpts) (all, one hostsimd.Ceilings, keys map[string]float64, err error) {
	all, err = hostsimd.MeasureCeilings(opts)
	if err != nil {
		return all, one, nil, fmt.Errorf("cpu ceilings: %w", err)
	}
	// BabelStream's kernels over the same bytes: where one is faster
	// than the micro-kernels, it sets the ceiling.
	sk, err := streamIntoCPUCeilings(hostsimd.Host{}, &all, opts.Stop)
	if err != nil {
		return all, one, nil, err
	}
	o1 := opts
	o1.Threads = 1
	one, err = hostsimd.MeasureCeilings(o1)
	if err != nil {
		return all, one, nil, fmt.Errorf("cpu ceilings (1 core): %w", err)
	}
	keys = map[string]float64{
		"read_gbs": all.ReadGBs, "write_gbs": all.WriteGBs, "copy_gbs": all.CopyGBs, "triad_gbs": all.TriadGBs, "fma_gflops": all.FMAGFLOPs,
		"read_gbs_1core": one.ReadGBs, "write_gbs_1core": one.WriteGBs, "copy_gbs_1core": one.CopyGBs, "triad_gbs_1core": one.TriadGBs, "fma_gflops_1core": one.FMAGFLOPs,
	}
	for k, v := range sk {
		keys[k] = v
	}
	return all, one, keys, nil
}

// RunHost runs the CPU kernels at every requested SIMD level against the
// ceilings measured in the same run, on cfg.Threads threads.
func RunHost(cfg HostConfig, rep *report.Report, progress func(string)) error {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	hr := &hostRun{cfg: cfg, rep: rep, auto: hostsimd.Host{Threads: cfg.Threads}, progress: progress}
	if hr.cfg.Ceiling.Stop == nil {
		hr.cfg.Ceiling.Stop = hr.stopped
	}
	if hr.cfg.Ceiling.Threads == 0 {
		// The ceilings of the threads the rows run on (--threads).
		hr.cfg.Ceiling.Threads = hr.auto.ThreadCount()
	}
	if err := hr.ceilings(); err != nil {
		return err
	}
	shapes, err := hr.shapes()
	if err != nil {
		return err
	}
	// The default (auto) pass first, then every requested level forced.
	for li := -1; li < len(hr.cfg.Levels); li++ {
		h := hr.auto
		if li >= 0 {
			h.Level, h.FixLevel = hr.cfg.Levels[li], true
			if err := h.Validate(); err != nil {
				return err
			}
		}
		for _, sh := range shapes {
			if err := hr.checkStop("before the next row"); err != nil {
				return err
			}
			if err := hr.row(h, li < 0, sh); err != nil {
				return err
			}
		}
	}
	return hr.judge()
}

// hostRun is one run of the host kernels: its ceilings and roofs, then
// the rows.
type hostRun struct {
	cfg        HostConfig
	rep        *report.Report
	auto       hostsimd.Host // the default settings (--threads)
	progress   func(string)
	all        hostsimd.Ceilings
	roofs      experiment.Roofs // DRAM and cache levels
	cacheRoofs experiment.Roofs // the cache-resident rows' roof
	dramCapped bool             // the memory budget cut the DRAM level's working set
}

// hostShape is one shape's data, generated once: every level runs the
// same bytes.
type hostShape struct {
	cache string
	batch int
	pr    *workload.Prepared
}

// stopped reports whether cfg.Stop asks the run to end.
func (hr *hostRun) stopped() bool { return hr.cfg.Stop != nil && hr.cfg.Stop() }

// checkStop returns an error wrapping ErrInterrupted, naming the phase,
// once cfg.Stop asks the run to end.
func (hr *hostRun) checkStop(phase string) error {
	if hr.stopped() {
		return fmt.Errorf("%s: %w", phase, env.ErrInterrupted)
	}
	return nil
}

func (hr *hostRun) say(f string, a ...any) {
	if hr.progress != nil {
		hr.progress(fmt.Sprintf(f, a...))
	}
}

// ceilings measures the CPU ceilings on the rows' threads (each pass with
// the host's state around it), the read ceilings at each cache level's
// working set, and sets the roofs the rows are judged against.
func (hr *hostRun) ceilings() error {
	cfg, rep := &hr.cfg, hr.rep
	hr.say("cpu ceilings (%d threads)", hr.auto.ThreadCount())
	if cfg.Ceiling.Budget == 0 {
		cfg.Ceiling.Budget = env.CeilingBudget(cfg.Measure)
	}
	if cfg.Ceiling.Bytes == 0 {
		// The DRAM level within the memory budget (planned before
		// anything is allocated; capped: said in the summary).
		cfg.Ceiling.Bytes, hr.dramCapped = hostsimd.DRAMWorkingSetPlan(cfg.Ceiling.Threads)
	}
	if cfg.Ceiling.CacheBytes == 0 {
		// The cache-resident rows' working set: their roof.
		cfg.Ceiling.CacheBytes = int64(cfg.NCached) * int64(cfg.Dim) * 4
	}
	hr.say("cosine-single level choice (calibration, cached per CPU model)")
	calib, err := hostsimd.CurrentCalibrationUntil(hr.stopped)
	if err != nil {
		return fmt.Errorf("cosine-single level choice: %w", env.Stopped(err))
	}
	before := experiment.ProbeState(cfg.Ceiling.Threads)
	if err := hr.checkStop("cpu ceilings"); err != nil {
		return err
	}
	all, _, keys, err := CPUCeilings(cfg.Ceiling)
	if err != nil {
		return env.Stopped(err)
	}
	hr.all = all
	if n := StreamArrayNote(keys, all.Bytes); n != "" {
		rep.Summary = append(rep.Summary, n)
	}
	rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: "read_gbs", GBs: all.ReadGBs, Bytes: float64(all.Bytes),
		State: experiment.SpanState(before, experiment.ProbeState(cfg.Ceiling.Threads)), Why: "first"})
	if rep.Ceilings.CPU == nil {
		rep.Ceilings.CPU = map[string]float64{}
	}
	for k, v := range keys {
		rep.Ceilings.CPU[k] = v
	}
	rep.Ceilings.CPU["cache_read_gbs"] = all.CacheReadGBs
	rep.Ceilings.CPU["cache_read_bytes"] = float64(all.CacheBytes)
	hr.roofs = experiment.Roofs{CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs}}
	// Cache-resident shapes are judged against the read ceiling over a
	// working set of their size.
	hr.cacheRoofs = hr.roofs
	if all.CacheReadGBs > 0 {
		hr.cacheRoofs.CPU.BandwidthGBs = all.CacheReadGBs
		hr.cacheRoofs.Key = "cache_read_gbs"
	}
	rep.Summary = append(rep.Summary, fmt.Sprintf("%sread ceiling %.1f GB/s on %d threads (%s) over %.0f MB, cache-resident %.1f GB/s over %d B (%s); one-vs-all-threads break-even: %s; calibration's dram class over %.0f MB (%.0f× the %.0f MB L3 cpuid reports) (%s)",
		experiment.LevelChoicePrefix, all.ReadGBs, all.Threads, all.ReadKernel, float64(all.Bytes)/1e6, all.CacheReadGBs, all.CacheBytes, all.CacheReadKernel, calib.Crossover,
		float64(calib.Single[hostsimd.ClassDRAM].Bytes)/1e6, float64(calib.Single[hostsimd.ClassDRAM].Bytes)/float64(max(machine.Current().L3, 1)), float64(machine.Current().L3)/1e6, calib.Source))
	levels, err := hr.levelCeilings(all)
	if err != nil {
		return err
	}
	hr.roofs.Levels = levels
	if hr.dramCapped {
		m := machine.Current()
		want := m.DRAMWant(cfg.Ceiling.Threads)
		rep.Ceilings.CPU["dram_capped"], rep.Ceilings.CPU["bytes_want"] = 1, float64(want)
		rep.Summary = append(rep.Summary, fmt.Sprintf("%s%s (%s): capped cpu dram ceilings over %s per array (the caches call for %s): a capped level may be partly cache-resident, its ceiling an upper bound",
			MemoryPrefix, experiment.FmtBytes(float64(m.Budget(false))), m.BudgetSource(false), experiment.FmtBytes(float64(all.Bytes)), experiment.FmtBytes(float64(want))))
	}
	return nil
}

// levelCeilings measures the CPU read ceilings at the cache levels'
// working sets, recorded as ceiling passes with the host's state around
// each.
func (hr *hostRun) levelCeilings(all hostsimd.Ceilings) ([]experiment.RoofLevel, error) {
	rep := hr.rep
	// The out-of-cache rows are judged by their working set, as in run: a
	// --n small enough to sit in the last-level cache would read above
	// the DRAM ceiling (TestHostJudgesRowsByTheirWorkingSet). The read
	// ceilings at half the L2 and half the last-level cache judge working
	// sets up to the cache's capacity (the one level rule,
	// machine.ReachOf: host has no staircase).
	threads := hr.auto.ThreadCount()
	levels := cacheLevels(float64(all.Bytes), threads)
	for i := range levels {
		l := &levels[i]
		hr.say("cpu read ceiling at the %s working set (%.3g MB)", l.Name, l.Bytes/1e6)
		before := experiment.ProbeState(threads)
		rc, err := hostsimd.MeasureReadUntil(int64(l.Bytes), threads, 0, hr.stopped)
		if err != nil {
			return nil, fmt.Errorf("cpu read ceiling (%s working set): %w", l.Name, env.Stopped(err))
		}
		l.CPU = timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: rc.GBs}
		rk, bk := experiment.LevelKeys(l.Name)
		rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: rk, GBs: rc.GBs, Bytes: float64(rc.Bytes),
			State: experiment.SpanState(before, experiment.ProbeState(threads)), Why: "first"})
		rep.Ceilings.CPU[rk] = rc.GBs
		rep.Ceilings.CPU[bk] = l.Bytes
	}
	return levels, nil
}

// shapes generates the data of every workload's host shapes.
func (hr *hostRun) shapes() ([]hostShape, error) {
	cfg := hr.cfg
	var shapes []hostShape
	sizes := workload.HostSizes{Dim: cfg.Dim, N: cfg.N, NCached: cfg.NCached, Q: cfg.Q, Seed: cfg.Seed + 1}
	for _, d := range workload.All() {
		for _, hs := range d.Host(sizes) {
			c := hs.Config
			c.Defaults()
			if err := hr.checkStop("host data"); err != nil {
				return nil, err
			}
			hr.say("data %s n=%d (%s)", d.Name, hs.Batch, hs.Cache)
			pr, err := d.Prepare(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", d.Name, err)
			}
			shapes = append(shapes, hostShape{hs.Cache, hs.Batch, pr})
		}
	}
	return shapes, nil
}

// row measures one shape with the settings h (isAuto: the default pass,
// whose level choice the summary states) and files the row, judged by
// its working set; DRAM-level rows carry the host's state around them.
func (hr *hostRun) row(h hostsimd.Host, isAuto bool, sh hostShape) error {
	rep := hr.rep
	c := sh.pr.At(sh.batch, workload.Knobs{})
	variant := experiment.CpuVariant(h, nil)
	if lvl, path, why := h.SingleChoice(int64(c.Bytes)); c.Name == workload.CosineSingle.Name {
		variant = fmt.Sprintf("%s/%s-t%d", lvl, path, h.ThreadsFor(int64(c.Bytes)))
		if isAuto {
			rep.Summary = append(rep.Summary, fmt.Sprintf("%s%s %s ran %s: %s", experiment.LevelChoicePrefix, c.Name, env.ParamLabel(c.Params), variant, why))
		}
	}
	if isAuto {
		variant = "auto:" + variant
	}
	hr.say("cpu %s %s %s", variant, c.Name, env.ParamLabel(c.Params))
	side, err := c.CPU.BuildCPU(h)
	if err != nil {
		return err
	}
	// The label is the one level rule's (through the roofs' reach); a
	// "resident" shape keeps its own roof while the rule places it in a
	// cache, and is judged and labelled dram where it does not fit one.
	cache, rf := sh.cache, hr.roofs
	_, lvl, _ := hr.roofs.ForBytes(report.SideCPU, c.Bytes)
	switch {
	case sh.cache == "resident" && lvl != machine.DRAM:
		rf = hr.cacheRoofs
	case sh.cache == "resident":
		cache = machine.DRAM
	default:
		cache = lvl // the working set's level: a cache's, or dram
	}
	var before *report.HostState
	if cache == machine.DRAM {
		before = experiment.ProbeState(hr.auto.ThreadCount())
	}
	res, err := experiment.MeasureSide("cpu "+c.Name, experiment.Stoppable(side, hr.checkStop), hr.cfg.Measure)
	side.Close()
	if err != nil {
		return err
	}
	params := append(c.Params, experiment.ParamOf("cache", cache))
	m := experiment.Measurement(c.Name, report.SideCPU, variant, params, res, c.Bytes, c.Flops, rf)
	if before != nil {
		m.State = before
		if after := experiment.ProbeState(hr.auto.ThreadCount()); after.Label != before.Label {
			m.StateEnd = after
		}
	}
	rep.Measurements = append(rep.Measurements, m)
	return nil
}

// judge rechecks the read ceilings the rows ran above, judges the
// DRAM-level rows against their own host state's ceiling, and warns of a
// row still above its ceiling.
func (hr *hostRun) judge() error {
	rep := hr.rep
	lines, err := RecheckCPUReadCeilings(rep, hr.cfg.Ceiling.Bytes, hr.auto.ThreadCount(), hr.say, hr.stopped)
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	lines, err = experiment.JudgeByState(rep, hr.all.FMAGFLOPs, func(why string) (report.CeilingPass, error) {
		hr.say("cpu read ceiling again (%s)", why)
		return experiment.MeasureReadPass(hr.all.Bytes, hr.all.Threads, why, hr.stopped)
	})
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	rep.Summary = append(rep.Summary, RecheckCPUComputeCeiling(rep, func() (float64, error) {
		hr.say("cpu FMA peak again (a row ran above it)")
		c, err := hr.auto.MeasureCeilings(hostsimd.CeilingOpts{Bytes: 1 << 20, Threads: hr.cfg.Ceiling.Threads, Stop: hr.stopped})
		return c.FMAGFLOPs, env.Stopped(err)
	})...)
	// A row still above its ceiling is flagged "see warnings": say why.
	warns, _ := CeilingCheck(rep)
	rep.Warnings = append(rep.Warnings, warns...)
	// A compute ceiling measured again and stopped keeps the first pass:
	// the run still says it ended early.
	return hr.checkStop("the ceiling rechecks")
}

// Info describes the CPU side the suite runs on, for the report.
func (c HostConfig) Info() report.HostInfo {
	return env.HostInfo(hostsimd.Host{Threads: c.Threads})
}

// Validate checks the sizes (positive; the working sets within the
// host's memory) before anything is measured. Its errors are UsageErrors.
func (c HostConfig) Validate() error {
	c.defaults()
	for _, x := range []struct {
		name string
		v    int
	}{{workload.ParamD.Name, c.Dim}, {workload.ParamN.Name, c.N}, {"n-cached", c.NCached}, {workload.ParamQ.Name, c.Q}} {
		if x.v <= 0 {
			return env.Usage(env.Invalid(x.name, x.v, "must be positive"))
		}
	}
	if err := env.CheckThreads(c.Threads); err != nil {
		return err
	}
	d, n, q := float64(c.Dim), float64(c.N), float64(c.Q)
	// The DRAM rows with their reference, the queries, and cosine-batch's
	// 4 × n-cached rows with 24 bytes a score (reference, tolerance, output).
	nb := 4 * float64(c.NCached)
	need := n*d*4 + n*16 + q*d*4 + nb*d*4 + q*nb*24
	return env.CheckHostMemory(fmt.Sprintf("d %d, n %d, q %d", c.Dim, c.N, c.Q), need)
}
