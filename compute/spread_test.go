package compute_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
)

// spreadInterval adapts the shared bounded reference (internal/verify)
// to the test's types.
type spreadInterval struct{ *verify.SpreadInterval }

func newSpreadInterval(g *hostsimd.CSR, a0 []float32) spreadInterval {
	return spreadInterval{verify.NewSpreadInterval(verify.SpreadGraph{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, a0)}
}

// step applies one step with f = (1−r)·δ computed in float32, as the
// runner does.
func (s spreadInterval) step(p compute.SpreadParams) (minChange, maxChange []float64) {
	return s.Step(p.Retention, (1-p.Retention)*p.Decay, p.Threshold)
}

func (s spreadInterval) check(t *testing.T, what string, got []float32) {
	t.Helper()
	if err := s.Check(what, got); err != nil {
		t.Fatal(err)
	}
}

// seeds activates a fifth of the nodes with values in (0,1].
func seeds(r *rand.Rand, n int) []float32 {
	a := make([]float32, n)
	for i := range a {
		if r.IntN(5) == 0 {
			a[i] = 1 - r.Float32()
		}
	}
	return a
}

func csrInput(g *hostsimd.CSR) compute.CSRInput {
	return compute.CSRInput{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}
}

type spreadGraph struct {
	name string
	g    *hostsimd.CSR
}

func spreadGraphs(short bool) []spreadGraph {
	var gs []spreadGraph
	for _, deg := range []int{8, 32} {
		gs = append(gs,
			spreadGraph{fmt.Sprintf("uniform n=1000 deg=%d", deg), hostsimd.UniformGraph(1000, deg, uint64(deg))},
			spreadGraph{fmt.Sprintf("rmat scale=10 deg=%d", deg), hostsimd.RMATGraph(10, deg, uint64(deg))})
		if !short {
			gs = append(gs,
				spreadGraph{fmt.Sprintf("uniform n=20000 deg=%d", deg), hostsimd.UniformGraph(20000, deg, uint64(deg)+1)},
				spreadGraph{fmt.Sprintf("rmat scale=14 deg=%d", deg), hostsimd.RMATGraph(14, deg, uint64(deg)+1)})
		}
	}
	return gs
}

func TestSpreadConformance(t *testing.T) {
	d := openDevice(t)
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	r := rand.New(rand.NewPCG(5, 6))
	for _, sg := range spreadGraphs(testing.Short()) {
		n := sg.g.N()
		avg := max(1, len(sg.g.Cols)/n)
		p := compute.SpreadParams{Retention: 0.3, Decay: 2 / float32(avg), Threshold: 0.05, Epsilon: -1}
		for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup} {
			sp, err := compute.NewSpread(d, csrInput(sg.g), compute.SpreadOptions{Variant: variant, Workgroup: 32})
			if err != nil {
				t.Fatal(err)
			}
			for _, steps := range []int{1, 10} {
				what := fmt.Sprintf("%s %v T=%d", sg.name, variant, steps)
				a0 := seeds(r, n)
				p.Steps = steps
				out := poisoned(n)
				res, err := sp.Run(a0, p, out, timer)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if res.StepsRun != steps || res.ChangedPerStep != nil {
					t.Fatalf("%s: StepsRun %d, ChangedPerStep %v without ε", what, res.StepsRun, res.ChangedPerStep)
				}
				if !res.KernelValid || res.Kernel <= 0 || res.Kernel > res.EndToEnd {
					t.Fatalf("%s: implausible timing %+v", what, res.Timing)
				}
				ref := newSpreadInterval(sg.g, a0)
				for k := 0; k < steps; k++ {
					ref.step(p)
				}
				ref.check(t, what, out)
			}
			sp.Release()
			sp.Release()
		}
	}
}

