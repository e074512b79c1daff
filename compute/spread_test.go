package compute_test

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// spreadInterval adapts the shared bounded reference (internal/verify)
// to the test's types.
type spreadInterval struct{ *verify.SpreadInterval }

func newSpreadInterval(g *ops.CSR, a0 []float32) spreadInterval {
	return spreadInterval{verify.NewSpreadInterval(ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, a0)}
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

func csrInput(g *ops.CSR) ops.CSR {
	return ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}
}

type spreadGraph struct {
	name string
	g    *ops.CSR
}

func spreadGraphs(short bool) []spreadGraph {
	var gs []spreadGraph
	for _, deg := range []int{8, 32} {
		gs = append(gs,
			spreadGraph{fmt.Sprintf("uniform n=1000 deg=%d", deg), mustGraph(hostsimd.UniformGraph(1000, deg, uint64(deg)))},
			spreadGraph{fmt.Sprintf("rmat scale=10 deg=%d", deg), mustGraph(hostsimd.RMATGraph(10, deg, uint64(deg)))})
		if !short {
			gs = append(gs,
				spreadGraph{fmt.Sprintf("uniform n=20000 deg=%d", deg), mustGraph(hostsimd.UniformGraph(20000, deg, uint64(deg)+1))},
				spreadGraph{fmt.Sprintf("rmat scale=14 deg=%d", deg), mustGraph(hostsimd.RMATGraph(14, deg, uint64(deg)+1))})
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
		for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
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
	g := mustGraph(hostsimd.UniformGraph(2000, 8, 3))
	p := compute.SpreadParams{Retention: 0.5, Decay: 0.1, Threshold: 0.02, Epsilon: 1e-3, Steps: 60}
	for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
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
		_, cpuSteps, _ := hostsimd.Spread(g, a0, hostsimd.SpreadParams{Retention: p.Retention, Decay: p.Decay, Threshold: p.Threshold}, p.Steps, p.Epsilon)
		if cpuSteps >= p.Steps {
			t.Fatalf("test set-up: the CPU did not converge in %d steps", p.Steps)
		}
		checkSpreadRun(t, variant.String(), g, a0, p, res, out)
		if res.Changed != 0 || res.StepsRun != cpuSteps {
			t.Fatalf("%v: GPU stopped after %d steps with %d changed; CPU after %d (counts %v)", variant, res.StepsRun, res.Changed, cpuSteps, res.ChangedPerStep)
		}
		sp.Release()
	}
}

// A long row (a hub with in-degree far above the workgroup size) and
// empty rows. Hubs of 65,536 edges and more need more loop iterations on
// one thread than lavapipe (llvmpipe) runs before it silently ends a
// shader's loops (Device.LoopBudget): there the runner must refuse them,
// not return a short sum; 65,535 edges, or a workgroup of 64 per row, stay
// within the budget and must be right.
func TestSpreadHubRow(t *testing.T) {
	d := openDevice(t)
	for _, c := range []struct {
		n, wg int
	}{{3000, 64}, {65_536, 64}, {65_537, 64}, {70_001, 1}} { // hubs of 65,535 and 65,536 edges: the edge of the budget
		n := c.n
		g := ops.CSR{Offsets: make([]int32, n+1)}
		w := float32(0.5)
		if n > 10_000 {
			w = 1e-5 // Σ w·a stays far from the clamp at 1, so a short sum shows
		}
		for j := 1; j < n; j++ { // node 0 hears from every other node
			g.Cols = append(g.Cols, int32(j))
			g.Weights = append(g.Weights, w)
		}
		for i := 1; i <= n; i++ {
			g.Offsets[i] = int32(len(g.Cols))
		}
		hg := &ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}
		a0 := seeds(rand.New(rand.NewPCG(9, 9)), n)
		if n > 10_000 {
			// The hub's last edge carries half its input: a loop one
			// iteration short misses it.
			g.Weights[len(g.Weights)-1], a0[n-1] = 0.5, 1
		}
		p := compute.SpreadParams{Retention: 0.2, Decay: 0.004, Threshold: 0.01, Steps: 3, Epsilon: -1}
		if n > 10_000 {
			// One step: later steps decay the hub's sources (they have no
			// inputs) until a short sum hides in the rounding radius.
			p.Decay, p.Steps = 1, 1
		}
		for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
			what := fmt.Sprintf("%s n=%d wg=%d", variant, n, c.wg)
			iters := uint64(n-1) + 1 // the hub's loop on one thread, + 1 per loop run
			if variant == compute.SpreadRowPerWorkgroup {
				iters = uint64((n-1+c.wg-1)/c.wg) + 1 + uint64(bits.Len(uint(c.wg))-1) + 1
			}
			if variant == compute.SpreadRowPerThreadVec4 {
				iters = uint64((n-1+3)/4) + 1
			}
			sp, err := compute.NewSpread(d, g, compute.SpreadOptions{Variant: variant, Workgroup: c.wg})
			if b := d.LoopBudget(); b > 0 && iters > b {
				if !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("row 0 has %d incoming edges", n-1)) {
					t.Fatalf("%s: %d loop iterations past the adapter's budget of %d: want ErrLimit naming the row, got %v", what, iters, b, err)
				}
				t.Logf("%s: refused: %v", what, err)
				continue
			}
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
			ref.check(t, what, out)
			sp.Release()
		}
	}
}

