package experiment

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// batchData is Q queries against the first n rows of a cosineData, with
// the float64 reference of every score.
type batchData struct {
	c     *cosineData
	n     int
	qs    []float32
	refs  []cosineRef // per query
	maxQ  int
	tiled bool
}

func newBatchData(c *cosineData, n, maxQ int, seed uint64) *batchData {
	r := rand.New(rand.NewPCG(seed, 0x62617463))
	b := &batchData{c: c, n: n, qs: randVectors(r, maxQ*c.dim), maxQ: maxQ}
	for qi := 0; qi < maxQ; qi++ {
		b.refs = append(b.refs, newCosineRef(b.qs[qi*c.dim:(qi+1)*c.dim], c.v[:n*c.dim], c.dim))
	}
	return b
}

func (b *batchData) check(what string, q int, out []float32) error {
	for qi := 0; qi < q; qi++ {
		if err := b.refs[qi].check(fmt.Sprintf("%s[query %d]", what, qi), out[qi*b.n:(qi+1)*b.n]); err != nil {
			return err
		}
	}
	return nil
}

// cosineBatch is Q queries × n rows → S[Q][n], tiled on the GPU.
func (e *Env) cosineBatch(b *batchData, q int, opts compute.CosineBatchOptions) workload {
	dim, n := b.c.dim, b.n
	v := b.c.v[:n*dim]
	qs := b.qs[:q*dim]
	variant := "naive"
	if opts.Tiled {
		variant = fmt.Sprintf("tile%d", max(opts.Tile, 32))
	}
	w := workload{
		name: WCosineBatch, variant: variant,
		params: []report.Param{p("d", dim), p("n", n), p("q", q)},
		bytes:  float64(4 * (q*dim + n*dim + q*n)),
		flops:  float64(2*q*n*dim + 2*n*dim + 3*q*n),
	}
	w.gpu = func(e *Env) (impl, error) {
		cb, err := compute.NewCosineBatch(e.Device, v, dim, opts)
		if err != nil {
			return impl{}, err
		}
		out := make([]float32, q*n)
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				start := time.Now()
				t, err := cb.Run(qs, out, e.Timer)
				return e.gpuSample(WCosineBatch, start, t, err)
			},
			verify:  func() error { return b.check("gpu cosine-batch S", q, out) },
			release: cb.Release,
		}, nil
	}
	w.cpu = func() (impl, error) {
		out := make([]float32, q*n)
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error { return hostsimd.CosineBatch(qs, v, dim, out) })
			},
			verify: func() error { return b.check("cpu cosine-batch S", q, out) },
		}, nil
	}
	return w
}

// checkTopK verifies k (index, score) pairs against the reference scores:
// each score matches its row, the order is descending, and no row left
// out beats the last one returned (within tolerance: near-ties may swap).
func checkTopK(what string, got []hostsimd.Pair, ref cosineRef, k int) error {
	if len(got) != k {
		return fmt.Errorf("%s: %d pairs, want %d", what, len(got), k)
	}
	in := make(map[int32]bool, k)
	for i, pr := range got {
		if pr.Index < 0 || int(pr.Index) >= len(ref.want) || in[pr.Index] {
			return fmt.Errorf("%s: pair %d has index %d (out of range or repeated)", what, i, pr.Index)
		}
		in[pr.Index] = true
		want, tol := ref.want[pr.Index], ref.tol[pr.Index]
		if math.IsNaN(float64(pr.Score)) || math.Abs(float64(pr.Score)-want) > tol {
			return fmt.Errorf("%s: pair %d: score %v for row %d, want %v", what, i, pr.Score, pr.Index, want)
		}
		if i > 0 && pr.Score > got[i-1].Score {
			return fmt.Errorf("%s: pair %d: score %v after %v: not descending", what, i, pr.Score, got[i-1].Score)
		}
	}
	last := float64(got[k-1].Score)
	for i, want := range ref.want {
		if !in[int32(i)] && want > last+2*ref.tol[i]+1e-6 {
			return fmt.Errorf("%s: row %d (score %v) beats the last returned score %v but is missing", what, i, want, last)
		}
	}
	return nil
}

