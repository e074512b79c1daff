package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// The text report carries the anatomy in one line with the range of the
// GPU rows' round-trip shares; a report without one prints no such line.
func TestLatencyLine(t *testing.T) {
	share := func(x float64) *float64 { return &x }
	r := &Report{
		Latency: &timing.Anatomy{
			Tiny:        timing.Summary{N: 20, Median: 60e-6, Lo: 58e-6, Hi: 62e-6},
			Empty:       timing.Summary{N: 20, Median: 20e-6, Lo: 19e-6, Hi: 21e-6},
			DispatchFit: timing.LinearFit{Overhead: 50e-6, PerItem: 5e-6, DoF: 5},
		},
		Measurements: []Measurement{
			{Workload: "a", Side: SideGPU, RoundTripShare: share(0.12)},
			{Workload: "a", Side: SideCPU},
			{Workload: "b", Side: SideGPU, RoundTripShare: share(0.87)},
		},
	}
	got := LatencyLine(r)
	for _, want := range []string{"tiny call 60.0µs", "empty 20.0µs", "+5.00µs per dispatch", "12–87% of the GPU rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("LatencyLine = %q, want it to contain %q", got, want)
		}
	}
	var b bytes.Buffer
	if err := WriteTextOpts(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Call latency\n- GPU call round trip") {
		t.Errorf("the text report lacks the latency line:\n%s", b.String())
	}
	if LatencyLine(&Report{}) != "" {
		t.Error("a report without an anatomy gave a latency line")
	}
}
