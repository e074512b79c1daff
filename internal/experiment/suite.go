package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// MeasureCase measures both sides of w and returns their measurements
// (GPU first). A side whose result fails verification is an error: no
// timing of a wrong result is reported.
func MeasureCase(e *env.Env, w workload.Case, roofs Roofs) ([]report.Measurement, error) {
	var out []report.Measurement
	label := fmt.Sprintf("%s %s", w.Name, env.ParamLabel(w.Params))
	if e.Stopped() {
		return nil, fmt.Errorf("before %s: %w", label, env.ErrInterrupted)
	}
	if w.GPU != nil {
		e.Progressf("gpu  %s", label)
		g, err := w.GPU.BuildGPU(e.GPU())
		if err != nil {
			return nil, fmt.Errorf("gpu %s: %w", label, err)
		}
		// The host's state at the start and end of the row: the GPU
		// side's host work moves with it too.
		before := ProbeState(e.Host.ThreadCount())
		res, err := MeasureSide("gpu "+label, e.Traced(w, g), e.Measure)
		e.Untraced()
		g.Close()
		if err != nil {
			return nil, err
		}
		m := Measurement(w.Name, report.SideGPU, w.Variant, w.Params, res, w.Bytes, w.Flops, roofs)
		m.State, m.StateEnd = before, ProbeState(e.Host.ThreadCount())
		out = append(out, m)
	}
	if w.CPU != nil {
		e.Progressf("cpu  %s", label)
		c, err := w.CPU.BuildCPU(e.Host)
		if err != nil {
			return nil, fmt.Errorf("cpu %s: %w", label, err)
		}
		// DRAM-level CPU rows carry the host's state around them and
		// are judged against a ceiling of that state (judgeByState).
		var before *report.HostState
		if _, lvl, _ := roofs.ForBytes(report.SideCPU, w.Bytes); lvl == "dram" {
			before = ProbeState(e.Host.ThreadCount())
		}
		res, err := MeasureSide("cpu "+label, c, e.Measure)
		c.Close()
		if err != nil {
			return nil, err
		}
		m := Measurement(w.Name, report.SideCPU, CpuVariant(e.Host, w.Params), w.Params, res, w.Bytes, w.Flops, roofs)
		if before != nil {
			m.State = before
			if after := ProbeState(e.Host.ThreadCount()); after.Label != before.Label {
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
