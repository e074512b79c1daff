package ceilings

import (
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/klauspost/cpuid/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// An out-of-cache shape small enough to sit in the last-level cache's
// reach is labelled by that level and judged against the read ceiling
// measured there, not the DRAM one, against which it would read above
// 100%.
func TestHostJudgesRowsByTheirWorkingSet(t *testing.T) {
	llc := cpuid.CPU.Cache.L3
	if llc <= 0 {
		t.Skip("the CPU reports no last-level cache")
	}
	const dim = 64
	cfg := HostConfig{
		Levels: []hostsimd.Level{hostsimd.Generic}, Dim: dim, N: llc / 2 / (dim * 4), NCached: 64, Q: 4,
		Measure: timing.MeasureOpts{Budget: 30 * time.Millisecond, MaxRuns: 15},
	}
	var rep report.Report
	if err := RunHost(cfg, &rep, nil); err != nil {
		t.Fatal(err)
	}
	if !(rep.Ceilings.CPU["read_gbs_llc"] > 0) {
		t.Fatalf("no llc read ceiling: %v", rep.Ceilings.CPU)
	}
	seen := 0
	for _, m := range rep.Measurements {
		// Every out-of-cache row, whatever its bound: cosine's 1 flop per
		// byte sits at the ridge of this CPU's FMA peak over its llc read
		// ceiling, which moves from run to run, so on a loaded host no row
		// may be memory-bound.
		if m.Side != report.SideCPU || experiment.ParamValue(m.Params, "cache") == "resident" {
			continue
		}
		seen++
		if c := experiment.ParamValue(m.Params, "cache"); c != "llc" || m.ReadCeiling != "read_gbs_llc" {
			t.Errorf("%s %s (%.3g MB): cache=%s, judged against %q; want llc, read_gbs_llc", m.Workload, m.Variant, m.Bytes/1e6, c, m.ReadCeiling)
		}
	}
	if seen == 0 {
		t.Fatal("no out-of-cache row")
	}
	for _, l := range experiment.HostSummary(&rep) {
		// A memory-bound llc row is judged against the llc read ceiling
		// (a compute-bound one, against the FMA peak, names no bandwidth).
		if strings.Contains(l, "n=") && strings.Contains(l, "cache=llc") && strings.Contains(l, "bandwidth") && !strings.Contains(l, "read (llc) bandwidth") {
			t.Errorf("summary judges an llc row against another ceiling: %s", l)
		}
	}
}