// cosineTopK scores one query against n rows and returns the k best.
func (e *Env) cosineTopK(c *cosineData, n, k, wg int) workload {
	dim := c.dim
	v := c.v[:n*dim]
	ref := c.prefixRef(n)
	kk := min(k, n)
	if wg == 0 {
		wg = 64
	}
	w := workload{
		name: WCosineTopK, variant: fmt.Sprintf("wg%d", wg),
		params: []report.Param{p("d", dim), p("n", n), p("k", kk)},
		// V and q read once; k pairs written (the N scores stay on the device).
		bytes: float64(4*n*dim + 4*dim + 8*kk),
		flops: float64(4*n*dim + 3*n),
	}
	w.gpu = func(e *Env) (impl, error) {
		cs, err := compute.NewCosineSingle(e.Device, v, dim, compute.CosineOptions{Workgroup: wg})
		if err != nil {
			return impl{}, err
		}
		tk, err := compute.NewTopKSingle(cs, kk)
		if err != nil {
			cs.Release()
			return impl{}, err
		}
		out := make([]compute.Pair, kk)
		return impl{
			poison: func() {
				for i := range out {
					out[i] = compute.Pair{Index: -1, Score: float32(math.NaN())}
				}
			},
			run: func() (timing.Sample, error) {
				start := time.Now()
				t, err := tk.Run(c.q, out, e.Timer)
				return e.gpuSample(WCosineTopK, start, t, err)
			},
			verify: func() error {
				conv := make([]hostsimd.Pair, len(out))
				for i, x := range out {
					conv[i] = hostsimd.Pair{Index: x.Index, Score: x.Score}
				}
				return checkTopK("gpu cosine-topk", conv, ref, kk)
			},
			release: func() { tk.Release(); cs.Release() },
		}, nil
	}
	w.cpu = func() (impl, error) {
		scores := make([]float32, n)
		var out []hostsimd.Pair
		return impl{
			poison: func() { poisonF32(scores); out = nil },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error {
					if err := hostsimd.CosineSingle(c.q, v, dim, scores); err != nil {
						return err
					}
					out = hostsimd.TopK(scores, kk)
					return nil
				})
			},
			verify: func() error { return checkTopK("cpu cosine-topk", out, ref, kk) },
		}, nil
	}
	return w
}

// hnswData is a base set, queries and candidate ids (random, with
// repeats across queries as in real searches).
type hnswData struct {
	dim, n, c int
	v, qs     []float32
	ids       []int32
	want, tol []float64
}

func newHNSWData(seed uint64, n, dim, maxQ, c int) *hnswData {
	r := rand.New(rand.NewPCG(seed, 0x686e7377))
	h := &hnswData{dim: dim, n: n, c: c, v: randVectors(r, n*dim), qs: randVectors(r, maxQ*dim)}
	h.ids = make([]int32, maxQ*c)
	for i := range h.ids {
		h.ids[i] = int32(r.IntN(n))
	}
	h.want, h.tol = make([]float64, maxQ*c), make([]float64, maxQ*c)
	for qi := 0; qi < maxQ; qi++ {
		for ci := 0; ci < c; ci++ {
			row := h.v[int(h.ids[qi*c+ci])*dim:][:dim]
			var s, abs float64
			for k, x := range row {
				d := float64(h.qs[qi*dim+k]) - float64(x)
				s += d * d
				abs += d*d + 2*math.Abs(d)*math.Abs(float64(x))
			}
			h.want[qi*c+ci], h.tol[qi*c+ci] = s, 4*float64(dim)*eps32*abs+1e-6
		}
	}
	return h
}

func (h *hnswData) check(what string, q int, out []float32) error {
	return checkClose(what, out[:q*h.c], func(i int) (float64, float64) { return h.want[i], h.tol[i] })
}

