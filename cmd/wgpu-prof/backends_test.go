package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// run --backend vulkan,gl measures the suite on both and reports them side
// by side: every row names its backend, the side-by-side table has a cell
// per backend with the ratio, and the text leads with it. Skipped where
// this machine has no OpenGL adapter.
func TestRunTwoBackendsSideBySide(t *testing.T) {
	if d, err := env.Devices("gl", "test"); err != nil || len(d.Adapters) == 0 {
		t.Skipf("no OpenGL adapter: %v", err)
	}
	args := []string{"run", "--quick", "--backend", "vulkan,gl", "--workloads", "hnsw", "--d", "64", "--n", "2048", "--batches", "1,4,16"}
	stdout, _, err := runCmd(append(args, "--format", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Backends == nil || len(r.Backends.Adapters) != 2 || r.Backends.Adapters[1].Adapter.Backend != "gl" {
		t.Fatalf("backends %+v", r.Backends)
	}
	by := map[string]int{}
	for _, m := range r.Measurements {
		if m.Adapter == "" {
			t.Errorf("row %s %s names no adapter", m.Workload, m.Side)
		}
		by[m.Backend]++
	}
	if by["vulkan"] == 0 || by["gl"] == 0 || len(by) != 2 {
		t.Errorf("rows per backend %v", by)
	}
	for _, row := range r.Backends.Rows {
		if len(row.Cells) != 2 || row.Cells[1].Backend != "gl" || row.Cells[1].VsFirst <= 0 {
			t.Errorf("side-by-side row %+v", row)
		}
	}
	text, _, err := runCmd(args...)
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(text, "Backends side by side"), strings.Index(text, "Answer"); i < 0 || i > j || !strings.Contains(text, "vs vulkan") {
		t.Errorf("text does not lead with the backends side by side:\n%s", text)
	}
	if _, _, err := runCmd("sweep", "variant", "--kernel", "hnsw", "--backend", "vulkan,gl"); err == nil || !strings.Contains(err.Error(), "one backend") {
		t.Errorf("sweep with two backends: %v", err)
	}
}