func TestSpreadRejectsBadInput(t *testing.T) {
	d := openDevice(t)
	good := ops.CSR{Offsets: []int32{0, 1, 3, 3}, Cols: []int32{1, 0, 2}, Weights: []float32{1, 0.5, 0.25}}
	bad := []struct {
		name string
		g    ops.CSR
		want string
	}{
		{"no nodes", ops.CSR{Offsets: []int32{0}}, "len(Offsets)"},
		{"offset 0", ops.CSR{Offsets: []int32{1, 1, 3, 3}, Cols: good.Cols, Weights: good.Weights}, "Offsets[0]"},
		{"decreasing", ops.CSR{Offsets: []int32{0, 2, 1, 3}, Cols: good.Cols, Weights: good.Weights}, "Offsets[2]"},
		{"last offset", ops.CSR{Offsets: []int32{0, 1, 2, 2}, Cols: good.Cols, Weights: good.Weights}, "Offsets[3]"},
		{"col range", ops.CSR{Offsets: good.Offsets, Cols: []int32{1, 3, 2}, Weights: good.Weights}, "Cols[1] = 3"},
		{"negative col", ops.CSR{Offsets: good.Offsets, Cols: []int32{1, 0, -1}, Weights: good.Weights}, "Cols[2] = -1"},
		{"weights", ops.CSR{Offsets: good.Offsets, Cols: good.Cols, Weights: []float32{1}}, "len(Weights)"},
		{"nan weight", ops.CSR{Offsets: good.Offsets, Cols: good.Cols, Weights: []float32{1, float32(math.NaN()), 0}}, "Weights[1]"},
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
	ref := newSpreadInterval(&ops.CSR{Offsets: good.Offsets, Cols: good.Cols, Weights: good.Weights}, []float32{1, 0.5, 0})
	ref.step(ok)
	ref.step(ok)
	ref.check(t, "tiny graph", out)
}

// checkSpreadRun checks one Run against the interval reference: the
// output, and with ε ≥ 0 every step's count of changed nodes and where the
// run stopped.
func checkSpreadRun(t *testing.T, what string, g *ops.CSR, a0 []float32, p compute.SpreadParams, res compute.SpreadResult, out []float32) {
	t.Helper()
	ref := newSpreadInterval(g, a0)
	if p.Epsilon < 0 {
		if res.StepsRun != p.Steps || res.ChangedPerStep != nil {
			t.Fatalf("%s: StepsRun %d, ChangedPerStep %v without ε", what, res.StepsRun, res.ChangedPerStep)
		}
		for k := 0; k < p.Steps; k++ {
			ref.step(p)
		}
		ref.check(t, what, out)
		return
	}
	if len(res.ChangedPerStep) != p.Steps || res.StepsRun < 1 || res.StepsRun > p.Steps {
		t.Fatalf("%s: StepsRun %d, %d counts for %d steps", what, res.StepsRun, len(res.ChangedPerStep), p.Steps)
	}
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
		c := res.ChangedPerStep[k]
		if c < lo || c > hi {
			t.Fatalf("%s: step %d changed %d nodes, reference says %d..%d", what, k+1, c, lo, hi)
		}
		if k+1 < res.StepsRun && c == 0 {
			t.Fatalf("%s: step %d changed nothing but %d steps ran", what, k+1, res.StepsRun)
		}
	}
	if last := res.ChangedPerStep[res.StepsRun-1]; res.Changed != last || (res.StepsRun < p.Steps && last != 0) {
		t.Fatalf("%s: stopped after %d of %d steps with Changed %d (counts %v)", what, res.StepsRun, p.Steps, res.Changed, res.ChangedPerStep)
	}
	for k := res.StepsRun; k < p.Steps; k++ {
		if res.ChangedPerStep[k] != 0 {
			t.Fatalf("%s: step %d after convergence counted %d", what, k+1, res.ChangedPerStep[k])
		}
	}
	ref.check(t, what, out)
}

