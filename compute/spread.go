package compute

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// SpreadVariant selects the spreading-activation kernel.
type SpreadVariant int

const (
	// SpreadRowPerThread gives each node (row of incoming edges) one thread.
	SpreadRowPerThread SpreadVariant = iota
	// SpreadRowPerWorkgroup gives each row a workgroup whose threads stride
	// over its edges and reduce in workgroup memory (for long rows).
	SpreadRowPerWorkgroup
	// SpreadRowPerThreadVec4 gives each row one invocation, with rows
	// padded to multiples of 4 edges read as vec4s, and no barrier
	// (wgsl/spread_vec4.wgsl).
	SpreadRowPerThreadVec4
)

func (v SpreadVariant) String() string {
	switch v {
	case SpreadRowPerThread:
		return "row-per-thread"
	case SpreadRowPerWorkgroup:
		return "row-per-workgroup"
	case SpreadRowPerThreadVec4:
		return "row-per-thread-vec4"
	}
	return fmt.Sprintf("SpreadVariant(%d)", int(v))
}

func (v SpreadVariant) entry() (string, error) {
	switch v {
	case SpreadRowPerThread:
		return "main_thread", nil
	case SpreadRowPerWorkgroup:
		return "main_workgroup", nil
	case SpreadRowPerThreadVec4:
		return "main", nil
	}
	return "", fmt.Errorf("unknown spread variant %d", int(v))
}

// SpreadOptions configures a spreading-activation runner.
type SpreadOptions struct {
	Variant SpreadVariant
	// Workgroup is the number of threads per workgroup (a power of two;
	// 0: DefaultWorkgroup).
	Workgroup int
}

// SpreadParams are the per-call parameters of Spread.Run.
type SpreadParams struct {
	Retention float32 // r in [0,1]: share of a node's own activation it keeps
	Decay     float32 // δ: factor on incoming activation
	Threshold float32 // θ: results below it become 0
	Steps     int     // T ≥ 1, at most MaxSpreadSteps
	// Epsilon ≥ 0 counts, per step, the nodes whose value changed by more
	// than ε, and stops once a step has none (as hostsimd.Spread does).
	// Epsilon < 0: no counting, all Steps run.
	Epsilon float32
}

// MaxSpreadSteps bounds SpreadParams.Steps (each step has its own uniform
// block and bind group).
const MaxSpreadSteps = 4096

// SpreadResult is what one Spread.Run measured and found.
type SpreadResult struct {
	Timing
	// StepsRun is the number of steps whose results the output holds:
	// Steps, or with Epsilon ≥ 0 the first step that changed no node by
	// more than ε (the CPU's hostsimd.Spread stops at the same step). The
	// GPU dispatches all Steps either way; those after convergence return
	// at once, so the kernel time still includes their launch cost.
	StepsRun int
	// Changed is the number of nodes that changed by more than ε on the
	// last step run (0 when it converged, or when Epsilon < 0).
	Changed uint32
	// ChangedPerStep is the count for each dispatched step (nil when
	// Epsilon < 0); entries after StepsRun are 0.
	ChangedPerStep []uint32
}

// Spread runs spreading activation on a graph resident on the GPU. All
// steps of a call are recorded in one submission with ping-pong activation
// buffers and no readback in between.
//
// A graph whose edge arrays do not fit one storage binding is split by
// rows (destination nodes) into chunks of contiguous rows, each with its
// own offsets, cols and weights buffers that fit a binding; a step is then
// one dispatch per chunk, in the same pass. The activations are not split:
// every chunk reads sources anywhere in [0,N), so N floats must fit one
// binding (NewSpread returns ErrLimit otherwise).
// A Spread is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type Spread struct {
	runnerGuard
	d    *wgpu.Device
	N, E int
	opts SpreadOptions
	pipe *wgpu.Pipeline

	chunks      []spreadChunk
	chunkParams *chunkParams      // one uniform block per chunk
	act         [2]*wgpu.Buffer   // ping-pong activations
	params      *chunkParams      // one uniform block per step
	counters    *wgpu.Buffer      // changed nodes per step
	groups      []*wgpu.BindGroup // group 0 of step s: src act[s%2], dst act[(s+1)%2]
	// What Run keeps between calls so a repeated call spends nothing
	// outside the kernel but the a0 upload, the submission and the
	// readback: the parameters last written to params (valid while
	// paramsOK) and the dispatch list of dsSteps steps.
	lastParams SpreadParams
	paramsOK   bool
	ds         []wgpu.Dispatch
	dsSteps    int
	// InputBytes is the size of the graph on the GPU (offsets, cols,
	// weights; with K chunks the offsets hold N+K entries).
	InputBytes uint64
}

