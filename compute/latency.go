package compute

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// TinyCall is the tiny call of the anatomy as a runner: a 16-byte uniform
// write, K dispatches of one 64-invocation workgroup in one pass, and a
// 4-byte readback, in one submit with one wait (Device.Run). Every call
// writes a fresh seed and checks the value read back.
type TinyCall struct {
	d      *wgpu.Device
	pipe   *wgpu.Pipeline
	params *wgpu.Buffer
	out    *wgpu.Buffer
	bg     *wgpu.BindGroup
	ds     []wgpu.Dispatch
	got    [1]float32
	calls  uint32
}

// NewTinyCall builds the tiny call's pipeline and buffers on d.
func NewTinyCall(d *wgpu.Device) (*TinyCall, error) {
	const op = "compute: NewTinyCall"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	c := &TinyCall{d: d}
	var err error
	if c.pipe, err = d.Pipeline("latency_tiny", wgsl.MustSource("latency_tiny"), "main", nil); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if c.params, err = d.CreateBuffer("tiny params", 16, wgpu.UsageUniform|wgpu.UsageCopyDst); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if c.out, err = d.CreateBuffer("tiny out", 256, wgpu.UsageStorage|wgpu.UsageCopySrc); err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if c.bg, err = d.CreateBindGroup(c.pipe, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: c.params, Size: 16}, {Binding: 1, Buffer: c.out}}); err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// MaxTinyDispatches bounds K in TinyCall.Call.
const MaxTinyDispatches = 4096

// Call makes one tiny call with k dispatches and checks its result.
func (c *TinyCall) Call(k int) error {
	const op = "compute: TinyCall.Call"
	if c == nil || c.bg == nil {
		return fmt.Errorf("%s: %w", op, wgpu.ErrReleased)
	}
	if k < 1 || k > MaxTinyDispatches {
		return fmt.Errorf("%s: dispatches %d: must be in 1..%d", op, k, MaxTinyDispatches)
	}
	for len(c.ds) < k {
		c.ds = append(c.ds, wgpu.Dispatch{Pipeline: c.pipe, BindGroups: []*wgpu.BindGroup{c.bg}, X: 1, Y: 1, Z: 1})
	}
	c.calls++
	seed := float32(c.calls%(1<<20) + 1)
	var blk [16]byte
	binary.LittleEndian.PutUint32(blk[:], math.Float32bits(seed))
	if err := c.d.Write(c.params, 0, blk[:]); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	c.got[0] = float32(math.NaN())
	if _, err := c.d.Run(wgpu.Call{
		Passes: []wgpu.Pass{{Label: "latency_tiny", Dispatches: c.ds[:k]}},
		Reads:  []wgpu.Readback{{Src: c.out, Dst: wgpu.Bytes(c.got[:])}},
	}); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if c.got[0] != seed {
		return fmt.Errorf("%s: read back %v, want %v: %w", op, c.got[0], seed, ErrVerify)
	}
	return nil
}

// Release frees the tiny call's buffers; idempotent.
func (c *TinyCall) Release() {
	if c == nil {
		return
	}
	c.bg.Release()
	c.params.Release()
	c.out.Release()
	c.bg, c.params, c.out = nil, nil, nil
}

// LatencyOptions sets what MeasureLatency measures.
type LatencyOptions struct {
	// Rounds is how many times every point is measured, the points
	// interleaved within a round so drift hits them alike (default 10,
	// at least 3); the calls' points and the transfers' sizes run in
	// rounds of their own.
	Rounds int
	// CallsPerRound is how many calls of a point one round times
	// (default 4); transfers of 1 MiB and more time one call per round.
	CallsPerRound int
	// Dispatches are the K of the per-dispatch curve (default 1, 2, 4 … 64).
	Dispatches []int
	// MaxBytes is the largest transfer (default 64 MiB); the sizes are 4 B
	// and then powers of 16 from 64 B up to it.
	MaxBytes uint64
}

// DefaultLatencyDispatches are the K of the per-dispatch curve.
var DefaultLatencyDispatches = []int{1, 2, 4, 8, 16, 32, 64}

