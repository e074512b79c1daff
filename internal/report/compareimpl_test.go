package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func implReport(impl string, gpu map[string][3]float64) *Report {
	r := &Report{Schema: SchemaVersion, Adapter: AdapterInfo{Name: "llvmpipe", Backend: "vulkan", Implementation: impl}}
	for _, w := range []string{"a", "b", "c", "d"} {
		v, ok := gpu[w]
		if !ok {
			continue
		}
		k := timing.Summary{Median: v[0] / 2}
		r.Measurements = append(r.Measurements,
			Measurement{Workload: w, Side: SideCPU, EndToEnd: timing.Summary{Median: 1e-3, Lo: 1e-3, Hi: 1e-3}},
			Measurement{Workload: w, Side: SideGPU, Variant: impl + "-pick", EndToEnd: timing.Summary{Median: v[0], Lo: v[1], Hi: v[2]}, Kernel: &k})
	}
	r.BreakEvens = []BreakEven{{Workload: "a", Clock: "end-to-end", GPUFit: timing.LinearFit{Overhead: gpu["a"][0] / 4}}}
	return r
}

// Two reports that differ only in implementation compare GPU row by GPU
// row whatever variant each picked: the ratio's CI is that of the far
// ends of the medians' CIs, a CI holding 1 is a tie, the verdict leads.
func TestCompareImpls(t *testing.T) {
	old := implReport("", map[string][3]float64{"a": {2e-3, 1.9e-3, 2.1e-3}, "b": {2e-3, 1.9e-3, 2.1e-3}, "c": {2e-3, 1.9e-3, 2.1e-3}, "d": {1e-3, 1e-3, 1e-3}})
	cur := implReport("dawn", map[string][3]float64{"a": {1e-3, 0.9e-3, 1.1e-3}, "b": {3e-3, 2.9e-3, 3.1e-3}, "c": {2e-3, 1.95e-3, 2.05e-3}})
	if !DiffersOnlyInImpl(old, cur) {
		t.Fatal("a wgpu-native report (no implementation named) and a Dawn report on one adapter differ only in implementation")
	}
	c, err := CompareImpls(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "dawn", "b": "wgpu-native", "c": "tie"}
	if len(c.Rows) != 3 {
		t.Fatalf("rows %+v", c.Rows)
	}
	for _, r := range c.Rows {
		if r.Faster != want[r.Workload] {
			t.Errorf("%s: faster %q, want %q", r.Workload, r.Faster, want[r.Workload])
		}
		if r.KernelRatio != r.Ratio || r.Lo != r.New.Lo/r.Old.Hi || r.Hi != r.New.Hi/r.Old.Lo {
			t.Errorf("%s: ratio %g [%g, %g], kernel ratio %g", r.Workload, r.Ratio, r.Lo, r.Hi, r.KernelRatio)
		}
	}
	if c.Rows[0].OldCall != 0.5e-3 || c.Rows[0].NewCall != 0.25e-3 {
		t.Errorf("fixed cost per call %g, %g; want the break-even intercepts", c.Rows[0].OldCall, c.Rows[0].NewCall)
	}
	if len(c.OnlyOld) != 1 || !strings.HasPrefix(c.OnlyOld[0], "d|gpu") {
		t.Errorf("only in old: %q", c.OnlyOld)
	}
	var b bytes.Buffer
	if err := WriteImplCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "dawn vs wgpu-native on vulkan (llvmpipe): dawn faster in 1 GPU row(s), wgpu-native in 1, tie in 1") {
		t.Errorf("the verdict must lead:\n%s", out)
	}
	for _, s := range []string{"0.50× [0.43, 0.58]", "1.50× [1.38, 1.63]", "vs wgpu-native", "only through wgpu-native: d|gpu"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// A line per implementation under each workload, within 120 columns.
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("a line %d wide (> 120): %q", n, l)
		}
	}
	for _, pair := range [][2]*Report{
		{old, implReport("", map[string][3]float64{"a": {1, 1, 1}})},                                 // same implementation
		{old, func() *Report { r := implReport("dawn", nil); r.Adapter.Backend = "gl"; return r }()}, // another backend too
	} {
		if _, err := CompareImpls(pair[0], pair[1]); !errors.Is(err, ErrNotImplPair) {
			t.Errorf("CompareImpls of reports that do not differ only in implementation: %v", err)
		}
	}
}

// A bench file of a run through one implementation says which.
func TestBenchNamesImplementation(t *testing.T) {
	var b bytes.Buffer
	r := implReport("dawn", map[string][3]float64{"a": {1e-3, 1e-3, 1e-3}})
	r.Adapter.ImplementationVersion = "133"
	if err := WriteBench(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "webgpu: dawn 133\n") {
		t.Errorf("bench file of a Dawn run:\n%s", b.String())
	}
}
