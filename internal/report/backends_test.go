package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A report of several backends shows them side by side in text and HTML
// (adapters named, ratio column), and every row names its backend in the
// text table and the CSV.
func TestBackendsSideBySideOutputs(t *testing.T) {
	m := func(backend string, sec float64) Measurement {
		return Measurement{Workload: "hnsw", Side: SideGPU, Variant: "lanes", Backend: backend, Adapter: "llvmpipe " + backend,
			EndToEnd: timing.Summary{Median: sec, N: 10}, Verified: true}
	}
	r := &Report{Schema: SchemaVersion, Adapter: AdapterInfo{Name: "llvmpipe vulkan", Backend: "vulkan"},
		Measurements: []Measurement{m("vulkan", 2e-3), m("gl", 1e-3)},
		Backends: &Backends{
			Adapters: []BackendRun{{Adapter: AdapterInfo{Name: "llvmpipe vulkan", Backend: "vulkan"}}, {Adapter: AdapterInfo{Name: "llvmpipe gl", Backend: "gl"}}},
			Rows: []BackendRow{{Workload: "hnsw", Side: SideGPU, Cells: []BackendCell{
				{Backend: "vulkan", Adapter: "llvmpipe vulkan", EndToEnd: 2e-3, Verdict: "CPU 2.0× faster"},
				{Backend: "gl", Adapter: "llvmpipe gl", EndToEnd: 1e-3, VsFirst: 0.5, Verdict: "CPU 1.0× faster"},
			}}},
		}}
	var txt bytes.Buffer
	if err := WriteText(&txt, r); err != nil {
		t.Fatal(err)
	}
	s := txt.String()
	var verbose bytes.Buffer
	if err := WriteTextOpts(&verbose, r, TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for form, wants := range map[string][]string{
		// The short form folds the table: a line per backend, the ratio
		// to the first.
		s:                {"Backends side by side", "[0] vulkan (llvmpipe vulkan)", "[1] gl (llvmpipe gl)", "vs vulkan", "0.50×"},
		verbose.String(): {"Backends side by side", "[0] vulkan (llvmpipe vulkan)", "[1] gl (llvmpipe gl)", "gl/vulkan", "0.50×", "vulkan end-to-end"},
	} {
		for _, want := range wants {
			if !strings.Contains(form, want) {
				t.Errorf("text lacks %q:\n%s", want, form)
			}
		}
	}
	if strings.Index(s, "Backends side by side") > strings.Index(s, "Measurements") {
		t.Error("the side-by-side table must come before the detail")
	}
	var c bytes.Buffer
	if err := WriteCSV(&c, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if recs[1][col["backend"]] != "vulkan" || recs[2][col["backend"]] != "gl" || recs[2][col["adapter"]] != "llvmpipe gl" {
		t.Errorf("CSV rows do not name their backend: %q", recs)
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Backends side by side", "vs vulkan", "<td class=\"label\">0.50×</td>", "gl (llvmpipe gl)"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// Compare matches a row only with the same backend's when both reports
// name backends; CompareAcrossBackends matches rows of two single-backend
// reports by workload, side and params whatever the backend and variant,
// and refuses a report that holds several backends.
func TestCompareAcrossBackends(t *testing.T) {
	one := func(backend, variant string, sec float64) *Report {
		return &Report{Measurements: []Measurement{{Workload: "hnsw", Side: SideGPU, Variant: variant, Backend: backend,
			Params: []Param{{Key: "q", Value: "16"}}, EndToEnd: timing.Summary{Median: sec, Lo: sec * 0.99, Hi: sec * 1.01, N: 10}}}}
	}
	vk, gl := one("vulkan", "lanes-wg64", 2e-3), one("gl", "per-pair-wg32", 1e-3)
	if c := Compare(vk, gl, 0.05); len(c.Rows) != 0 || len(c.OnlyOld) != 1 {
		t.Errorf("plain compare matched rows of different backends: %+v", c)
	}
	c, err := CompareAcrossBackends(vk, gl, 0.05)
	if err != nil || len(c.Rows) != 1 || c.Rows[0].Delta > -0.49 || c.Rows[0].OldBackend != "vulkan/lanes-wg64" || c.Rows[0].NewBackend != "gl/per-pair-wg32" {
		t.Fatalf("across: %+v, %v", c, err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil || !strings.Contains(b.String(), "hnsw|gpu (vulkan/lanes-wg64 → gl/per-pair-wg32)") {
		t.Errorf("compare text %q, %v", b.String(), err)
	}
	several := one("vulkan", "x", 1)
	several.Backends = &Backends{Adapters: []BackendRun{{}, {}}}
	if _, err := CompareAcrossBackends(several, gl, 0.05); err != ErrSeveralBackends {
		t.Errorf("several backends: %v", err)
	}
	old := one("", "lanes-wg64", 2e-3)
	if c := Compare(old, one("vulkan", "lanes-wg64", 2e-3), 0.05); len(c.Rows) != 1 {
		t.Errorf("a report without backends no longer matches: %+v", c)
	}
}

// With several backends each break-even gets a figure of its own, named
// and titled by its backend (no two figures share a file name).
func TestBackendsFiguresNamed(t *testing.T) {
	be := func(b string) BreakEven {
		return BreakEven{Workload: "hnsw", Clock: "end-to-end", Backend: b, Adapter: "llvmpipe " + b}
	}
	r := &Report{BreakEvens: []BreakEven{be("vulkan"), be("gl")}, Backends: &Backends{Adapters: []BackendRun{{}, {}}}}
	seen := map[string]bool{}
	for _, f := range Figures(r) {
		if seen[f.Name] {
			t.Errorf("two figures named %q", f.Name)
		}
		seen[f.Name] = true
	}
	if !seen["breakeven-vulkan-hnsw-end-to-end"] || !seen["breakeven-gl-hnsw-end-to-end"] {
		t.Errorf("figures %v", seen)
	}
}

// With two implementations on one backend each break-even is named by
// its implementation too: run --impl wgpu-native,dawn --plot writes both.
func TestImplementationsFiguresNamed(t *testing.T) {
	be := func(impl string) BreakEven {
		return BreakEven{Workload: "cosine-single", Clock: "end-to-end", Backend: "vulkan", Adapter: "llvmpipe", Implementation: impl}
	}
	r := &Report{BreakEvens: []BreakEven{be("wgpu-native"), be("dawn")},
		Backends: &Backends{By: "implementation", Adapters: []BackendRun{{}, {}}}}
	seen := map[string]bool{}
	for _, f := range Figures(r) {
		if seen[f.Name] {
			t.Errorf("two figures named %q", f.Name)
		}
		seen[f.Name] = true
	}
	if !seen["breakeven-wgpu-native-vulkan-cosine-single-end-to-end"] || !seen["breakeven-dawn-vulkan-cosine-single-end-to-end"] {
		t.Errorf("figures %v", seen)
	}
}

// A break-even measured in both data regimes (resident and shipped) on
// one clock gets a figure per regime: breakeven --plot writes them all.
func TestRegimesFiguresNamed(t *testing.T) {
	be := func(regime string) BreakEven {
		return BreakEven{Workload: "hnsw", Clock: "end-to-end", Regime: regime}
	}
	r := &Report{BreakEvens: []BreakEven{be("resident"), {Workload: "hnsw", Clock: "kernel", Regime: "resident"}, be("shipped")}}
	seen := map[string]bool{}
	for _, f := range Figures(r) {
		if seen[f.Name] {
			t.Errorf("two figures named %q", f.Name)
		}
		seen[f.Name] = true
	}
	for _, want := range []string{"breakeven-hnsw-end-to-end", "breakeven-hnsw-kernel", "breakeven-hnsw-end-to-end-shipped"} {
		if !seen[want] {
			t.Errorf("no figure %q in %v", want, seen)
		}
	}
}

// A comparison of implementations shows each one's fixed cost per call
// beside its kernel time, with the ratio's CI and the faster one, in the
// text, HTML, the side-by-side CSV and the bench names.
func TestImplsSideBySideOutputs(t *testing.T) {
	m := func(impl string, sec float64) Measurement {
		return Measurement{Workload: "hnsw", Side: SideGPU, Variant: "lanes", Backend: "vulkan", Adapter: "llvmpipe", Implementation: impl,
			EndToEnd: timing.Summary{Median: sec, N: 10}, Verified: true}
	}
	r := &Report{Schema: SchemaVersion, Adapter: AdapterInfo{Name: "llvmpipe", Backend: "vulkan", Implementation: "wgpu-native"},
		Measurements: []Measurement{m("wgpu-native", 2e-3), m("dawn", 1e-3)},
		Backends: &Backends{By: "implementation",
			Adapters: []BackendRun{
				{Adapter: AdapterInfo{Name: "llvmpipe", Backend: "vulkan", Implementation: "wgpu-native", ImplementationVersion: "29"}},
				{Adapter: AdapterInfo{Name: "llvmpipe", Backend: "vulkan", Implementation: "dawn", ImplementationVersion: "133"},
					Latency: &timing.Anatomy{Empty: timing.Summary{Median: 20e-6, Lo: 18e-6, Hi: 22e-6}, Tiny: timing.Summary{Median: 70e-6}}}},
			Rows: []BackendRow{{Workload: "hnsw", Side: SideGPU, Cells: []BackendCell{
				{Backend: "vulkan", Implementation: "wgpu-native", EndToEnd: 2e-3, Kernel: 1e-3, CallCost: 400e-6, CallCostLo: 300e-6, CallCostHi: 500e-6},
				{Backend: "vulkan", Implementation: "dawn", EndToEnd: 1e-3, Kernel: 0.9e-3, CallCost: 120e-6, CallCostLo: 100e-6, CallCostHi: 140e-6,
					VsFirst: 0.5, VsFirstLo: 0.45, VsFirstHi: 0.55, KernelVsFirst: 0.9, Faster: "dawn"},
			}}},
		}}
	var txt, html, sbs, bench bytes.Buffer
	if err := WriteText(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	var verbose bytes.Buffer
	if err := WriteTextOpts(&verbose, r, TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	whole := []string{"wgpu-native fixed/call", "dawn fixed/call", "400µs [300µs, 500µs]", "120µs [100µs, 140µs]", "0.45–0.55×", "dawn/wgpu-native", "calls: empty call 20.0µs [18.0µs, 22.0µs], tiny call 70.0µs"}
	for name, c := range map[string]struct {
		out   string
		wants []string
	}{
		// The short text folds the table within 120 columns: a line per
		// implementation, the fixed cost without its CI.
		"text":    {txt.String(), []string{"fixed/call", "vs wgpu-native", "400µs", "120µs", "0.50× [0.45, 0.55]", "calls: empty call 20.0µs [18.0µs, 22.0µs], tiny call 70.0µs"}},
		"verbose": {verbose.String(), whole},
		// report.html folds the table as the short text does, every
		// figure kept.
		"html": {html.String(), []string{"fixed/call [95% CI]", "vs wgpu-native", "400µs [300µs, 500µs]", "120µs [100µs, 140µs]", "0.45–0.55×", "calls: empty call 20.0µs [18.0µs, 22.0µs], tiny call 70.0µs"}},
	} {
		for _, want := range c.wants {
			if !strings.Contains(c.out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, c.out)
			}
		}
	}
	if !strings.Contains(txt.String(), "through wgpu-native 29, dawn 133 (side by side)") || !strings.Contains(html.String(), ">wgpu-native 29, dawn 133 (side by side)<") {
		t.Errorf("the header must name both implementations:\n%s", txt.String())
	}
	if err := WriteSideBySideCSV(&sbs, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&sbs).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("side-by-side CSV: %v %q", err, rows)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	d := rows[2]
	if d[col["implementation"]] != "dawn" || d[col["by"]] != "implementation" || d[col["call_cost_s"]] != "0.00012" ||
		d[col["vs_first_lo"]] != "0.45" || d[col["faster"]] != "dawn" || rows[1][col["vs_first"]] != "" {
		t.Errorf("side-by-side CSV rows: %q", rows)
	}
	if err := WriteBench(&bench, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bench.String(), "/impl=wgpu_native/") || !strings.Contains(bench.String(), "/impl=dawn/") {
		t.Errorf("bench rows must name their implementation:\n%s", bench.String())
	}
}
