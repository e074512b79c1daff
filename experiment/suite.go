package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// measureWorkload measures both sides of w and returns their measurements
// (GPU first). A side whose result fails verification is an error: no
// timing of a wrong result is reported.
func (e *Env) measureWorkload(w workload, roofs Roofs) ([]report.Measurement, error) {
	var out []report.Measurement
	label := fmt.Sprintf("%s %s", w.name, paramLabel(w.params))
	if w.gpu != nil {
		e.progress("gpu  %s", label)
		g, err := w.gpu(e)
		if err != nil {
			return nil, fmt.Errorf("gpu %s: %w", label, err)
		}
		res, err := measureImpl("gpu "+label, g, e.Measure)
		g.close()
		if err != nil {
			return nil, err
		}
		out = append(out, measurement(w.name, report.SideGPU, w.variant, w.params, res, w.bytes, w.flops, roofs))
	}
	if w.cpu != nil {
		e.progress("cpu  %s", label)
		c, err := w.cpu()
		if err != nil {
			return nil, fmt.Errorf("cpu %s: %w", label, err)
		}
		res, err := measureImpl("cpu "+label, c, e.Measure)
		c.close()
		if err != nil {
			return nil, err
		}
		out = append(out, measurement(w.name, report.SideCPU, cpuVariant(), w.params, res, w.bytes, w.flops, roofs))
	}
	return out, nil
}

// breakEven sweeps batch sizes and fits both sides, on end-to-end time
// and (when timestamps work) on kernel time.
func (e *Env) breakEven(name string, fixed []report.Param, batches []int, make func(n int) workload, roofs Roofs) ([]report.BreakEven, []report.Measurement, error) {
	var all []report.Measurement
	var gpuE2E, gpuKernel, cpu []timing.Summary
	kernelOK := e.Timer != nil
	for _, n := range batches {
		ms, err := e.measureWorkload(make(n), roofs)
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
	be, err := fitBreakEven(name, fixed, "end-to-end", batches, cpu, gpuE2E)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, be)
	if kernelOK {
		bk, err := fitBreakEven(name, fixed, "kernel", batches, cpu, gpuKernel)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, bk)
	}
	return out, all, nil
}

func fitBreakEven(name string, fixed []report.Param, clock string, batches []int, cpu, gpu []timing.Summary) (report.BreakEven, error) {
	ns := make([]float64, len(batches))
	tc := make([]float64, len(batches))
	tg := make([]float64, len(batches))
	for i, n := range batches {
		ns[i], tc[i], tg[i] = float64(n), cpu[i].Median, gpu[i].Median
	}
	cf, err := timing.FitLinear(ns, tc)
	if err != nil {
		return report.BreakEven{}, fmt.Errorf("break-even %s (cpu): %w", name, err)
	}
	gf, err := timing.FitLinear(ns, tg)
	if err != nil {
		return report.BreakEven{}, fmt.Errorf("break-even %s (gpu, %s): %w", name, clock, err)
	}
	be := report.BreakEven{
		Workload: name, Params: fixed, Clock: clock, Batches: batches, CPU: cpu, GPU: gpu,
		CPUFit: cf, GPUFit: gf, Fitted: report.NewCrossover(timing.CrossoverOf(cf, gf)),
	}
	be.Measured, be.MeasuredFound = timing.MeasuredCrossover(batches, cpu, gpu)
	if be.MeasuredFound && be.Fitted.Kind == timing.CrossAt {
		be.RelError = timing.RelError(be.Fitted.N, float64(be.Measured))
	}
	return be, nil
}
