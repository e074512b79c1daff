package sidebyside

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func implRun(impl string, gpu, lo, hi, kernel float64) BackendResult {
	r := &report.Report{Adapter: report.AdapterInfo{Name: "llvmpipe", Backend: "vulkan", Implementation: impl, ImplementationVersion: "1"}}
	k := timing.Summary{Median: kernel, Lo: kernel, Hi: kernel}
	r.Measurements = []report.Measurement{
		{Workload: "w", Side: report.SideGPU, EndToEnd: timing.Summary{Median: gpu, Lo: lo, Hi: hi}, Kernel: &k},
		{Workload: "w", Side: report.SideCPU, EndToEnd: timing.Summary{Median: 1e-3, Lo: 1e-3, Hi: 1e-3}},
	}
	return BackendResult{Label: impl, Report: r}
}

// TestMergeImplsRatioCI: the ratio's CI is that of the far ends of the
// two medians' CIs; a CI holding 1 is a tie, otherwise the faster one is
// named; every row names its implementation.
func TestMergeImplsRatioCI(t *testing.T) {
	cases := []struct {
		lo, hi float64 // dawn's end-to-end CI around 2ms; wgpu-native's is 1.9–2.1ms
		faster string
	}{
		{2.9e-3, 3.1e-3, "wgpu-native"},
		{1.2e-3, 1.3e-3, "dawn"},
		{1.95e-3, 2.05e-3, "tie"},
	}
	for _, c := range cases {
		mid := (c.lo + c.hi) / 2
		rep := MergeImpls([]BackendResult{implRun("wgpu-native", 2e-3, 1.9e-3, 2.1e-3, 1e-3), implRun("dawn", mid, c.lo, c.hi, 0.5e-3)})
		if rep == nil || rep.Backends == nil || rep.Backends.By != "implementation" {
			t.Fatalf("no implementation table: %+v", rep)
		}
		cell := rep.Backends.Rows[0].Cells[1]
		if cell.Faster != c.faster {
			t.Errorf("dawn %g–%g s vs wgpu-native 1.9–2.1 ms: faster %q, want %q", c.lo, c.hi, cell.Faster, c.faster)
		}
		if want := c.lo / 2.1e-3; cell.VsFirstLo != want {
			t.Errorf("ratio CI low %g, want %g", cell.VsFirstLo, want)
		}
		if want := c.hi / 1.9e-3; cell.VsFirstHi != want {
			t.Errorf("ratio CI high %g, want %g", cell.VsFirstHi, want)
		}
		if cell.KernelVsFirst != 0.5 {
			t.Errorf("kernel ratio %g, want 0.5", cell.KernelVsFirst)
		}
		for _, m := range rep.Measurements {
			if m.Implementation == "" {
				t.Errorf("row %s/%s names no implementation", m.Workload, m.Side)
			}
		}
		if len(rep.Verdicts) == 0 || !strings.Contains(rep.Verdicts[0], "w by implementation:") || !strings.Contains(rep.Verdicts[0], c.faster) {
			t.Errorf("first answer line %q should compare w's implementations and name %q", rep.Verdicts, c.faster)
		}
	}
}

