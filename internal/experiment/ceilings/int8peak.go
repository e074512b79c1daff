package ceilings

import (
	"errors"
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// int8Peaks measures each side's integer dot-product peak
// (report.Int8PeakKey: compute.MeasureInt8Peak's dot4I8Packed chains on
// the GPU, hostsimd's level instructions on the CPU's threads) into rep's
// Ceilings and roofs, so int8 rows are judged in integer ops against the
// instructions they run, not against the FMA peak. A GPU that cannot run
// the packed dot product is left without one (a warning).
func int8Peaks(e *env.Env, roofs *experiment.Roofs, rep *report.Report) error {
	if err := e.CheckStop("int8 peaks"); err != nil {
		return err
	}
	e.Progressf("int8 dot-product peaks (dot4I8Packed on the GPU, the host level's instructions on the CPU)")
	if e.Device != nil {
		gp, err := compute.MeasureInt8Peak(e.Device, compute.CeilingOptions{Stop: e.Stopped})
		switch {
		case errors.Is(err, compute.ErrStopped):
			return fmt.Errorf("gpu int8 peak: %w", env.ErrInterrupted)
		case errors.Is(err, compute.ErrVerify):
			return fmt.Errorf("gpu int8 peak: %w", err)
		case err != nil:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("GPU int8 dot-product peak not measured (%v): int8 GPU rows are judged against the FMA peak", err))
		default:
			rep.Ceilings.GPU[report.Int8PeakKey] = gp.GOPs
			roofs.GPUInt8 = gp.GOPs
			rep.Summary = append(rep.Summary, fmt.Sprintf("GPU int8 dot-product peak: %s (%s, the fastest of %d designs, %s; integer ops, 8 per packed dot)", report.FormatOpRate(gp.GOPs), gp.Kernel, len(gp.Tried), gp.Timed))
		}
	}
	cp, err := e.Host.MeasureInt8Peak(e.Host.ThreadCount())
	if err != nil {
		return fmt.Errorf("cpu int8 peak: %w", err)
	}
	rep.Ceilings.CPU[report.Int8PeakKey] = cp.GOPs
	roofs.CPUInt8 = cp.GOPs
	rep.Summary = append(rep.Summary, fmt.Sprintf("CPU int8 dot-product peak: %s (%s, %d threads; integer ops, 2 per byte product)", report.FormatOpRate(cp.GOPs), cp.Kernel, cp.Threads))
	return nil
}
