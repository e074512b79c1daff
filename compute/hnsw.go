package compute

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// GatherOptions configures a Gather runner.
type GatherOptions struct {
	Metric ops.Metric
	// Workgroup is the number of threads per workgroup (a power of two;
	// 0: DefaultWorkgroup).
	Workgroup int
	// Lanes is the number of threads that share one (query, candidate)
	// pair (a power of two ≤ Workgroup; 0: min(16, Workgroup, D/4 rounded
	// up to a power of two)).
	Lanes int
	// PerPair selects the design with one invocation per pair (vec4 loads
	// in order, no workgroup memory, no barrier); Lanes must be 0 or 1.
	PerPair bool
	// exact, for the int8 store, makes the shader write each pair's exact
	// integer sum (1: q·v, 2: v·v, 3: q·q) bit-cast to f32 (tests).
	exact int
}

// Gather computes HNSW candidate distances: for Q queries with C candidate
// ids each, the metric between the query and the gathered rows of a base
// set V[N][D] resident on the GPU. V larger than one storage binding is
// split by rows into chunks (see NewGather).
// A Gather is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type Gather struct {
	runnerGuard
	d    *wgpu.Device
	N, D int
	opts GatherOptions
	pipe *wgpu.Pipeline
	// vbufs[k] holds rows [k·per, min((k+1)·per, N)) of V; one buffer
	// (per = N) when V fits one binding.
	vbufs []*wgpu.Buffer
	per   int
	// param holds one 8-word uniform block per chunk.
	param *chunkParams
	// per-call buffers, grown to the largest call so far; perm only when
	// V is chunked
	q, ids, perm, out, qnorm *wgpu.Buffer
	pairCap, queryCap        int
	groups                   []*wgpu.BindGroup // groups[k] binds chunk k
	// host scratch of the chunked path, reused across calls: the counting
	// sort's per-chunk starts and cursors, and the sorted local rows and
	// pairs uploaded to ids and perm
	starts, next      []int
	slotRow, slotPair []uint32
	// store is V's stored type (f32, binary16 or int8; gather_quant.go);
	// vscale holds the int8 rows' scales.
	store  gatherStore
	vscale *wgpu.Buffer
	// InputBytes is the size of V on the GPU.
	InputBytes uint64
}

// NewGather uploads V (N rows of dim floats, row-major). dim must be a
// multiple of 4 (vec4 loads); values must be finite.
//
// V that fits one storage binding (maxStorageBufferBindingSize, and
// maxBufferSize) is one buffer and each Run is one dispatch reading the
// ids as given. Larger V is split by rows into chunks that each fit one
// binding; each Run then sorts its pairs by chunk on the host (a counting
// sort, O(Q·C + chunks)), uploads the sorted chunk-local rows with the
// pair each belongs to, and records one dispatch per chunk that has pairs,
// all in one pass (so a timer measures them together). A pair is computed
// exactly once, by the chunk that holds its row.
func NewGather(d *wgpu.Device, v []float32, dim int, opts GatherOptions) (*Gather, error) {
	return newGather("compute: NewGather", d, v, dim, opts, nil)
}

