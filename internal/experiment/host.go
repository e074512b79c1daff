package experiment

import (
	"fmt"

	"github.com/klauspost/cpuid/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
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
	sk, err := streamIntoCPUCeilings(hostsimd.Host{}, &all)
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

// LevelChoicePrefix starts the summary lines RunHost writes about which
// level ran and why; HostSummary keeps them.
const LevelChoicePrefix = "level choice: "

// RunHost runs the CPU kernels at every requested SIMD level against the
// ceilings measured in the same run, on cfg.Threads threads.
func RunHost(cfg HostConfig, rep *report.Report, progress func(string)) error {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	auto := hostsimd.Host{Threads: cfg.Threads}
	say := func(f string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(f, a...))
		}
	}
	if cfg.Ceiling.Threads == 0 {
		// The ceilings of the threads the rows run on (--threads).
		cfg.Ceiling.Threads = auto.ThreadCount()
	}
	say("cpu ceilings (%d threads)", auto.ThreadCount())
	if cfg.Ceiling.Budget == 0 {
		cfg.Ceiling.Budget = ceilingBudget(cfg.Measure)
	}
	if cfg.Ceiling.CacheBytes == 0 {
		// The cache-resident rows' working set: their roof.
		cfg.Ceiling.CacheBytes = int64(cfg.NCached) * int64(cfg.Dim) * 4
	}
	say("cosine-single level choice (calibration, cached per CPU model)")
	calib := hostsimd.CurrentCalibration()
	before := probeState(cfg.Ceiling.Threads)
	all, _, keys, err := CPUCeilings(cfg.Ceiling)
	if err != nil {
		return err
	}
	rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: "read_gbs", GBs: all.ReadGBs, Bytes: float64(all.Bytes),
		State: spanState(before, probeState(cfg.Ceiling.Threads)), Why: "first"})
	if rep.Ceilings.CPU == nil {
		rep.Ceilings.CPU = map[string]float64{}
	}
	for k, v := range keys {
		rep.Ceilings.CPU[k] = v
	}
	rep.Ceilings.CPU["cache_read_gbs"] = all.CacheReadGBs
	rep.Ceilings.CPU["cache_read_bytes"] = float64(all.CacheBytes)
	roofs := Roofs{CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs}}
	// Cache-resident shapes are judged against the read ceiling over a
	// working set of their size.
	cacheRoofs := roofs
	if all.CacheReadGBs > 0 {
		cacheRoofs.CPU.BandwidthGBs = all.CacheReadGBs
		cacheRoofs.Key = "cache_read_gbs"
	}
	rep.Summary = append(rep.Summary, fmt.Sprintf("%sread ceiling %.1f GB/s on %d threads (%s) over %.0f MB, cache-resident %.1f GB/s over %d B (%s); one-vs-all-threads break-even: %s; calibration's dram class over %.0f MB (%.0f× the %.0f MB L3 cpuid reports) (%s)",
		LevelChoicePrefix, all.ReadGBs, all.Threads, all.ReadKernel, float64(all.Bytes)/1e6, all.CacheReadGBs, all.CacheBytes, all.CacheReadKernel, calib.Crossover,
		float64(calib.Single[hostsimd.ClassDRAM].Bytes)/1e6, float64(calib.Single[hostsimd.ClassDRAM].Bytes)/float64(max(cpuid.CPU.Cache.L3, 1)), float64(cpuid.CPU.Cache.L3)/1e6, calib.Source))
	// The out-of-cache rows are judged by their working set, as in run: a
	// --n small enough to sit partly in the last-level cache would read
	// above the DRAM ceiling (TestHostJudgesRowsByTheirWorkingSet). The
	// read ceilings at half the L2 and half the last-level cache judge
	// working sets up to levelReach times theirs.
	dramBytes := float64(all.Bytes)
	levels := cacheLevels(dramBytes)
	for i := range levels {
		l := &levels[i]
		say("cpu read ceiling at the %s working set (%.3g MB)", l.Name, l.Bytes/1e6)
		before := probeState(auto.ThreadCount())
		rc, err := hostsimd.MeasureRead(int64(l.Bytes), auto.ThreadCount(), 0)
		if err != nil {
			return fmt.Errorf("cpu read ceiling (%s working set): %w", l.Name, err)
		}
		l.CPU = timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: rc.GBs}
		rk, bk := levelKeys(l.Name)
		rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: rk, GBs: rc.GBs, Bytes: float64(rc.Bytes),
			State: spanState(before, probeState(auto.ThreadCount())), Why: "first"})
		rep.Ceilings.CPU[rk] = rc.GBs
		rep.Ceilings.CPU[bk] = l.Bytes
	}
	roofs.Levels = levels

	// Generate each shape's data once; every level runs the same bytes.
	type shape struct {
		cache string
		batch int
		pr    *workload.Prepared
	}
	var shapes []shape
	sizes := workload.HostSizes{Dim: cfg.Dim, N: cfg.N, NCached: cfg.NCached, Q: cfg.Q, Seed: cfg.Seed + 1}
	for _, d := range workload.All() {
		if d.Host == nil {
			continue
		}
		for _, hs := range d.Host(sizes) {
			c := hs.Config
			c.Defaults()
			say("data %s n=%d (%s)", d.Name, hs.Batch, hs.Cache)
			pr, err := d.Prepare(c)
			if err != nil {
				return fmt.Errorf("%s: %w", d.Name, err)
			}
			shapes = append(shapes, shape{hs.Cache, hs.Batch, pr})
		}
	}
	// The default (auto) pass first, then every requested level forced.
	for li := -1; li < len(cfg.Levels); li++ {
		isAuto, h := li < 0, auto
		if !isAuto {
			h.Level, h.FixLevel = cfg.Levels[li], true
			if err := h.Validate(); err != nil {
				return err
			}
		}
		for _, sh := range shapes {
			c := sh.pr.At(sh.batch, workload.Knobs{})
			variant := cpuVariant(h)
			if lvl, path, why := h.SingleChoice(int64(c.Bytes)); c.Name == workload.CosineSingle.Name {
				variant = fmt.Sprintf("%s/%s-t%d", lvl, path, h.ThreadsFor(int64(c.Bytes)))
				if isAuto {
					rep.Summary = append(rep.Summary, fmt.Sprintf("%s%s %s ran %s: %s", LevelChoicePrefix, c.Name, paramLabel(c.Params), variant, why))
				}
			}
			if isAuto {
				variant = "auto:" + variant
			}
			say("cpu %s %s %s", variant, c.Name, paramLabel(c.Params))
			side, err := c.CPU(h)
			if err != nil {
				return err
			}
			cache, rf := sh.cache, roofs
			if sh.cache == "resident" {
				rf = cacheRoofs
			} else if _, lvl, _ := roofs.forBytes(report.SideCPU, c.Bytes); lvl != "dram" {
				cache = lvl // the working set fits a cache level's reach
			}
			// DRAM-level rows carry the host's state around them.
			var before *report.HostState
			if cache != "resident" && cache == sh.cache {
				before = probeState(auto.ThreadCount())
			}
			res, err := measureSide("cpu "+c.Name, side, cfg.Measure)
			side.Close()
			if err != nil {
				return err
			}
			params := append(c.Params, p("cache", cache))
			m := measurement(c.Name, report.SideCPU, variant, params, res, c.Bytes, c.Flops, rf)
			if before != nil {
				m.State = before
				if after := probeState(auto.ThreadCount()); after.Label != before.Label {
					m.StateEnd = after
				}
			}
			rep.Measurements = append(rep.Measurements, m)
		}
	}
	lines, err := recheckCPUReadCeilings(rep, cfg.Ceiling.Bytes, auto.ThreadCount(), say)
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	// The DRAM-level rows: each against its own host state's ceiling.
	lines, err = judgeByState(rep, all.FMAGFLOPs, func(why string) (report.CeilingPass, error) {
		say("cpu read ceiling again (%s)", why)
		return measureReadPass(all.Bytes, all.Threads, why)
	})
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	// A row still above its ceiling is flagged "see warnings": say why.
	warns, _ := CeilingCheck(rep)
	rep.Warnings = append(rep.Warnings, warns...)
	return nil
}

// Info describes the CPU side the suite runs on, for the report.
func (c HostConfig) Info() report.HostInfo { return HostInfo(hostsimd.Host{Threads: c.Threads}) }

// Validate checks the sizes (positive; the working sets within the
// host's memory) before anything is measured. Its errors are UsageErrors.
func (c HostConfig) Validate() error {
	c.defaults()
	for _, x := range []struct {
		name string
		v    int
	}{{workload.ParamD.Name, c.Dim}, {workload.ParamN.Name, c.N}, {"n-cached", c.NCached}, {workload.ParamQ.Name, c.Q}} {
		if x.v <= 0 {
			return usage(invalid(x.name, x.v, "must be positive"))
		}
	}
	if err := CheckThreads(c.Threads); err != nil {
		return err
	}
	d, n, q := float64(c.Dim), float64(c.N), float64(c.Q)
	need := n*d*4 + n*16 + q*d*4 + q*float64(c.NCached)*4*3
	return CheckHostMemory(fmt.Sprintf("d %d, n %d, q %d", c.Dim, c.N, c.Q), need)
}