// A graph whose cols and weights are past lavapipe's real binding limit
// (one edge more than a binding holds) is split into two chunks: rows
// 0..m-1, and the last non-empty row m (60,000 edges) with two empty rows
// after it. The boundary falls between two rows with edges. Every row has
// fewer than 65,535 edges: lavapipe (llvmpipe) ends a shader loop after
// 65,535 iterations, so row-per-thread sums of longer rows come out short
// there, chunked or not.
func TestSpreadGraphPastBindingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads a graph past the binding limit (268 MB)")
	}
	d := openDevice(t)
	bind := min(d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize)
	e := int(bind/4) + 1
	const n = 1024
	const mDeg = 60_000
	m := n - 3
	// Rows 0..m-1 share e-mDeg edges, except row 0 and every 100th row,
	// which are empty; each row's weights average 2/degree so that
	// activations neither vanish nor saturate.
	deg := make([]int, n)
	var full []int
	for i := 1; i < m; i++ {
		if i%100 != 0 {
			full = append(full, i)
		}
	}
	rest := e - mDeg
	for k, i := range full {
		deg[i] = rest / len(full)
		if k < rest%len(full) {
			deg[i]++
		}
	}
	deg[m] = mDeg
	g := &ops.CSR{Offsets: make([]int32, n+1), Cols: make([]int32, e), Weights: make([]float32, e)}
	r := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < n; i++ {
		e0 := int(g.Offsets[i])
		g.Offsets[i+1] = int32(e0 + deg[i])
		scale := 4 / float32(max(deg[i], 1))
		for x := e0; x < e0+deg[i]; x++ {
			v := r.Uint64()
			g.Cols[x] = int32(v % n)
			g.Weights[x] = scale * float32(v>>40) / (1 << 24)
		}
	}
	if int(g.Offsets[n]) != e {
		t.Fatalf("test set-up: %d edges, want %d", g.Offsets[n], e)
	}
	a0 := seeds(rand.New(rand.NewPCG(33, 34)), n)
	p := compute.SpreadParams{Retention: 0.3, Decay: 0.8, Threshold: 0.05, Steps: 3, Epsilon: 1e-3}
	for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
		start := time.Now()
		sp, err := compute.NewSpread(d, csrInput(g), compute.SpreadOptions{Variant: variant})
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Chunks(); !slices.Equal(got, []int{0, m, n}) {
			t.Fatalf("%v: chunks %v, want [0 %d %d]", variant, got, m, n)
		}
		out := poisoned(n)
		res, err := sp.Run(a0, p, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp.Release()
		sp.Release()
		t.Logf("%v: E = %d in 2 chunks, upload and %d steps in %v", variant, e, p.Steps, time.Since(start))
		checkSpreadRun(t, fmt.Sprintf("%v E=%d", variant, e), g, a0, p, res, out)
	}
}

