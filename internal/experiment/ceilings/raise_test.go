package ceilings

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A verified GPU kernel faster than the FMA ceiling raises the ceiling to
// its rate (every GPU row placed again, none left above it, the summary
// naming the kernel); without one the ceiling stands.
func TestRaiseGPUComputeCeiling(t *testing.T) {
	row := func(workload string, gflops float64, verified bool) report.Measurement {
		m := report.Measurement{Workload: workload, Side: report.SideGPU, Variant: "v", Verified: verified,
			Flops: gflops * 1e6, Bytes: 1e3, EndToEnd: timing.Summary{N: 10, Median: 1e-3}, GFLOPs: gflops}
		experiment.Place(&m, timing.Roof{PeakGFLOPs: 30, BandwidthGBs: 10}, 1e-3)
		return m
	}
	rep := &report.Report{}
	rep.Ceilings.GPU = map[string]float64{"fma_gflops": 30, "read_gbs": 10}
	rep.Measurements = []report.Measurement{row("a", 55, true), row("b", 40, true), row("c", 70, false), row("d", 15, true)}
	lines := RaiseGPUComputeCeiling(rep)
	if len(lines) != 1 || !strings.Contains(lines[0], "a v") || rep.Ceilings.GPU["fma_gflops"] != 55 {
		t.Fatalf("lines %q, fma %g: want the ceiling raised to a's 55", lines, rep.Ceilings.GPU["fma_gflops"])
	}
	for _, m := range rep.Measurements[:2] {
		if m.CeilingFrac > 1+1e-9 {
			t.Errorf("%s left above the raised ceiling: %g", m.Workload, m.CeilingFrac)
		}
	}
	if f := rep.Measurements[3].CeilingFrac; math.Abs(f-15.0/55) > 1e-9 {
		t.Errorf("d placed at %g, want %g", f, 15.0/55)
	}
	rep.Measurements = []report.Measurement{row("d", 15, true)}
	rep.Ceilings.GPU["fma_gflops"] = 30
	if lines := RaiseGPUComputeCeiling(rep); len(lines) != 0 || rep.Ceilings.GPU["fma_gflops"] != 30 {
		t.Errorf("no row above: lines %q, fma %g", lines, rep.Ceilings.GPU["fma_gflops"])
	}
}

// A CPU row above the FMA peak gets the peak measured again first; a
// better pass is kept, and a kernel still above it raises it.
func TestRecheckCPUComputeCeiling(t *testing.T) {
	row := func(gflops float64) report.Measurement {
		m := report.Measurement{Workload: "w", Side: report.SideCPU, Variant: "v", Verified: true,
			Flops: gflops * 1e6, Bytes: 1e3, EndToEnd: timing.Summary{N: 10, Median: 1e-3}, GFLOPs: gflops}
		experiment.Place(&m, timing.Roof{PeakGFLOPs: 100, BandwidthGBs: 10}, 1e-3)
		return m
	}
	for _, c := range []struct {
		again, want float64
		lines       int
	}{{150, 150, 1}, {120, 130, 2}, {90, 130, 1}} {
		rep := &report.Report{}
		rep.Ceilings.CPU = map[string]float64{"fma_gflops": 100, "read_gbs": 10}
		rep.Measurements = []report.Measurement{row(130)}
		calls := 0
		lines := RecheckCPUComputeCeiling(rep, func() (float64, error) { calls++; return c.again, nil })
		if calls != 1 || len(lines) != c.lines || rep.Ceilings.CPU["fma_gflops"] != c.want || rep.Measurements[0].CeilingFrac > 1+1e-9 {
			t.Errorf("pass again at %g: %d passes, lines %q, peak %g (want %g), row at %g",
				c.again, calls, lines, rep.Ceilings.CPU["fma_gflops"], c.want, rep.Measurements[0].CeilingFrac)
		}
	}
}
