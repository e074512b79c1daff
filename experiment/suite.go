package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/workload"
)

// measureCase measures both sides of w and returns their measurements
// (GPU first). A side whose result fails verification is an error: no
// timing of a wrong result is reported.
func (e *Env) measureCase(w workload.Case, roofs Roofs) ([]report.Measurement, error) {
	var out []report.Measurement
	label := fmt.Sprintf("%s %s", w.Name, paramLabel(w.Params))
	if e.interrupted.Load() {
		return nil, fmt.Errorf("before %s: %w", label, ErrInterrupted)
	}
	if w.GPU != nil {
		e.progress("gpu  %s", label)
		g, err := w.GPU(e.gpu())
		if err != nil {
			return nil, fmt.Errorf("gpu %s: %w", label, err)
		}
		res, err := measureSide("gpu "+label, e.traced(w, g), e.Measure)
		e.traceCtx = traceCtx{}
		g.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, measurement(w.Name, report.SideGPU, w.Variant, w.Params, res, w.Bytes, w.Flops, roofs))
	}
	if w.CPU != nil {
		e.progress("cpu  %s", label)
		c, err := w.CPU()
		if err != nil {
			return nil, fmt.Errorf("cpu %s: %w", label, err)
		}
		res, err := measureSide("cpu "+label, c, e.Measure)
		c.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, measurement(w.Name, report.SideCPU, cpuVariant(), w.Params, res, w.Bytes, w.Flops, roofs))
	}
	return out, nil
}

// breakEven sweeps batch sizes and fits both sides, on end-to-end time
// and (when timestamps work) on kernel time.
func (e *Env) breakEven(w *workload.Descriptor, fixed []report.Param, batches []int, at func(n int) workload.Case, roofs Roofs) ([]report.BreakEven, []report.Measurement, error) {
	name := w.Name
	var all []report.Measurement
	var gpuE2E, gpuKernel, cpu []timing.Summary
	kernelOK := e.Timer != nil
	for _, n := range batches {
		ms, err := e.measureCase(at(n), roofs)
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
	be, err := fitBreakEven(name, w.Batch, fixed, "end-to-end", batches, cpu, gpuE2E)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, be)
	if kernelOK {
		bk, err := fitBreakEven(name, w.Batch, fixed, "kernel", batches, cpu, gpuKernel)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, bk)
	}
	return out, all, nil
}

func fitBreakEven(name, batch string, fixed []report.Param, clock string, batches []int, cpu, gpu []timing.Summary) (report.BreakEven, error) {
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
		Workload: name, Batch: batch, Params: fixed, Clock: clock, Batches: batches, CPU: cpu, GPU: gpu,
		CPUFit: cf, GPUFit: gf, Fitted: report.NewCrossover(timing.CrossoverOf(cf, gf)),
	}
	be.Measured, be.MeasuredFound = timing.MeasuredCrossover(batches, cpu, gpu)
	if be.MeasuredFound && be.Fitted.Kind == timing.CrossAt {
		be.RelError = timing.RelError(be.Fitted.N, float64(be.Measured))
	}
	return be, nil
}
