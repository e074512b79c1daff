package compute

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// CosineBatchOptions configures a batch cosine runner.
type CosineBatchOptions struct {
	// Tiled selects the tiled kernel (wgsl/cosine_batch.wgsl.tmpl); false selects
	// the untiled one (wgsl/cosine_batch_naive.wgsl.tmpl).
	Tiled bool
	// Tile is the tiled kernel's tile side: a TILE×TILE block of S per
	// workgroup with (Tile/4)² threads, each computing 4×4 outputs. A power
	// of two ≥ 4; 0: DefaultTile. Ignored by the untiled kernel.
	Tile int
	// Workgroup is the untiled kernel's threads per workgroup (a power of
	// two; 0: DefaultWorkgroup). The tiled kernel's workgroup size follows from Tile:
	// 0 or (Tile/4)² are accepted.
	Workgroup int
	// Register selects the register-blocked kernel
	// (wgsl/cosine_batch_reg.wgsl: BatchRegQueries queries × 4 rows per
	// invocation, no workgroup memory, no barrier) instead of the tiled or
	// untiled one; it runs Workgroup invocations per workgroup. Not with
	// Tiled.
	Register bool
	// RegisterQueries is the register-blocked kernel's queries per
	// invocation: 16 (0) or 8 (wgsl/cosine_batch_reg8.wgsl, half the
	// accumulators).
	RegisterQueries int
	// Broadcast, with Register and 16 queries, shares the queries through
	// the subgroup (wgsl/cosine_batch_regbc.wgsl: two query loads per lane
	// and subgroupBroadcast instead of sixteen loads); ErrUnsupported
	// where the device has no subgroup operations or its subgroups may
	// have fewer than 8 lanes.
	Broadcast bool
	// store, when set, is how V and the queries are stored instead of
	// f32 (NewCosineBatchF16, NewCosineBatchInt8).
	store *batchStore
}

// batchStore is a stored type of the batch kernels: its name (the
// suffix of every design's shader), the bytes of V's rows and their
// norms, and a call's queries as the shaders read them with their norms.
type batchStore struct {
	elem     string // "f16" or "int8"
	rowBytes uint64
	rows     func(from, to uint64) (data []byte, norms []float32)
	queries  func(qs []float32, nq int) (data []byte, norms []float32, err error)
}

// batchShader is the shader of the design opts selects for V's stored
// type: cosine_batch_naive (untiled), cosine_batch (tiled) and
// cosine_batch_reg, _reg8, _regbc (register-blocked) over f32; the untiled
// kernels over f16 and int8 are cosine_batch_f16 and cosine_batch_int8,
// the tiled ones cosine_batch_tiled_f16 and _int8, the register-blocked
// ones the f32 names with _f16 or _int8 appended. Every design has every
// stored type.
func batchShader(opts CosineBatchOptions) string {
	elem := ""
	if opts.store != nil {
		elem = opts.store.elem
	}
	switch {
	case opts.Register:
		name := "cosine_batch_reg"
		switch {
		case opts.RegisterQueries == 8:
			name = "cosine_batch_reg8"
		case opts.Broadcast:
			name = "cosine_batch_regbc"
		}
		if elem != "" {
			name += "_" + elem
		}
		return name
	case opts.Tiled:
		if elem != "" {
			return "cosine_batch_tiled_" + elem
		}
		return "cosine_batch"
	case elem != "":
		return "cosine_batch_" + elem
	}
	return "cosine_batch_naive"
}

// BatchRegQueries is the queries per invocation of the register-blocked
// batch kernel; it matches QB in wgsl/cosine_batch_reg.wgsl.
const BatchRegQueries = 16

// batchKC is the depth (floats of D) the tiled kernel stages per step; it
// matches KC in wgsl/cosine_batch.wgsl.tmpl. Over int8 codes a step is
// batchKC words of four codes (KC4 there), so the workgroup memory is the
// same.
const batchKC = 16

// TileWorkgroupStorage is the workgroup memory, in bytes, the tiled batch
// kernel needs for a tile side.
func TileWorkgroupStorage(tile int) uint64 { return uint64(2 * batchKC * tile * 4) }

