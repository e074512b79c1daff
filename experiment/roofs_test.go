package experiment

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A row is judged against the level whose measured working set is within
// levelReach of its own, the smallest such level first, else DRAM.
func TestRoofsForBytes(t *testing.T) {
	roof := func(gbs float64) timing.Roof { return timing.Roof{BandwidthGBs: gbs, PeakGFLOPs: 100} }
	r := Roofs{
		GPU: roof(1), CPU: roof(25),
		Levels: []RoofLevel{
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
		got, level, key := r.forBytes(report.SideCPU, c.bytes)
		wantKey := "read_gbs_" + c.level
		if c.level == "dram" {
			wantKey = "read_gbs"
		}
		if level != c.level || got.BandwidthGBs != c.gbs || key != wantKey {
			t.Errorf("%.0f bytes: %s %.0f GB/s, want %s %.0f", c.bytes, level, got.BandwidthGBs, c.level, c.gbs)
		}
	}
	if got, level, _ := r.forBytes(report.SideGPU, 25e6); level != "llc" || got.BandwidthGBs != 2 {
		t.Errorf("GPU 25 MB: %s %v", level, got.BandwidthGBs)
	}
}
