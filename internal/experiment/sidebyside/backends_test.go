package sidebyside

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func plantedRun(backend string, gpu, cpu float64, skipped string) *report.Report {
	r := &report.Report{Adapter: report.AdapterInfo{Name: "adapter-" + backend, Backend: backend}}
	row := func(w, side string, sec float64) report.Measurement {
		return report.Measurement{Workload: w, Side: side, Backend: backend, Adapter: "adapter-" + backend,
			Params: []report.Param{{Key: "n", Value: "8"}}, EndToEnd: timing.Summary{Median: sec}}
	}
	r.Measurements = []report.Measurement{row("a", report.SideGPU, gpu), row("a", report.SideCPU, cpu)}
	r.Summary = []string{"a: the answer"}
	if skipped != "" {
		r.Skipped = []report.Skip{{Workload: skipped, Backend: backend, Adapter: "adapter-" + backend, Reason: "no GPU variant runs on this adapter: x needs subgroups"}}
	} else {
		r.Measurements = append(r.Measurements, row("b", report.SideGPU, 1e-3), row("b", report.SideCPU, 1e-3))
	}
	return r
}

// MergeBackends keeps every adapter's rows (each naming its backend),
// lines them up per workload and side with the ratio to the first adapter
// and the GPU-vs-CPU verdict on each, says why a workload is missing on
// an adapter, and reports an adapter that could not be opened.
func TestMergeBackendsSideBySide(t *testing.T) {
	runs := []BackendResult{
		{Label: "vulkan", Report: plantedRun("vulkan", 4e-3, 1e-3, "")},
		{Label: "gl", Report: plantedRun("gl", 2e-3, 1e-3, "b")},
		{Label: "metal", Err: errors.New("no metal adapter")},
	}
	r := MergeBackends(runs)
	if r == nil || r.Backends == nil || len(r.Backends.Adapters) != 3 {
		t.Fatalf("merged %+v", r)
	}
	if len(r.Measurements) != 6 {
		t.Fatalf("%d rows, want 6", len(r.Measurements))
	}
	rows := r.Backends.Rows
	if len(rows) != 4 || rows[0].Workload != "a" || rows[0].Side != report.SideGPU || len(rows[0].Cells) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	vk, gl, mt := rows[0].Cells[0], rows[0].Cells[1], rows[0].Cells[2]
	if vk.Backend != "vulkan" || gl.Backend != "gl" || gl.Adapter != "adapter-gl" {
		t.Errorf("cells name %q/%q", vk.Backend, gl.Backend)
	}
	if gl.VsFirst < 0.49 || gl.VsFirst > 0.51 || vk.VsFirst != 0 {
		t.Errorf("gl/vulkan = %v, want 0.5", gl.VsFirst)
	}
	if vk.Verdict != "CPU 4.0× faster" || gl.Verdict != "CPU 2.0× faster" {
		t.Errorf("verdicts %q, %q", vk.Verdict, gl.Verdict)
	}
	if !strings.Contains(mt.Missing, "no metal adapter") {
		t.Errorf("metal cell %+v", mt)
	}
	if b := rows[2].Cells[1]; rows[2].Workload != "b" || !strings.Contains(b.Missing, "skipped") || !strings.Contains(b.Missing, "subgroups") {
		t.Errorf("b on gl: %+v", rows[2])
	}
	if !strings.HasPrefix(r.Verdicts[0], "a side by side: vulkan GPU 4.00ms") || !strings.Contains(r.Verdicts[0], "gl GPU 2.00ms (CPU 2.0× faster), 0.50× vulkan's time") {
		t.Errorf("first verdict %q", r.Verdicts[0])
	}
	var tagged, notMeasured bool
	for _, s := range r.Summary {
		tagged = tagged || s == "[gl] a: the answer"
	}
	for _, w := range r.Warnings {
		notMeasured = notMeasured || strings.Contains(w, "[metal] not measured: no metal adapter")
	}
	if !tagged || !notMeasured {
		t.Errorf("summary %q\nwarnings %q", r.Summary, r.Warnings)
	}
	if MergeBackends([]BackendResult{{Label: "gl", Err: errors.New("x")}}) != nil {
		t.Error("no report merged into one")
	}
}
