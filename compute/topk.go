package compute

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// MaxTopK is the largest k the GPU top-k supports.
const MaxTopK = 256

// topkMaxSlice is the most inputs one top-k workgroup takes (SL in
// wgsl/topk.wgsl); 8 bytes each in workgroup memory.
const topkMaxSlice = 2048

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// topkStage is one dispatch of the top-k pass.
type topkStage struct {
	// perGroup is the slices one workgroup takes: 1 (bitonic, a workgroup
	// per slice) or the workgroup size (queue, an invocation per slice).
	perGroup int
	pipe     *wgpu.Pipeline
	group    *wgpu.BindGroup
	m, g     int // inputs per query, slices per query
	inStride int
	out      *wgpu.Buffer
}

// topkPlan reduces qcap rows of n scores (row stride `stride` floats) in a
// GPU buffer to k pairs per row: one select_scores dispatch over slices of
// the scores, then select_pairs dispatches over the surviving lists until
// one list per row is left, all in one pass.
type topkPlan struct {
	d      *wgpu.Device
	k      int
	qcap   int
	params *chunkParams
	stages []topkStage
}

// checkK validates k for rows of n scores.
func checkK(k, n int) error {
	if k < 1 || k > MaxTopK {
		return fmt.Errorf("k = %d: must be in 1..MaxTopK = %d", k, MaxTopK)
	}
	if k > n {
		return fmt.Errorf("k = %d > N = %d scores per query", k, n)
	}
	return nil
}

// topkQueueSlice is the inputs one invocation of the queue design takes
// for k: topkQueueMaxSlice, halved while a worst-case slice would spend
// more than 65,536 loop iterations (the strictest budget known, see
// wgpu.LoopBudget), but at least 4k so each round shrinks the lists
// fourfold. Longer slices mean fewer rounds.
func topkQueueSlice(k int) int {
	ch := max(topkQueueMaxSlice, 4*k)
	for ch > 4*k && topkQueueLoopsAt(ch, k) > 65536 {
		ch = max(ch/2, 4*k)
	}
	return ch
}

// topkQueueRegs is the largest k of the register queue (topk_queue_r16).
const topkQueueRegs = 16

// topkQueueShader is the queue design's shader for k: the register queue
// of 16 entries up to 16, else the shifting queue of MaxTopK.
func topkQueueShader(k int) string {
	if k <= topkQueueRegs {
		return "topk_queue_r16"
	}
	return "topk_queue"
}

// topkQueueMaxSlice is the longest slice of the queue design.
const topkQueueMaxSlice = 1024

// topkQueueLoops is what one invocation of wgsl/topk_queue.wgsl may
// spend on loops (counted as wgpu.LoopBudget counts).
func topkQueueLoops(k int) uint64 { return topkQueueLoopsAt(topkQueueSlice(k), k) }

// topkQueueLoopsAt counts, for slices of ch inputs: the queue's
// initialisation, the slice, an insertion of up to k shifts for every
// input in the worst case (inputs in ascending order), the output.
func topkQueueLoopsAt(ch, k int) uint64 {
	if k <= topkQueueRegs {
		k = topkQueueRegs // the register queue's loops run to 16
	}
	return uint64(k+1) + uint64(ch+1) + uint64(ch)*uint64(k+1) + uint64(k+1)
}

// newTopKPlan builds the bitonic plan (queue false) or the
// threshold-filtered queue plan (wgsl/topk_queue.wgsl).
func newTopKPlan(d *wgpu.Device, scores *wgpu.Buffer, stride, n, qcap, k int, queue bool) (*topkPlan, error) {
	if err := checkK(k, n); err != nil {
		return nil, err
	}
	if queue {
		return newTopKQueuePlan(d, scores, stride, n, qcap, k)
	}
	kp := nextPow2(k)
	maxSL := topkMaxSlice
	for maxSL > 2*kp && uint64(8*maxSL) > uint64(d.Limits.MaxComputeWorkgroupStorageSize) {
		maxSL >>= 1
	}
	if need := uint64(8 * maxSL); need > uint64(d.Limits.MaxComputeWorkgroupStorageSize) {
		return nil, fmt.Errorf("top-k with k = %d needs %d bytes of workgroup memory > maxComputeWorkgroupStorageSize %d: %w",
			k, need, d.Limits.MaxComputeWorkgroupStorageSize, wgpu.ErrLimit)
	}
	return buildTopKPlan(d, scores, stride, n, qcap, k, "topk round", func(entry string, m int) (*wgpu.Pipeline, int, int, error) {
		sl := min(max(nextPow2(m), kp), maxSL)
		wg := max(1, min(256, sl/2, int(d.Limits.MaxComputeInvocationsPerWorkgroup)))
		pipe, err := d.Pipeline("topk", wgsl.MustSource("topk"), entry, wgpu.Constants{"WG": float64(wg), "SL": float64(sl), "KP": float64(kp)})
		return pipe, (m + sl - 1) / sl, 1, err
	})
}