// hnsw scores q queries × c gathered candidates (L2²).
func (e *Env) hnsw(h *hnswData, q, wg int) workload {
	dim, c := h.dim, h.c
	qs, ids := h.qs[:q*dim], h.ids[:q*c]
	if wg == 0 {
		wg = 64
	}
	w := workload{
		name: WHNSW, variant: fmt.Sprintf("l2sq-wg%d", wg),
		params: []report.Param{p("d", dim), p("n", h.n), p("c", c), p("q", q)},
		// Queries and ids read, each gathered row read once, distances written.
		bytes: float64(4*q*dim + 4*q*c + 4*q*c*dim + 4*q*c),
		flops: float64(3 * q * c * dim),
	}
	w.gpu = func(e *Env) (impl, error) {
		g, err := compute.NewGather(e.Device, h.v, dim, compute.GatherOptions{Metric: compute.MetricL2Sq, Workgroup: wg})
		if err != nil {
			return impl{}, err
		}
		out := make([]float32, q*c)
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				start := time.Now()
				t, err := g.Run(qs, ids, c, out, e.Timer)
				return e.gpuSample(WHNSW, start, t, err)
			},
			verify:  func() error { return h.check("gpu hnsw d", q, out) },
			release: g.Release,
		}, nil
	}
	w.cpu = func() (impl, error) {
		out := make([]float32, q*c)
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error { return hostsimd.GatherDistances(qs, h.v, dim, ids, hostsimd.L2Sq, out) })
			},
			verify: func() error { return h.check("cpu hnsw d", q, out) },
		}, nil
	}
	return w
}

// spreadParams are the suite's spreading parameters.
var spreadParams = hostsimd.SpreadParams{Retention: 0.5, Decay: 0.8, Threshold: 0.01}

// spreadGraph generates the graph kind with about n nodes (R-MAT rounds
// n to a power of two).
func spreadGraph(kind string, n, degree int, seed uint64) *hostsimd.CSR {
	if kind == WSpreadRMAT {
		scale := max(1, bits.Len(uint(n-1)))
		return hostsimd.RMATGraph(scale, degree, seed)
	}
	return hostsimd.UniformGraph(n, degree, seed)
}

// spread runs `steps` spreading steps over a graph of n nodes.
func (e *Env) spread(kind string, n, degree, steps, wg int, seed uint64) workload {
	g := spreadGraph(kind, n, degree, seed)
	nodes := len(g.Offsets) - 1
	r := rand.New(rand.NewPCG(seed, 0x73707264))
	a0 := make([]float32, nodes)
	for i := range a0 {
		if r.IntN(5) == 0 {
			a0[i] = 1 - r.Float32()
		}
	}
	ref := verify.NewSpreadInterval(verify.SpreadGraph{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, a0)
	f := (1 - spreadParams.Retention) * spreadParams.Decay
	for s := 0; s < steps; s++ {
		ref.Step(spreadParams.Retention, f, spreadParams.Threshold)
	}
	edges := len(g.Cols)
	if wg == 0 {
		wg = 64
	}
	w := workload{
		name: kind, variant: fmt.Sprintf("row-per-thread-wg%d", wg),
		params: []report.Param{p("nodes", nodes), p("edges", edges), p("steps", steps)},
		// Per step: the graph (offsets, cols, weights) and a read, a' written.
		bytes: float64(steps) * float64(4*(nodes+1)+8*edges+8*nodes),
		flops: float64(steps) * float64(2*edges+4*nodes),
	}
	w.gpu = func(e *Env) (impl, error) {
		sp, err := compute.NewSpread(e.Device, compute.CSRInput{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights},
			compute.SpreadOptions{Variant: compute.SpreadRowPerThread, Workgroup: wg})
		if err != nil {
			return impl{}, err
		}
		out := make([]float32, nodes)
		params := compute.SpreadParams{Retention: spreadParams.Retention, Decay: spreadParams.Decay, Threshold: spreadParams.Threshold, Steps: steps, Epsilon: -1}
		return impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				start := time.Now()
				res, err := sp.Run(a0, params, out, e.Timer)
				return e.gpuSample(kind, start, res.Timing, err)
			},
			verify:  func() error { return ref.Check("gpu "+kind, out) },
			release: sp.Release,
		}, nil
	}
	w.cpu = func() (impl, error) {
		var out []float32
		return impl{
			poison: func() { out = nil },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error {
					out, _ = hostsimd.Spread(g, a0, spreadParams, steps, -1)
					return nil
				})
			},
			verify: func() error { return ref.Check("cpu "+kind, out) },
		}, nil
	}
	return w
}
