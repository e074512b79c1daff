package compute

import (
	"errors"
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// CosineOptions configures a cosine runner.
type CosineOptions struct {
	// Workgroup is the number of threads per workgroup (a power of two;
	// 0: DefaultWorkgroup).
	Workgroup int
	// PrecomputedNorms stores ‖V[i]‖ at creation and skips v·v per call.
	PrecomputedNorms bool
	// RowPerInvocation selects the design with one row per invocation
	// (vec4 loads, no workgroup memory, no barrier) instead of one
	// workgroup per row with a tree reduction. Not with PrecomputedNorms.
	RowPerInvocation bool
	// Subgroup selects the design with one subgroup per row, reduced with
	// subgroupAdd (no workgroup memory, no barrier); ErrUnsupported where
	// the device has no subgroup operations. f32 storage only.
	Subgroup bool
}

// ErrUnsupported reports a kernel design the device cannot run (a
// missing feature); a variant selection skips it.
var ErrUnsupported = errors.New("not supported by this device")

// CosineSingle scores one query against N stored vectors resident on the
// GPU. V is split into chunks that each fit one storage binding. It is
// safe for concurrent use: calls share the GPU buffers of the query and
// the scores, so they are serialised (TestRunnersConcurrentCallers); a
// wgpu.Timer passed to Run must not be used by another call at the same
// time.
type CosineSingle struct {
	runnerGuard
	d      *wgpu.Device
	N, D   int
	opts   CosineOptions
	pipe   *wgpu.Pipeline
	q      *wgpu.Buffer
	out    *wgpu.Buffer
	params *chunkParams
	vbufs  []*wgpu.Buffer
	nbufs  []*wgpu.Buffer
	groups []*wgpu.BindGroup
	passes []wgpu.Pass
	chunks []uint64 // rows per chunk
	// query, when set, is how the stored type reads a query: its bytes
	// and their norm (setQuery's f32 upload otherwise).
	query func(q []float32) ([]byte, float64, error)
	// InputBytes is the size of V on the GPU.
	InputBytes uint64
}

func validWorkgroup(d *wgpu.Device, wg int) (int, error) {
	if wg == 0 {
		wg = DefaultWorkgroup
	}
	return wg, d.CheckWorkgroup(wg)
}

// NewCosineSingle uploads V (N rows of D floats, row-major) to the GPU.
// D must be a multiple of 4 (vec4 loads); values must be finite.
func NewCosineSingle(d *wgpu.Device, v []float32, dim int, opts CosineOptions) (*CosineSingle, error) {
	op := "compute: NewCosineSingle"
	c, err := newCosineSingle(op, d, v, dim, opts)
	if err != nil {
		return nil, err
	}
	err = c.init(rowStore{
		shader:   "cosine_single",
		label:    "V",
		rowBytes: uint64(4 * dim),
		rows:     func(from, to uint64) []byte { return wgpu.Bytes(v[from*uint64(dim) : to*uint64(dim)]) },
		value:    func(k uint64) float64 { return float64(v[k]) },
	})
	if err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// newCosineSingle validates the inputs shared by every storage variant
// and returns the runner to initialise.
func newCosineSingle(op string, d *wgpu.Device, v []float32, dim int, opts CosineOptions) (*CosineSingle, error) {
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := checkRows(v, dim); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkFinite("V", v); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	wg, err := validWorkgroup(d, opts.Workgroup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.Workgroup = wg
	if opts.Subgroup {
		if opts.PrecomputedNorms || opts.RowPerInvocation {
			return nil, fmt.Errorf("%s: Subgroup with PrecomputedNorms or RowPerInvocation: choose one design", op)
		}
		if err := checkNeeds(d, "cosine_single_subgroup"); err != nil {
			return nil, fmt.Errorf("%s: a subgroup per row: %w", op, err)
		}
		// Per invocation at most: the rows of its subgroup (a workgroup
		// takes about 8 rows, a subgroup at most all of them), each the
		// loop over D/4 (a subgroup of one lane walks it all).
		if err := wgpu.CheckLoopBudget(d, 9*(uint64(dim/4)+1)+10, fmt.Sprintf("dimension %d", dim)); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if opts.RowPerInvocation {
		if opts.PrecomputedNorms {
			return nil, fmt.Errorf("%s: RowPerInvocation and PrecomputedNorms: the row-per-invocation design computes its norms", op)
		}
		if err := wgpu.CheckLoopBudget(d, uint64(dim/4)+1, fmt.Sprintf("dimension %d", dim)); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return &CosineSingle{d: d, N: len(v) / dim, D: dim, opts: opts}, nil
}

// rowStore is how V's rows are stored on the GPU: the shader that reads
// them, their bytes, and the values they hold (for precomputed norms).
type rowStore struct {
	shader   string // wgsl file, also the pass label
	label    string // buffer label prefix
	rowBytes uint64
	rows     func(from, to uint64) []byte // stored bytes of rows [from, to)
	value    func(k uint64) float64       // the stored value of element k of V
	entry    string                       // the entry point; "": the design's
}

// init splits V into chunks that each fit one storage binding, uploads
// them (with their norms when precomputed) and records one dispatch per
// chunk in a single pass.
func (c *CosineSingle) init(st rowStore) error {
	d, dim := c.d, c.D
	per, err := chunkRows(d, st.rowBytes)
	if err != nil {
		return err
	}
	if err := c.initPipeline(st); err != nil {
		return err
	}
	if c.q, err = d.CreateBuffer("q", uint64(4*dim), wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if c.out, err = d.CreateBuffer("scores", uint64(4*c.N), wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		return err
	}
	for start := uint64(0); start < uint64(c.N); start += per {
		c.chunks = append(c.chunks, min(per, uint64(c.N)-start))
	}
	if c.params, err = newChunkParams(d, "params", len(c.chunks), 4); err != nil {
		return err
	}
	var dispatches []wgpu.Dispatch
	row := uint64(0)
	for i, rows := range c.chunks {
		disp, err := c.initChunk(st, i, row, rows)
		if err != nil {
			return err
		}
		dispatches = append(dispatches, disp)
		row += rows
	}
	c.passes = []wgpu.Pass{{Label: st.shader, Dispatches: dispatches}}
	return c.params.flush(d)
}

// initPipeline picks the shader and entry point of the runner's design
// and the stored type, and creates the pipeline.
func (c *CosineSingle) initPipeline(st rowStore) error {
	shader, entry := st.shader, "main"
	if c.opts.PrecomputedNorms {
		entry = "main_norms"
	}
	if c.opts.RowPerInvocation {
		entry = "main_rows"
	}
	if st.entry != "" {
		entry = st.entry
	}
	if c.opts.Subgroup {
		// f32 rows only (NewCosineSingleF16 refuses Subgroup).
		shader = "cosine_single_subgroup"
	}
	if err := checkNeeds(c.d, shader); err != nil {
		return err
	}
	var err error
	c.pipe, err = c.d.Pipeline(shader, wgsl.MustSource(shader), entry, wgpu.Constants{"WG": float64(c.opts.Workgroup)})
	return err
}

// initChunk uploads chunk i (rows [row, row+rows) of V, with their norms
// when precomputed), binds it and returns its dispatch.
func (c *CosineSingle) initChunk(st rowStore, i int, row, rows uint64) (wgpu.Dispatch, error) {
	d, dim := c.d, c.D
	vb, err := d.CreateBuffer(fmt.Sprintf("%s[%d]", st.label, i), rows*st.rowBytes, wgpu.UsageStorage|wgpu.UsageCopyDst)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	c.vbufs = append(c.vbufs, vb)
	c.InputBytes += vb.Size
	if err := d.Write(vb, 0, st.rows(row, row+rows)); err != nil {
		return wgpu.Dispatch{}, err
	}
	bindings := []wgpu.BufferBinding{
		c.params.binding(i),
		{Binding: 1, Buffer: c.q},
		{Binding: 2, Buffer: vb},
		{Binding: 3, Buffer: c.out, Offset: 4 * row, Size: 4 * rows},
	}
	if c.opts.PrecomputedNorms { // automatic layouts hold only the bindings an entry point uses
		nb, err := c.uploadNorms(st, i, row, rows)
		if err != nil {
			return wgpu.Dispatch{}, err
		}
		bindings = append(bindings, wgpu.BufferBinding{Binding: 4, Buffer: nb})
	}
	bg, err := d.CreateBindGroup(c.pipe, 0, bindings)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	c.groups = append(c.groups, bg)
	groups := uint32(rows)
	if c.opts.Subgroup {
		// about 8 rows per workgroup; subgroups stride over the rest
		groups = uint32(max(1, (rows+7)/8))
	}
	if c.opts.RowPerInvocation {
		groups = uint32((rows + uint64(c.opts.Workgroup) - 1) / uint64(c.opts.Workgroup))
	}
	gx, gy := grid2D(groups, d.Limits.MaxComputeWorkgroupsPerDimension)
	c.params.set(i, uint32(rows), uint32(dim/4), gx) // word 3, |q|, is set per call by setQuery
	return wgpu.Dispatch{Pipeline: c.pipe, BindGroups: []*wgpu.BindGroup{bg}, X: gx, Y: gy, Z: 1}, nil
}

// uploadNorms computes the norms of rows [row, row+rows) from the stored
// values and uploads them as chunk i's norms buffer.
func (c *CosineSingle) uploadNorms(st rowStore, i int, row, rows uint64) (*wgpu.Buffer, error) {
	dim := uint64(c.D)
	norms := make([]float32, rows)
	for r := range norms {
		var s float64
		base := (row + uint64(r)) * dim
		for k := base; k < base+dim; k++ {
			x := st.value(k)
			s += x * x
		}
		norms[r] = float32(math.Sqrt(s))
	}
	nb, err := c.d.CreateBuffer(fmt.Sprintf("norms[%d]", i), 4*rows, wgpu.UsageStorage|wgpu.UsageCopyDst)
	if err != nil {
		return nil, err
	}
	c.nbufs = append(c.nbufs, nb)
	if err := c.d.Write(nb, 0, wgpu.Bytes(norms)); err != nil {
		return nil, err
	}
	return nb, nil
}

// setQuery uploads a query: its norm into word 3 of every chunk's
// parameter block and its values into the q buffer. A query whose norm is
// far from 1 (outside [2⁻⁴⁰, 2⁴⁰]) is first multiplied by the power of two
// that brings it near 1, so that the shader's float32 products q·v stay in
// range (q = 1e30·ones made q·v overflow with rows near 1e10, q = 1e-30
// underflow with rows near 1e-10); a cosine does not depend on the scale,
// and a power of two scales exactly (TestCosineSingleExtremeQuery).
func (c *CosineSingle) setQuery(q []float32) error {
	if c.query != nil {
		b, n, err := c.query(q)
		if err != nil {
			return err
		}
		c.params.setAll(3, math.Float32bits(float32(n)))
		if err := c.params.flush(c.d); err != nil {
			return err
		}
		return c.d.Write(c.q, 0, b)
	}
	var ss float64
	for _, x := range q {
		ss += float64(x) * float64(x)
	}
	n := math.Sqrt(ss)
	if n > 0 && (n < 0x1p-40 || n > 0x1p40) {
		e := -int(math.Round(math.Log2(n)))
		s := make([]float32, len(q))
		for i, x := range q {
			s[i] = float32(math.Ldexp(float64(x), e))
		}
		q, n = s, math.Ldexp(n, e) // the norm scales by the same power of two
	}
	c.params.setAll(3, math.Float32bits(float32(n)))
	if err := c.params.flush(c.d); err != nil {
		return err
	}
	return c.d.Write(c.q, 0, wgpu.Bytes(q))
}

// Run scores q against V into out (len N). With a timer, the pass is timed
// by timestamps. out is poisoned by nothing here: callers that verify
// should poison it first.
func (c *CosineSingle) Run(q, out []float32, t *wgpu.Timer) (Timing, error) {
	const op = "compute: CosineSingle.Run"
	unlock, err := lockLive(op, c)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	if len(q) != c.D {
		return Timing{}, fmt.Errorf("%s: len(q) = %d, want dimension %d", op, len(q), c.D)
	}
	if len(out) != c.N {
		return Timing{}, fmt.Errorf("%s: len(out) = %d, want N = %d", op, len(out), c.N)
	}
	if err := checkFinite("q", q); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	start := clock.Now()
	if err := c.setQuery(q); err != nil {
		return Timing{}, err
	}
	passes, err := c.d.Run(wgpu.Call{Passes: c.passes, Reads: []wgpu.Readback{{Src: c.out, Dst: wgpu.Bytes(out)}}, Timer: t})
	if err != nil {
		return Timing{}, err
	}
	return timingFrom(passes, start), nil
}

// Chunks reports how many storage-binding chunks V was split into.
func (c *CosineSingle) Chunks() int {
	if c == nil {
		return 0
	}
	return len(c.chunks)
}

// Release frees the runner's GPU memory; idempotent.
func (c *CosineSingle) Release() { releaseRunner(c) }

func (c *CosineSingle) free() {
	releaseAll(c.groups)
	releaseAll(c.vbufs)
	releaseAll(c.nbufs)
	c.q.Release()
	c.out.Release()
	c.params.Release()
	c.groups, c.vbufs, c.nbufs = nil, nil, nil
}
