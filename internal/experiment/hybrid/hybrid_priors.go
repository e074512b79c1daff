package hybrid

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// priors are the floors of the adaptive dispatcher's priors, per side
// (dispatch.Side.Floor; 0: none), and the fixed cost each GPU side's
// prior uses, against the anatomy the floor came from.
type priors struct {
	floor [2]float64
	costs []report.FixedCostCheck
}

// gpuPriors reads the GPU sides' floors from the latency anatomy of the
// replay's adapter: the profile report's when it holds one for this
// adapter and implementation, else measured now (latency.QuickLatency:
// 5 rounds of every call, transfers up to 4 MiB, every call verified)
// and kept in rep. A pair with no GPU side measures nothing.
func gpuPriors(e *env.Env, hc Config, be *report.BreakEven, rep *report.Report) (priors, error) {
	var p priors
	if !hc.Sides[0].IsGPU() && !hc.Sides[1].IsGPU() {
		return p, nil
	}
	a, source := profileAnatomy(hc.Profile, e.Device.Info.Name, e.Device.Impl().String())
	if a == nil {
		if err := e.CheckStop("hybrid: before the latency anatomy"); err != nil {
			return p, err
		}
		var err error
		if a, err = latency.Measure(e, latency.QuickLatency); err != nil {
			return p, fmt.Errorf("hybrid: latency anatomy for the dispatcher's GPU priors: %w", err)
		}
		source = fmt.Sprintf("the latency anatomy measured before the replay (%d calls, each verified)", a.Calls)
	}
	if rep.Latency == nil {
		rep.Latency = a
	}
	return priorsOf(hc, be, a, source), nil
}

// profileAnatomy is the profile report's latency anatomy and its source
// when it was measured on adapter through implementation impl (nil
// otherwise: a report from another adapter, another implementation, or
// one that does not record its implementation).
func profileAnatomy(p *report.Report, adapter, impl string) (*timing.Anatomy, string) {
	if p == nil || latency.Floor(p.Latency) == 0 || p.Latency.Adapter != adapter || p.Adapter.Implementation != impl {
		return nil, ""
	}
	return p.Latency, fmt.Sprintf("the profile report's latency anatomy (%s, %d calls)", p.Latency.Adapter, p.Latency.Calls)
}

// priorsOf floors each GPU side's prior at the anatomy's round trip of
// the tiny call (latency.Floor): no GPU call is predicted below it.
func priorsOf(hc Config, be *report.BreakEven, a *timing.Anatomy, source string) priors {
	var p priors
	fits := [2]timing.LinearFit{be.CPUFit, be.GPUFit}
	models := [2]*timing.Model{be.ModelA, be.ModelB}
	for i, s := range hc.Sides {
		if !s.IsGPU() || latency.Floor(a) == 0 {
			continue
		}
		p.floor[i] = latency.Floor(a)
		p.costs = append(p.costs, latency.FixedCostOf(s.Label, fits[i], models[i], a, source))
	}
	return p
}

// priorLines state each GPU side's prior fixed cost and its source.
func priorLines(h *report.Hybrid) []string {
	var out []string
	for _, c := range h.FixedCosts {
		out = append(out, fmt.Sprintf("hybrid %s: %s; round trip from %s", h.Workload, report.FixedCostLine(c), c.Source))
	}
	return out
}