// With ε ≥ 0 the GPU counts changed nodes per step and stops where
// hostsimd.Spread stops.
func TestSpreadConvergence(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(7, 8))
	g := hostsimd.UniformGraph(2000, 8, 3)
	p := compute.SpreadParams{Retention: 0.5, Decay: 0.1, Threshold: 0.02, Epsilon: 1e-3, Steps: 60}
	for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup} {
		sp, err := compute.NewSpread(d, csrInput(g), compute.SpreadOptions{Variant: variant})
		if err != nil {
			t.Fatal(err)
		}
		a0 := seeds(r, g.N())
		out := poisoned(g.N())
		res, err := sp.Run(a0, p, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, cpuSteps := hostsimd.Spread(g, a0, hostsimd.SpreadParams{Retention: p.Retention, Decay: p.Decay, Threshold: p.Threshold}, p.Steps, p.Epsilon)
		if cpuSteps >= p.Steps {
			t.Fatalf("test set-up: the CPU did not converge in %d steps", p.Steps)
		}
		ref := newSpreadInterval(g, a0)
		for k := 0; k < res.StepsRun; k++ {
			minC, maxC := ref.step(p)
			var lo, hi uint32
			for i := range minC {
				if minC[i] > float64(p.Epsilon) {
					lo++
				}
				if maxC[i] > float64(p.Epsilon) {
					hi++
				}
			}
			if c := res.ChangedPerStep[k]; c < lo || c > hi {
				t.Fatalf("%v: step %d changed %d nodes, reference says %d..%d", variant, k+1, c, lo, hi)
			}
			if k+1 < res.StepsRun && res.ChangedPerStep[k] == 0 {
				t.Fatalf("%v: step %d changed nothing but %d steps ran", variant, k+1, res.StepsRun)
			}
		}
		ref.check(t, fmt.Sprintf("%v converged after %d steps", variant, res.StepsRun), out)
		if res.Changed != 0 || res.StepsRun != cpuSteps {
			t.Fatalf("%v: GPU stopped after %d steps with %d changed; CPU after %d (counts %v)", variant, res.StepsRun, res.Changed, cpuSteps, res.ChangedPerStep)
		}
		for k := res.StepsRun; k < p.Steps; k++ {
			if res.ChangedPerStep[k] != 0 {
				t.Fatalf("%v: step %d after convergence counted %d", variant, k+1, res.ChangedPerStep[k])
			}
		}
		sp.Release()
	}
}

// A long row (a hub with in-degree far above the workgroup size) and
// empty rows.
func TestSpreadHubRow(t *testing.T) {
	d := openDevice(t)
	const n = 3000
	g := compute.CSRInput{Offsets: make([]int32, n+1)}
	for j := 1; j < n; j++ { // node 0 hears from every other node
		g.Cols = append(g.Cols, int32(j))
		g.Weights = append(g.Weights, 0.5)
	}
	for i := 1; i <= n; i++ {
		g.Offsets[i] = int32(len(g.Cols))
	}
	hg := &hostsimd.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}
	a0 := seeds(rand.New(rand.NewPCG(9, 9)), n)
	p := compute.SpreadParams{Retention: 0.2, Decay: 0.004, Threshold: 0.01, Steps: 3, Epsilon: -1}
	for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup} {
		sp, err := compute.NewSpread(d, g, compute.SpreadOptions{Variant: variant, Workgroup: 64})
		if err != nil {
			t.Fatal(err)
		}
		out := poisoned(n)
		if _, err := sp.Run(a0, p, out, nil); err != nil {
			t.Fatal(err)
		}
		ref := newSpreadInterval(hg, a0)
		for k := 0; k < p.Steps; k++ {
			ref.step(p)
		}
		ref.check(t, variant.String(), out)
		sp.Release()
	}
}

