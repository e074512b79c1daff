package ceilings

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A row is judged against the level whose measured working set is within
// levelReach of its own, the smallest such level first, else DRAM.
func TestRoofsForBytes(t *testing.T) {
	roof := func(gbs float64) timing.Roof { return timing.Roof{BandwidthGBs: gbs, PeakGFLOPs: 100} }
	r := experiment.Roofs{
		GPU: roof(1), CPU: roof(25),
		Levels: []experiment.RoofLevel{
			{Name: "l2", Bytes: 256 << 10, GPU: roof(3), CPU: roof(190)},
			{Name: "llc", Bytes: 16 << 20, GPU: roof(2), CPU: roof(70)},
		},
	}
	for _, c := range []struct {
		bytes float64
		level string
		gbs   float64
	}{
		{100 << 10, "l2", 190},
		{1 << 20, "l2", 190},        // 4× the L2 level's 256 KiB
		{1<<20 + 1, "llc", 70},      // past it: the LLC level
		{25e6, "llc", 70},           // 25 MB in a 32 MB LLC: not DRAM
		{64 << 20, "llc", 70},       // 4× the LLC level's 16 MiB
		{64<<20 + 4096, "dram", 25}, // past every level's reach
	} {
		got, level, key := r.ForBytes(report.SideCPU, c.bytes)
		wantKey := "read_gbs_" + c.level
		if c.level == "dram" {
			wantKey = "read_gbs"
		}
		if level != c.level || got.BandwidthGBs != c.gbs || key != wantKey {
			t.Errorf("%.0f bytes: %s %.0f GB/s, want %s %.0f", c.bytes, level, got.BandwidthGBs, c.level, c.gbs)
		}
	}
	if got, level, _ := r.ForBytes(report.SideGPU, 25e6); level != "llc" || got.BandwidthGBs != 2 {
		t.Errorf("GPU 25 MB: %s %v", level, got.BandwidthGBs)
	}
}

// A CPU row above its read ceiling gets that ceiling measured again: a
// ceiling below the machine's real bandwidth is replaced by the new pass
// and the rows judged against it are placed again; one above it stands.
func TestRecheckCPUReadCeilings(t *testing.T) {
	mk := func(ceiling float64) *report.Report {
		rep := &report.Report{}
		rep.Ceilings.CPU = map[string]float64{"read_gbs": ceiling, "fma_gflops": 1e6}
		row := func(frac float64, side string) report.Measurement {
			return report.Measurement{Workload: "cosine-single", Side: side, Variant: "v", Bytes: 8 << 20, Flops: 8 << 20,
				EndToEnd: timing.Summary{N: 10, Median: 1e-3}, Bound: timing.BoundMemory, CeilingFrac: frac}
		}
		rep.Measurements = []report.Measurement{row(8.4/ceiling, report.SideCPU), row(0.5, report.SideGPU)}
		return rep
	}
	// 8.4 GB/s row against a 0.001 GB/s "ceiling": the new pass reads far more.
	rep := mk(0.001)
	lines, err := RecheckCPUReadCeilings(rep, 8<<20, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Ceilings.CPU["read_gbs"]
	if len(lines) != 1 || !strings.Contains(lines[0], "better pass") || !(got > 0.001) {
		t.Fatalf("low ceiling not replaced: %v, read_gbs %g", lines, got)
	}
	if want := 8.39 / got; math.Abs(rep.Measurements[0].CeilingFrac-want) > 0.01*want {
		t.Errorf("row not placed again: frac %g, want %g", rep.Measurements[0].CeilingFrac, want)
	}
	if rep.Measurements[1].CeilingFrac != 0.5 {
		t.Errorf("GPU row changed: %g", rep.Measurements[1].CeilingFrac)
	}
	rep.Summary = lines
	if hs := experiment.HostSummary(rep); len(hs) == 0 || hs[0] != lines[0] {
		t.Errorf("wgpu-prof host's summary drops the recheck: %q", hs)
	}
	// A ceiling no pass reaches stands, and rows under theirs trigger nothing.
	rep = mk(1e6)
	rep.Measurements[0].CeilingFrac = 1.2
	if lines, err = RecheckCPUReadCeilings(rep, 8<<20, 0, nil, nil); err != nil || len(lines) != 1 || !strings.Contains(lines[0], "first pass stands") || rep.Ceilings.CPU["read_gbs"] != 1e6 || rep.Measurements[0].CeilingFrac != 1.2 {
		t.Fatalf("high ceiling: %v %v %v %v", lines, err, rep.Ceilings.CPU, rep.Measurements[0].CeilingFrac)
	}
	rep.Measurements[0].CeilingFrac = 0.9
	if lines, _ = RecheckCPUReadCeilings(rep, 8<<20, 0, nil, nil); len(lines) != 0 {
		t.Fatalf("row under its ceiling triggered a recheck: %v", lines)
	}
}
