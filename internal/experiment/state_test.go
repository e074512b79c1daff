package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// stateRow is a memory-bound CPU DRAM-level row reading gbs GB/s in the
// state of before (and after, when not nil).
func stateRow(gbs float64, before, after string) report.Measurement {
	m := report.Measurement{Workload: "cosine-single", Side: report.SideCPU, Variant: "v",
		Bytes: gbs * 1e9 * 1e-3, Flops: 1, EndToEnd: timing.Summary{N: 10, Median: 1e-3},
		Bound: timing.BoundMemory, GBs: gbs, CeilingFrac: 0.5,
		State: &report.HostState{Label: before, RoundTripNs: 100}}
	if after != "" {
		m.StateEnd = &report.HostState{Label: after}
	}
	return m
}

// TestJudgeByStateNeverCrossesStates simulates a 2-vCPU guest flipping
// between one shared L3 (50 GB/s) and two (80 GB/s): every row is judged
// against its own state's ceiling; a state no pass saw gets a pass
// measured; a row whose probes disagree is not judged; the summary gives
// each state's figures.
func TestJudgeByStateNeverCrossesStates(t *testing.T) {
	shared, split := hostsimd.StateSharedLLC, hostsimd.StateSplitLLC
	rep := &report.Report{}
	rep.CeilingPasses = []report.CeilingPass{{Key: "read_gbs", GBs: 50, State: report.HostState{Label: shared, RoundTripNs: 100}, Why: "first"}}
	rep.Measurements = []report.Measurement{
		stateRow(49, shared, ""),    // 98% of 50
		stateRow(77.6, split, ""),   // 97% of 80, 155% of 50
		stateRow(60, shared, split), // changed during the row
		{Workload: "cosine-single", Side: report.SideGPU, CeilingFrac: 0.3, State: &report.HostState{Label: split}},
	}
	var asked []string
	// The simulated machine: the next pass lands in split (80 GB/s).
	measure := func(why string) (report.CeilingPass, error) {
		asked = append(asked, why)
		return report.CeilingPass{Key: "read_gbs", GBs: 80, State: report.HostState{Label: split, RoundTripNs: 370}, Why: why}, nil
	}
	lines, err := JudgeByState(rep, 1e6, measure)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "state" {
		t.Fatalf("passes asked for: %v, want one for the unseen state", asked)
	}
	ms := rep.Measurements
	if math.Abs(ms[0].CeilingFrac-0.98) > 1e-9 || math.Abs(ms[1].CeilingFrac-0.97) > 1e-9 {
		t.Errorf("fractions %v %v: each row must be judged against its own state's ceiling (0.98 of 50, 0.97 of 80)", ms[0].CeilingFrac, ms[1].CeilingFrac)
	}
	if ms[2].CeilingFrac != 0 || len(ms[2].Warnings) == 0 || !strings.Contains(ms[2].Warnings[0], "changed") {
		t.Errorf("row across a change: frac %v, warnings %v", ms[2].CeilingFrac, ms[2].Warnings)
	}
	if ms[3].CeilingFrac != 0.3 {
		t.Errorf("GPU row touched: %v", ms[3].CeilingFrac)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "50.0 GB/s (threads sharing one L3) and 80.0 GB/s (threads on separate L3s)") ||
		!strings.Contains(lines[0], "98% in shared-llc") || !strings.Contains(lines[0], "97% in split-llc") {
		t.Errorf("summary: %q", lines)
	}
	// Whatever the passes, no row's fraction uses another state's
	// ceiling: check every row against every pass.
	for _, m := range rep.Measurements {
		if m.Side != report.SideCPU || rowState(&m) == report.StateChanged {
			continue
		}
		want, _ := bestPass(rep.CeilingPasses, "read_gbs", m.State.Label)
		if got := m.GBs / m.CeilingFrac; math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s row judged against %v GB/s, its state's ceiling is %v", m.State.Label, got, want)
		}
	}
}

// A state no pass ever catches leaves its rows unjudged (no fallback to
// another state's ceiling), and a row above its own state's ceiling gets
// one recheck pass in that state.
func TestJudgeByStateNoPassAndRecheck(t *testing.T) {
	shared, split := hostsimd.StateSharedLLC, hostsimd.StateSplitLLC
	rep := &report.Report{CeilingPasses: []report.CeilingPass{{Key: "read_gbs", GBs: 50, State: report.HostState{Label: shared}}}}
	rep.Measurements = []report.Measurement{stateRow(77, split, "")}
	n := 0
	_, err := JudgeByState(rep, 1e6, func(why string) (report.CeilingPass, error) {
		n++
		return report.CeilingPass{Key: "read_gbs", GBs: 51, State: report.HostState{Label: shared}, Why: why}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != maxStatePasses || rep.Measurements[0].CeilingFrac != 0 || !strings.Contains(strings.Join(rep.Measurements[0].Warnings, " "), "no CPU read ceiling was measured in this row's host state (split-llc)") {
		t.Errorf("passes %d, row %+v", n, rep.Measurements[0])
	}
	rep = &report.Report{CeilingPasses: []report.CeilingPass{{Key: "read_gbs", GBs: 50, State: report.HostState{Label: shared}}}}
	rep.Measurements = []report.Measurement{stateRow(55, shared, "")}
	var asked []string
	if _, err := JudgeByState(rep, 1e6, func(why string) (report.CeilingPass, error) {
		asked = append(asked, why)
		return report.CeilingPass{Key: "read_gbs", GBs: 56, State: report.HostState{Label: shared}, Why: why}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "recheck" || math.Abs(rep.Measurements[0].CeilingFrac-55.0/56) > 1e-9 {
		t.Errorf("recheck: asked %v, frac %v", asked, rep.Measurements[0].CeilingFrac)
	}
}