// spreadChunk is rows row0 .. row0+rows-1 of the graph with their edges.
type spreadChunk struct {
	row0, rows             int
	offsets, cols, weights *wgpu.Buffer // offsets rebased to start at 0
	group                  *wgpu.BindGroup
	gx, gy                 uint32
}

// Chunks returns the row ranges the graph was split into: chunk k holds
// nodes b[k] .. b[k+1]-1 (b[0] = 0, b[K] = N; K = 1 when the graph fits
// one binding per array).
func (s *Spread) Chunks() []int {
	if s == nil {
		return nil
	}
	b := make([]int, 0, len(s.chunks)+1)
	for _, c := range s.chunks {
		b = append(b, c.row0)
	}
	return append(b, s.N)
}

// spreadBindingBytes is the most bytes one of the runner's storage
// bindings may hold: a binding never exceeds its buffer, and each chunk
// array and each activation buffer is a whole buffer.
func spreadBindingBytes(l wgpu.Limits) (uint64, string) {
	if l.MaxBufferSize < l.MaxStorageBufferBindingSize {
		return l.MaxBufferSize, "maxBufferSize"
	}
	return l.MaxStorageBufferBindingSize, "maxStorageBufferBindingSize"
}

// splitRows splits the rows of offsets (validated) into contiguous ranges
// whose offsets (rows+1 entries), cols and weights each fit a binding of
// bind bytes (the limit called limit), and returns the first row of each
// range.
//
// Greedy, each range as long as it can be: the fewest chunks, hence the
// fewest dispatches per step. Balancing the chunks would not shorten a
// step, since a pass runs its dispatches one after another (each one
// writes dst and the counters the next one writes too), and it would
// only cost dispatches. A row is never split: its sum is one thread's or
// one workgroup's, so a row with more than maxElems edges is refused.
func splitRows(offsets []int32, bind uint64, limit string) ([]int, error) {
	n := len(offsets) - 1
	maxElems := bind / 4
	if maxElems < 2 {
		return nil, fmt.Errorf("%s %d cannot hold one row's 2 offsets: %w", limit, bind, wgpu.ErrLimit)
	}
	// At most maxElems-1 rows: their offsets take one entry more.
	maxRows := int(min(maxElems-1, uint64(n)))
	var starts []int
	for row0 := 0; row0 < n; {
		// The longest range row0 .. row1-1 within both bounds: the first row1
		// past the edge bound, less one.
		hi := min(n, row0+maxRows)
		base := int64(offsets[row0])
		row1 := row0 + 1 + sort.Search(hi-row0, func(k int) bool {
			return uint64(int64(offsets[row0+1+k])-base) > maxElems
		}) - 1
		if row1 == row0 {
			deg := offsets[row0+1] - offsets[row0]
			return nil, fmt.Errorf("row %d has %d incoming edges: %d bytes of cols (and of weights) > %s %d, and a row is not split across bindings: %w", row0, deg, 4*uint64(deg), limit, bind, wgpu.ErrLimit)
		}
		starts = append(starts, row0)
		row0 = row1
	}
	return starts, nil
}