// newTopKQueuePlan is newTopKPlan's queue design: rounds of
// select_scores then select_pairs, an invocation per slice of
// topkQueueSlice(k) inputs, until one list per row is left.
func newTopKQueuePlan(d *wgpu.Device, scores *wgpu.Buffer, stride, n, qcap, k int) (*topkPlan, error) {
	if err := wgpu.CheckLoopBudget(d, topkQueueLoops(k), fmt.Sprintf("top-k queue with k = %d", k)); err != nil {
		return nil, err
	}
	ch := topkQueueSlice(k)
	wg := DefaultWorkgroup
	shader := topkQueueShader(k)
	return buildTopKPlan(d, scores, stride, n, qcap, k, "topk queue round", func(entry string, m int) (*wgpu.Pipeline, int, int, error) {
		pipe, err := d.Pipeline(shader, wgsl.MustSource(shader), entry, wgpu.Constants{"WG": float64(wg), "CH": float64(ch)})
		return pipe, (m + ch - 1) / ch, wg, err
	})
}

// topkRound gives, for a round of entry point entry over m inputs per
// row, the round's pipeline, its number of output lists per row and how
// many of them one workgroup produces.
type topkRound func(entry string, m int) (pipe *wgpu.Pipeline, groups, perGroup int, err error)

// buildTopKPlan chains rounds — select_scores over the scores, then
// select_pairs over the previous round's lists — until one list of k
// pairs per row is left (at most 8 rounds). Both designs share it; round
// says what differs between them.
func buildTopKPlan(d *wgpu.Device, scores *wgpu.Buffer, stride, n, qcap, k int, label string, round topkRound) (*topkPlan, error) {
	p := &topkPlan{d: d, k: k, qcap: qcap}
	var err error
	if p.params, err = newChunkParams(d, "topk params", 8, 8); err != nil {
		return nil, err
	}
	in, m, inStride, entry, binding := scores, n, stride, "select_scores", uint32(1)
	for {
		if len(p.stages) == 8 {
			p.Release()
			return nil, fmt.Errorf("top-k of N = %d, k = %d needs more than 8 rounds", n, k)
		}
		pipe, g, perGroup, err := round(entry, m)
		if err != nil {
			p.Release()
			return nil, err
		}
		out, err := d.CreateBuffer(fmt.Sprintf("%s %d", label, len(p.stages)), uint64(8*qcap*g*k), wgpu.UsageStorage|wgpu.UsageCopySrc)
		if err != nil {
			p.Release()
			return nil, err
		}
		st := topkStage{perGroup: perGroup, pipe: pipe, m: m, g: g, inStride: inStride, out: out}
		i := len(p.stages)
		st.group, err = d.CreateBindGroup(pipe, 0, []wgpu.BufferBinding{
			p.params.binding(i),
			{Binding: binding, Buffer: in},
			{Binding: 3, Buffer: out},
		})
		if err != nil {
			out.Release()
			p.Release()
			return nil, err
		}
		p.stages = append(p.stages, st)
		if g == 1 {
			return p, nil
		}
		in, m, inStride, entry, binding = out, g*k, g*k, "select_pairs", 2
	}
}

// pass writes the stages' parameters for nq rows and returns the top-k pass.
func (p *topkPlan) pass(nq int) (wgpu.Pass, error) {
	if nq < 1 || nq > p.qcap {
		return wgpu.Pass{}, fmt.Errorf("top-k: %d queries, want 1..%d", nq, p.qcap)
	}
	maxWG := p.d.Limits.MaxComputeWorkgroupsPerDimension
	ds := make([]wgpu.Dispatch, len(p.stages))
	for i, st := range p.stages {
		gx, gy := grid2D(uint32((nq*st.g+st.perGroup-1)/st.perGroup), maxWG)
		p.params.set(i, uint32(st.m), uint32(st.g), uint32(p.k), gx, uint32(nq), uint32(st.inStride))
		ds[i] = wgpu.Dispatch{Pipeline: st.pipe, BindGroups: []*wgpu.BindGroup{st.group}, X: gx, Y: gy, Z: 1}
	}
	if err := p.params.flush(p.d); err != nil {
		return wgpu.Pass{}, err
	}
	return wgpu.Pass{Label: "topk", Dispatches: ds}, nil
}