// checkTile validates a tile side against the device's limits before any
// pipeline is created.
func checkTile(d *wgpu.Device, tile, wg int) (int, error) {
	if tile == 0 {
		tile = DefaultTile
	}
	if tile < 4 || tile&(tile-1) != 0 {
		return 0, fmt.Errorf("tile %d: must be a power of two ≥ 4 (4×4 outputs per thread)", tile)
	}
	threads := (tile / 4) * (tile / 4)
	if wg != 0 && wg != threads {
		return 0, fmt.Errorf("workgroup %d with tile %d: the tiled kernel runs (tile/4)² = %d threads", wg, tile, threads)
	}
	lim := d.Limits
	if uint64(threads) > uint64(lim.MaxComputeInvocationsPerWorkgroup) || uint64(threads) > uint64(lim.MaxComputeWorkgroupSizeX) {
		return 0, fmt.Errorf("tile %d needs %d invocations per workgroup > maxComputeInvocationsPerWorkgroup %d (maxComputeWorkgroupSizeX %d): %w",
			tile, threads, lim.MaxComputeInvocationsPerWorkgroup, lim.MaxComputeWorkgroupSizeX, wgpu.ErrLimit)
	}
	if need := TileWorkgroupStorage(tile); need > uint64(lim.MaxComputeWorkgroupStorageSize) {
		return 0, fmt.Errorf("tile %d needs %d bytes of workgroup memory > maxComputeWorkgroupStorageSize %d: %w",
			tile, need, lim.MaxComputeWorkgroupStorageSize, wgpu.ErrLimit)
	}
	return tile, nil
}

// CosineBatch scores batches of queries against N stored vectors resident
// on the GPU: S[q][i] = cos(qs[q], V[i]). V is split into chunks that each
// fit one storage binding; ‖V[i]‖ is computed once at creation (float64 on
// the host), ‖qs[q]‖ per call. Queries are processed in groups small enough
// for S and the queries to fit one binding (one submission per group).
// A CosineBatch is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type CosineBatch struct {
	runnerGuard
	d      *wgpu.Device
	N, D   int
	opts   CosineBatchOptions
	shader string // batchShader(opts)
	pipe   *wgpu.Pipeline
	params *chunkParams
	vbufs  []*wgpu.Buffer
	nbufs  []*wgpu.Buffer
	chunks []uint64 // rows per chunk
	// qmax is the most queries one submission can take (binding limits).
	qmax int

	// Per-capacity state, rebuilt when a call needs more queries.
	qcap   int
	qs     *wgpu.Buffer
	qn     *wgpu.Buffer
	out    *wgpu.Buffer
	groups []*wgpu.BindGroup
	topk   map[int]*topkPlan

	// InputBytes is the size of V on the GPU.
	InputBytes uint64
}