// newGather builds a Gather over V stored as store makes it (nil: f32).
func newGather(op string, d *wgpu.Device, v []float32, dim int, opts GatherOptions, store func(v []float32, dim int) (gatherStore, error)) (*Gather, error) {
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := checkRows(v, dim); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if n := len(v) / dim; n > math.MaxInt32 {
		return nil, fmt.Errorf("%s: N = %d rows: ids are int32", op, n)
	}
	if !opts.Metric.Valid() {
		return nil, fmt.Errorf("%s: unknown metric %d", op, int(opts.Metric))
	}
	if err := checkFinite("V", v); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	wg, err := validWorkgroup(d, opts.Workgroup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.Workgroup = wg
	if opts.PerPair {
		if opts.Lanes > 1 {
			return nil, fmt.Errorf("%s: lanes %d with PerPair: one invocation per pair has 1 lane", op, opts.Lanes)
		}
		opts.Lanes = 1
		if err := wgpu.CheckLoopBudget(d, uint64(dim/4)+1, fmt.Sprintf("dimension %d", dim)); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if opts.Lanes == 0 {
		opts.Lanes = 1
		for opts.Lanes < dim/4 && opts.Lanes < 16 {
			opts.Lanes *= 2
		}
		opts.Lanes = min(opts.Lanes, wg)
	}
	if l := opts.Lanes; l < 1 || l&(l-1) != 0 || l > wg {
		return nil, fmt.Errorf("%s: lanes %d: must be a power of two ≤ workgroup size %d", op, l, wg)
	}
	g := &Gather{d: d, N: len(v) / dim, D: dim, opts: opts, per: len(v) / dim, store: f32Store(v, dim)}
	if store != nil {
		if g.store, err = store(v, dim); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if b := g.store.rowBytes * uint64(g.N); b > d.Limits.MaxStorageBufferBindingSize || b > d.Limits.MaxBufferSize {
		per, err := chunkRows(d, g.store.rowBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: V of %d bytes needs chunks: %w", op, b, err)
		}
		g.per = int(per)
	}
	if err := g.init(); err != nil {
		g.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return g, nil
}

func (g *Gather) init() error {
	d := g.d
	var err error
	consts := wgpu.Constants{"WG": float64(g.opts.Workgroup), "LANES": float64(g.opts.Lanes), "METRIC": float64(g.opts.Metric)}
	if g.store.int8 && g.opts.exact > 0 {
		consts["EXACT"] = float64(g.opts.exact)
	}
	entry := "main"
	if g.per < g.N {
		entry = "main_chunked"
	}
	if g.opts.PerPair {
		entry = strings.Replace(entry, "main", "main_pair", 1)
	}
	if g.pipe, err = d.Pipeline(g.store.shader, wgsl.MustSource(g.store.shader), entry, consts); err != nil {
		return err
	}
	if g.store.vscale != nil {
		if g.vscale, err = d.CreateBuffer("V scales", 4*uint64(g.N), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
			return err
		}
		if err := d.Write(g.vscale, 0, wgpu.Bytes(g.store.vscale)); err != nil {
			return err
		}
	}
	for row := 0; row < g.N; row += g.per {
		rows := min(g.per, g.N-row)
		label := "V"
		if g.per < g.N {
			label = fmt.Sprintf("V[%d]", len(g.vbufs))
		}
		vb, err := d.CreateBuffer(label, g.store.rowBytes*uint64(rows), wgpu.UsageStorage|wgpu.UsageCopyDst)
		if err != nil {
			return err
		}
		g.vbufs = append(g.vbufs, vb)
		g.InputBytes += vb.Size
		if err := d.Write(vb, 0, g.store.rows(row, row+rows)); err != nil {
			return err
		}
	}
	if g.param, err = newChunkParams(d, "gather params", len(g.vbufs), 8); err != nil {
		return err
	}
	return g.grow(1, 16)
}

// Chunks reports how many storage-binding chunks V was split into (1: V
// fits one binding and each Run is a single dispatch).
func (g *Gather) Chunks() int {
	if g == nil {
		return 0
	}
	return len(g.vbufs)
}

// releaseCall frees the per-call buffers and the bind groups.
func (g *Gather) releaseCall() {
	releaseAll(g.groups)
	g.groups = nil
	for _, b := range []*wgpu.Buffer{g.q, g.ids, g.perm, g.out, g.qnorm} {
		b.Release()
	}
	g.q, g.ids, g.perm, g.out, g.qnorm = nil, nil, nil, nil, nil
	g.queryCap, g.pairCap = 0, 0
}

// grow makes the per-call buffers hold at least queries queries and pairs
// pairs (capacities rounded up to powers of two) and rebinds them.
func (g *Gather) grow(queries, pairs int) error {
	if queries <= g.queryCap && pairs <= g.pairCap {
		return nil
	}
	d := g.d
	pow2 := func(n, at int) int {
		c := at
		for c < n {
			c *= 2
		}
		return c
	}
	qc, pc := pow2(queries, max(1, g.queryCap)), pow2(pairs, max(16, g.pairCap))
	lim := d.Limits.MaxStorageBufferBindingSize
	qb := uint64(g.store.queryBytes)
	if b := qb * uint64(qc); b > lim {
		qc = queries // exact size where the power of two does not fit
	}
	if b := uint64(4 * pc); b > lim {
		pc = pairs
	}
	for _, c := range []struct {
		what  string
		bytes uint64
	}{{"queries", qb * uint64(qc)}, {"ids", uint64(4 * pc)}} {
		if c.bytes > lim {
			return fmt.Errorf("%s of %d bytes > maxStorageBufferBindingSize %d: %w", c.what, c.bytes, lim, wgpu.ErrLimit)
		}
	}
	g.releaseCall()
	chunked := len(g.vbufs) > 1
	var err error
	if g.q, err = d.CreateBuffer("queries", qb*uint64(qc), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if g.qnorm, err = d.CreateBuffer("query norms", uint64(4*qc), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if g.ids, err = d.CreateBuffer("ids", uint64(4*pc), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if chunked {
		if g.perm, err = d.CreateBuffer("pair of slot", uint64(4*pc), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
			return err
		}
	}
	if g.out, err = d.CreateBuffer("distances", uint64(4*pc), wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		return err
	}
	for k, vb := range g.vbufs {
		bindings := []wgpu.BufferBinding{
			g.param.binding(k),
			{Binding: 1, Buffer: g.q},
			{Binding: 2, Buffer: g.ids},
			{Binding: 3, Buffer: vb},
			{Binding: 4, Buffer: g.out},
			{Binding: 5, Buffer: g.qnorm},
		}
		if chunked { // only main_chunked's automatic layout has perm
			bindings = append(bindings, wgpu.BufferBinding{Binding: 6, Buffer: g.perm})
		}
		if g.vscale != nil {
			bindings = append(bindings, wgpu.BufferBinding{Binding: 7, Buffer: g.vscale})
		}
		bg, err := d.CreateBindGroup(g.pipe, 0, bindings)
		if err != nil {
			return err
		}
		g.groups = append(g.groups, bg)
	}
	g.queryCap, g.pairCap = qc, pc
	return nil
}

// Run computes out[j*c+k] = metric(q_j, V[ids[j*c+k]]) for the
// Q = len(q)/D queries and their c candidates each. Every id is checked
// against [0,N) before any GPU work; the error names the first bad
// position and value.
func (g *Gather) Run(q []float32, ids []int32, c int, out []float32, t *wgpu.Timer) (Timing, error) {
	op := "compute: Gather.Run"
	unlock, err := lockLive(op, g)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	nq, err := g.checkRun(q, ids, c, out)
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	pairs := nq * c
	perGroup := g.opts.Workgroup / g.opts.Lanes
	groups := (pairs + perGroup - 1) / perGroup
	maxDim := int(g.d.Limits.MaxComputeWorkgroupsPerDimension)
	// A chunk's dispatch covers at most all pairs, so this bounds every
	// dispatch's grid.
	if uint64(groups) > uint64(maxDim)*uint64(maxDim) || uint64(pairs) > math.MaxUint32 {
		return Timing{}, fmt.Errorf("%s: %d pairs need %d workgroups > %d²: %w", op, pairs, groups, maxDim, wgpu.ErrLimit)
	}
	if err := g.grow(nq, pairs); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	start := clock.Now()
	dispatches, err := g.upload(q, ids, c, nq, perGroup, maxDim)
	if err != nil {
		return Timing{}, err
	}
	pass := wgpu.Pass{Label: g.store.shader + " " + g.opts.Metric.String(), Dispatches: dispatches}
	passes, err := g.d.Run(wgpu.Call{Passes: []wgpu.Pass{pass}, Reads: []wgpu.Readback{{Src: g.out, Dst: wgpu.Bytes(out)}}, Timer: t})
	if err != nil {
		return Timing{}, err
	}
	return timingFrom(passes, start), nil
}

// checkRun checks Run's arguments (every id against [0,N)) and returns
// the number of queries.
func (g *Gather) checkRun(q []float32, ids []int32, c int, out []float32) (int, error) {
	if len(q) == 0 || len(q)%g.D != 0 {
		return 0, fmt.Errorf("len(q) = %d is not a positive multiple of dimension %d", len(q), g.D)
	}
	nq := len(q) / g.D
	if c < 1 {
		return 0, fmt.Errorf("c = %d candidates per query: must be ≥ 1", c)
	}
	if len(ids) != nq*c {
		return 0, fmt.Errorf("len(ids) = %d, want Q·C = %d·%d = %d", len(ids), nq, c, nq*c)
	}
	if len(out) != nq*c {
		return 0, fmt.Errorf("len(out) = %d, want Q·C = %d", len(out), nq*c)
	}
	for i, id := range ids {
		if id < 0 || int(id) >= g.N {
			return 0, fmt.Errorf("ids[%d] = %d (query %d, candidate %d) out of range [0,%d)", i, id, i/c, i%c, g.N)
		}
	}
	if err := checkFinite("q", q); err != nil {
		return 0, err
	}
	return nq, nil
}

// upload writes the ids (sorted by chunk when V is split), the chunks'
// parameters, the queries and, for cosine, their norms, and returns one
// dispatch per chunk that holds candidates.
func (g *Gather) upload(q []float32, ids []int32, c, nq, perGroup, maxDim int) ([]wgpu.Dispatch, error) {
	pairs := nq * c
	// starts[k] … starts[k+1] are chunk k's slots (one chunk: all pairs,
	// in ids order).
	starts := []int{0, pairs}
	if len(g.vbufs) > 1 {
		starts = g.sortByChunk(ids)
		if err := g.d.Write(g.ids, 0, wgpu.Bytes(g.slotRow[:pairs])); err != nil {
			return nil, err
		}
		if err := g.d.Write(g.perm, 0, wgpu.Bytes(g.slotPair[:pairs])); err != nil {
			return nil, err
		}
	} else if err := g.d.Write(g.ids, 0, wgpu.Bytes(ids)); err != nil {
		return nil, err
	}
	var dispatches []wgpu.Dispatch
	for k := range g.vbufs {
		n := starts[k+1] - starts[k]
		if n == 0 { // no candidate in this chunk (zero workgroups is not a dispatch)
			continue
		}
		gx, gy := grid2D(uint32((n+perGroup-1)/perGroup), uint32(maxDim))
		g.param.set(k, uint32(n), uint32(c), uint32(g.D/4), gx, uint32(starts[k]), uint32(k*g.per))
		dispatches = append(dispatches, wgpu.Dispatch{Pipeline: g.pipe, BindGroups: []*wgpu.BindGroup{g.groups[k]}, X: gx, Y: gy, Z: 1})
	}
	if err := g.param.flush(g.d); err != nil {
		return nil, err
	}
	if err := g.uploadQueries(q, nq); err != nil {
		return nil, err
	}
	return dispatches, nil
}

// sortByChunk buckets the pairs of ids (validated in [0,N)) by the chunk
// holding their row, a stable counting sort: slot s of chunk k holds
// g.slotRow[s] = row − k·per and g.slotPair[s] = the pair's index in ids. It
// returns the chunks' slot ranges, starts[k] … starts[k+1].
func (g *Gather) sortByChunk(ids []int32) []int {
	k := len(g.vbufs)
	g.starts = resize(g.starts, k+1)
	clear(g.starts)
	g.slotRow, g.slotPair = resize(g.slotRow, len(ids)), resize(g.slotPair, len(ids))
	for _, id := range ids {
		g.starts[int(id)/g.per+1]++
	}
	for i := 1; i <= k; i++ {
		g.starts[i] += g.starts[i-1]
	}
	g.next = append(resize(g.next, 0), g.starts[:k]...)
	for i, id := range ids {
		ch := int(id) / g.per
		s := g.next[ch]
		g.next[ch]++
		g.slotRow[s] = uint32(int(id) - ch*g.per)
		g.slotPair[s] = uint32(i)
	}
	return g.starts
}

// Lanes reports the threads per (query, candidate) pair in use.
func (g *Gather) Lanes() int {
	if g == nil {
		return 0
	}
	return g.opts.Lanes
}

// Release frees the runner's GPU memory; idempotent.
func (g *Gather) Release() { releaseRunner(g) }

func (g *Gather) free() {
	g.releaseCall()
	releaseAll(g.vbufs)
	g.vbufs = nil
	g.vscale.Release()
	g.vscale = nil
	g.param.Release()
}

// resize returns s with length n, reusing its array when it is large
// enough (the contents are then stale).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