// readback reads the k pairs of the first len(out)/k rows into out, as
// part of the call that runs the selection.
func (p *topkPlan) readback(out []ops.Pair) []wgpu.Readback {
	return []wgpu.Readback{{Src: p.stages[len(p.stages)-1].out, Dst: wgpu.Bytes(out)}}
}

// Release frees the plan's buffers; idempotent.
func (p *topkPlan) Release() {
	if p == nil {
		return
	}
	for _, st := range p.stages {
		st.group.Release()
		st.out.Release()
	}
	p.stages = nil
	p.params.Release()
	p.params = nil
}

// TopK selects the k best scores of each row of a scores buffer already on
// the GPU (Q rows of N float32, row-major, from offset 0): descending, equal
// scores by lower index. Only Q·k pairs are read back. The selection is
// designed for a real GPU: one workgroup per (row, slice of up to 2048
// scores) runs a bitonic top-k network in workgroup memory; further rounds
// merge the per-slice lists, all as dispatches of one pass.
// A TopK is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type TopK struct {
	runnerGuard
	d       *wgpu.Device
	plan    *topkPlan
	Q, N, K int
}

// NewTopK prepares the selection of k of n scores for each of q rows of
// scores, with the design opts chooses (the zero value: the bitonic
// network). k must be in 1..min(n, MaxTopK).
func NewTopK(d *wgpu.Device, scores *wgpu.Buffer, q, n, k int, opts TopKOptions) (*TopK, error) {
	const op = "compute: NewTopK"
	if d == nil {
		return nil, fmt.Errorf("%s: nil device", op)
	}
	if q < 1 || n < 1 {
		return nil, fmt.Errorf("%s: Q = %d, N = %d: both must be ≥ 1", op, q, n)
	}
	if scores == nil || uint64(4*q*n) > scores.Size {
		return nil, fmt.Errorf("%s: scores buffer smaller than Q·N = %d·%d floats", op, q, n)
	}
	plan, err := newTopKPlan(d, scores, n, n, q, k, opts.Queue)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return &TopK{d: d, plan: plan, Q: q, N: n, K: k}, nil
}

// Pass returns the top-k pass, to be submitted after the pass that writes
// the scores (in the same submission or a later one); Read then reads the
// result.
func (t *TopK) Pass() (wgpu.Pass, error) {
	unlock, err := lockLive("compute: TopK.Pass", t)
	if err != nil {
		return wgpu.Pass{}, err
	}
	defer unlock()
	return t.pass()
}

func (t *TopK) pass() (wgpu.Pass, error) { return t.plan.pass(t.Q) }

// Read copies the Q·K selected pairs (row-major) into out.
func (t *TopK) Read(out []ops.Pair) error {
	unlock, err := lockLive("compute: TopK.Read", t)
	if err != nil {
		return err
	}
	defer unlock()
	if len(out) != t.Q*t.K {
		return fmt.Errorf("compute: TopK.Read: len(out) = %d, want Q·k = %d", len(out), t.Q*t.K)
	}
	_, err = t.d.Run(wgpu.Call{Reads: t.plan.readback(out)})
	return err
}

// Run submits the top-k pass alone (one timed pass) and reads the Q·K pairs
// into out.
func (t *TopK) Run(out []ops.Pair, timer *wgpu.Timer) (Timing, error) {
	const op = "compute: TopK.Run"
	unlock, err := lockLive(op, t)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	if len(out) != t.Q*t.K {
		return Timing{}, fmt.Errorf("%s: len(out) = %d, want Q·k = %d", op, len(out), t.Q*t.K)
	}
	start := clock.Now()
	pass, err := t.pass()
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	passes, err := t.d.Run(wgpu.Call{Passes: []wgpu.Pass{pass}, Reads: t.plan.readback(out), Timer: timer})
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	return timingFrom(passes, start), nil
}

// Release frees the selection's buffers (not the scores); idempotent.
func (t *TopK) Release() { releaseRunner(t) }

func (t *TopK) free() {
	t.plan.Release()
	t.plan = nil
}

// TopKSingle runs a CosineSingle and the top-k of its scores in one
// submission and reads back only k pairs.
// A TopKSingle is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type TopKSingle struct {
	runnerGuard
	c    *CosineSingle
	plan *topkPlan
	K    int
}

