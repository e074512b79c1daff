package suite

import (
	"fmt"
	"slices"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Run runs the default suite: ceilings, then each workload at its
// default size on both sides, then its break-even sweep, then the summary.
func Run(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	roofs, err := ceilings.Ceilings(e, cfg, rep)
	if err != nil {
		return err
	}
	if err := latency.CallAnatomy(e, cfg.QuickLatency, rep); err != nil {
		return err
	}
	knobs := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
	var skips []string
	for _, w := range ds {
		err := runWorkload(e, w, cfg, knobs, roofs, rep)
		if err != nil && experiment.CanSkip(err) {
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
	lines, err := ceilings.RecheckCPUReadCeilings(rep, int64(rep.Ceilings.CPU["bytes"]), e.Host.ThreadCount(), e.Progressf, e.Stopped)
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	// DRAM-level CPU rows: each against its own host state's ceiling.
	dramBytes := int64(rep.Ceilings.CPU["bytes"])
	if dramBytes <= 0 {
		dramBytes = hostsimd.DefaultCeilingBytes()
	}
	lines, err = experiment.JudgeByState(rep, roofs.CPU.PeakGFLOPs, func(why string) (report.CeilingPass, error) {
		e.Progressf("cpu read ceiling again (%s)", why)
		return experiment.MeasureReadPass(dramBytes, e.Host.ThreadCount(), why, e.Stopped)
	})
	rep.Summary = append(rep.Summary, lines...)
	if err != nil {
		return err
	}
	rep.Summary = append(rep.Summary, ceilings.RaiseGPUComputeCeiling(rep)...)
	rep.Summary = append(rep.Summary, ceilings.RecheckCPUComputeCeiling(rep, func() (float64, error) {
		e.Progressf("cpu FMA peak again (a row ran above it)")
		c, err := e.Host.MeasureCeilings(hostsimd.CeilingOpts{Bytes: 1 << 20, Threads: e.Host.ThreadCount(), Stop: e.Stopped})
		return c.FMAGFLOPs, err
	})...)
	rep.Summary = append(rep.Summary, experiment.CheckUnderCeiling(rep, roofs.GPU.BandwidthGBs)...)
	// The answer per workload first, then the details (timestamp cost);
	// the workloads skipped are answers too.
	latency.RoundTripShares(rep)
	latency.CheckFixedCosts(rep)
	rep.Summary = append(experiment.Summarize(rep), rep.Summary...)
	rep.Verdicts = append(rep.Verdicts, skips...)
	warns, ok := ceilings.CeilingCheck(rep)
	rep.Warnings = append(rep.Warnings, warns...)
	if ok != "" {
		rep.Summary = append(rep.Summary, ok)
	}
	return nil
}

// runWorkload measures one workload of the suite: its variant selection,
// break-even sweep, the rows at its default size and the timestamp cost.
func runWorkload(e *env.Env, w *workload.Descriptor, cfg experiment.RunConfig, knobs workload.Knobs, roofs experiment.Roofs, rep *report.Report) error {
	pr, err := experiment.Prepare(e, w, cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	batches := experiment.BatchesFor(cfg, pr)
	kv, choice, err := experiment.SelectVariant(e, w, cfg.Config, pr, pr.Size, knobs, cfg.Retune, rep)
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
		*crossover.BatchField(w, &c) = mb
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
	bes, sweep, err := breakEven(e, w, pr.Fixed, batches, at, roofs)
	if err != nil {
		return err
	}
	// The default size is a point of the sweep unless --batches left it
	// out: reuse its measurements rather than measure it twice. The
	// other points are summarized by the break-even, not repeated as rows.
	ms := atBatch(sweep, batches, pr.Size)
	if ms == nil {
		if ms, err = experiment.MeasureCase(e, at(pr.Size), roofs); err != nil {
			return err
		}
	}
	rep.Measurements = append(rep.Measurements, ms...)
	rep.BreakEvens = append(rep.BreakEvens, bes...)
	for _, be := range bes {
		rep.Summary = append(rep.Summary, crossover.CrossoverLines(be)...)
	}
	if s := experiment.OutsideKernel(ms[0]); s != "" {
		rep.Summary = append(rep.Summary, s)
	}
	if err := timestampOverhead(e, at(pr.Size), ms[0], rep); err != nil {
		return err
	}
	return nil
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
// METHOD.md, "Measurements and statistics" (profiling overhead).
func timestampOverhead(e *env.Env, c workload.Case, withTimer report.Measurement, rep *report.Report) error {
	if e.Timer == nil || c.GPU == nil {
		return nil
	}
	measure := func(g workload.GPU, what string) (timing.Summary, error) {
		s, err := c.GPU.BuildGPU(g)
		if err != nil {
			return timing.Summary{}, fmt.Errorf("%s (%s): %w", c.Name, what, err)
		}
		defer s.Close()
		res, err := experiment.MeasureSide("gpu "+c.Name+" ("+what+")", s, e.Measure)
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
	where := fmt.Sprintf("at %s (on %s, off %s)", env.ParamLabel(c.Params), on, off)
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

// breakEven sweeps batch sizes and fits both sides, on end-to-end time
// and (when timestamps work) on kernel time.
func breakEven(e *env.Env, w *workload.Descriptor, fixed []report.Param, batches []int, at func(n int) workload.Case, roofs experiment.Roofs) ([]report.BreakEven, []report.Measurement, error) {
	var all []report.Measurement
	var gpuE2E, gpuKernel, cpu []timing.Summary
	kernelOK := e.Timer != nil
	for _, n := range batches {
		ms, err := experiment.MeasureCase(e, at(n), roofs)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, ms...)
		g, c := ms[0], ms[1]
		gpuE2E = append(gpuE2E, g.EndToEnd)
		cpu = append(cpu, c.EndToEnd)
		if g.Kernel != nil {
			gpuKernel = append(gpuKernel, *g.Kernel)
		} else {
			kernelOK = false
		}
	}
	var out []report.BreakEven
	cpuSide, _ := experiment.ParseSide("cpu")
	gpuSide, _ := experiment.ParseSide("gpu")
	sides := [2]experiment.SideSpec{cpuSide, gpuSide}
	// Sizes where the faster side changes are measured again, the two
	// sides interleaved, for the verdict (timing.JudgeCrossover).
	pts := make([]timing.SearchPoint, len(batches))
	for i, n := range batches {
		pts[i] = timing.SearchPoint{N: n, A: cpu[i], B: gpuE2E[i], Faster: timing.Faster(cpu[i], gpuE2E[i])}
	}
	againE2E, againKernel := map[int]timing.SearchPoint{}, map[int]timing.SearchPoint{}
	disputed := timing.Disputed(pts)
	if len(disputed) > crossover.MaxRemeasured {
		disputed = disputed[:crossover.MaxRemeasured]
	}
	for _, n := range disputed {
		r, err := crossover.MeasureAgain(e, sides, at(n))
		if err != nil {
			return nil, nil, err
		}
		againE2E[n] = timing.SearchPoint{N: n, A: r[0].Host, B: r[1].Host, Faster: timing.Faster(r[0].Host, r[1].Host)}
		if r[1].Kernel != nil {
			againKernel[n] = timing.SearchPoint{N: n, A: r[0].Host, B: *r[1].Kernel, Faster: timing.Faster(r[0].Host, *r[1].Kernel)}
		}
	}
	be, err := crossover.CrossoverBreakEven(w, fixed, sides, "end-to-end", batches, cpu, gpuE2E, nil, againE2E)
	if err != nil {
		return nil, nil, err
	}
	largest := at(batches[len(batches)-1])
	crossover.TheorySpeedup(&be, largest, sides, roofs)
	if g := all[len(all)-2]; g.Kernel != nil && g.EndToEnd.Median > 0 {
		k, t := g.Kernel.Median, g.EndToEnd.Median
		be.Parts = []report.TimePart{
			{Name: "kernel", Seconds: k, Share: k / t, How: "GPU timestamps"},
			{Name: "upload q + submit + wait + readback", Seconds: max(0, t-k), Share: max(0, t-k) / t, How: "host clock minus the kernel"},
		}
	}
	out = append(out, be)
	if kernelOK {
		bk, err := crossover.CrossoverBreakEven(w, fixed, sides, "kernel", batches, cpu, gpuKernel, nil, againKernel)
		if err != nil {
			return nil, nil, err
		}
		crossover.TheorySpeedup(&bk, largest, sides, roofs)
		out = append(out, bk)
	}
	if e.Device != nil {
		for i := range out {
			out[i].Backend, out[i].Adapter = e.Device.Info.Backend.String(), e.Device.Info.Name
		}
	}
	return out, all, nil
}
