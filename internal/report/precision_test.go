package report

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Rows of each precision sit on the roofline at their own intensity, an
// int8 row under its side's int8 dot-product roof, named in integer ops.
func TestRooflineByPrecision(t *testing.T) {
	i8 := Measurement{Workload: "cosine-single", Side: SideCPU, Params: []Param{{Key: "precision", Value: "int8"}},
		Bytes: 1e6, Flops: 4e6, GFLOPs: 40, Bound: "memory", EndToEnd: timing.Summary{Median: 1e-4, N: 10}}
	f32 := Measurement{Workload: "cosine-single", Side: SideCPU, Bytes: 4e6, Flops: 4e6, GFLOPs: 10, Bound: "memory", EndToEnd: timing.Summary{Median: 4e-4, N: 10}}
	r := &Report{Measurements: []Measurement{f32, i8}}
	r.Ceilings.CPU = map[string]float64{"read_gbs": 50, "fma_gflops": 100, Int8PeakKey: 800}
	roofs, points := RooflineOf(r)
	if len(roofs) != 2 || len(points) != 2 {
		t.Fatalf("roofs %+v points %+v: want one roof and one point per precision", roofs, points)
	}
	if roofs[1].Label != "CPU DRAM int8" || roofs[1].Roof.PeakGFLOPs != 800 || points[1].Roof != "CPU DRAM int8" || points[1].Label != "cpu cosine-single int8" {
		t.Fatalf("int8: roof %+v point %+v", roofs[1], points[1])
	}
	if x0, x1 := points[0].Point.Flops/points[0].Point.Bytes, points[1].Point.Flops/points[1].Point.Bytes; x1 != 4*x0 {
		t.Fatalf("intensities %v and %v: int8 should sit at 4× f32's", x0, x1)
	}
	if got := FormatRateOf(&i8); !strings.HasSuffix(got, "ops/s") {
		t.Fatalf("int8 rate %q, want integer ops", got)
	}
	if got := FormatRateOf(&f32); !strings.HasSuffix(got, "FLOP/s") {
		t.Fatalf("f32 rate %q, want FLOP/s", got)
	}
}
