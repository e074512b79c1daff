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
	acc := func(r float64) workload.Accuracy { return workload.Accuracy{K: 10, Recall: r, Worst: r, Queries: 1} }
	pts := []quantPoint{
		{prec: "f32", acc: acc(1), gpu: rowAt("gpu", 4e-3), cpu: rowAt("cpu", 4e-3)},
		{prec: "f16", acc: acc(1), gpu: rowAt("gpu", 5e-3), cpu: rowAt("cpu", 2e-3)},
		{prec: "int8", acc: acc(0.9), gpu: rowAt("gpu", 3e-3), cpu: rowAt("cpu", 1e-3)},
	}
	v := quantVerdict("cosine-topk", "n = 1000 rows", pts, 0.95, quantControl{})
	for _, want := range []string{"cosine-topk, n = 1000 rows: fastest at recall@10 ≥ 0.95", "CPU: f16 (2 ms a call", "f32 4 ms over 977 KiB at DRAM, -50.0%", "GPU: f32 (4 ms", "below the accepted recall: int8 (recall@10 0.900)"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
	pts[2].acc = acc(0.96)
	if v := quantVerdict("cosine-topk", "n = 1000 rows", pts, 0.95, quantControl{}); !strings.Contains(v, "CPU: int8 (1 ms") || !strings.Contains(v, "GPU: int8 (3 ms") {
		t.Errorf("verdict %q: want int8 on both sides", v)
	}
	// Several queries: the mean decides, the worst is named beside it.
	pts[2].acc = workload.Accuracy{K: 10, Recall: 0.97, Worst: 0.8, Queries: 16}
	v = quantVerdict("cosine-batch", "q = 16 queries, n = 1000 rows", pts, 0.95, quantControl{})
	if !strings.Contains(v, "CPU: int8 (1 ms a call, recall@10 0.970 mean, 0.800 worst of 16") {
		t.Errorf("verdict %q: want int8 with its mean and worst recall", v)
	}
	pts[2].acc.Recall = 0.94
	v = quantVerdict("cosine-batch", "q = 16 queries, n = 1000 rows", pts, 0.95, quantControl{})
	if !strings.Contains(v, "below the accepted recall: int8 (recall@10 0.940 mean, 0.800 worst of 16)") || strings.Contains(v, "CPU: int8") {
		t.Errorf("verdict %q: want int8 refused on its mean", v)
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

// TestQuantAAControl: f32 measured twice is the precisions' A/A control;
// a precision whose ratio to f32 meets the band f32 moved in is within
// host noise, one clear of it is a finding.
func TestQuantAAControl(t *testing.T) {
	row := func(side string, med, rel float64) *report.Measurement {
		return &report.Measurement{Side: side, EndToEnd: timing.Summary{Median: med, Lo: med * (1 - rel), Hi: med * (1 + rel)}}
	}
	f32 := quantPoint{prec: "f32", gpu: row("gpu", 4e-3, 0.01), cpu: row("cpu", 10e-3, 0.02)}
	// The CPU's f32 read 13.8 ms the second time (the host moved); the
	// GPU's did not.
	again := quantPoint{prec: "f32", gpu: row("gpu", 4e-3, 0.01), cpu: row("cpu", 13.8e-3, 0.02)}
	c := quantControlOf(f32, again)
	if !c.ok[0] || !c.ok[1] || math.Abs(c.lo[1]*c.hi[1]-1) > 1e-12 || c.hi[1] < 1.38 || c.hi[0] > 1.03 {
		t.Fatalf("control %+v", c)
	}
	if !c.noise(1, f32.cpu, row("cpu", 13e-3, 0.02)) {
		t.Error("CPU int8 1.3× f32's time, inside the 0.69–1.44× band: not within host noise")
	}
	if c.noise(1, f32.cpu, row("cpu", 5e-3, 0.02)) {
		t.Error("CPU int8 0.5× f32's time, outside the band: called noise")
	}
	if !c.noise(0, f32.gpu, row("gpu", 4.05e-3, 0.01)) || c.noise(0, f32.gpu, row("gpu", 3e-3, 0.01)) {
		t.Error("GPU band 0.98–1.02×: 4.05 ms is noise, 3 ms is not")
	}
	if l := c.line("cosine-single"); !strings.Contains(l, "cosine-single A/A control: f32 measured again after the other precisions moved GPU 0.98–1.02×, CPU 0.70–1.44") {
		t.Errorf("line %q", l)
	}
	acc := workload.Accuracy{K: 10, Recall: 1, Worst: 1, Queries: 1}
	pts := []quantPoint{{prec: "f32", acc: acc, gpu: f32.gpu, cpu: f32.cpu}, {prec: "int8", acc: acc, gpu: row("gpu", 5e-3, 0.01), cpu: row("cpu", 9e-3, 0.02)}}
	if v := quantVerdict("w", "n = 1 rows", pts, 0.95, c); !strings.Contains(v, "CPU: int8 (9 ms") || !strings.Contains(v, "-10.0%, within host noise") {
		t.Errorf("verdict %q: int8 −10%% on the CPU is inside the band", v)
	}
}
