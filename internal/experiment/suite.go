package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// MeasureCase measures both sides of w and returns their measurements
// (GPU first). A side whose result fails verification is an error: no
// timing of a wrong result is reported.
func (e *Env) MeasureCase(w workload.Case, roofs Roofs) ([]report.Measurement, error) {
	var out []report.Measurement
	label := fmt.Sprintf("%s %s", w.Name, ParamLabel(w.Params))
	if e.Stopped() {
		return nil, fmt.Errorf("before %s: %w", label, ErrInterrupted)
	}
	if w.GPU != nil {
		e.Progressf("gpu  %s", label)
		g, err := w.GPU(e.Gpu())
		if err != nil {
			return nil, fmt.Errorf("gpu %s: %w", label, err)
		}
		// The host's state at the start and end of the row: the GPU
		// side's host work moves with it too.
		before := probeState(e.Host.ThreadCount())
		res, err := MeasureSide("gpu "+label, e.traced(w, g), e.Measure)
		e.traceCtx = traceCtx{}
		g.Close()
		if err != nil {
			return nil, err
		}
		m := Measurement(w.Name, report.SideGPU, w.Variant, w.Params, res, w.Bytes, w.Flops, roofs)
		m.State, m.StateEnd = before, probeState(e.Host.ThreadCount())
		out = append(out, m)
	}
	if w.CPU != nil {
		e.Progressf("cpu  %s", label)
		c, err := w.CPU(e.Host)
		if err != nil {
			return nil, fmt.Errorf("cpu %s: %w", label, err)
		}
		// DRAM-level CPU rows carry the host's state around them and
		// are judged against a ceiling of that state (judgeByState).
		var before *report.HostState
		if _, lvl, _ := roofs.forBytes(report.SideCPU, w.Bytes); lvl == "dram" {
			before = probeState(e.Host.ThreadCount())
		}
		res, err := MeasureSide("cpu "+label, c, e.Measure)
		c.Close()
		if err != nil {
			return nil, err
		}
		m := Measurement(w.Name, report.SideCPU, cpuVariant(e.Host), w.Params, res, w.Bytes, w.Flops, roofs)
		if before != nil {
			m.State = before
			if after := probeState(e.Host.ThreadCount()); after.Label != before.Label {
				m.StateEnd = after
			}
		}
		out = append(out, m)
	}
	if e.Device != nil {
		for i := range out {
			out[i].Backend, out[i].Adapter = e.Device.Info.Backend.String(), e.Device.Info.Name
		}
	}
	return out, nil
}

// breakEven sweeps batch sizes and fits both sides, on end-to-end time
// and (when timestamps work) on kernel time.
func (e *Env) breakEven(w *workload.Descriptor, fixed []report.Param, batches []int, at func(n int) workload.Case, roofs Roofs) ([]report.BreakEven, []report.Measurement, error) {
	var all []report.Measurement
	var gpuE2E, gpuKernel, cpu []timing.Summary
	kernelOK := e.Timer != nil
	for _, n := range batches {
		ms, err := e.MeasureCase(at(n), roofs)
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
	cpuSide, _ := ParseSide("cpu")
	gpuSide, _ := ParseSide("gpu")
	sides := [2]SideSpec{cpuSide, gpuSide}
	// Sizes where the faster side changes are measured again, the two
	// sides interleaved, for the verdict (timing.JudgeCrossover).
	pts := make([]timing.SearchPoint, len(batches))
	for i, n := range batches {
		pts[i] = timing.SearchPoint{N: n, A: cpu[i], B: gpuE2E[i], Faster: timing.Faster(cpu[i], gpuE2E[i])}
	}
	againE2E, againKernel := map[int]timing.SearchPoint{}, map[int]timing.SearchPoint{}
	disputed := timing.Disputed(pts)
	if len(disputed) > maxRemeasured {
		disputed = disputed[:maxRemeasured]
	}
	for _, n := range disputed {
		r, err := e.measureAgain(sides, at(n))
		if err != nil {
			return nil, nil, err
		}
		againE2E[n] = timing.SearchPoint{N: n, A: r[0].Host, B: r[1].Host, Faster: timing.Faster(r[0].Host, r[1].Host)}
		if r[1].Kernel != nil {
			againKernel[n] = timing.SearchPoint{N: n, A: r[0].Host, B: *r[1].Kernel, Faster: timing.Faster(r[0].Host, *r[1].Kernel)}
		}
	}
	be, err := crossoverBreakEven(w, fixed, sides, "end-to-end", batches, cpu, gpuE2E, nil, againE2E)
	if err != nil {
		return nil, nil, err
	}
	largest := at(batches[len(batches)-1])
	theorySpeedup(&be, largest, sides, roofs)
	if g := all[len(all)-2]; g.Kernel != nil && g.EndToEnd.Median > 0 {
		k, t := g.Kernel.Median, g.EndToEnd.Median
		be.Parts = []report.TimePart{
			{Name: "kernel", Seconds: k, Share: k / t, How: "GPU timestamps"},
			{Name: "upload q + submit + wait + readback", Seconds: max(0, t-k), Share: max(0, t-k) / t, How: "host clock minus the kernel"},
		}
	}
	out = append(out, be)
	if kernelOK {
		bk, err := crossoverBreakEven(w, fixed, sides, "kernel", batches, cpu, gpuKernel, nil, againKernel)
		if err != nil {
			return nil, nil, err
		}
		theorySpeedup(&bk, largest, sides, roofs)
		out = append(out, bk)
	}
	if e.Device != nil {
		for i := range out {
			out[i].Backend, out[i].Adapter = e.Device.Info.Backend.String(), e.Device.Info.Name
		}
	}
	return out, all, nil
}
