package workload

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// CosineBatch scores q queries against n stored rows (S = Q×N), with the
// GPU design selected by measurement among its Variants, each in every
// stored precision.
var CosineBatch = &Descriptor{
	Name:     "cosine-batch",
	Doc:      "cosine similarity of q queries against n stored vectors (a q×n score matrix)",
	Batch:    "q",
	BatchDoc: "queries per call",
	// The untiled and register-blocked designs take a workgroup size;
	// the tiled design's workgroup is (tile/4)² threads, set by the tile.
	Params:   []*Param{ParamD, ParamN, ParamQ, ParamWG, ParamTile, ParamPrecision, ParamVectors, ParamQueries},
	Variants: []string{"tiled", "naive", "reg16x4", "reg8x4", "reg16x4-bcast"},
	// 1: every design has f16 and int8 kernels (before, the untiled one
	// only).
	KernelRev:  1,
	rank:       20,
	NameWords:  `(?i)batch|many|matrix`,
	NameOrder:  2,
	MemCompute: compute.MemComputeStream,
	Workload:   cosineBatchWorkload{},
}

func init() { register(CosineBatch) }

// batchData is maxQ queries against the first n rows of a cosineData,
// with the float64 reference of every score.
type batchData struct {
	c    *cosineData
	n    int
	qs   []float32
	refs []cosineRef // per query
	// codes, for int8 storage, are V's first n rows quantized; refs are
	// then the cosines of the codes (precision.go). f16, for binary16
	// storage, are V's first n rows rounded; refs are then the cosines of
	// the rounded rows.
	codes []int8
	f16   []uint16
	bound float64 // the largest per-pair bound of f16/int8 (checkBatchBound)
}

func newBatchData(c *cosineData, n, maxQ int, seed uint64, qs []float32) (*batchData, error) {
	if qs == nil {
		r := rand.New(rand.NewPCG(seed, 0x62617463))
		qs = randVectors(r, maxQ*c.dim)
	}
	b := &batchData{c: c, n: n, qs: qs, refs: make([]cosineRef, maxQ)}
	v := c.v[:n*c.dim]
	norms := rowNormsSq(v, c.dim)
	// The queries' references are independent: one goroutine per core,
	// each taking the next query.
	var next atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxQ) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qi := int(next.Add(1) - 1); qi < maxQ; qi = int(next.Add(1) - 1) {
				if c.stop != nil && c.stop() {
					stopped.Store(true)
					return
				}
				b.refs[qi] = cosineRefNorms(b.qs[qi*c.dim:(qi+1)*c.dim], v, norms, c.dim)
			}
		}()
	}
	wg.Wait()
	if stopped.Load() {
		return nil, fmt.Errorf("cosine-batch references of %d queries over %d rows: %w", maxQ, n, ErrStopped)
	}
	return b, nil
}

func (b *batchData) check(what string, q int, out []float32) error {
	for qi := 0; qi < q; qi++ {
		if err := b.refs[qi].check(fmt.Sprintf("%s[query %d]", what, qi), out[qi*b.n:(qi+1)*b.n]); err != nil {
			return err
		}
	}
	return nil
}

func cosineBatchCase(b *batchData, q int, k Knobs) Case {
	dim, n := b.c.dim, b.n
	tile := k.Tile
	if tile == 0 {
		tile = compute.DefaultTile
	}
	opts := compute.CosineBatchOptions{Tiled: true, Tile: tile}
	label := fmt.Sprintf("tiled-tile%d", tile)
	switch k.Variant {
	case "naive":
		opts = compute.CosineBatchOptions{Workgroup: k.Workgroup}
		label = fmt.Sprintf("naive-wg%d", k.wg())
	case "reg16x4":
		opts = compute.CosineBatchOptions{Register: true, Workgroup: k.Workgroup}
		label = fmt.Sprintf("reg16x4-wg%d", k.wg())
	case "reg8x4":
		opts = compute.CosineBatchOptions{Register: true, RegisterQueries: 8, Workgroup: k.Workgroup}
		label = fmt.Sprintf("reg8x4-wg%d", k.wg())
	case "reg16x4-bcast":
		opts = compute.CosineBatchOptions{Register: true, Broadcast: true, Workgroup: k.Workgroup}
		label = fmt.Sprintf("reg16x4-bcast-wg%d", k.wg())
	}
	prec, vBytes := b.precision()
	if prec != PrecisionF32 {
		label += "-" + prec
	}
	w := Case{
		Name: "cosine-batch", Variant: label,
		Params: params("d", dim, "n", n, "q", q),
		Bytes:  float64(4*(q*dim+q*n) + vBytes*n*dim),
		Flops:  float64(2*q*n*dim + 2*n*dim + 3*q*n),
	}
	if prec != PrecisionF32 {
		w.Params = append(w.Params, p("precision", prec))
	}
	sides := &cosineBatchSides{b: b, q: q, opts: opts}
	w.GPU, w.CPU = sides, sides
	return w
}

// precision is the storage precision of b's stored rows and its bytes
// per value.
func (b *batchData) precision() (string, int) {
	switch {
	case b.f16 != nil:
		return PrecisionF16, 2
	case b.codes != nil:
		return PrecisionInt8, 1
	}
	return PrecisionF32, 4
}