// dropRows returns g with the incoming edges of the rows where empty(i)
// removed.
func dropRows(g *ops.CSR, empty func(i int) bool) *ops.CSR {
	h := &ops.CSR{Offsets: make([]int32, 1, len(g.Offsets))}
	for i := 0; i < g.N(); i++ {
		if !empty(i) {
			e0, e1 := g.Offsets[i], g.Offsets[i+1]
			h.Cols = append(h.Cols, g.Cols[e0:e1]...)
			h.Weights = append(h.Weights, g.Weights[e0:e1]...)
		}
		h.Offsets = append(h.Offsets, int32(len(h.Cols)))
	}
	return h
}

// A binding limit lowered on the device splits ordinary graphs into many
// chunks; every result must equal, bit for bit, the unchunked run's (a row
// is summed the same way in either) and lie in the reference's bounds.
func TestSpreadChunked(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(35, 36))
	// Empty rows at the start, the end and in runs of three: the greedy
	// split ends chunks on them.
	holes := func(n int) func(int) bool {
		return func(i int) bool { return i == 0 || i >= n-2 || i%8 >= 5 }
	}
	// 64 nodes with edges only in rows 10..20 under a binding of 64
	// elements: 63 rows (64 offsets) fill the first chunk and the second
	// holds one empty row and no edge.
	sparse := &ops.CSR{Offsets: make([]int32, 65)}
	for i := 0; i < 64; i++ {
		if i >= 10 && i <= 20 {
			for j := 0; j < 5; j++ {
				sparse.Cols = append(sparse.Cols, int32((i*7+j*13)%64))
				sparse.Weights = append(sparse.Weights, 0.1+0.05*float32(j))
			}
		}
		sparse.Offsets[i+1] = int32(len(sparse.Cols))
	}
	cases := []struct {
		name      string
		g         *ops.CSR
		bind      uint64 // bytes
		minChunks int
		want      []int // the chunks' first rows and N, where fixed
	}{
		{"uniform n=1000 deg=8", dropRows(mustGraph(hostsimd.UniformGraph(1000, 8, 37)), holes(1000)), 4 * 1000, 3, nil},
		{"uniform n=1000 deg=32", dropRows(mustGraph(hostsimd.UniformGraph(1000, 32, 38)), holes(1000)), 4 * 1000, 10, nil},
		{"rmat scale=10 deg=8", dropRows(mustGraph(hostsimd.RMATGraph(10, 8, 39)), holes(1024)), 4 * 1024, 3, nil},
		{"rmat scale=10 deg=32", dropRows(mustGraph(hostsimd.RMATGraph(10, 32, 40)), holes(1024)), 4 * 1024, 10, nil},
		{"row-count bound", sparse, 4 * 64, 2, []int{0, 63, 64}},
	}
	full := d.Limits.MaxStorageBufferBindingSize
	for _, c := range cases {
		n := c.g.N()
		avg := max(1, len(c.g.Cols)/n)
		for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
			opts := compute.SpreadOptions{Variant: variant, Workgroup: 32}
			d.Limits.MaxStorageBufferBindingSize = full
			whole, err := compute.NewSpread(d, csrInput(c.g), opts)
			if err != nil {
				t.Fatal(err)
			}
			d.Limits.MaxStorageBufferBindingSize = c.bind
			sp, err := compute.NewSpread(d, csrInput(c.g), opts)
			if err != nil {
				t.Fatalf("%s %v: %v", c.name, variant, err)
			}
			b := sp.Chunks()
			want := c.want
			if variant == compute.SpreadRowPerThreadVec4 {
				want = nil // rows padded to multiples of 4 edges split elsewhere
			}
			if len(b)-1 < c.minChunks || b[0] != 0 || b[len(b)-1] != n || (want != nil && !slices.Equal(b, want)) {
				t.Fatalf("%s %v: chunks %v, want at least %d covering 0..%d (%v)", c.name, variant, b, c.minChunks, n, want)
			}
			emptyEnds := 0 // chunks that end with an empty row
			for k := 1; k < len(b); k++ {
				if c.g.Offsets[b[k]] == c.g.Offsets[b[k]-1] {
					emptyEnds++
				}
			}
			if emptyEnds == 0 {
				t.Fatalf("%s %v: no chunk of %v ends with an empty row", c.name, variant, b)
			}
			for _, eps := range []float32{-1, 1e-3} {
				p := compute.SpreadParams{Retention: 0.5, Decay: 0.8 / float32(avg), Threshold: 0.02, Steps: 30, Epsilon: eps}
				if eps < 0 {
					p.Steps = 4
				}
				what := fmt.Sprintf("%s %v ε=%v chunks %v", c.name, variant, eps, b)
				a0 := seeds(r, n)
				want := poisoned(n)
				wantRes, err := whole.Run(a0, p, want, nil)
				if err != nil {
					t.Fatal(err)
				}
				out := poisoned(n)
				res, err := sp.Run(a0, p, out, nil)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkSpreadRun(t, what, c.g, a0, p, res, out)
				if eps >= 0 && res.StepsRun == p.Steps {
					t.Fatalf("%s: did not converge in %d steps (counts %v)", what, p.Steps, res.ChangedPerStep)
				}
				if res.StepsRun != wantRes.StepsRun || !slices.Equal(res.ChangedPerStep, wantRes.ChangedPerStep) {
					t.Fatalf("%s: %d steps, counts %v; unchunked: %d steps, counts %v", what, res.StepsRun, res.ChangedPerStep, wantRes.StepsRun, wantRes.ChangedPerStep)
				}
				for i := range out {
					if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s: a[%d] = %v, unchunked %v", what, i, out[i], want[i])
					}
				}
			}
			sp.Release()
			sp.Release()
			whole.Release()
		}
	}
}

