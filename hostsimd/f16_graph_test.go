package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

func TestF16RoundTripExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := hostsimd.F16ToF32(uint16(h))
		exp, man := (h>>10)&0x1f, h&0x3ff
		if isNaN := exp == 0x1f && man != 0; isNaN != math.IsNaN(float64(f)) {
			t.Fatalf("%#04x -> %v: NaN-ness wrong", h, f)
		}
		if back := hostsimd.F32ToF16(f); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
		if exp != 0x1f {
			// Value check against the definition.
			v := float64(man) * math.Pow(2, -24)
			if exp > 0 {
				v = (1 + float64(man)/1024) * math.Pow(2, float64(exp-15))
			}
			if h&0x8000 != 0 {
				v = -v
			}
			if float64(f) != v {
				t.Fatalf("%#04x -> %v want %v", h, f, v)
			}
		}
	}
}

// nearestF16 is the reference: the finite half (or Inf) nearest to f with
// ties to even, found by search over the sorted positive halves.
func nearestF16(f float32) uint16 {
	x := math.Abs(float64(f))
	sign := uint16(0)
	if math.Signbit(float64(f)) {
		sign = 0x8000
	}
	// 65520 = max half + half ulp: rounds to Inf at and above it.
	if x >= 65520 {
		return sign | 0x7c00
	}
	lo, hi := uint16(0), uint16(0x7bff)
	for lo < hi { // largest h with value(h) <= x
		mid := (lo + hi + 1) / 2
		if float64(hostsimd.F16ToF32(mid)) <= x {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	h := lo
	if h < 0x7bff || float64(hostsimd.F16ToF32(h)) < x {
		a, b := float64(hostsimd.F16ToF32(h)), float64(hostsimd.F16ToF32(h+1))
		if x-a > b-x || (x-a == b-x && h&1 == 1) {
			h++
		}
	}
	return sign | h
}

func TestF32ToF16Rounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	check := func(f float32) {
		if got, want := hostsimd.F32ToF16(f), nearestF16(f); got != want {
			t.Fatalf("F32ToF16(%v [%#08x]) = %#04x, want %#04x", f, math.Float32bits(f), got, want)
		}
	}
	for i := 0; i < 200000; i++ {
		// Exponents around the half range, including subnormals and overflow.
		e := rng.IntN(50) - 30
		f := float32(math.Ldexp(1+rng.Float64(), e))
		if rng.IntN(2) == 0 {
			f = -f
		}
		check(f)
	}
	// Exact ties and neighbours of every half value.
	for h := uint16(0); h < 0x7c00; h++ {
		a := float64(hostsimd.F16ToF32(h))
		b := float64(hostsimd.F16ToF32(h + 1))
		if h == 0x7bff {
			b = 65536
		}
		mid := float32((a + b) / 2)
		check(mid)
		check(math.Nextafter32(mid, 0))
		check(math.Nextafter32(mid, 1e9))
	}
	for _, f := range []float32{0, float32(math.Copysign(0, -1)), 65504, 65519.99, 65520, 1e10, -1e10,
		float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, 1e-8, 2.98e-8, 2.99e-8} {
		check(f)
	}
	if h := hostsimd.F32ToF16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN -> %#04x", h)
	}
	if h := hostsimd.F32ToF16(math.Float32frombits(0x7f800001)); h&0x3ff == 0 {
		t.Errorf("low-payload NaN -> %#04x, not NaN", h)
	}
}

