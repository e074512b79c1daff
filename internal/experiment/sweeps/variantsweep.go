package sweeps

import (
	"errors"
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Variants measures every GPU variant of kernel side by side at its
// default size (full measurements, n ≥ 10), the default one included,
// and names the fastest and the margin over the default.
func Variants(e *env.Env, kernel string, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	if len(w.Variants) == 0 {
		return fmt.Errorf("kernel %q lists no GPU variants", kernel)
	}
	pr, err := w.Prepare(cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	s := report.Sweep{Name: "variant", Workload: kernel, Side: report.SideGPU}
	best, def := 0.0, 0.0
	configs := experiment.VariantConfigs(w, pr, pr.Size, workload.Knobs{Tile: cfg.Tile}, experiment.WorkgroupsToTry(e, cfg.Workgroup))
	for i, vc := range configs {
		c := vc.C
		c.CPU = nil
		ms, err := experiment.MeasureCase(e, c, experiment.Roofs{})
		if err != nil {
			var ge *wgpu.GPUError
			if errors.Is(err, wgpu.ErrLimit) || errors.As(err, &ge) || errors.Is(err, experiment.ErrWrongResult) || errors.Is(err, compute.ErrUnsupported) {
				s.Rejected = append(s.Rejected, report.Rejection{Label: c.Variant, Reason: err.Error()})
				if !vc.Quiet {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s variant %s skipped: %v", kernel, c.Variant, err))
				}
				continue
			}
			return err
		}
		m := ms[0]
		t := m.Time()
		s.Points = append(s.Points, report.SweepPoint{Label: c.Variant, Params: append(m.Params, experiment.ParamOf("variant", m.Variant)), Time: t, GBs: m.GBs})
		rep.Measurements = append(rep.Measurements, m)
		if i == 0 {
			def = t.Median
		}
		if best == 0 || t.Median < best {
			best, s.Best = t.Median, c.Variant
		}
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("sweep variant %s: no variant ran: %v", kernel, s.Rejected)
	}
	rep.Sweeps = append(rep.Sweeps, s)
	line := fmt.Sprintf("%s variant sweep: best %s at %s", kernel, s.Best, timing.FormatSeconds(best))
	if def > 0 {
		line += fmt.Sprintf(", %.2f× the default %s (%s)", def/best, s.Points[0].Label, timing.FormatSeconds(def))
	}
	rep.Summary = append(rep.Summary, line)
	return nil
}