// What chunking cannot split is refused with ErrLimit: a row with more
// edges than one binding holds, and activations past one binding.
func TestSpreadChunkLimits(t *testing.T) {
	d := openDevice(t)
	d.Limits.MaxStorageBufferBindingSize = 4 * 64
	long := ops.CSR{Offsets: []int32{0, 3, 3, 3, 68, 70}}
	for e := 0; e < 70; e++ {
		long.Cols = append(long.Cols, int32(e%5))
		long.Weights = append(long.Weights, 0.5)
	}
	_, err := compute.NewSpread(d, long, compute.SpreadOptions{})
	if !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), "row 3 has 65 incoming edges") {
		t.Errorf("row of 65 edges under a binding of 64: err = %v, want ErrLimit naming row 3 and its degree", err)
	}
	// 64 edges fit: the same row one edge shorter is accepted.
	fits := ops.CSR{Offsets: []int32{0, 3, 3, 3, 67, 69}, Cols: long.Cols[:69], Weights: long.Weights[:69]}
	sp, err := compute.NewSpread(d, fits, compute.SpreadOptions{})
	if err != nil {
		t.Fatalf("row of 64 edges under a binding of 64: %v", err)
	}
	if got := sp.Chunks(); !slices.Equal(got, []int{0, 3, 4, 5}) {
		t.Errorf("chunks %v, want [0 3 4 5]", got)
	}
	sp.Release()
	wide := ops.CSR{Offsets: make([]int32, 66)}
	_, err = compute.NewSpread(d, wide, compute.SpreadOptions{})
	if !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), "N = 65 nodes") || !strings.Contains(err.Error(), "256") {
		t.Errorf("65 activations under a binding of 64 floats: err = %v, want ErrLimit naming N and the limit", err)
	}
}

// More rows than maxComputeWorkgroupsPerDimension: the row-per-workgroup
// grid becomes 2-D.
func TestSpreadTwoDimensionalGrid(t *testing.T) {
	d := openDevice(t)
	n := int(d.Limits.MaxComputeWorkgroupsPerDimension) + 1234
	g := mustGraph(hostsimd.UniformGraph(n, 2, 21))
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