// NewCosineBatch uploads V (N rows of D floats, row-major) to the GPU and
// compiles the selected kernel. D must be a multiple of 4; values finite.
// Tiles past the device's invocation or workgroup-memory limits are
// refused with ErrLimit before any pipeline is created.
func NewCosineBatch(d *wgpu.Device, v []float32, dim int, opts CosineBatchOptions) (*CosineBatch, error) {
	op := "compute: NewCosineBatch"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := checkRows(v, dim); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if len(v)/dim > math.MaxInt32 {
		return nil, fmt.Errorf("%s: N = %d rows: indices must fit int32", op, len(v)/dim)
	}
	if err := checkFinite("V", v); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var err error
	if opts.Tiled && opts.Register {
		return nil, fmt.Errorf("%s: Tiled and Register: choose one kernel", op)
	}
	if opts.Register {
		switch opts.RegisterQueries {
		case 0:
			opts.RegisterQueries = BatchRegQueries
		case 8, 16:
		default:
			return nil, fmt.Errorf("%s: RegisterQueries %d: must be 8 or 16", op, opts.RegisterQueries)
		}
	}
	if opts.Broadcast {
		if !opts.Register || opts.RegisterQueries != BatchRegQueries {
			return nil, fmt.Errorf("%s: Broadcast needs Register with %d queries", op, BatchRegQueries)
		}
		if err := checkNeeds(d, batchShader(opts)); err != nil {
			return nil, fmt.Errorf("%s: queries shared through the subgroup: %w", op, err)
		}
		if m := d.Info.SubgroupMin; m > 0 && m < 8 {
			return nil, fmt.Errorf("%s: queries shared through the subgroup: %s has subgroups of %d lanes, fewer than the 8 the kernel broadcasts from: %w", op, d.Info.Name, m, ErrUnsupported)
		}
	}
	if opts.Tiled {
		if opts.Tile, err = checkTile(d, opts.Tile, opts.Workgroup); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		opts.Workgroup = (opts.Tile / 4) * (opts.Tile / 4)
	} else {
		if opts.Workgroup, err = validWorkgroup(d, opts.Workgroup); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := wgpu.CheckLoopBudget(d, batchLoopIterations(dim, opts), fmt.Sprintf("dimension %d", dim)); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c := &CosineBatch{d: d, N: len(v) / dim, D: dim, opts: opts, topk: map[int]*topkPlan{}}
	if err := c.init(v); err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// batchLoopIterations is what one invocation of the batch kernel spends
// on loops, counted as LoopBudget counts (each loop run costs its
// iterations + 1). Untiled: the loop over the D/4 vec4s. Tiled: per
// KC-deep chunk of D, the staging loop, the KC inner products and one
// trip of the chunk loop, then the 4 stores. TestCosineBatchLoopBudget
// checks the count at the largest dimension it lets through.
func batchLoopIterations(dim int, opts CosineBatchOptions) uint64 {
	d4 := uint64(dim / 4)
	if opts.Register {
		// the loop over D/4 (the QB queries unrolled), then QB stores of
		// 4 rows each
		return (d4 + 1) + uint64(max(opts.RegisterQueries, BatchRegQueries))*(4+1)
	}
	if !opts.Tiled {
		return d4 + 1
	}
	// The chunk's depth in the kernel's elements of D: vec4s of values,
	// or words of four int8 codes.
	kc4 := uint64(batchKC / 4)
	if opts.store != nil && opts.store.elem == "int8" {
		kc4 = batchKC
	}
	stage := (uint64(opts.Tile)*kc4 + uint64(opts.Workgroup) - 1) / uint64(opts.Workgroup)
	chunks := (d4 + kc4 - 1) / kc4
	return chunks*((stage+1)+(batchKC+1)+1) + 1 + (4 + 1)
}

// Options returns the options in effect (defaults filled in).
func (c *CosineBatch) Options() CosineBatchOptions {
	if c == nil {
		return CosineBatchOptions{}
	}
	return c.opts
}

func (c *CosineBatch) init(v []float32) error {
	d, dim := c.d, c.D
	rowBytes := uint64(4 * dim)
	if c.opts.store != nil {
		rowBytes = c.opts.store.rowBytes
	}
	per, err := chunkRows(d, rowBytes)
	if err != nil {
		return err
	}
	maxBind := d.Limits.MaxStorageBufferBindingSize
	// A query is bound as 4 bytes a value whatever V's type (the qs
	// buffer's size).
	c.qmax = int(min(maxBind/(4*uint64(c.N)), maxBind/(4*uint64(dim))))
	if c.qmax < 1 {
		return fmt.Errorf("one row of S (N = %d floats) does not fit maxStorageBufferBindingSize %d: %w", c.N, maxBind, wgpu.ErrLimit)
	}
	c.shader = batchShader(c.opts)
	consts := wgpu.Constants{"WG": float64(c.opts.Workgroup)}
	if c.opts.Tiled {
		consts = wgpu.Constants{"TILE": float64(c.opts.Tile)}
	}
	if c.pipe, err = d.Pipeline(c.shader, wgsl.MustSource(c.shader), "main", consts); err != nil {
		return err
	}
	for start := uint64(0); start < uint64(c.N); start += per {
		c.chunks = append(c.chunks, min(per, uint64(c.N)-start))
	}
	if c.params, err = newChunkParams(d, "batch params", len(c.chunks), 8); err != nil {
		return err
	}
	row := uint64(0)
	for i, rows := range c.chunks {
		vb, err := d.CreateBuffer(fmt.Sprintf("V[%d]", i), rows*rowBytes, wgpu.UsageStorage|wgpu.UsageCopyDst)
		if err != nil {
			return err
		}
		c.vbufs = append(c.vbufs, vb)
		c.InputBytes += vb.Size
		data, norms := c.rowsOf(v, row, rows)
		if err := d.Write(vb, 0, data); err != nil {
			return err
		}
		nb, err := d.CreateBuffer(fmt.Sprintf("‖V[%d]‖", i), 4*rows, wgpu.UsageStorage|wgpu.UsageCopyDst)
		if err != nil {
			return err
		}
		c.nbufs = append(c.nbufs, nb)
		if err := d.Write(nb, 0, wgpu.Bytes(norms)); err != nil {
			return err
		}
		row += rows
	}
	return nil
}

// rowsOf returns the stored bytes of V's rows [row, row+rows) and their
// norms.
func (c *CosineBatch) rowsOf(v []float32, row, rows uint64) ([]byte, []float32) {
	if c.opts.store != nil {
		return c.opts.store.rows(row, row+rows)
	}
	dim := c.D
	part := v[row*uint64(dim) : (row+rows)*uint64(dim)]
	norms := make([]float32, rows)
	for r := range norms {
		norms[r] = norm64(part[r*dim : (r+1)*dim])
	}
	return wgpu.Bytes(part), norms
}

// norm64 is ‖x‖ accumulated in float64.
func norm64(x []float32) float32 {
	var s float64
	for _, a := range x {
		s += float64(a) * float64(a)
	}
	return float32(math.Sqrt(s))
}

// ensure sizes the per-call buffers for nq queries per submission and
// rebuilds the bind groups when they grow.
func (c *CosineBatch) ensure(nq int) error {
	if nq <= c.qcap {
		return nil
	}
	c.releaseCapacity()
	d := c.d
	var err error
	if c.qs, err = d.CreateBuffer("qs", uint64(4*nq*c.D), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if c.qn, err = d.CreateBuffer("‖qs‖", uint64(4*nq), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if c.out, err = d.CreateBuffer("S", uint64(4*nq*c.N), wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		return err
	}
	for i := range c.chunks {
		bg, err := d.CreateBindGroup(c.pipe, 0, []wgpu.BufferBinding{
			c.params.binding(i),
			{Binding: 1, Buffer: c.qs},
			{Binding: 2, Buffer: c.qn},
			{Binding: 3, Buffer: c.vbufs[i]},
			{Binding: 4, Buffer: c.nbufs[i]},
			{Binding: 5, Buffer: c.out},
		})
		if err != nil {
			return err
		}
		c.groups = append(c.groups, bg)
	}
	c.qcap = nq
	return nil
}

func (c *CosineBatch) releaseCapacity() {
	releaseAll(c.groups)
	c.groups = nil
	for k, p := range c.topk {
		p.Release()
		delete(c.topk, k)
	}
	c.qs.Release()
	c.qn.Release()
	c.out.Release()
	c.qs, c.qn, c.out = nil, nil, nil
	c.qcap = 0
}

// pass uploads queries qs (nq of them) with their norms and the chunks'
// parameters, and returns the cosine pass over them.
func (c *CosineBatch) pass(qs []float32, nq int) (wgpu.Pass, error) {
	d, dim := c.d, c.D
	data, norms := wgpu.Bytes(qs), make([]float32, nq)
	if st := c.opts.store; st != nil {
		var err error
		if data, norms, err = st.queries(qs, nq); err != nil {
			return wgpu.Pass{}, err
		}
	} else {
		for q := range norms {
			norms[q] = norm64(qs[q*dim : (q+1)*dim])
		}
	}
	if err := d.Write(c.qs, 0, data); err != nil {
		return wgpu.Pass{}, err
	}
	if err := d.Write(c.qn, 0, wgpu.Bytes(norms)); err != nil {
		return wgpu.Pass{}, err
	}
	maxWG := d.Limits.MaxComputeWorkgroupsPerDimension
	dispatches := make([]wgpu.Dispatch, len(c.chunks))
	row := uint64(0)
	for i, rows := range c.chunks {
		var gx, gy uint32
		var nBlocks, allBlocks uint32 // words 6 and 7: blocks (or tiles) along N and in all
		if c.opts.Register {
			perBlock := 4 * uint64(c.opts.Workgroup)
			blocksN := (rows + perBlock - 1) / perBlock
			qb := uint64(c.opts.RegisterQueries)
			blocks := blocksN * ((uint64(nq) + qb - 1) / qb)
			gx, gy = grid2D(uint32(blocks), maxWG)
			nBlocks, allBlocks = uint32(blocksN), uint32(blocks)
		} else if c.opts.Tiled {
			t := uint64(c.opts.Tile)
			tilesN := (rows + t - 1) / t
			tiles := tilesN * ((uint64(nq) + t - 1) / t)
			gx, gy = grid2D(uint32(tiles), maxWG)
			nBlocks, allBlocks = uint32(tilesN), uint32(tiles)
		} else {
			threads := rows * uint64(nq)
			wg := uint64(c.opts.Workgroup)
			gx, gy = grid2D(uint32((threads+wg-1)/wg), maxWG)
		}
		c.params.set(i, uint32(rows), uint32(nq), uint32(dim/4), gx, uint32(c.N), uint32(row), nBlocks, allBlocks)
		dispatches[i] = wgpu.Dispatch{Pipeline: c.pipe, BindGroups: []*wgpu.BindGroup{c.groups[i]}, X: gx, Y: gy, Z: 1}
		row += rows
	}
	if err := c.params.flush(d); err != nil {
		return wgpu.Pass{}, err
	}
	return wgpu.Pass{Label: c.shader, Dispatches: dispatches}, nil
}

// checkQueries validates a batch of queries and returns their count.
func (c *CosineBatch) checkQueries(qs []float32) (int, error) {
	if len(qs) == 0 || len(qs)%c.D != 0 {
		return 0, fmt.Errorf("len(qs) = %d is not a positive multiple of dimension %d", len(qs), c.D)
	}
	if err := checkFinite("qs", qs); err != nil {
		return 0, err
	}
	return len(qs) / c.D, nil
}

// Run scores every query in qs (Q rows of D floats) against V into out
// (Q·N floats, row-major S[q][i]). Each group of queries that fits the
// binding limits is one submission with one timed pass; the Timing sums
// them (Passes lists every group's pass).
func (c *CosineBatch) Run(qs, out []float32, t *wgpu.Timer) (Timing, error) {
	const op = "compute: CosineBatch.Run"
	unlock, err := lockLive(op, c)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	nq, err := c.checkQueries(qs)
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if len(out) != nq*c.N {
		return Timing{}, fmt.Errorf("%s: len(out) = %d, want Q·N = %d·%d = %d", op, len(out), nq, c.N, nq*c.N)
	}
	start := clock.Now()
	var all []wgpu.PassTime
	for q0 := 0; q0 < nq; q0 += c.qmax {
		n := min(c.qmax, nq-q0)
		if err := c.ensure(n); err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		pass, err := c.pass(qs[q0*c.D:(q0+n)*c.D], n)
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		passes, err := c.d.Run(wgpu.Call{Passes: []wgpu.Pass{pass}, Reads: []wgpu.Readback{{Src: c.out, Dst: wgpu.Bytes(out[q0*c.N : (q0+n)*c.N])}}, Timer: t})
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		all = append(all, passes...)
	}
	return timingFrom(all, start), nil
}

// Chunks reports how many storage-binding chunks V was split into.
func (c *CosineBatch) Chunks() int {
	if c == nil {
		return 0
	}
	return len(c.chunks)
}

// MaxQueriesPerSubmission is the most queries one submission takes before
// Run splits a batch (S and the queries must each fit one binding).
func (c *CosineBatch) MaxQueriesPerSubmission() int {
	if c == nil {
		return 0
	}
	return c.qmax
}

// Release frees the runner's GPU memory; idempotent.
func (c *CosineBatch) Release() { releaseRunner(c) }

func (c *CosineBatch) free() {
	c.releaseCapacity()
	releaseAll(c.vbufs)
	releaseAll(c.nbufs)
	c.params.Release()
	c.vbufs, c.nbufs, c.params = nil, nil, nil
}
