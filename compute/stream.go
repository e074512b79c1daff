package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/stream"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// StreamOptions configures RunStream.
type StreamOptions struct {
	// ArraySize is the number of elements of each of the three arrays
	// (0: stream.DefaultArraySize).
	ArraySize int
	// NumTimes is how often the Classic order runs (0: 100; at least 2).
	NumTimes int
	// F64 runs in float64 (needs the adapter's shader-f64 feature;
	// ErrNoF64 otherwise), else float32.
	F64 bool
	// Workgroup is the threads per workgroup (a power of two; 0: 256).
	Workgroup int
	// MaxBinding, when positive and below the device's
	// maxStorageBufferBindingSize, caps the bytes of one binding, so that
	// the split of a large array into parts can be exercised on any size.
	MaxBinding uint64
}

// ErrNoF64 reports that the adapter cannot run float64 shaders.
var ErrNoF64 = fmt.Errorf("float64 needs the shader-f64 feature: %w", ErrUnsupported)

// StreamResult is what RunStream measured, by stream.Kernels: every
// run's time (Times[k][0] is the warm-up run) and the host-clock time
// around the same submission (HostTimes), both after the final arrays
// passed BabelStream's check.
type StreamResult struct {
	ArraySize, NumTimes int
	Sizeof              int    // bytes per element, 4 or 8
	Timed               string // "timestamps" or "host clock": what Times are
	Times               [][]time.Duration
	HostTimes           [][]time.Duration
	// Parts is the number of bindings each array was split into (1 when
	// it fits in one): each kernel is one pass of Parts dispatches.
	Parts     int
	Workgroup int
	Sum       float64 // the last Dot
}

// streamDotIters bounds the elements one invocation of dot adds before
// the workgroup reduction: enough workgroups that none runs a long loop
// (llvmpipe's loop budget), few enough partials to read back.
const streamDotIters = 64