func TestSpreadRejectsBadInput(t *testing.T) {
	d := openDevice(t)
	good := compute.CSRInput{Offsets: []int32{0, 1, 3, 3}, Cols: []int32{1, 0, 2}, Weights: []float32{1, 0.5, 0.25}}
	bad := []struct {
		name string
		g    compute.CSRInput
		want string
	}{
		{"no nodes", compute.CSRInput{Offsets: []int32{0}}, "len(Offsets)"},
		{"offset 0", compute.CSRInput{Offsets: []int32{1, 1, 3, 3}, Cols: good.Cols, Weights: good.Weights}, "Offsets[0]"},
		{"decreasing", compute.CSRInput{Offsets: []int32{0, 2, 1, 3}, Cols: good.Cols, Weights: good.Weights}, "Offsets[2]"},
		{"last offset", compute.CSRInput{Offsets: []int32{0, 1, 2, 2}, Cols: good.Cols, Weights: good.Weights}, "Offsets[3]"},
		{"col range", compute.CSRInput{Offsets: good.Offsets, Cols: []int32{1, 3, 2}, Weights: good.Weights}, "Cols[1] = 3"},
		{"negative col", compute.CSRInput{Offsets: good.Offsets, Cols: []int32{1, 0, -1}, Weights: good.Weights}, "Cols[2] = -1"},
		{"weights", compute.CSRInput{Offsets: good.Offsets, Cols: good.Cols, Weights: []float32{1}}, "len(Weights)"},
		{"nan weight", compute.CSRInput{Offsets: good.Offsets, Cols: good.Cols, Weights: []float32{1, float32(math.NaN()), 0}}, "Weights[1]"},
	}
	for _, c := range bad {
		_, err := compute.NewSpread(d, c.g, compute.SpreadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %q", c.name, err, c.want)
		}
	}
	if _, err := compute.NewSpread(d, good, compute.SpreadOptions{Variant: 7}); err == nil {
		t.Error("unknown variant accepted")
	}
	if _, err := compute.NewSpread(d, good, compute.SpreadOptions{Workgroup: 48}); err == nil {
		t.Error("workgroup 48 accepted")
	}
	sp, err := compute.NewSpread(d, good, compute.SpreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Release()
	ok := compute.SpreadParams{Retention: 0.5, Decay: 1, Threshold: 0.1, Steps: 2, Epsilon: -1}
	nan := float32(math.NaN())
	params := []struct {
		name string
		p    compute.SpreadParams
		want string
	}{
		{"retention", compute.SpreadParams{Retention: 1.5, Decay: 1, Steps: 1}, "Retention = 1.5"},
		{"nan decay", compute.SpreadParams{Retention: 0.5, Decay: nan, Steps: 1}, "Decay = NaN"},
		{"inf threshold", compute.SpreadParams{Threshold: float32(math.Inf(1)), Steps: 1}, "Threshold = +Inf"},
		{"steps", compute.SpreadParams{Retention: 0.5, Steps: 0}, "Steps = 0"},
		{"too many steps", compute.SpreadParams{Retention: 0.5, Steps: compute.MaxSpreadSteps + 1}, "Steps = 4097"},
	}
	for _, c := range params {
		_, err := sp.Run(make([]float32, 3), c.p, make([]float32, 3), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %q", c.name, err, c.want)
		}
	}
	if _, err := sp.Run([]float32{0, nan, 0}, ok, make([]float32, 3), nil); err == nil || !strings.Contains(err.Error(), "a0[1]") {
		t.Errorf("NaN activation: err = %v", err)
	}
	if _, err := sp.Run(make([]float32, 2), ok, make([]float32, 3), nil); err == nil {
		t.Error("short a0 accepted")
	}
	if _, err := sp.Run(make([]float32, 3), ok, make([]float32, 4), nil); err == nil {
		t.Error("long out accepted")
	}
	// The runner still works after rejected calls.
	out := poisoned(3)
	if _, err := sp.Run([]float32{1, 0.5, 0}, ok, out, nil); err != nil {
		t.Fatal(err)
	}
	ref := newSpreadInterval(&hostsimd.CSR{Offsets: good.Offsets, Cols: good.Cols, Weights: good.Weights}, []float32{1, 0.5, 0})
	ref.step(ok)
	ref.step(ok)
	ref.check(t, "tiny graph", out)
}

// Graph arrays past one storage binding are refused with ErrLimit before
// any GPU work (graphs are not chunked).
func TestSpreadRefusesGraphPastBindingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates past the binding limit on the host")
	}
	d := openDevice(t)
	e := int(d.Limits.MaxStorageBufferBindingSize/4) + 1
	g := compute.CSRInput{Offsets: []int32{0, int32(e)}, Cols: make([]int32, e), Weights: make([]float32, e)}
	_, err := compute.NewSpread(d, g, compute.SpreadOptions{})
	if !errors.Is(err, compute.ErrLimit) || !strings.Contains(err.Error(), "cols of") {
		t.Fatalf("err = %v, want ErrLimit naming cols", err)
	}
}

// More rows than maxComputeWorkgroupsPerDimension: the row-per-workgroup
// grid becomes 2-D.
func TestSpreadTwoDimensionalGrid(t *testing.T) {
	d := openDevice(t)
	n := int(d.Limits.MaxComputeWorkgroupsPerDimension) + 1234
	g := hostsimd.UniformGraph(n, 2, 21)
	a0 := seeds(rand.New(rand.NewPCG(22, 23)), n)
	p := compute.SpreadParams{Retention: 0.4, Decay: 0.5, Threshold: 0.01, Steps: 2, Epsilon: -1}
	sp, err := compute.NewSpread(d, csrInput(g), compute.SpreadOptions{Variant: compute.SpreadRowPerWorkgroup, Workgroup: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Release()
	out := poisoned(n)
	if _, err := sp.Run(a0, p, out, nil); err != nil {
		t.Fatal(err)
	}
	ref := newSpreadInterval(g, a0)
	ref.step(p)
	ref.step(p)
	ref.check(t, fmt.Sprintf("n=%d row-per-workgroup", n), out)
}
