package experiment

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A plan's operation names its precision (precision=P, checked), and a
// given report's break-even is used only for the precision it measured.
func TestPlanPrecision(t *testing.T) {
	op, err := ParsePlanOp(`sim$=cosine-single,precision=int8`)
	if err != nil || op.Precision != "int8" {
		t.Fatalf("ParsePlanOp: %+v, %v", op, err)
	}
	if _, err := ParsePlanOp(`sim$=cosine-single,precision=int4`); err == nil || !strings.Contains(err.Error(), "precision=int4") {
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
		got, ok := PlanBreakEven(rep, "cosine-single", c.prec)
		m := report.Measurement{Params: got.Params}
		if !ok || m.Precision() != c.want {
			t.Fatalf("PlanBreakEven(%q) = %v, %v; want the %s one", c.prec, got.Params, ok, c.want)
		}
	}
	if _, ok := PlanBreakEven(rep, "cosine-single", "f16"); ok {
		t.Fatal("PlanBreakEven(f16) found one; the report has none")
	}
}
