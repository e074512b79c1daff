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

// The HTML report has an anatomy section: the calls by K, the transfer
// curves, each GPU row's round-trip share and the break-evens' fixed-cost
// checks, every number with the JSON path of its value.
func TestLatencyHTML(t *testing.T) {
	share := 0.25
	fc := FixedCostCheck{Side: "gpu", Used: "round trip", Fit: 10e-6, FitCI: [2]float64{5e-6, 15e-6}, RoundTrip: 60e-6, RoundTripCI: [2]float64{58e-6, 62e-6}, Check: "below round trip"}
	r := &Report{
		Latency: &timing.Anatomy{
			Tiny:        timing.Summary{N: 20, Median: 60e-6, Lo: 58e-6, Hi: 62e-6},
			Empty:       timing.Summary{N: 20, Median: 20e-6, Lo: 19e-6, Hi: 21e-6},
			Dispatches:  []timing.DispatchPoint{{K: 1, Call: timing.Summary{N: 20, Median: 61e-6}}, {K: 2, Call: timing.Summary{N: 20, Median: 66e-6}}},
			DispatchFit: timing.LinearFit{Overhead: 56e-6, PerItem: 5e-6, DoF: 1},
			Readback:    []timing.TransferPoint{{Bytes: 4, Time: timing.Summary{N: 20, Median: 50e-6}, GBps: 0.0001}},
			Upload:      []timing.TransferPoint{{Bytes: 4, Time: timing.Summary{N: 20, Median: 55e-6}, GBps: 0.0001}},
			Calls:       100,
		},
		Measurements: []Measurement{{Workload: "cosine-single", Side: SideGPU, EndToEnd: timing.Summary{N: 20, Median: 240e-6}, RoundTripShare: &share}},
		BreakEvens:   []BreakEven{{Workload: "cosine-single", Clock: "end-to-end", FixedCost: &fc}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<h2 id="latency">GPU call latency</h2>`, `data-path="/latency/tiny_call/median"`, `data-path="/latency/dispatches/1/call/median"`,
		`data-path="/latency/readback/0/gbps"`, `data-path="/measurements/0/round_trip_share" data-scale="1">25.0%`, "fixed cost: fit 10.0µs", "below round trip", "the dispatcher&#39;s prior uses the round trip"} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(htmlOf(t, &Report{}), `id="latency"`) {
		t.Error("a report without an anatomy has a latency section")
	}
}

func htmlOf(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