// refSpread is SpreadStep in float64.
func refSpread(g *hostsimd.CSR, a []float32, p hostsimd.SpreadParams) (out []float64, near []bool) {
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
	graphs := map[string]*hostsimd.CSR{
		"uniform": hostsimd.UniformGraph(3000, 8, 1),
		"rmat":    hostsimd.RMATGraph(12, 8, 2),
	}
	p := hostsimd.SpreadParams{Retention: 0.3, Decay: 0.8, Threshold: 0.05}
	for name, g := range graphs {
		if err := g.Validate(g.N()); err != nil {
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
			hostsimd.SetThreads(th)
			out := make([]float32, g.N())
			change := hostsimd.SpreadStep(g, a, out, p)
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
		final, steps := hostsimd.Spread(g, a, p, 5, -1)
		if steps != 5 || len(final) != g.N() {
			t.Errorf("%s: Spread ran %d steps", name, steps)
		}
		// Stepping by hand gives the same result.
		cur, next := slices.Clone(a), make([]float32, len(a))
		for s := 0; s < 5; s++ {
			hostsimd.SpreadStep(g, cur, next, p)
			cur, next = next, cur
		}
		if !slices.Equal(cur, final) {
			t.Errorf("%s: Spread differs from 5 SpreadSteps", name)
		}
		// A huge eps stops after one step.
		if _, steps := hostsimd.Spread(g, a, p, 5, 10); steps != 1 {
			t.Errorf("%s: eps=10 ran %d steps", name, steps)
		}
	}
	hostsimd.SetThreads(0)
	// Convergence: no edges, retention 0.5 halves everything each step.
	g := hostsimd.UniformGraph(10, 0, 1)
	a := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	_, steps := hostsimd.Spread(g, a, hostsimd.SpreadParams{Retention: 0.5, Decay: 1}, 100, 0.01)
	if steps != 7 { // changes 0.5, 0.25, ..., 2^-7 < 0.01
		t.Errorf("edgeless convergence took %d steps, want 7", steps)
	}
}

func TestGraphGenerators(t *testing.T) {
	for name, gen := range map[string]func(seed uint64) *hostsimd.CSR{
		"uniform": func(s uint64) *hostsimd.CSR { return hostsimd.UniformGraph(1000, 6, s) },
		"rmat":    func(s uint64) *hostsimd.CSR { return hostsimd.RMATGraph(10, 6, s) },
	} {
		g1, g2, g3 := gen(42), gen(42), gen(43)
		if !slices.Equal(g1.Offsets, g2.Offsets) || !slices.Equal(g1.Cols, g2.Cols) || !slices.Equal(g1.Weights, g2.Weights) {
			t.Errorf("%s: same seed gave different graphs", name)
		}
		if slices.Equal(g1.Cols, g3.Cols) {
			t.Errorf("%s: different seeds gave the same graph", name)
		}
		if err := g1.Validate(g1.N()); err != nil {
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
	g := hostsimd.RMATGraph(12, 8, 7)
	maxDeg := 0
	for i := 0; i < g.N(); i++ {
		maxDeg = max(maxDeg, int(g.Offsets[i+1]-g.Offsets[i]))
	}
	if maxDeg < 10*len(g.Cols)/g.N() {
		t.Errorf("R-MAT max in-degree %d, mean %d: not skewed", maxDeg, len(g.Cols)/g.N())
	}
}

func TestCSRValidate(t *testing.T) {
	good := func() *hostsimd.CSR {
		return &hostsimd.CSR{Offsets: []int32{0, 1, 3, 3}, Cols: []int32{1, 0, 2}, Weights: []float32{0.5, 1, 0.25}}
	}
	if err := good().Validate(3); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mut  func(g *hostsimd.CSR)
		n    int
		want string
	}{
		{func(g *hostsimd.CSR) {}, 4, "len(Offsets)=4"},
		{func(g *hostsimd.CSR) { g.Offsets[0] = 1 }, 3, "Offsets[0]=1"},
		{func(g *hostsimd.CSR) { g.Offsets[2] = 0 }, 3, "Offsets[2]=0"},
		{func(g *hostsimd.CSR) { g.Offsets[3] = 2; g.Offsets[2] = 2 }, 3, "Offsets[3]=2"},
		{func(g *hostsimd.CSR) { g.Weights = g.Weights[:2] }, 3, "len(Weights)=2"},
		{func(g *hostsimd.CSR) { g.Cols[1] = 3 }, 3, "Cols[1]=3"},
		{func(g *hostsimd.CSR) { g.Cols[2] = -1 }, 3, "Cols[2]=-1"},
		{func(g *hostsimd.CSR) { g.Weights[2] = float32(math.NaN()) }, 3, "Weights[2]=NaN"},
		{func(g *hostsimd.CSR) { g.Weights[0] = float32(math.Inf(1)) }, 3, "Weights[0]=+Inf"},
	}
	for _, c := range cases {
		g := good()
		c.mut(g)
		if err := g.Validate(c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error with %q, got %v", c.want, err)
		}
	}
}

func TestMeasureCeilingsSmall(t *testing.T) {
	forEachLevel(t, func(l hostsimd.Level) {
		for _, th := range []int{1, 2} {
			c, err := hostsimd.MeasureCeilings(hostsimd.CeilingOpts{Threads: th, Bytes: 4 << 20, Runs: 2, Budget: time.Second})
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