// DefaultLatencyMaxBytes is the largest transfer measured by default.
const DefaultLatencyMaxBytes = 64 << 20

// LatencySizes are the transfer sizes up to max: 4 B, then 64 B, 1 KiB,
// 16 KiB … (powers of 16), then max itself when it is not one of them.
func LatencySizes(max uint64) []uint64 {
	out := []uint64{4}
	for s := uint64(64); s <= max; s *= 16 {
		out = append(out, s)
	}
	if max > 4 && out[len(out)-1] != max {
		out = append(out, (max+3)&^3)
	}
	return out
}

func (o LatencyOptions) withDefaults(d *wgpu.Device) (LatencyOptions, error) {
	if o.Rounds == 0 {
		o.Rounds = 10
	}
	if o.CallsPerRound == 0 {
		o.CallsPerRound = 4
	}
	if o.Dispatches == nil {
		o.Dispatches = DefaultLatencyDispatches
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultLatencyMaxBytes
	}
	switch {
	case o.Rounds < 3 || o.Rounds > 1000:
		return o, fmt.Errorf("rounds %d: must be in 3..1000", o.Rounds)
	case o.CallsPerRound < 1 || o.CallsPerRound > 1000:
		return o, fmt.Errorf("calls per round %d: must be in 1..1000", o.CallsPerRound)
	case o.MaxBytes < 4:
		return o, fmt.Errorf("max bytes %d: must be at least 4", o.MaxBytes)
	case o.MaxBytes > d.Limits.MaxBufferSize:
		return o, fmt.Errorf("max bytes %d > maxBufferSize %d of %q: %w", o.MaxBytes, d.Limits.MaxBufferSize, d.Info.Name, wgpu.ErrLimit)
	}
	for _, k := range o.Dispatches {
		if k < 1 || k > MaxTinyDispatches {
			return o, fmt.Errorf("dispatches %d: must be in 1..%d", k, MaxTinyDispatches)
		}
	}
	return o, nil
}

// transfer is one size of the readback or upload curve: two GPU buffers
// (and host slices) holding different patterns, used alternately, so a
// stale copy never passes the check.
type transfer struct {
	n    uint64
	gpu  [2]*wgpu.Buffer
	host [2][]uint32
	dst  []uint32
}

// pattern is the word at index i of pattern p (0 or 1) for call c's salt.
func pattern(p int, i int, salt uint32) uint32 {
	return uint32(i)*2654435761 ^ salt ^ uint32(p)*0x9e3779b9
}

// sampleIdx are the words a transfer's check looks at: the first, the
// last and fourteen spread between.
func sampleIdx(words int) []int {
	out := []int{0}
	for j := 1; j <= 14; j++ {
		out = append(out, j*(words-1)/15)
	}
	return append(out, words-1)
}

