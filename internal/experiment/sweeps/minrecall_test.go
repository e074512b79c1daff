package sweeps

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// A recall exactly at --min-recall reaches it: the precision is accepted
// (the verdict says "≥"), chosen where it is fastest and not listed
// below the accepted recall. 9 hits of 10 is the recall 0.9 that
// --min-recall 0.9 parses to; --min-recall 1 accepts a recall of 1.
func TestQuantVerdictRecallAtMinAccepted(t *testing.T) {
	acc := func(hits int) workload.Accuracy {
		r := float64(hits) / 10
		return workload.Accuracy{K: 10, Recall: r, Worst: r, Queries: 1}
	}
	pts := []quantPoint{
		{prec: "f32", acc: acc(10), gpu: rowAt("gpu", 4e-3), cpu: rowAt("cpu", 4e-3)},
		{prec: "f16", acc: acc(10), gpu: rowAt("gpu", 5e-3), cpu: rowAt("cpu", 2e-3)},
		{prec: "int8", acc: acc(9), gpu: rowAt("gpu", 3e-3), cpu: rowAt("cpu", 1e-3)},
	}
	v := quantVerdict("cosine-topk", "n = 1000 rows", pts, 0.9, quantControl{})
	if !strings.Contains(v, "CPU: int8 (1 ms a call, recall@10 0.900") || !strings.Contains(v, "GPU: int8 (3 ms") || strings.Contains(v, "below the accepted recall") {
		t.Errorf("int8 at recall 0.9 with --min-recall 0.9: %q, want it accepted on both sides", v)
	}
	// Every precision below 1 but f32: --min-recall 1 accepts f32's 1.
	pts[1].acc, pts[2].acc = acc(9), acc(8)
	v = quantVerdict("cosine-topk", "n = 1000 rows", pts, 1, quantControl{})
	if !strings.Contains(v, "CPU: f32 (4 ms") || !strings.Contains(v, "GPU: f32 (4 ms") || strings.Contains(v, "f32 (recall") {
		t.Errorf("f32 at recall 1 with --min-recall 1: %q, want it accepted", v)
	}
	if !strings.Contains(v, "below the accepted recall: f16 (recall@10 0.900), int8 (recall@10 0.800)") {
		t.Errorf("%q: want f16 and int8 refused", v)
	}
}