// RunStream runs BabelStream's five Classic kernels (wgsl/stream_babel)
// on d: the arrays start at 0.1, 0.2, 0.0; the Classic order runs
// NumTimes times; each kernel call is one pass in its own submission,
// timed by timestamps where the device has them (else the host clock),
// with the host clock around submit-and-wait recorded beside it; Dot also
// reads the workgroups' partial sums back and adds them on the host, in
// its host time as in BabelStream's GPU ports. An array larger than one
// binding may hold is bound in parts, each part one dispatch of the same
// pass. The final arrays and sum are read back and checked as BabelStream
// checks them; a failed check is an error wrapping ErrVerify.
func RunStream(d *wgpu.Device, o StreamOptions) (StreamResult, error) {
	const op = "compute: RunStream"
	if err := checkDevice(op, d); err != nil {
		return StreamResult{}, err
	}
	p, err := planStream(d, &o)
	if err != nil {
		return StreamResult{}, fmt.Errorf("%s: %w", op, err)
	}
	s := &streamRun{d: d, plan: p}
	defer s.release()
	if err := s.allocate(); err != nil {
		return StreamResult{}, fmt.Errorf("%s: %w", op, err)
	}
	passes, err := s.buildPasses()
	if err != nil {
		return StreamResult{}, fmt.Errorf("%s: %w", op, err)
	}
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		if timer, err = d.NewTimer(1); err != nil {
			return StreamResult{}, fmt.Errorf("%s: %w", op, err)
		}
		defer timer.Release()
	}
	res, err := s.time(o, passes, timer)
	if err != nil {
		return StreamResult{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkStream(d, s.arrays, p.n, p.sizeof, o.NumTimes, res.Sum); err != nil {
		return StreamResult{}, fmt.Errorf("%s: %w", op, err)
	}
	return res, nil
}

// streamPlan is the shape of one RunStream: element type, array length,
// workgroup size and the split of each array into parts (element ranges)
// that each fit one binding.
type streamPlan struct {
	sizeof       int
	shader       string
	n            uint64 // elements per array
	wg           int
	align        uint64 // storage offset alignment, bytes
	maxGroups    uint64
	parts        [][2]uint64 // element ranges
	partialOff   []uint64    // each part's dot partial sums, aligned
	partialBytes uint64
}

// streamKernels are the Classic kernels in order with the bindings each
// uses (0 a, 1 b, 2 c, 3 partial sums); dot is last.
var streamKernels = []struct {
	entry string
	uses  []int
}{{"copy", []int{0, 2}}, {"mul", []int{1, 2}}, {"add", []int{0, 1, 2}}, {"triad", []int{0, 1, 2}}, {"dot", []int{0, 1, 3}}}

// planStream fills o's defaults and checks it against d's limits and
// loop budget before anything is allocated.
func planStream(d *wgpu.Device, o *StreamOptions) (streamPlan, error) {
	if o.ArraySize == 0 {
		o.ArraySize = stream.DefaultArraySize
	}
	if o.NumTimes == 0 {
		o.NumTimes = stream.DefaultNumTimes
	}
	if err := (stream.Opts{ArraySize: o.ArraySize, NumTimes: o.NumTimes}).Validate(); err != nil {
		return streamPlan{}, err
	}
	if o.F64 && !d.HasFeature(wgpu.FeatureShaderF64) {
		return streamPlan{}, fmt.Errorf("%w (%s)", ErrNoF64, d.Info.Name)
	}
	if o.Workgroup == 0 {
		o.Workgroup = 256
	}
	wg, err := validWorkgroup(d, o.Workgroup)
	if err != nil {
		return streamPlan{}, err
	}
	p := streamPlan{sizeof: 4, shader: "stream_babel_f32", n: uint64(o.ArraySize), wg: wg,
		align: uint64(max(d.Limits.MinStorageBufferOffsetAlignment, 4)), maxGroups: uint64(d.Limits.MaxComputeWorkgroupsPerDimension)}
	if o.F64 {
		p.sizeof, p.shader = 8, "stream_babel_f64"
	}
	if total := p.arrayBytes(); total > d.Limits.MaxBufferSize {
		return streamPlan{}, fmt.Errorf("--arraysize %d: %d bytes per array > maxBufferSize %d: %w", o.ArraySize, total, d.Limits.MaxBufferSize, wgpu.ErrLimit)
	}
	maxBind := d.Limits.MaxStorageBufferBindingSize
	if o.MaxBinding > 0 {
		maxBind = min(maxBind, o.MaxBinding)
	}
	// Part size: whole alignment units, so every part's offset is aligned.
	partBytes := maxBind / p.align * p.align
	if partBytes == 0 {
		return streamPlan{}, fmt.Errorf("maxStorageBufferBindingSize %d below the offset alignment %d: %w", maxBind, p.align, wgpu.ErrLimit)
	}
	partElems := partBytes / uint64(p.sizeof)
	for lo := uint64(0); lo < p.n; lo += partElems {
		p.parts = append(p.parts, [2]uint64{lo, min(lo+partElems, p.n)})
	}
	if err := p.checkLoopBudget(d); err != nil {
		return streamPlan{}, err
	}
	// Each part's partial sums start on an aligned offset.
	p.partialOff = make([]uint64, len(p.parts))
	for i, pr := range p.parts {
		p.partialOff[i] = p.partialBytes
		p.partialBytes += (p.dotGroups(pr[1]-pr[0])*uint64(p.sizeof) + p.align - 1) / p.align * p.align
	}
	return p, nil
}

// arrayBytes is the size of one array.
func (p *streamPlan) arrayBytes() uint64 { return p.n * uint64(p.sizeof) }

// streamGroups is the workgroups of a streaming kernel over m elements.
func (p *streamPlan) streamGroups(m uint64) uint32 {
	return uint32(max(1, min((m+uint64(p.wg)-1)/uint64(p.wg), p.maxGroups)))
}

// dotGroups is the workgroups (and partial sums) of dot over m elements.
func (p *streamPlan) dotGroups(m uint64) uint64 {
	per := uint64(p.wg) * streamDotIters
	return max(1, min((m+per-1)/per, p.maxGroups))
}

// checkLoopBudget checks the longest loop one invocation runs in any part.
func (p *streamPlan) checkLoopBudget(d *wgpu.Device) error {
	wg := uint64(p.wg)
	for _, pr := range p.parts {
		m := pr[1] - pr[0]
		sg := uint64(p.streamGroups(m))
		iters := max((m+sg*wg-1)/(sg*wg), (m+p.dotGroups(m)*wg-1)/(p.dotGroups(m)*wg)) + 1 + uint64(bits.Len(uint(p.wg))) + 1
		if err := wgpu.CheckLoopBudget(d, iters, "stream"); err != nil {
			return err
		}
	}
	return nil
}

// streamRun holds one RunStream's GPU objects; release frees them all.
type streamRun struct {
	d       *wgpu.Device
	plan    streamPlan
	arrays  []*wgpu.Buffer // a, b, c
	partial *wgpu.Buffer
	bufs    []*wgpu.Buffer
	groups  []*wgpu.BindGroup
}

func (s *streamRun) release() {
	releaseAll(s.groups)
	for _, b := range s.bufs {
		b.Release()
	}
}

func (s *streamRun) newBuf(label string, size uint64) (*wgpu.Buffer, error) {
	b, err := s.d.CreateBuffer(label, size, wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc)
	if err == nil {
		s.bufs = append(s.bufs, b)
	}
	return b, err
}

// allocate creates the three arrays at their start values and the
// partial-sum buffer.
func (s *streamRun) allocate() error {
	p := &s.plan
	s.arrays = make([]*wgpu.Buffer, 3)
	var err error
	for i, name := range []string{"stream a", "stream b", "stream c"} {
		if s.arrays[i], err = s.newBuf(name, p.arrayBytes()); err != nil {
			return err
		}
	}
	if s.partial, err = s.newBuf("stream partial sums", p.partialBytes); err != nil {
		return err
	}
	// Start values, written in chunks.
	for i, v := range []float64{stream.StartA, stream.StartB, stream.StartC} {
		if err := writeConst(s.d, s.arrays[i], p.n, p.sizeof, v); err != nil {
			return err
		}
	}
	return nil
}

// buildPasses makes one pass per kernel, one dispatch per part.
func (s *streamRun) buildPasses() ([]wgpu.Pass, error) {
	p := &s.plan
	sz := uint64(p.sizeof)
	passes := make([]wgpu.Pass, len(streamKernels))
	for k, e := range streamKernels {
		pipe, err := s.d.Pipeline(p.shader, wgsl.MustSource(p.shader), e.entry, wgpu.Constants{"WG": float64(p.wg)})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.entry, err)
		}
		passes[k].Label = "stream " + e.entry
		for i, pr := range p.parts {
			m := pr[1] - pr[0]
			var bb []wgpu.BufferBinding
			for _, u := range e.uses {
				if u == 3 {
					bb = append(bb, wgpu.BufferBinding{Binding: 3, Buffer: s.partial, Offset: p.partialOff[i], Size: p.dotGroups(m) * sz})
				} else {
					bb = append(bb, wgpu.BufferBinding{Binding: uint32(u), Buffer: s.arrays[u], Offset: pr[0] * sz, Size: m * sz})
				}
			}
			bg, err := s.d.CreateBindGroup(pipe, 0, bb)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.entry, err)
			}
			s.groups = append(s.groups, bg)
			x := p.streamGroups(m)
			if e.entry == "dot" {
				x = uint32(p.dotGroups(m))
			}
			passes[k].Dispatches = append(passes[k].Dispatches, wgpu.Dispatch{Pipeline: pipe, BindGroups: []*wgpu.BindGroup{bg}, X: x, Y: 1, Z: 1})
		}
	}
	return passes, nil
}