// NewSpread validates the graph and uploads it, split by rows into chunks
// when offsets, cols or weights do not fit one storage binding (see
// Spread). It returns ErrLimit when the activations (4·N bytes) do not fit
// one binding, or when one row has more edges than a binding holds.
func NewSpread(d *wgpu.Device, g ops.CSR, opts SpreadOptions) (*Spread, error) {
	op := "compute: NewSpread"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	entry, err := opts.Variant.entry()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	wg, err := validWorkgroup(d, opts.Workgroup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.Workgroup = wg
	s := &Spread{d: d, N: len(g.Offsets) - 1, E: len(g.Cols), opts: opts}
	bind, limit := spreadBindingBytes(d.Limits)
	if b := 4 * uint64(s.N); b > bind {
		return nil, fmt.Errorf("%s: N = %d nodes: activations of %d bytes > %s %d (the graph's edges are split across bindings, the activations are not): %w", op, s.N, b, limit, bind, wgpu.ErrLimit)
	}
	if err := s.checkLoops(g.Offsets); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if opts.Variant == SpreadRowPerThreadVec4 {
		g = padRows4(g)
	}
	starts, err := splitRows(g.Offsets, bind, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := s.init(g, entry, starts); err != nil {
		s.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s, nil
}

// padRows4 returns g with every row padded to a multiple of 4 edges
// (source 0, weight 0: they add nothing to the sum).
func padRows4(g ops.CSR) ops.CSR {
	n := len(g.Offsets) - 1
	out := ops.CSR{Offsets: make([]int32, n+1)}
	for i := 0; i < n; i++ {
		deg := g.Offsets[i+1] - g.Offsets[i]
		out.Offsets[i+1] = out.Offsets[i] + (deg+3)&^3
	}
	out.Cols = make([]int32, out.Offsets[n])
	out.Weights = make([]float32, out.Offsets[n])
	for i := 0; i < n; i++ {
		copy(out.Cols[out.Offsets[i]:], g.Cols[g.Offsets[i]:g.Offsets[i+1]])
		copy(out.Weights[out.Offsets[i]:], g.Weights[g.Offsets[i]:g.Offsets[i+1]])
	}
	return out
}

// checkLoops refuses a graph whose longest row would need more loop
// iterations in one invocation than the adapter runs (see LoopBudget; each
// loop run costs its iterations + 1): on one thread, the row's edges; on a
// row's workgroup, degree/WG per thread plus the log2(WG) reduction steps.
func (s *Spread) checkLoops(offsets []int32) error {
	row, deg := 0, uint64(0)
	for i := range s.N {
		if d := uint64(offsets[i+1] - offsets[i]); d > deg {
			row, deg = i, d
		}
	}
	iters := deg + 1
	what := fmt.Sprintf("%s: row %d has %d incoming edges, summed by one thread", s.opts.Variant, row, deg)
	if s.opts.Variant == SpreadRowPerThreadVec4 {
		iters = (deg+3)/4 + 1 // rows are padded to multiples of 4 edges, read as vec4s
	}
	if s.opts.Variant == SpreadRowPerWorkgroup {
		wg := uint64(s.opts.Workgroup)
		per := (deg + wg - 1) / wg
		iters = per + 1 + uint64(bits.Len(uint(s.opts.Workgroup))-1) + 1
		what = fmt.Sprintf("%s: row %d has %d incoming edges, %d per thread of a %d-thread workgroup plus the reduction", s.opts.Variant, row, deg, per, wg)
	}
	return wgpu.CheckLoopBudget(s.d, iters, what)
}

func (s *Spread) init(g ops.CSR, entry string, starts []int) error {
	d := s.d
	var err error
	shader := "spread"
	if s.opts.Variant == SpreadRowPerThreadVec4 {
		shader = "spread_vec4"
	}
	if s.pipe, err = d.Pipeline(shader, wgsl.MustSource(shader), entry, wgpu.Constants{"WG": float64(s.opts.Workgroup)}); err != nil {
		return err
	}
	upload := func(label string, data []byte) (*wgpu.Buffer, error) {
		size := max(uint64(len(data)), 16) // a chunk without edges still binds a buffer (one vec4)
		b, err := d.CreateBuffer(label, size, wgpu.UsageStorage|wgpu.UsageCopyDst)
		if err != nil {
			return nil, err
		}
		s.InputBytes += uint64(len(data))
		return b, d.Write(b, 0, data)
	}
	for k := range s.act {
		if s.act[k], err = d.CreateBuffer(fmt.Sprintf("activation[%d]", k), 4*uint64(s.N), wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc); err != nil {
			return err
		}
	}
	if s.chunkParams, err = newChunkParams(d, "spread chunk params", len(starts), 4); err != nil {
		return err
	}
	s.chunks = make([]spreadChunk, len(starts))
	for k, row0 := range starts {
		row1 := s.N
		if k+1 < len(starts) {
			row1 = starts[k+1]
		}
		c := &s.chunks[k]
		c.row0, c.rows = row0, row1-row0
		e0, e1 := g.Offsets[row0], g.Offsets[row1]
		// The chunk's offsets rebased to its first edge; int32 offsets and
		// columns are validated non-negative: the same bits as u32.
		offs := make([]int32, c.rows+1)
		for i := range offs {
			offs[i] = g.Offsets[row0+i] - e0
		}
		if c.offsets, err = upload(fmt.Sprintf("offsets[%d]", k), wgpu.Bytes(offs)); err != nil {
			return err
		}
		if c.cols, err = upload(fmt.Sprintf("cols[%d]", k), wgpu.Bytes(g.Cols[e0:e1])); err != nil {
			return err
		}
		if c.weights, err = upload(fmt.Sprintf("weights[%d]", k), wgpu.Bytes(g.Weights[e0:e1])); err != nil {
			return err
		}
		groups := uint32(c.rows)
		if s.opts.Variant != SpreadRowPerWorkgroup {
			groups = (groups + uint32(s.opts.Workgroup) - 1) / uint32(s.opts.Workgroup)
		}
		c.gx, c.gy = grid2D(groups, d.Limits.MaxComputeWorkgroupsPerDimension)
		s.chunkParams.set(k, uint32(c.row0), uint32(c.rows), c.gx)
		if c.group, err = d.CreateBindGroup(s.pipe, 1, []wgpu.BufferBinding{
			s.chunkParams.binding(k),
			{Binding: 1, Buffer: c.offsets},
			{Binding: 2, Buffer: c.cols},
			{Binding: 3, Buffer: c.weights},
		}); err != nil {
			return err
		}
	}
	if err := s.chunkParams.flush(d); err != nil {
		return err
	}
	return s.grow(16)
}

// grow makes room for steps steps: per-step uniform blocks, counters and
// bind groups (rounded up to a power of two).
func (s *Spread) grow(steps int) error {
	if steps <= len(s.groups) {
		return nil
	}
	c := 16
	for c < steps {
		c *= 2
	}
	c = min(c, MaxSpreadSteps)
	d := s.d
	releaseAll(s.groups)
	s.groups = nil
	s.paramsOK, s.ds, s.dsSteps = false, nil, 0
	s.params.Release()
	s.counters.Release()
	s.params, s.counters = nil, nil
	var err error
	if s.params, err = newChunkParams(d, "spread params", c, 8); err != nil {
		return err
	}
	if s.counters, err = d.CreateBuffer("spread counters", uint64(4*c), wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc); err != nil {
		return err
	}
	for k := 0; k < c; k++ {
		bg, err := d.CreateBindGroup(s.pipe, 0, []wgpu.BufferBinding{
			s.params.binding(k),
			{Binding: 1, Buffer: s.act[k%2]},
			{Binding: 2, Buffer: s.act[(k+1)%2]},
			{Binding: 3, Buffer: s.counters},
		})
		if err != nil {
			return err
		}
		s.groups = append(s.groups, bg)
	}
	return nil
}

func finite32(x float32) bool {
	return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
}

func (p SpreadParams) validate() error {
	for _, f := range []struct {
		name string
		v    float32
	}{{"Retention", p.Retention}, {"Decay", p.Decay}, {"Threshold", p.Threshold}, {"Epsilon", p.Epsilon}} {
		if !finite32(f.v) {
			return fmt.Errorf("%s = %v: must be finite", f.name, f.v)
		}
	}
	if p.Retention < 0 || p.Retention > 1 {
		return fmt.Errorf("Retention = %v: must be in [0,1]", p.Retention)
	}
	if p.Steps < 1 || p.Steps > MaxSpreadSteps {
		return fmt.Errorf("Steps = %d: must be in 1..%d", p.Steps, MaxSpreadSteps)
	}
	return nil
}

// Run uploads the initial activations a0 (len N, finite), runs p.Steps
// steps in one submission (one timed pass holding every step's dispatch)
// and reads the final activations into out (len N).
func (s *Spread) Run(a0 []float32, p SpreadParams, out []float32, t *wgpu.Timer) (SpreadResult, error) {
	op := "compute: Spread.Run"
	unlock, err := lockLive(op, s)
	if err != nil {
		return SpreadResult{}, err
	}
	defer unlock()
	if len(a0) != s.N {
		return SpreadResult{}, fmt.Errorf("%s: len(a0) = %d, want N = %d", op, len(a0), s.N)
	}
	if len(out) != s.N {
		return SpreadResult{}, fmt.Errorf("%s: len(out) = %d, want N = %d", op, len(out), s.N)
	}
	if err := p.validate(); err != nil {
		return SpreadResult{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkFinite("a0", a0); err != nil {
		return SpreadResult{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := s.grow(p.Steps); err != nil {
		return SpreadResult{}, fmt.Errorf("%s: %w", op, err)
	}
	start := clock.Now()
	count := p.Epsilon >= 0
	if err := s.setParams(p, count); err != nil {
		return SpreadResult{}, err
	}
	if count {
		if err := s.d.Write(s.counters, 0, make([]byte, 4*p.Steps)); err != nil {
			return SpreadResult{}, err
		}
	}
	if err := s.d.Write(s.act[0], 0, wgpu.Bytes(a0)); err != nil {
		return SpreadResult{}, err
	}
	ds := s.dispatches(p.Steps)
	// One call reads the activations after the last step (and the
	// counters); only when the counters show an earlier stop whose
	// activations are in the other buffer does a second readback follow.
	res := SpreadResult{StepsRun: p.Steps}
	reads := []wgpu.Readback{{Src: s.act[p.Steps%2], Dst: wgpu.Bytes(out)}}
	if count {
		res.ChangedPerStep = make([]uint32, p.Steps)
		reads = append(reads, wgpu.Readback{Src: s.counters, Dst: wgpu.Bytes(res.ChangedPerStep)})
	}
	passes, err := s.d.Run(wgpu.Call{Passes: []wgpu.Pass{{Label: "spread " + s.opts.Variant.String(), Dispatches: ds}}, Reads: reads, Timer: t})
	if err != nil {
		return SpreadResult{}, err
	}
	if count {
		for k, c := range res.ChangedPerStep {
			if c == 0 {
				res.StepsRun = k + 1
				break
			}
		}
		res.Changed = res.ChangedPerStep[res.StepsRun-1]
		if res.StepsRun%2 != p.Steps%2 {
			if err := s.d.Read(s.act[res.StepsRun%2], 0, wgpu.Bytes(out)); err != nil {
				return SpreadResult{}, err
			}
		}
	}
	res.Timing = timingFrom(passes, start)
	return res, nil
}

// setParams writes every step's parameter block unless p is what the
// blocks already hold.
func (s *Spread) setParams(p SpreadParams, count bool) error {
	if s.paramsOK && p == s.lastParams {
		return nil
	}
	f := (1 - p.Retention) * p.Decay // float32, as hostsimd.SpreadStep
	var countWord uint32
	if count {
		countWord = 1
	}
	for k := 0; k < p.Steps; k++ {
		s.params.set(k, uint32(k), countWord, math.Float32bits(p.Retention), math.Float32bits(f),
			math.Float32bits(p.Threshold), math.Float32bits(p.Epsilon))
	}
	s.paramsOK = false
	if err := s.params.flush(s.d); err != nil {
		return err
	}
	s.lastParams, s.paramsOK = p, true
	return nil
}

// dispatches is the pass of steps steps: step k is one dispatch per
// chunk, and the pass runs them in order, so step k+1 sees all of step
// k's dst and counters[k]. It is rebuilt only when steps changes.
func (s *Spread) dispatches(steps int) []wgpu.Dispatch {
	if s.dsSteps != steps {
		s.ds = make([]wgpu.Dispatch, 0, steps*len(s.chunks))
		for k := 0; k < steps; k++ {
			for _, c := range s.chunks {
				s.ds = append(s.ds, wgpu.Dispatch{Pipeline: s.pipe, BindGroups: []*wgpu.BindGroup{s.groups[k], c.group}, X: c.gx, Y: c.gy, Z: 1})
			}
		}
		s.dsSteps = steps
	}
	return s.ds
}

// Release frees the runner's GPU memory; idempotent.
func (s *Spread) Release() { releaseRunner(s) }

func (s *Spread) free() {
	releaseAll(s.groups)
	s.groups = nil
	for _, c := range s.chunks {
		c.group.Release()
		for _, b := range []*wgpu.Buffer{c.offsets, c.cols, c.weights} {
			b.Release()
		}
	}
	s.chunks = nil
	s.chunkParams.Release()
	s.params.Release()
	for _, b := range []*wgpu.Buffer{s.act[0], s.act[1], s.counters} {
		b.Release()
	}
}
