package sweeps

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func rowAt(side string, sec float64) *report.Measurement {
	return &report.Measurement{Side: side, EndToEnd: timing.Summary{Median: sec}, Bytes: 1e6}
}

// The answer names, per side, the fastest precision whose recall is
// accepted: a faster precision below the recall is left out and named.
func TestQuantVerdict(t *testing.T) {
	pts := []quantPoint{
		{prec: "f32", gpu: rowAt("gpu", 4e-3), cpu: rowAt("cpu", 4e-3)},
		{prec: "f16", gpu: rowAt("gpu", 5e-3), cpu: rowAt("cpu", 2e-3)},
		{prec: "int8", gpu: rowAt("gpu", 3e-3), cpu: rowAt("cpu", 1e-3)},
	}
	acc := map[string]workload.Accuracy{
		"f32": {K: 10, Recall: 1}, "f16": {K: 10, Recall: 1}, "int8": {K: 10, Recall: 0.9},
	}
	v := quantVerdict("cosine-topk", 1000, pts, acc, 0.95)
	for _, want := range []string{"CPU: f16 (2 ms a call", "f32 4 ms over 977 KiB at DRAM, -50.0%", "GPU: f32 (4 ms", "below the accepted recall: int8 (recall@10 0.900)"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
	acc["int8"] = workload.Accuracy{K: 10, Recall: 0.96}
	if v := quantVerdict("cosine-topk", 1000, pts, acc, 0.95); !strings.Contains(v, "CPU: int8 (1 ms") || !strings.Contains(v, "GPU: int8 (3 ms") {
		t.Errorf("verdict %q: want int8 on both sides", v)
	}
}

func TestOverhead(t *testing.T) {
	if got := overhead(rowAt("cpu", 4), rowAt("cpu", 1)); got != -0.75 {
		t.Errorf("(1 − 4)/4 = %v", got)
	}
	if got := overhead(nil, rowAt("cpu", 1)); !math.IsNaN(got) || fmtOverhead(got) != "-" {
		t.Errorf("missing A: %v %q", got, fmtOverhead(got))
	}
	if got := fmtOverhead(0.274); got != "+27.4%" {
		t.Errorf("fmtOverhead(0.274) = %q", got)
	}
}