// newRunner builds the GPU runner for b's storage precision.
func (b *batchData) newRunner(d *wgpu.Device, v []float32, dim int, opts compute.CosineBatchOptions) (*compute.CosineBatch, error) {
	switch prec, _ := b.precision(); prec {
	case PrecisionF16:
		return compute.NewCosineBatchF16(d, v, dim, opts)
	case PrecisionInt8:
		return compute.NewCosineBatchInt8(d, v, dim, opts)
	}
	return compute.NewCosineBatch(d, v, dim, opts)
}

// cosineBatchGPU is cosine-batch's GPU side: the runner scoring the q
// queries qs against the stored rows into out (q rows of n).
type cosineBatchGPU struct {
	g   GPU
	r   *compute.CosineBatch
	b   *batchData
	q   int
	qs  []float32
	out []float32
}

func (s *cosineBatchGPU) Poison() { poisonF32(s.out) }

func (s *cosineBatchGPU) Run() (timing.Sample, error) {
	start := clock.Now()
	t, err := s.r.Run(s.qs, s.out, s.g.Timer)
	return s.g.sample("cosine-batch", start, t, err)
}

func (s *cosineBatchGPU) Verify() error { return s.b.check("gpu cosine-batch S", s.q, s.out) }

func (s *cosineBatchGPU) Close() { s.r.Release() }

// cosineBatchCPU is cosine-batch's host-SIMD side, reading the stored
// rows in their storage precision.
type cosineBatchCPU struct {
	host hostsimd.Host
	b    *batchData
	q    int
	qs   []float32
	v    []float32 // the f32 rows (the first n)
	out  []float32
}

func (s *cosineBatchCPU) Poison() { poisonF32(s.out) }

func (s *cosineBatchCPU) Run() (timing.Sample, error) {
	return cpuSample(func() error {
		dim := s.b.c.dim
		switch prec, _ := s.b.precision(); prec {
		case PrecisionF16:
			return s.host.CosineBatchF16(s.qs, s.b.f16, dim, s.out)
		case PrecisionInt8:
			return s.host.CosineBatchInt8(s.qs, s.b.codes, dim, s.out)
		}
		return s.host.CosineBatch(s.qs, s.v, dim, s.out)
	})
}

func (s *cosineBatchCPU) Verify() error { return s.b.check("cpu cosine-batch S", s.q, s.out) }

func (s *cosineBatchCPU) Close() {}

// cosineBatchSides builds cosine-batch's sides for the first q queries.
type cosineBatchSides struct {
	b    *batchData
	q    int
	opts compute.CosineBatchOptions
}

func (s *cosineBatchSides) BuildGPU(g GPU) (Side, error) {
	b, dim := s.b, s.b.c.dim
	cb, err := b.newRunner(g.Device, b.c.v[:b.n*dim], dim, s.opts)
	if err != nil {
		return nil, err
	}
	return &cosineBatchGPU{g: g, r: cb, b: b, q: s.q, qs: b.qs[:s.q*dim], out: make([]float32, s.q*b.n)}, nil
}

func (s *cosineBatchSides) BuildCPU(host hostsimd.Host) (Side, error) {
	b, dim := s.b, s.b.c.dim
	return &cosineBatchCPU{host: host, b: b, q: s.q, qs: b.qs[:s.q*dim], v: b.c.v[:b.n*dim], out: make([]float32, s.q*b.n)}, nil
}

// cosineBatchWorkload is cosine-batch's Workload.
type cosineBatchWorkload struct{}

// Every one of the n stored rows is scored: the GPU runner splits V
// into chunks of its binding limit and the queries into groups whose
// scores fit one binding, so no size is cut short here.
func (cosineBatchWorkload) Prepare(c Config) (*Prepared, error) {
	var qs []float32
	if c.Queries != nil {
		qs = c.Queries.Data[:c.Q*c.Dim]
	}
	b, err := newBatchDataIn(c.Precision, c.cosineData(c.Seed+1), c.N, c.Q, c.Seed+2, qs)
	if err != nil {
		return nil, err
	}
	return &Prepared{
		Size:  c.Q,
		Fixed: append(append(fixed(c, ParamD, ParamN), c.dataParams(ParamVectors, ParamQueries)...), c.precisionFixed()...),
		Cases: b,
	}, nil
}

// Case builds cosine-batch's case for the first q queries.
func (b *batchData) Case(q int, k Knobs) Case { return cosineBatchCase(b, q, k) }

func (cosineBatchWorkload) Idle(c Config, k Knobs) string {
	// A tile covers tile queries × tile rows; queries past Q are padding.
	tile := k.Tile
	if tile == 0 {
		tile = compute.DefaultTile
	}
	if k.design("tiled") == "tiled" && tile > c.Q {
		return fmt.Sprintf("tile %d > q %d: %d of every %d query slots of a tile are padding", tile, c.Q, tile-c.Q, tile)
	}
	return ""
}

// The CPU-only suite's shape: 4 × its cache-resident rows, whatever
// that count is set to.
func (cosineBatchWorkload) HostShapes(h HostSizes) []HostShape {
	n := 4 * h.NCached
	return []HostShape{{Cache: "resident", Config: Config{Dim: h.Dim, N: n, Q: h.Q, Seed: h.Seed}, Batch: h.Q}}
}

func (cosineBatchWorkload) Check(Config) error { return nil }
