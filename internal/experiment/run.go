package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// AllWorkloads lists every workload of the default suite, in run order.
func AllWorkloads() []string { return workload.Names() }

// ParseWorkloads parses a comma-separated list ("all" for every one).
func ParseWorkloads(s string) ([]string, error) {
	ds, err := workload.Parse(s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out, nil
}

// RunConfig sizes the default suite.
type RunConfig struct {
	Workloads []string
	workload.Config
	// Batches for the break-even sweeps; nil: powers of 4 up to the size.
	Batches      []int
	CeilingBytes uint64
	// QuickStaircase sweeps the cache staircase in steps of 4× with
	// fewer runs (run --quick).
	QuickStaircase bool
	// QuickLatency measures the call latency anatomy with fewer rounds
	// and transfers up to 4 MiB (run --quick).
	QuickLatency bool
	// Retune re-measures the GPU variant selection instead of reading the
	// cache (see SelectVariant).
	Retune bool
	// Variant forces the GPU design of sweeps and experiments ("": the
	// design run chooses on this adapter, SelectVariant).
	Variant string
}

// Defaults fills zero fields with the suite's default sizes.
func (c *RunConfig) Defaults() {
	if len(c.Workloads) == 0 {
		c.Workloads = workload.Names()
	}
	c.Config.Defaults()
}

// descriptors resolves the configured workload names.
func (c *RunConfig) descriptors() ([]*workload.Descriptor, error) {
	out := make([]*workload.Descriptor, 0, len(c.Workloads))
	for _, name := range c.Workloads {
		d, err := workload.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Validate checks the sizes against each other, the host's memory and
// the device's limits before anything runs, and returns the workloads'
// descriptors. Its errors are UsageErrors.
func (c *RunConfig) Validate(d *wgpu.Device) ([]*workload.Descriptor, error) {
	ds, err := c.validate(d)
	return ds, Usage(err)
}

func (c *RunConfig) validate(d *wgpu.Device) ([]*workload.Descriptor, error) {
	if d == nil {
		return nil, fmt.Errorf("experiment: no device")
	}
	ds, err := c.descriptors()
	if err != nil {
		return nil, err
	}
	if err := c.Config.Validate(d.Limits, d.Info.Name); err != nil {
		return nil, err
	}
	for _, w := range ds {
		if c.Precision != "" && c.Precision != workload.PrecisionF32 && !w.Has("precision") {
			var have []string
			for _, d := range workload.All() {
				if d.Has("precision") {
					have = append(have, d.Name)
				}
			}
			return nil, Invalid(workload.ParamPrecision.Name, c.Precision, "%s has no %s variant (have %v; pick them as the workloads)", w.Name, c.Precision, have)
		}
		if w.Check != nil {
			if err := w.Check(c.Config); err != nil {
				return nil, fmt.Errorf("%s: %w", w.Name, err)
			}
		}
	}
	if c.Workgroup != 0 {
		if err := d.CheckWorkgroup(c.Workgroup); err != nil {
			return nil, &ParamError{Name: workload.ParamWG.Name, Limit: err.Error()}
		}
	}
	if c.Tile != 0 {
		if err := compute.CheckTile(d, c.Tile); err != nil {
			return nil, &ParamError{Name: workload.ParamTile.Name, Limit: err.Error()}
		}
	}
	if err := c.checkBatches(ds); err != nil {
		return nil, err
	}
	what := ""
	for _, p := range workload.Params() {
		if p.Kind != IntParam || p.Auto {
			continue
		}
		for _, w := range ds {
			if w.Has(p.Name) {
				what += " " + p.Name + " " + p.Value(c.Config)
				break
			}
		}
	}
	what = strings.TrimSpace(what)
	if err := checkHostMemory(what, dataBytes(c.Config, ds), c.QuickStaircase); err != nil {
		return nil, err
	}
	return ds, nil
}

// PowersOf4 returns from, 4·from, 16·from, … up to and including max
// (from 0 means 1).
func PowersOf4(from, to int) []int {
	var out []int
	for b := max(from, 1); b < to; b *= 4 {
		out = append(out, b)
	}
	return append(out, to)
}

// Ceilings measures the GPU and CPU ceilings and records them.
func (e *Env) Ceilings(cfg RunConfig, rep *report.Report) (Roofs, error) {
	st, err := e.staircase(cfg.QuickStaircase, rep)
	if err != nil {
		return Roofs{}, err
	}
	gpuBytes, cpuBytes, capped := e.planDRAM(cfg, st)
	runs := 0
	var intensities []float64 // the default set
	if cfg.QuickStaircase {
		// --quick: fewer runs, and the FMA chain at fewer intensities
		// (each streams the whole DRAM-level buffer).
		runs, intensities = 3, []float64{0.25, 4, 64}
	}
	if err := e.checkStop("gpu ceilings"); err != nil {
		return Roofs{}, err
	}
	e.Progressf("gpu ceilings (read, write, copy, FMA intensities) over %s", fmtBytes(float64(gpuBytes)))
	gc, err := compute.MeasureCeilings(e.Device, compute.CeilingOptions{Bytes: gpuBytes, Runs: runs, Intensities: intensities, Stop: e.Stopped})
	FreeMemory()
	if errors.Is(err, compute.ErrStopped) {
		return Roofs{}, fmt.Errorf("gpu ceilings: %w", ErrInterrupted)
	}
	if err != nil {
		return Roofs{}, fmt.Errorf("gpu ceilings: %w", err)
	}
	// BabelStream's kernels over the same bytes join the read and copy
	// ceilings where faster (not under --quick: five kernels × runs over
	// the DRAM-level arrays cost more than the ceilings themselves on a
	// software adapter).
	var sk map[string]float64
	if !cfg.QuickStaircase {
		e.Progressf("gpu stream kernels (BabelStream's) over %s", fmtBytes(float64(gpuBytes)))
		if sk, err = streamIntoGPUCeilings(e, &gc); err != nil {
			return Roofs{}, err
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
	rep.Summary = append(rep.Summary, readCeilingSummary(gc))
	if gc.Timed != "timestamps" {
		rep.Warnings = append(rep.Warnings, "GPU ceilings timed by the host clock ("+gc.Timed+"): they include submission overhead")
	}
	FreeMemory()
	if err := e.checkStop("cpu ceilings"); err != nil {
		return Roofs{}, err
	}
	e.Progressf("cpu ceilings (read, write, copy, triad, FMA; all cores and one) over %s per array", fmtBytes(float64(cpuBytes)))
	before := probeState(e.Host.ThreadCount())
	all, _, keys, err := CPUCeilings(hostsimd.CeilingOpts{Bytes: cpuBytes, Budget: ceilingBudget(e.Measure), Stop: e.Stopped})
	FreeMemory()
	if errors.Is(err, hostsimd.ErrStopped) {
		return Roofs{}, fmt.Errorf("cpu ceilings: %w", ErrInterrupted)
	}
	if err != nil {
		return Roofs{}, err
	}
	rep.Ceilings.CPU = keys
	rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: "read_gbs", GBs: all.ReadGBs, Bytes: float64(all.Bytes),
		State: spanState(before, probeState(e.Host.ThreadCount())), Why: "first"})
	roofs := Roofs{
		GPU: timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs},
		CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs},
	}
	if err := e.int8Peaks(&roofs, rep); err != nil {
		return Roofs{}, err
	}
	levels, err := e.cacheCeilings(cfg, roofs, rep)
	if err != nil {
		return Roofs{}, err
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

// RunSuite runs the default suite: ceilings, then each workload at its
// default size on both sides, then its break-even sweep, then the summary.
func (e *Env) RunSuite(cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	roofs, err := e.Ceilings(cfg, rep)
	if err != nil {
		return err
	}
	if err := e.callAnatomy(cfg.QuickLatency, rep); err != nil {
		return err
	}
	knobs := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
	var skips []string
	for _, w := range ds {
		err := e.runWorkload(w, cfg, knobs, roofs, rep)
		if err != nil && canSkip(err) {
			// This adapter cannot run the workload: say why and go on
			// with the others (and keep what was measured).
			info := e.Device.Info
			rep.Skipped = append(rep.Skipped, report.Skip{Workload: w.Name, Backend: info.Backend.String(), Adapter: info.Name, Reason: err.Error()})
			skips = append(skips, fmt.Sprintf("%s: SKIPPED on %s (%s): %v", w.Name, info.Backend, info.Name, err))
			continue
		}
		if err != nil {
			return err
		}
	}
	lines, err := recheckCPUReadCeilings(rep, int64(rep.Ceilings.CPU["bytes"]), e.Host.ThreadCount(), e.Progressf)
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	// DRAM-level CPU rows: each against its own host state's ceiling.
	dramBytes := int64(rep.Ceilings.CPU["bytes"])
	if dramBytes <= 0 {
		dramBytes = hostsimd.DefaultCeilingBytes()
	}
	lines, err = judgeByState(rep, roofs.CPU.PeakGFLOPs, func(why string) (report.CeilingPass, error) {
		e.Progressf("cpu read ceiling again (%s)", why)
		return measureReadPass(dramBytes, e.Host.ThreadCount(), why)
	})
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	rep.Summary = append(rep.Summary, raiseGPUComputeCeiling(rep)...)
	rep.Summary = append(rep.Summary, recheckCPUComputeCeiling(rep, func() (float64, error) {
		e.Progressf("cpu FMA peak again (a row ran above it)")
		c, err := e.Host.MeasureCeilings(hostsimd.CeilingOpts{Bytes: 1 << 20, Threads: e.Host.ThreadCount(), Stop: e.Stopped})
		return c.FMAGFLOPs, err
	})...)
	rep.Summary = append(rep.Summary, checkUnderCeiling(rep, roofs.GPU.BandwidthGBs)...)
	// The answer per workload first, then the details (timestamp cost);
	// the workloads skipped are answers too.
	roundTripShares(rep)
	rep.Summary = append(Summarize(rep), rep.Summary...)
	rep.Verdicts = append(rep.Verdicts, skips...)
	warns, ok := CeilingCheck(rep)
	rep.Warnings = append(rep.Warnings, warns...)
	if ok != "" {
		rep.Summary = append(rep.Summary, ok)
	}
	return nil
}

// runWorkload measures one workload of the suite: its variant selection,
// break-even sweep, the rows at its default size and the timestamp cost.
func (e *Env) runWorkload(w *workload.Descriptor, cfg RunConfig, knobs workload.Knobs, roofs Roofs, rep *report.Report) error {
	pr, err := e.Prepare(w, cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	batches := batchesFor(cfg, pr)
	kv, choice, err := e.SelectVariant(w, pr, pr.Size, knobs, cfg.Retune, rep)
	if err != nil {
		return err
	}
	if choice.Chosen != "" {
		rep.Summary = append(rep.Summary, choice.Summary())
	}
	// --batches may reach past the default size (up to searchCap, the
	// bound the adaptive search has too): those sizes come from data
	// prepared at the largest batch.
	big := pr
	if mb := slices.Max(append([]int{0}, batches...)); mb > pr.Size {
		c := cfg.Config
		*batchField(w, &c) = mb
		if big, err = w.Prepare(c); err != nil {
			return fmt.Errorf("%s at %s=%d: %w", w.Name, w.Batch, mb, err)
		}
	}
	at := func(n int) workload.Case {
		if n > pr.Size {
			return big.At(n, kv)
		}
		return pr.At(n, kv)
	}
	bes, sweep, err := e.breakEven(w, pr.Fixed, batches, at, roofs)
	if err != nil {
		return err
	}
	// The default size is a point of the sweep unless --batches left it
	// out: reuse its measurements rather than measure it twice. The
	// other points are summarized by the break-even, not repeated as rows.
	ms := atBatch(sweep, batches, pr.Size)
	if ms == nil {
		if ms, err = e.MeasureCase(at(pr.Size), roofs); err != nil {
			return err
		}
	}
	rep.Measurements = append(rep.Measurements, ms...)
	rep.BreakEvens = append(rep.BreakEvens, bes...)
	for _, be := range bes {
		rep.Summary = append(rep.Summary, CrossoverLines(be)...)
	}
	if s := outsideKernel(ms[0]); s != "" {
		rep.Summary = append(rep.Summary, s)
	}
	if err := e.timestampOverhead(at(pr.Size), ms[0], rep); err != nil {
		return err
	}
	return nil
}

// batchesFor is --batches, or powers of 4 from the workload's smallest
// batch up to its default size.
func batchesFor(cfg RunConfig, pr *workload.Prepared) []int {
	if len(cfg.Batches) > 0 {
		return cfg.Batches
	}
	return PowersOf4(pr.MinBatch, pr.Size)
}

// atBatch returns the GPU and CPU measurements a break-even sweep made at
// batch n (the sweep holds a GPU, CPU pair per batch), or nil.
func atBatch(sweep []report.Measurement, batches []int, n int) []report.Measurement {
	for i, b := range batches {
		if b == n && 2*i+1 < len(sweep) {
			return sweep[2*i : 2*i+2]
		}
	}
	return nil
}

// timestampOverhead measures the GPU side of c end to end with timestamp
// writes and without, back to back (the earlier measurement withTimer is
// not reused: the machine may have changed since), and reports the cost as
// a ratio with its 95% interval (timing.Ratio). An overhead whose interval
// lies wholly above TimestampOverheadLimit is flagged in the warnings.
// METHOD.md, "Profiling overhead".
func (e *Env) timestampOverhead(c workload.Case, withTimer report.Measurement, rep *report.Report) error {
	if e.Timer == nil || c.GPU == nil {
		return nil
	}
	measure := func(g workload.GPU, what string) (timing.Summary, error) {
		s, err := c.GPU(g)
		if err != nil {
			return timing.Summary{}, fmt.Errorf("%s (%s): %w", c.Name, what, err)
		}
		defer s.Close()
		res, err := MeasureSide("gpu "+c.Name+" ("+what+")", s, e.Measure)
		return res.Host, err
	}
	e.Progressf("gpu  %s timestamp overhead (timestamps on)", c.Name)
	on, err := measure(workload.GPU{Device: e.Device, Timer: e.Timer}, "timestamps on")
	if err != nil {
		return err
	}
	e.Progressf("gpu  %s timestamp overhead (timestamps off)", c.Name)
	off, err := measure(workload.GPU{Device: e.Device}, "timestamps off")
	if err != nil {
		return err
	}
	r := timing.Ratio(on, off)
	ci := fmt.Sprintf("95%% CI %+.1f%% … %+.1f%%", 100*(r.Lo-1), 100*(r.Hi-1))
	where := fmt.Sprintf("at %s (on %s, off %s)", ParamLabel(c.Params), on, off)
	line := fmt.Sprintf("%s: timestamp queries cost %+.1f%% end to end (%s) %s", c.Name, 100*(r.Median-1), ci, where)
	switch {
	case r.Lo > 1+TimestampOverheadLimit:
		line += fmt.Sprintf(": significantly above %.0f%%", 100*TimestampOverheadLimit)
		rep.Warnings = append(rep.Warnings, line)
	case r.Lo <= 1 && r.Hi >= 1:
		line = fmt.Sprintf("%s: timestamp queries' cost end to end is not distinguishable from zero (%s) %s", c.Name, ci, where)
	case r.Hi < 1:
		// Timestamps cannot make a call faster: a negative cost is the
		// load of the host changing between the two measurements.
		line = fmt.Sprintf("%s: timestamp queries' cost end to end is not measurable here: the calls ran faster with them on (%s), the host's load changed between the two measurements %s", c.Name, ci, where)
	}
	rep.Summary = append(rep.Summary, line)
	return nil
}

// TimestampOverheadLimit is the timestamp overhead (relative, end to end)
// above which a run is flagged when the whole 95% interval exceeds it.
const TimestampOverheadLimit = 0.05