// TopKOptions selects the top-k design.
type TopKOptions struct {
	// Queue selects threshold-filtered per-invocation queues
	// (wgsl/topk_queue.wgsl) instead of the bitonic network
	// (wgsl/topk.wgsl). Refused with ErrLimit where the adapter's loop
	// budget cannot cover a worst-case slice at this k.
	Queue bool
}

// NewTopKSingle prepares top-k selection of the scores of c, with the
// design opts chooses (the zero value: the bitonic network). k must be in
// 1..min(N, MaxTopK). c must outlive the returned value.
func NewTopKSingle(c *CosineSingle, k int, opts TopKOptions) (*TopKSingle, error) {
	if c == nil || c.d == nil {
		return nil, fmt.Errorf("compute: NewTopKSingle: nil or released CosineSingle")
	}
	plan, err := newTopKPlan(c.d, c.out, c.N, c.N, 1, k, opts.Queue)
	if err != nil {
		return nil, fmt.Errorf("compute: NewTopKSingle: %w", err)
	}
	return &TopKSingle{c: c, plan: plan, K: k}, nil
}

// Run scores q against V and writes the k best (index, score) pairs,
// descending, into out (len k). With a timer (MaxPasses ≥ 2) the cosine
// pass and the top-k pass are timed separately; Timing.Kernel is their sum
// and Timing.Passes holds [cosine, top-k].
func (t *TopKSingle) Run(q []float32, out []ops.Pair, timer *wgpu.Timer) (Timing, error) {
	const op = "compute: TopKSingle.Run"
	unlock, err := lockLive(op, t)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	// The cosine pass writes the CosineSingle's buffers: its calls and
	// this one are serialised on its lock too.
	unlockC, err := lockLive(op, t.c)
	if err != nil {
		return Timing{}, err
	}
	defer unlockC()
	c := t.c
	if len(q) != c.D {
		return Timing{}, fmt.Errorf("%s: len(q) = %d, want dimension %d", op, len(q), c.D)
	}
	if len(out) != t.K {
		return Timing{}, fmt.Errorf("%s: len(out) = %d, want k = %d", op, len(out), t.K)
	}
	if err := checkFinite("q", q); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	start := clock.Now()
	if err := c.setQuery(q); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	sel, err := t.plan.pass(1)
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	passes := append(append([]wgpu.Pass(nil), c.passes...), sel)
	pt, err := c.d.Run(wgpu.Call{Passes: passes, Reads: t.plan.readback(out), Timer: timer})
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	return timingFrom(pt, start), nil
}

// Release frees the selection's buffers (not the CosineSingle); idempotent.
func (t *TopKSingle) Release() { releaseRunner(t) }

func (t *TopKSingle) free() {
	t.plan.Release()
	t.plan = nil
}

// RunTopK scores every query in qs (Q rows of D floats) against V and
// writes each query's k best (index, score) pairs, descending, equal scores
// by lower index, into out (Q·k pairs, row-major). S stays on the GPU: per
// group of queries one submission holds the cosine pass and the top-k pass
// (timed separately with a timer of MaxPasses ≥ 2; Timing sums them).
func (c *CosineBatch) RunTopK(qs []float32, k int, out []ops.Pair, t *wgpu.Timer) (Timing, error) {
	const op = "compute: CosineBatch.RunTopK"
	unlock, err := lockLive(op, c)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	nq, err := c.checkQueries(qs)
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkK(k, c.N); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if len(out) != nq*k {
		return Timing{}, fmt.Errorf("%s: len(out) = %d, want Q·k = %d·%d = %d", op, len(out), nq, k, nq*k)
	}
	start := clock.Now()
	var all []wgpu.PassTime
	for q0 := 0; q0 < nq; q0 += c.qmax {
		n := min(c.qmax, nq-q0)
		if err := c.ensure(n); err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		plan := c.topk[k]
		if plan == nil {
			if plan, err = newTopKPlan(c.d, c.out, c.N, c.N, c.qcap, k, false); err != nil {
				return Timing{}, fmt.Errorf("%s: %w", op, err)
			}
			c.topk[k] = plan
		}
		cos, err := c.pass(qs[q0*c.D:(q0+n)*c.D], n)
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		sel, err := plan.pass(n)
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		passes, err := c.d.Run(wgpu.Call{Passes: []wgpu.Pass{cos, sel}, Reads: plan.readback(out[q0*k : (q0+n)*k]), Timer: t})
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", op, err)
		}
		all = append(all, passes...)
	}
	return timingFrom(all, start), nil
}