// time runs the Classic order o.NumTimes times, each kernel in its own
// submission; Times falls back to the host clock when any timestamp is
// missing or implausible.
func (s *streamRun) time(o StreamOptions, passes []wgpu.Pass, timer *wgpu.Timer) (StreamResult, error) {
	p := &s.plan
	nk := len(streamKernels)
	res := StreamResult{ArraySize: o.ArraySize, NumTimes: o.NumTimes, Sizeof: p.sizeof, Parts: len(p.parts), Workgroup: p.wg,
		Times: make([][]time.Duration, nk), HostTimes: make([][]time.Duration, nk)}
	kernelValid := timer != nil
	partialHost := make([]byte, p.partialBytes)
	for r := 0; r < o.NumTimes; r++ {
		for k := range streamKernels {
			start := clock.Now()
			// Dot's partial sums are read back in the call that computes them.
			var reads []wgpu.Readback
			if k == nk-1 {
				reads = []wgpu.Readback{{Src: s.partial, Dst: partialHost}}
			}
			pt, err := s.d.Run(wgpu.Call{Passes: passes[k : k+1], Reads: reads, Timer: timer})
			if err != nil {
				return StreamResult{}, fmt.Errorf("%s run %d: %w", streamKernels[k].entry, r, err)
			}
			if k == nk-1 {
				res.Sum = sumPartials(partialHost, p.parts, p.partialOff, p.dotGroups, p.sizeof)
			}
			host := clock.Since(start)
			res.HostTimes[k] = append(res.HostTimes[k], host)
			kt := time.Duration(0)
			if timer != nil && len(pt) == 1 && pt[0].Valid && pt[0].Duration > 0 && pt[0].Duration <= host {
				kt = pt[0].Duration
			} else {
				kernelValid = false
			}
			res.Times[k] = append(res.Times[k], kt)
		}
	}
	res.Timed = timedTimestamps
	if !kernelValid {
		res.Timed = timedHost
		res.Times = res.HostTimes
	}
	return res, nil
}

