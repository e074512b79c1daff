package plan

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A plan's operation names its precision (precision=P, checked), and a
// given report's break-even is used only for the precision it measured.
func TestPlanPrecision(t *testing.T) {
	op, err := ParseOp(`sim$=cosine-single,precision=int8`)
	if err != nil || op.Precision != "int8" {
		t.Fatalf("ParsePlanOp: %+v, %v", op, err)
	}
	if _, err := ParseOp(`sim$=cosine-single,precision=int4`); err == nil || !strings.Contains(err.Error(), "precision=int4") {
		t.Fatalf("precision=int4: %v, want an error naming it", err)
	}
	seg := &timing.Model{Segments: []timing.Segment{{From: 1, To: 100}}}
	be := func(params ...report.Param) report.BreakEven {
		return report.BreakEven{Workload: "cosine-single", Clock: "end-to-end", Params: params, ModelA: seg, ModelB: seg}
	}
	rep := &report.Report{BreakEvens: []report.BreakEven{be(), be(report.Param{Key: "precision", Value: "int8"})}}
	for _, c := range []struct {
		prec string
		want string
	}{{"", "f32"}, {"f32", "f32"}, {"int8", "int8"}} {
		got, ok := BreakEvenOf(rep, "cosine-single", c.prec)
		m := report.Measurement{Params: got.Params}
		if !ok || m.Precision() != c.want {
			t.Fatalf("PlanBreakEven(%q) = %v, %v; want the %s one", c.prec, got.Params, ok, c.want)
		}
	}
	if _, ok := BreakEvenOf(rep, "cosine-single", "f16"); ok {
		t.Fatal("PlanBreakEven(f16) found one; the report has none")
	}
}

// An operation's kernel bound comes from its own precision's GPU rows,
// and an int8 operation is placed under the int8 peak.
func TestPlanKernelRowByPrecision(t *testing.T) {
	w, err := workload.Lookup("cosine-single")
	if err != nil {
		t.Fatal(err)
	}
	rows := []report.Measurement{
		{Workload: w.Name, Side: report.SideGPU, Params: []report.Param{{Key: "n", Value: "100"}}, Bound: "memory", CeilingFrac: 0.5},
		{Workload: w.Name, Side: report.SideGPU, Params: []report.Param{{Key: "n", Value: "100"}, {Key: "precision", Value: "int8"}}, Bound: "compute", CeilingFrac: 0.3},
	}
	if b := kernelBound(rows, w, "", 100, nil); !strings.Contains(b, "memory") {
		t.Fatalf("f32 bound %q, want the f32 row's (memory)", b)
	}
	if b := kernelBound(rows, w, "int8", 100, nil); !strings.Contains(b, "compute") {
		t.Fatalf("int8 bound %q, want the int8 row's (compute)", b)
	}
	in := Input{GPURoof: &timing.Roof{PeakGFLOPs: 50, BandwidthGBs: 10}, GPUInt8GOPs: 30}
	if r := in.roofOf("int8"); r.PeakGFLOPs != 30 || r.BandwidthGBs != 10 || in.GPURoof.PeakGFLOPs != 50 {
		t.Fatalf("int8 roof %+v (GPURoof %+v)", r, in.GPURoof)
	}
	if r := in.roofOf("f16"); r.PeakGFLOPs != 50 {
		t.Fatalf("f16 roof %+v, want the FMA peak", r)
	}
}