// MeasureLatency measures the anatomy of a GPU call on d (timing.Anatomy).
// Every call is verified; ctx ends it early with ctx's error.
func MeasureLatency(ctx context.Context, d *wgpu.Device, o LatencyOptions) (*timing.Anatomy, error) {
	const op = "compute: MeasureLatency"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	o, err := o.withDefaults(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	tc, err := NewTinyCall(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer tc.Release()
	m := &latencyRun{d: d, o: o, tc: tc, sizes: LatencySizes(o.MaxBytes)}
	defer m.release()
	if err := m.buffers(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := m.calls(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := m.transfers(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	a, err := m.anatomy()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return a, nil
}

// latencyRun is one MeasureLatency: its tiny call, its transfer buffers
// per size and the times kept, in seconds.
type latencyRun struct {
	d      *wgpu.Device
	o      LatencyOptions
	tc     *TinyCall
	sizes  []uint64
	rb, up []*transfer
	salt   uint32

	empty, tiny []float64
	perK        [][]float64 // per o.Dispatches
	rbT, upT    [][]float64 // per size
}

func (m *latencyRun) release() {
	for _, t := range append(m.rb, m.up...) {
		t.gpu[0].Release()
		t.gpu[1].Release()
	}
}

// buffers creates, for every size, the two readback sources (filled with
// their patterns) and the two upload destinations.
func (m *latencyRun) buffers() error {
	d := m.d
	for _, n := range m.sizes {
		words := int(n / 4)
		r := &transfer{n: n, dst: make([]uint32, words)}
		u := &transfer{n: n, dst: make([]uint32, 16)}
		m.rb, m.up = append(m.rb, r), append(m.up, u) // released by release
		for p := range 2 {
			var err error
			if r.gpu[p], err = d.CreateBuffer(fmt.Sprintf("readback src %d", p), n, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
				return err
			}
			host := make([]uint32, words)
			for i := range host {
				host[i] = pattern(p, i, 0)
			}
			if err := d.Write(r.gpu[p], 0, wgpu.Bytes(host)); err != nil {
				return err
			}
			if u.gpu[p], err = d.CreateBuffer(fmt.Sprintf("upload dst %d", p), n, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
				return err
			}
			u.host[p] = make([]uint32, words)
		}
	}
	return d.Wait()
}

// calls times the empty call, the tiny call and the tiny call at every K,
// interleaved within each round (drift hits them alike); one warm-up
// round pays pipeline creation, first maps and pool growth and is not
// kept.
func (m *latencyRun) calls(ctx context.Context) error {
	m.perK = make([][]float64, len(m.o.Dispatches))
	for round := -1; round < m.o.Rounds; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		keep := round >= 0
		for range m.o.CallsPerRound {
			t0 := clock.Now()
			if _, err := m.d.Run(wgpu.Call{}); err != nil {
				return fmt.Errorf("empty call: %w", err)
			}
			t1 := clock.Now()
			if err := m.tc.Call(1); err != nil {
				return err
			}
			t2 := clock.Now()
			if keep {
				m.empty = append(m.empty, t1.Sub(t0).Seconds())
				m.tiny = append(m.tiny, t2.Sub(t1).Seconds())
			}
		}
		for i, k := range m.o.Dispatches {
			for range m.o.CallsPerRound {
				t0 := clock.Now()
				if err := m.tc.Call(k); err != nil {
					return fmt.Errorf("K=%d: %w", k, err)
				}
				if keep {
					m.perK[i] = append(m.perK[i], clock.Since(t0).Seconds())
				}
			}
		}
	}
	return nil
}

// transfers times every size's readback and upload. They run in rounds
// of their own: a large copy flushes the caches a small call's round trip
// would otherwise find warm. Transfers of 1 MiB and more time one call
// per round.
func (m *latencyRun) transfers(ctx context.Context) error {
	m.rbT, m.upT = make([][]float64, len(m.sizes)), make([][]float64, len(m.sizes))
	callsAt := func(n uint64) int {
		if n >= 1<<20 {
			return 1
		}
		return m.o.CallsPerRound
	}
	for round := -1; round < m.o.Rounds; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, r := range m.rb {
			for c := range callsAt(r.n) {
				dt, err := m.readback(r, (round+c)&1)
				if err != nil {
					return fmt.Errorf("readback of %d B: %w", r.n, err)
				}
				if round >= 0 {
					m.rbT[i] = append(m.rbT[i], dt)
				}
			}
		}
		for i, u := range m.up {
			for c := range callsAt(u.n) {
				dt, err := m.upload(u, (round+c)&1)
				if err != nil {
					return fmt.Errorf("upload of %d B: %w", u.n, err)
				}
				if round >= 0 {
					m.upT[i] = append(m.upT[i], dt)
				}
			}
		}
	}
	return nil
}

// readback times one readback of r's source p into its poisoned host
// slice and checks the sampled words (outside the clock).
func (m *latencyRun) readback(r *transfer, p int) (float64, error) {
	idx := sampleIdx(len(r.dst))
	for _, j := range idx {
		r.dst[j] = ^pattern(p, j, 0)
	}
	t0 := clock.Now()
	if _, err := m.d.Run(wgpu.Call{Reads: []wgpu.Readback{{Src: r.gpu[p], Dst: wgpu.Bytes(r.dst)}}}); err != nil {
		return 0, err
	}
	dt := clock.Since(t0)
	for _, j := range idx {
		if want := pattern(p, j, 0); r.dst[j] != want {
			return 0, fmt.Errorf("word %d = %#x, want %#x: %w", j, r.dst[j], want, ErrVerify)
		}
	}
	return dt.Seconds(), nil
}

// upload times one upload of a freshly salted pattern to u's destination
// p (write, then an empty call's submit and wait) and checks the sampled
// words landed (outside the clock).
func (m *latencyRun) upload(u *transfer, p int) (float64, error) {
	m.salt++
	salt, host := m.salt, u.host[p]
	idx := sampleIdx(len(host))
	for _, j := range idx {
		host[j] = pattern(p, j, salt)
	}
	t0 := clock.Now()
	if err := m.d.Write(u.gpu[p], 0, wgpu.Bytes(host)); err != nil {
		return 0, err
	}
	if _, err := m.d.Run(wgpu.Call{}); err != nil {
		return 0, err
	}
	dt := clock.Since(t0)
	reads := make([]wgpu.Readback, len(idx))
	for k, j := range idx {
		u.dst[k] = 0
		reads[k] = wgpu.Readback{Src: u.gpu[p], Offset: 4 * uint64(j), Dst: wgpu.Bytes(u.dst[k : k+1])}
	}
	if _, err := m.d.Run(wgpu.Call{Reads: reads}); err != nil {
		return 0, fmt.Errorf("check: %w", err)
	}
	for k, j := range idx {
		if want := pattern(p, j, salt); u.dst[k] != want {
			return 0, fmt.Errorf("word %d = %#x, want %#x: %w", j, u.dst[k], want, ErrVerify)
		}
	}
	return dt.Seconds(), nil
}

// anatomy summarizes the times kept: each point's median with its CI,
// the fit over K and the transfer curves with their fits.
func (m *latencyRun) anatomy() (*timing.Anatomy, error) {
	a := &timing.Anatomy{Adapter: m.d.Info.Name}
	sum := func(what string, x []float64) (timing.Summary, error) {
		s, err := timing.SummarizeErr(x)
		if err != nil {
			return s, fmt.Errorf("%s: %w", what, err)
		}
		a.Calls += s.N
		return s, nil
	}
	var err error
	if a.Empty, err = sum("empty call", m.empty); err != nil {
		return nil, err
	}
	if a.Tiny, err = sum("tiny call", m.tiny); err != nil {
		return nil, err
	}
	var ks, kt []float64
	for i, k := range m.o.Dispatches {
		s, err := sum(fmt.Sprintf("K=%d", k), m.perK[i])
		if err != nil {
			return nil, err
		}
		a.Dispatches = append(a.Dispatches, timing.DispatchPoint{K: k, Call: s})
		ks, kt = append(ks, float64(k)), append(kt, s.Median)
	}
	a.DispatchFit, _ = timing.FitLinear(ks, kt) // fewer than 3 distinct K: no fit
	curve := func(what string, t [][]float64) ([]timing.TransferPoint, timing.LinearFit, error) {
		var pts []timing.TransferPoint
		var bs, ts []float64
		for i, n := range m.sizes {
			s, err := sum(fmt.Sprintf("%s of %d B", what, n), t[i])
			if err != nil {
				return nil, timing.LinearFit{}, err
			}
			pts = append(pts, timing.TransferPoint{Bytes: n, Time: s, GBps: gbps(n, s.Median), GBpsLo: gbps(n, s.Hi), GBpsHi: gbps(n, s.Lo)})
			bs, ts = append(bs, float64(n)), append(ts, s.Median)
		}
		fit, _ := timing.FitLinear(bs, ts)
		return pts, fit, nil
	}
	if a.Readback, a.ReadbackFit, err = curve("readback", m.rbT); err != nil {
		return nil, err
	}
	if a.Upload, a.UploadFit, err = curve("upload", m.upT); err != nil {
		return nil, err
	}
	return a, nil
}

func gbps(n uint64, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return float64(n) / sec / 1e9
}
