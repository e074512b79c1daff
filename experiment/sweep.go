package experiment

import (
	"errors"
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/gpu"
	"github.com/wgpu-prof/wgpu-prof/kernels"
	"math"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/workload"
)

// Sweep times the GPU side of kernel at each workgroup size (tiles nil) or
// each tile size, at the workload's default size. Configurations the
// adapter rejects are listed with the reason; a wrong result is an error,
// never a point.
func (e *Env) Sweep(kernel string, cfg RunConfig, sizes, tiles []int, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	knob, values := "wg", sizes
	if len(tiles) > 0 {
		knob, values = "tile", tiles
	}
	if !w.Has(knob) {
		var have []string
		for _, d := range workload.All() {
			if d.Has(knob) {
				have = append(have, d.Name)
			}
		}
		return usage(fmt.Errorf("kernel %q has no %s knob to sweep; the %s sweep applies to %v", kernel, knob, knob, have))
	}
	pr, err := w.Prepare(cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	s := report.Sweep{Name: "workgroup size", Workload: kernel, Side: report.SideGPU}
	if knob == "tile" {
		s.Name = "tile size"
	}
	best := math.Inf(1)
	for _, v := range values {
		k := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
		label := fmt.Sprintf("wg=%d", v)
		check := e.Device.CheckWorkgroup
		if knob == "tile" {
			k.Tile = v
			label = fmt.Sprintf("tile=%d (wg=%d)", v, (v/4)*(v/4))
			check = func(t int) error { return kernels.CheckTile(e.Device, t) }
		} else {
			k.Workgroup = v
		}
		if err := check(v); err != nil {
			s.Rejected = append(s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
			continue
		}
		c := pr.At(pr.Size, k)
		c.CPU = nil
		ms, err := e.measureCase(c, Roofs{})
		if err != nil {
			if errors.Is(err, ErrWrongResult) {
				return err
			}
			var ge *gpu.GPUError
			if errors.Is(err, gpu.ErrLimit) || errors.As(err, &ge) {
				s.Rejected = append(s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
				continue
			}
			return err
		}
		m := ms[0]
		t := m.Time()
		s.Points = append(s.Points, report.SweepPoint{Label: label, Params: append(m.Params, p("variant", m.Variant)), Time: t, GBs: m.GBs})
		rep.Measurements = append(rep.Measurements, m)
		if t.Median < best {
			best, s.Best = t.Median, label
		}
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("sweep %s: the adapter rejected every configuration: %v", kernel, s.Rejected)
	}
	rep.Sweeps = append(rep.Sweeps, s)
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s sweep: best %s at %s", kernel, s.Name, s.Best, timing.FormatSeconds(best)))
	return nil
}

// MemCompute runs the memory-vs-compute experiment of docs/METHOD.md on
// the GPU: A (reads only), B (arithmetic only), C (the full kernel), each
// verified, then classifies.
func (e *Env) MemCompute(kernel string, cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	if w.MemCompute == "" {
		var have []string
		for _, d := range workload.All() {
			if d.MemCompute != "" {
				have = append(have, d.Name)
			}
		}
		return fmt.Errorf("experiment memory-compute: kernel %q has no memory-vs-compute shaders (have %v)", kernel, have)
	}
	wg := cfg.Workgroup
	if wg == 0 {
		wg = kernels.DefaultWorkgroup
	}
	v := workload.MemComputeData(cfg.Config)
	mc, err := kernels.NewMemCompute(e.Device, w.MemCompute, v, cfg.Dim, wg)
	if err != nil {
		return err
	}
	defer mc.Release()
	var sums [3]timing.Summary
	for i, v := range []string{kernels.VariantMemory, kernels.VariantCompute, kernels.VariantFull} {
		e.progress("gpu  memory-compute %s %s", kernel, v)
		// Run verifies every output itself (kernels.ErrVerify on mismatch).
		res, err := timing.Measure(e.Measure, func() (timing.Sample, error) {
			return workload.SampleOf(mc.Run(v, e.Timer))
		})
		if err != nil {
			return fmt.Errorf("memory-compute %s variant %s: %w", kernel, v, err)
		}
		sums[i] = res.Host
		if res.Kernel != nil {
			sums[i] = *res.Kernel
		}
	}
	cl := timing.ClassifyMemCompute(sums[0], sums[1], sums[2])
	rep.Experiments = append(rep.Experiments, report.Experiment{
		Workload: kernel, Side: report.SideGPU, Params: []report.Param{p("d", cfg.Dim), p("n", cfg.N), p("wg", wg)},
		A: sums[0], B: sums[1], C: sums[2], Classification: cl,
	})
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s: %s — %s", kernel, cl.Kind, cl.Explanation))
	return nil
}