// TestMergeImplsMissing: an implementation that was not opened is a named
// gap, not a ratio.
func TestMergeImplsMissing(t *testing.T) {
	rep := MergeImpls([]BackendResult{implRun("wgpu-native", 2e-3, 1.9e-3, 2.1e-3, 1e-3), {Label: "dawn", Err: errString("Dawn library not found")}})
	cell := rep.Backends.Rows[0].Cells[1]
	if cell.Missing == "" || cell.Faster != "" || cell.VsFirst != 0 || cell.Implementation != "dawn" {
		t.Errorf("missing implementation's cell: %+v", cell)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestParseImplList(t *testing.T) {
	got, err := ParseImplList("wgpu-native, dawn")
	if err != nil || strings.Join(got, ",") != "wgpu-native,dawn" {
		t.Errorf("ParseImplList: %v %v", got, err)
	}
	for _, bad := range []string{"dawn,dawn", "vulkan", ""} {
		if _, err := ParseImplList(bad); err == nil || !env.IsUsage(err) {
			t.Errorf("ParseImplList(%q): %v, want a usage error", bad, err)
		}
	}
}

// TestMergeImplsCallCost: each implementation's fixed cost per call is the
// intercept of its own end-to-end GPU-vs-CPU break-even fit, with the
// fit's CI; the kernel-clock fit and a CPU-vs-CPU break-even do not count.
func TestMergeImplsCallCost(t *testing.T) {
	withFits := func(run BackendResult, e2e, kernel float64) BackendResult {
		run.Report.BreakEvens = []report.BreakEven{
			{Workload: "w", Clock: "kernel", GPUFit: timing.LinearFit{Overhead: kernel, OverheadCI: [2]float64{kernel / 2, kernel * 2}}},
			{Workload: "w", Clock: "end-to-end", Sides: []string{"cpu:threads=1", "cpu:threads=2"}, GPUFit: timing.LinearFit{Overhead: 1}},
			{Workload: "w", Clock: "end-to-end", GPUFit: timing.LinearFit{Overhead: e2e, OverheadCI: [2]float64{-e2e, 2 * e2e}}},
		}
		return run
	}
	rep := MergeImpls([]BackendResult{
		withFits(implRun("wgpu-native", 2e-3, 1.9e-3, 2.1e-3, 1e-3), 300e-6, 1e-6),
		withFits(implRun("dawn", 2e-3, 1.9e-3, 2.1e-3, 1e-3), 150e-6, 2e-6),
	})
	for i, want := range []float64{300e-6, 150e-6} {
		c := rep.Backends.Rows[0].Cells[i]
		if c.CallCost != want || c.CallCostLo != 0 || c.CallCostHi != 2*want {
			t.Errorf("%s: fixed cost per call %g [%g, %g], want %g [0, %g]", c.Implementation, c.CallCost, c.CallCostLo, c.CallCostHi, want, 2*want)
		}
	}
	if cpu := rep.Backends.Rows[1]; cpu.Side != report.SideCPU || cpu.Cells[0].CallCost != 0 {
		t.Errorf("CPU row carries a GPU call cost: %+v", cpu)
	}
	if !strings.Contains(rep.Verdicts[0], "fixed cost per call 300µs") || !strings.Contains(rep.Verdicts[0], "fixed cost per call 150µs") {
		t.Errorf("answer line names no fixed cost per call: %q", rep.Verdicts[0])
	}
}

// TestMergeImplsAAControl: the CPU rows, which no implementation
// touches, are the A/A control: labelled so, never "faster"; their band
// is named in an answer line; a GPU ratio whose CI meets the band is
// within host noise, one clear of it stays a finding.
func TestMergeImplsAAControl(t *testing.T) {
	run := func(impl string, gpu, cpu float64) BackendResult {
		r := implRun(impl, gpu, 0.98*gpu, 1.02*gpu, gpu/2)
		r.Report.Measurements[1].EndToEnd = timing.Summary{Median: cpu, Lo: 0.99 * cpu, Hi: 1.01 * cpu}
		return r
	}
	// The CPU row moved 1.5× between the runs (a busy host): a GPU ratio
	// of 1.2× is inside that band.
	rep := MergeImpls([]BackendResult{run("wgpu-native", 2e-3, 1e-3), run("dawn", 2.4e-3, 1.5e-3)})
	b := rep.Backends
	if b.Control == nil || b.Control.Rows != 1 || b.Control.Lo > 1/1.5 || b.Control.Hi < 1.5 {
		t.Fatalf("control %+v, want 1 row, band 1/1.5–1.5× or wider", b.Control)
	}
	for _, r := range b.Rows {
		got := r.Cells[1].Faster
		want := report.FasterWithinNoise
		if r.Side == report.SideCPU {
			want = report.FasterAAControl
		}
		if got != want {
			t.Errorf("%s row: faster %q, want %q", r.Side, got, want)
		}
	}
	joined := strings.Join(rep.Verdicts, "\n")
	if !strings.Contains(joined, "A/A control: the CPU rows (no WebGPU implementation or backend touches them) moved 0.6") ||
		!strings.Contains(joined, ": within host noise") {
		t.Errorf("answers lack the control or the noise verdict:\n%s", joined)
	}
	// A quiet host: the CPU rows agree, and a 1.2× GPU ratio is a finding.
	rep = MergeImpls([]BackendResult{run("wgpu-native", 2e-3, 1e-3), run("dawn", 2.4e-3, 1e-3)})
	if f := rep.Backends.Rows[0].Cells[1].Faster; f != "wgpu-native" {
		t.Errorf("quiet host, GPU ratio 1.2×: faster %q, want wgpu-native", f)
	}
}
