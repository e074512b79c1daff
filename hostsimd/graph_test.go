package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// refSpread is SpreadStep in float64.
func refSpread(g *ops.CSR, a []float32, p hostsimd.SpreadParams) (out []float64, near []bool) {
	n := g.N()
	out = make([]float64, n)
	near = make([]bool, n)
	r, f := float64(p.Retention), (1-float64(p.Retention))*float64(p.Decay)
	for i := 0; i < n; i++ {
		var s, abs float64
		for e := g.Offsets[i]; e < g.Offsets[i+1]; e++ {
			s += float64(g.Weights[e]) * float64(a[g.Cols[e]])
			abs += math.Abs(float64(g.Weights[e]) * float64(a[g.Cols[e]]))
		}
		x := r*float64(a[i]) + f*s
		tol := 4*float64(g.Offsets[i+1]-g.Offsets[i]+2)*eps32*(abs+math.Abs(x)) + 1e-7
		x = min(max(x, 0), 1)
		if math.Abs(x-float64(p.Threshold)) <= tol {
			near[i] = true // threshold decision may go either way
		}
		if x < float64(p.Threshold) {
			x = 0
		}
		out[i] = x
	}
	return out, near
}

func TestSpreadStep(t *testing.T) {
	graphs := map[string]*ops.CSR{
		"uniform": mustGraph(hostsimd.UniformGraph(3000, 8, 1)),
		"rmat":    mustGraph(hostsimd.RMATGraph(12, 8, 2)),
	}
	p := hostsimd.SpreadParams{Retention: 0.3, Decay: 0.8, Threshold: 0.05}
	for name, g := range graphs {
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rng := rand.New(rand.NewPCG(17, 18))
		a := make([]float32, g.N())
		for i := range a {
			if rng.IntN(4) == 0 {
				a[i] = rng.Float32()
			}
		}
		for _, th := range []int{1, 2, 0} {
			out := make([]float32, g.N())
			change, err := hostsimd.Host{Threads: th}.SpreadStep(g, a, out, p)
			if err != nil {
				t.Fatal(err)
			}
			want, nearTh := refSpread(g, a, p)
			var maxc float64
			for i := range out {
				if !nearTh[i] && math.Abs(float64(out[i])-want[i]) > 1e-5 {
					t.Fatalf("%s threads=%d node %d: %v want %v", name, th, i, out[i], want[i])
				}
				maxc = max(maxc, math.Abs(float64(out[i])-float64(a[i])))
			}
			if float64(change) != maxc {
				t.Errorf("%s: change=%v want %v", name, change, maxc)
			}
		}
		final, steps, err := hostsimd.Spread(g, a, p, 5, -1)
		if err != nil || steps != 5 || len(final) != g.N() {
			t.Errorf("%s: Spread ran %d steps", name, steps)
		}
		// Stepping by hand gives the same result.
		cur, next := slices.Clone(a), make([]float32, len(a))
		for s := 0; s < 5; s++ {
			if _, err := hostsimd.SpreadStep(g, cur, next, p); err != nil {
				t.Fatal(err)
			}
			cur, next = next, cur
		}
		if !slices.Equal(cur, final) {
			t.Errorf("%s: Spread differs from 5 SpreadSteps", name)
		}
		// A huge eps stops after one step.
		if _, steps, _ := hostsimd.Spread(g, a, p, 5, 10); steps != 1 {
			t.Errorf("%s: eps=10 ran %d steps", name, steps)
		}
	}
	// Convergence: no edges, retention 0.5 halves everything each step.
	g := mustGraph(hostsimd.UniformGraph(10, 0, 1))
	a := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	_, steps, _ := hostsimd.Spread(g, a, hostsimd.SpreadParams{Retention: 0.5, Decay: 1}, 100, 0.01)
	if steps != 7 { // changes 0.5, 0.25, ..., 2^-7 < 0.01
		t.Errorf("edgeless convergence took %d steps, want 7", steps)
	}
}

func TestGraphGenerators(t *testing.T) {
	for name, gen := range map[string]func(seed uint64) *ops.CSR{
		"uniform": func(s uint64) *ops.CSR { return mustGraph(hostsimd.UniformGraph(1000, 6, s)) },
		"rmat":    func(s uint64) *ops.CSR { return mustGraph(hostsimd.RMATGraph(10, 6, s)) },
	} {
		g1, g2, g3 := gen(42), gen(42), gen(43)
		if !slices.Equal(g1.Offsets, g2.Offsets) || !slices.Equal(g1.Cols, g2.Cols) || !slices.Equal(g1.Weights, g2.Weights) {
			t.Errorf("%s: same seed gave different graphs", name)
		}
		if slices.Equal(g1.Cols, g3.Cols) {
			t.Errorf("%s: different seeds gave the same graph", name)
		}
		if err := g1.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for i := 0; i < g1.N(); i++ {
			row := g1.Cols[g1.Offsets[i]:g1.Offsets[i+1]]
			for k, c := range row {
				if int(c) == i || (k > 0 && row[k-1] >= c) {
					t.Fatalf("%s: row %d not sorted/unique/loop-free: %v", name, i, row)
				}
			}
		}
		for _, w := range g1.Weights {
			if !(w > 0 && w <= 1) {
				t.Fatalf("%s: weight %v outside (0,1]", name, w)
			}
		}
		m := len(g1.Cols)
		t.Logf("%s: n=%d edges=%d (requested %d)", name, g1.N(), m, g1.N()*6)
		if m < g1.N()*6*6/10 || m > g1.N()*6 {
			t.Errorf("%s: %d edges for n*avgDegree=%d", name, m, g1.N()*6)
		}
	}
	// R-MAT is skewed: the max in-degree is far above the mean.
	g := mustGraph(hostsimd.RMATGraph(12, 8, 7))
	maxDeg := 0
	for i := 0; i < g.N(); i++ {
		maxDeg = max(maxDeg, int(g.Offsets[i+1]-g.Offsets[i]))
	}
	if maxDeg < 10*len(g.Cols)/g.N() {
		t.Errorf("R-MAT max in-degree %d, mean %d: not skewed", maxDeg, len(g.Cols)/g.N())
	}
}

func TestMeasureCeilingsSmall(t *testing.T) {
	forEachLevel(t, func(h hostsimd.Host) {
		l := h.Level

		for _, th := range []int{1, 2} {
			c, err := h.MeasureCeilings(hostsimd.CeilingOpts{Threads: th, Bytes: 4 << 20, Runs: 2, Budget: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if c.Level != l || c.Threads != th || c.Bytes <= 0 || c.Bytes > 4<<20 ||
				!(c.ReadGBs > 0 && c.WriteGBs > 0 && c.CopyGBs > 0 && c.TriadGBs > 0 && c.FMAGFLOPs > 0) {
				t.Fatalf("bad ceilings %v", c)
			}
			t.Log(c)
		}
	})
	if _, err := hostsimd.MeasureCeilings(hostsimd.CeilingOpts{Bytes: -1}); err == nil {
		t.Error("negative Bytes accepted")
	}
}

// mustGraph is a test graph from a generator called with good arguments.
func mustGraph(g *ops.CSR, err error) *ops.CSR {
	if err != nil {
		panic(err)
	}
	return g
}
