package plan

import (
	"errors"
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// anatomyTaxes are the GPU taxes read from the latency anatomy of the
// device (compute.MeasureLatency): the launch tax is the anatomy's fixed
// cost of a call (its dispatch fit at K = 0, or the tiny call), the rates
// the slopes of its upload and readback curves.
type anatomyTaxes struct {
	e   *env.Env
	cfg latency.Config
	rep *report.Report
}

// Taxes returns the source of the GPU taxes on e's device: the latency
// anatomy, reused from rep when it holds one for this adapter, else
// measured (with cfg) into it.
func Taxes(e *env.Env, cfg latency.Config, rep *report.Report) TaxSource {
	return anatomyTaxes{e: e, cfg: cfg, rep: rep}
}

// GPUTaxes measures (or reuses) the anatomy and reads the taxes from it.
func (t anatomyTaxes) GPUTaxes() (GPUTaxes, error) {
	a := t.rep.Latency
	if a == nil || a.Adapter != t.e.Device.Info.Name {
		var err error
		if a, err = latency.Measure(t.e, t.cfg); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		t.rep.Latency = a
	}
	return TaxesFromAnatomy(a)
}

// TaxesFromAnatomy reads the GPU taxes from an anatomy, each with its 95%
// CI: the launch tax from the dispatch fit's overhead (its standard
// error) or the tiny call's median; the upload and readback rates from
// the fits' seconds per byte.
func TaxesFromAnatomy(a *timing.Anatomy) (GPUTaxes, error) {
	if a == nil {
		return GPUTaxes{}, fmt.Errorf("GPU taxes: no latency anatomy")
	}
	var t GPUTaxes
	f := a.DispatchFit
	if f.DoF > 0 && f.Overhead > 0 {
		t.Launch = report.Estimate{Value: f.Overhead, Lo: math.Max(0, f.Overhead-1.96*f.SEOverhead), Hi: f.Overhead + 1.96*f.SEOverhead}
	} else {
		t.Launch = report.Estimate{Value: a.Tiny.Median, Lo: a.Tiny.Lo, Hi: a.Tiny.Hi}
	}
	rate := func(name string, f timing.LinearFit) (report.Estimate, error) {
		if !(f.PerItem > 0) {
			return report.Estimate{}, fmt.Errorf("GPU taxes: the anatomy's %s curve has no slope (%g s/byte)", name, f.PerItem)
		}
		lo, hi := f.PerItem+1.96*f.SEPerItem, f.PerItem-1.96*f.SEPerItem
		e := report.Estimate{Value: 1 / f.PerItem, Lo: 1 / lo, Hi: math.Inf(1)}
		if hi > 0 {
			e.Hi = 1 / hi
		}
		return e, nil
	}
	var err error
	if t.Upload, err = rate("upload", a.UploadFit); err != nil {
		return GPUTaxes{}, err
	}
	if t.Readback, err = rate("readback", a.ReadbackFit); err != nil {
		return GPUTaxes{}, err
	}
	t.Source = fmt.Sprintf("the latency anatomy of %s (%d calls, each verified): the launch tax is its fixed cost of a call (one submit, one wait, map and read back), the rates its upload and readback curves' slopes", a.Adapter, a.Calls)
	return t, nil
}

// LatencyConfigFor is the anatomy plan measures: run's (quick: fewer
// rounds, transfers up to 4 MiB).
func LatencyConfigFor(quick bool) latency.Config {
	if quick {
		return latency.QuickLatency
	}
	return latency.Config{}
}

// RoofBytes is the buffer size GPURoof streams.
const RoofBytes = 64 << 20

// roofOptions are the ceilings GPURoof measures over bytes: under quick
// fewer runs and the FMA chain at fewer intensities, as run --quick
// measures them.
func roofOptions(e *env.Env, bytes uint64, quick bool) compute.CeilingOptions {
	o := compute.CeilingOptions{Bytes: bytes, Stop: e.Stopped}
	if quick {
		o.Runs, o.Intensities = 3, []float64{0.25, 4, 64}
	}
	return o
}

// GPURoof measures the GPU's read bandwidth and FMA ceilings over
// buffers of bytes (the roof a kernel's time is placed under; quick:
// fewer runs and intensities) into rep's GPU ceilings, unless rep has
// them already; withInt8, the int8 dot-product peak too
// (report.Int8PeakKey).
func GPURoof(e *env.Env, bytes uint64, withInt8, quick bool, rep *report.Report) (timing.Roof, error) {
	if withInt8 && !(rep.Ceilings.GPU[report.Int8PeakKey] > 0) {
		e.Progressf("gpu int8 dot-product peak")
		p, err := compute.MeasureInt8Peak(e.Device, compute.CeilingOptions{Stop: e.Stopped})
		if err != nil {
			return timing.Roof{}, fmt.Errorf("gpu int8 peak: %w", err)
		}
		if rep.Ceilings.GPU == nil {
			rep.Ceilings.GPU = map[string]float64{}
		}
		rep.Ceilings.GPU[report.Int8PeakKey] = p.GOPs
	}
	if g := rep.Ceilings.GPU; g["read_gbs"] > 0 && g["fma_gflops"] > 0 {
		return timing.Roof{PeakGFLOPs: g["fma_gflops"], BandwidthGBs: g["read_gbs"]}, nil
	}
	i8 := rep.Ceilings.GPU[report.Int8PeakKey]
	e.Progressf("gpu ceilings (read, write, copy, FMA)")
	gc, err := compute.MeasureCeilings(e.Device, roofOptions(e, bytes, quick))
	if errors.Is(err, compute.ErrStopped) {
		return timing.Roof{}, fmt.Errorf("gpu ceilings: %w", env.ErrInterrupted)
	}
	if err != nil {
		return timing.Roof{}, fmt.Errorf("gpu ceilings: %w", err)
	}
	rep.Ceilings.GPU = map[string]float64{"read_gbs": gc.ReadGBs, "write_gbs": gc.WriteGBs, "copy_gbs": gc.CopyGBs, "fma_gflops": gc.PeakGFLOPs}
	rep.Warnings = append(rep.Warnings, gc.FailedLines()...)
	if i8 > 0 {
		rep.Ceilings.GPU[report.Int8PeakKey] = i8
	}
	return timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs}, nil
}
