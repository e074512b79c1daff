package dispatch_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// LoadRoute reads reports through a struct of its own: it must read what
// the report package writes, field for field, and the schema it writes.
func TestLoadRouteReadsWrittenReports(t *testing.T) {
	cpu, gpu := line(1e-6, 20e-9), line(20e-6, 1e-9)
	write := jsonWriter(t)
	rep := report.Report{Schema: report.SchemaVersion, BreakEvens: []report.BreakEven{
		{Workload: "l2", Clock: "kernel", ModelA: line(1, 1), ModelB: line(1, 1)},
		{Workload: "l2", Clock: "end-to-end", Sides: []string{"cpu", "gpu"}, ModelA: cpu, ModelB: gpu, Measured: 4096, MeasuredFound: true},
	}}
	got, err := dispatch.LoadRoute(write("be.json", rep), "l2")
	if err != nil {
		t.Fatal(err)
	}
	if got.Crossover != 4096 || got.CPU.Single != cpu.Single || got.GPU.Single != gpu.Single || strings.Join(got.Sides, ",") != "cpu,gpu" {
		t.Errorf("break-even route %+v", got)
	}
	rep.BreakEvens[1].MeasuredFound = false
	if got, err := dispatch.LoadRoute(write("be2.json", rep), "l2"); err != nil || got.Crossover != -1 {
		t.Errorf("no measured crossover: %+v, %v", got, err)
	}

	pl := &report.Plan{Ops: []report.PlanOp{{Regex: `main\.sim$`, Workload: "cosine-single"}}}
	pl.Ops[0].Route = &report.PlanRoute{Sides: []string{"own", "gpu"}, CPU: cpu, GPU: gpu, Crossover: 1000}
	inside := report.Report{Schema: report.SchemaVersion, Plan: pl}
	for name, v := range map[string]any{"plan.json": pl, "report.json": inside} {
		got, err := dispatch.LoadRoute(write(name, v), "cosine-single")
		if err != nil || got.Crossover != 1000 || strings.Join(got.Sides, ",") != "own,gpu" || got.GPU.Single != gpu.Single {
			t.Errorf("%s: %+v, %v", name, got, err)
		}
	}

	inside.Schema = "wgpu-prof/v0"
	if _, err := dispatch.LoadRoute(write("old.json", inside), "cosine-single"); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("another schema: %v", err)
	}
	if _, err := dispatch.LoadRoute(write("bad.json", "{"), "x"); err == nil || errors.Is(err, dispatch.ErrNoRoute) {
		t.Errorf("corrupt file: %v", err)
	}
}

// A report holding the latency anatomy of the route's adapter gives the
// route the tiny call's round trip as the GPU side's floor: a GPU fit
// whose fixed cost lies below it no longer wins small requests. A report
// without the anatomy (written before it), or with another adapter's,
// loads as before, with no floor.
func TestLoadRouteFloorFromLatency(t *testing.T) {
	const rt = 60e-6
	write := jsonWriter(t)
	anatomy := &timing.Anatomy{Adapter: "llvmpipe", Tiny: timing.Summary{N: 40, Median: rt, Lo: 55e-6, Hi: 65e-6}}
	be := report.BreakEven{Workload: "l2", Adapter: "llvmpipe", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		ModelA: line(2e-6, 10e-9), ModelB: line(1e-6, 0.5e-9)}
	with := report.Report{Schema: report.SchemaVersion, Adapter: report.AdapterInfo{Name: "llvmpipe"}, Latency: anatomy, BreakEvens: []report.BreakEven{be}}
	without := with
	without.Latency = nil
	other := with
	other.BreakEvens = []report.BreakEven{be}
	other.BreakEvens[0].Adapter = "another"
	impl := with
	impl.Adapter.Implementation = "wgpu-native"
	impl.BreakEvens = []report.BreakEven{be}
	impl.BreakEvens[0].Implementation = "dawn"
	pl := &report.Plan{Ops: []report.PlanOp{{Regex: `main\.sim$`, Workload: "l2"}}}
	pl.Ops[0].Route = &report.PlanRoute{Sides: []string{"own", "gpu"}, CPU: be.ModelA, GPU: be.ModelB, Crossover: -1}
	plan := report.Report{Schema: report.SchemaVersion, Adapter: report.AdapterInfo{Name: "llvmpipe"}, Latency: anatomy, Plan: pl}
	for _, c := range []struct {
		name  string
		rep   any
		floor float64
	}{{"with.json", with, rt}, {"without.json", without, 0}, {"other.json", other, 0}, {"impl.json", impl, 0}, {"plan-report.json", plan, rt}, {"plan.json", pl, 0}} {
		p := write(c.name, c.rep)
		got, err := dispatch.LoadRoute(p, "l2")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.RoundTrip != c.floor {
			t.Errorf("%s: RoundTrip %v s, want %v s", c.name, got.RoundTrip, c.floor)
		}
		var side int
		r, err := dispatch.RouteFromReport(p, "l2", func(int) error { side = 0; return nil }, func(int) error { side = 1; return nil }, func(n int) int { return n })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := r.Do(16); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 1}[c.floor > 0]; side != want {
			t.Errorf("%s: the first request of size 16 went to side %d, want %d (floor %v s)", c.name, side, want, c.floor)
		}
	}
}

// line is a model of one linear segment over 1 … 2^20.
func line(a, b float64) *timing.Model {
	f := timing.LinearFit{Overhead: a, PerItem: b}
	return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 20, Fit: f}}, Single: f}
}

// jsonWriter returns a function writing v as JSON to a file name in a
// temporary folder of t's, returning its path.
func jsonWriter(t *testing.T) func(name string, v any) string {
	dir := t.TempDir()
	return func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}