// streamChunk is the bytes written or read back per transfer when the
// arrays are set up and checked.
const streamChunk = 16 << 20

// writeConst sets the n elements of buf to v (in the element type).
func writeConst(d *wgpu.Device, buf *wgpu.Buffer, n uint64, sizeof int, v float64) error {
	per := uint64(streamChunk / sizeof)
	var chunk []byte
	if sizeof == 8 {
		x := make([]float64, min(per, n))
		for i := range x {
			x[i] = v
		}
		chunk = wgpu.Bytes(x)
	} else {
		x := make([]float32, min(per, n))
		for i := range x {
			x[i] = float32(v)
		}
		chunk = wgpu.Bytes(x)
	}
	for lo := uint64(0); lo < n; lo += per {
		m := min(per, n-lo)
		if err := d.Write(buf, lo*uint64(sizeof), chunk[:m*uint64(sizeof)]); err != nil {
			return err
		}
	}
	return nil
}

// sumPartials adds the dot partial sums of every part in float64.
func sumPartials(raw []byte, parts [][2]uint64, off []uint64, groups func(uint64) uint64, sizeof int) float64 {
	var s float64
	for i, p := range parts {
		g := groups(p[1] - p[0])
		b := raw[off[i] : off[i]+g*uint64(sizeof)]
		for j := 0; j < len(b); j += sizeof {
			if sizeof == 8 {
				s += math.Float64frombits(binary.LittleEndian.Uint64(b[j:]))
			} else {
				s += float64(math.Float32frombits(binary.LittleEndian.Uint32(b[j:])))
			}
		}
	}
	return s
}

// checkStream reads a, b and c back and checks them and sum with
// stream.Check in the element type.
func checkStream(d *wgpu.Device, arrays []*wgpu.Buffer, n uint64, sizeof, numTimes int, sum float64) error {
	read := func(buf *wgpu.Buffer, dst []byte) error {
		for lo := uint64(0); lo < uint64(len(dst)); lo += streamChunk {
			hi := min(lo+streamChunk, uint64(len(dst)))
			if err := d.Read(buf, lo, dst[lo:hi]); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if sizeof == 8 {
		h := [3][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
		for i := range h {
			if err := read(arrays[i], wgpu.Bytes(h[i])); err != nil {
				return err
			}
		}
		err = stream.Check(numTimes, h[0], h[1], h[2], sum)
	} else {
		h := [3][]float32{make([]float32, n), make([]float32, n), make([]float32, n)}
		for i := range h {
			if err := read(arrays[i], wgpu.Bytes(h[i])); err != nil {
				return err
			}
		}
		err = stream.Check(numTimes, h[0], h[1], h[2], float32(sum))
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVerify, err)
	}
	return nil
}
