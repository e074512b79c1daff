package compute

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// Int8Peak is a device's integer dot-product ceiling: the fastest of
// three designs of dot4I8Packed held in registers
// (wgsl/micro_dot4i8.wgsl), the instruction the int8 kernels use: a
// chain through the dot itself (its latency), accumulators fed by dots
// off the dependency chain (its throughput), and a 4×4 register block
// whose operands are each reused by four dots, as a kernel's register
// block reuses its loaded words (where the device emulates the
// instruction, the unpacking is shared). A packed dot is 4 byte products, each
// with its accumulation counted as 2 integer ops (8 a dot), as an FMA
// counts 2 flops, so an int8 kernel's ops are judged against it as float
// kernels are against the FMA peak. Every run's sampled output words are
// checked exactly against the host's computation.
type Int8Peak struct {
	GOPs   float64 // 1e9 integer ops per second, the fastest design's
	Kernel string  // the fastest micro-kernel, e.g. "micro_dot4i8(block, DOTS=64)"
	Timed  string  // "timestamps" or "host clock", as Ceilings.Timed
	// Tried is every design measured, each verified (GBs holds its
	// 1e9 integer ops per second).
	Tried []CeilingDesign
}

// int8PeakDots is the chain length per word: 256 dependent steps per 32
// bytes moved (64 ops per byte), far past any device's ridge.
const int8PeakDots = 256

// MeasureInt8Peak measures d's Int8Peak over buffers of opts.Bytes
// (0: 16 MiB) with opts.Runs runs (the first a warm-up).
func MeasureInt8Peak(d *wgpu.Device, opts CeilingOptions) (Int8Peak, error) {
	const op = "compute: MeasureInt8Peak"
	if err := checkDevice(op, d); err != nil {
		return Int8Peak{}, err
	}
	bytes := opts.Bytes
	if bytes == 0 {
		bytes = min(16<<20, d.Limits.MaxStorageBufferBindingSize)
	}
	bytes &^= 15
	if bytes < 4096 {
		return Int8Peak{}, fmt.Errorf("%s: Bytes %d: need at least 4096", op, bytes)
	}
	runs := max(opts.Runs, 3)
	if opts.Runs == 0 {
		runs = 5
	}
	b, err := newCeilingBench(d, bytes, 256)
	if err != nil {
		return Int8Peak{}, fmt.Errorf("%s: %w", op, err)
	}
	defer b.release()
	b.stop = opts.Stop
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		if timer, err = d.NewTimer(1); err != nil {
			return Int8Peak{}, fmt.Errorf("%s: %w", op, err)
		}
		defer timer.Release()
	}
	var peak Int8Peak
	for _, ds := range dot4Designs {
		k, err := b.dot4Kernel(ds, int8PeakDots)
		if err != nil {
			return Int8Peak{}, fmt.Errorf("%s: %w", op, err)
		}
		rt, err := b.measure(k, runs, timer)
		if err != nil {
			return Int8Peak{}, fmt.Errorf("%s: %w", op, err)
		}
		t, timed := rt.host, timedHost
		if rt.kernelValid {
			t, timed = rt.kernel, timedTimestamps
		}
		gops := k.flops / t.Seconds() / 1e9
		peak.Tried = append(peak.Tried, CeilingDesign{Name: k.name, GBs: gops})
		if gops > peak.GOPs {
			peak.GOPs, peak.Kernel, peak.Timed = gops, k.name, timed
		}
	}
	return peak, nil
}

// dot4Design is one design of micro_dot4i8: its entry point, the packed
// dots a vec4 element runs per step, and the host's computation of one
// output word (lane l of element w) after steps steps.
type dot4Design struct {
	entry, name string
	acc         bool // main's ACC
	perStep     int
	host        func(w [4]uint32, l, steps int) uint32
}

// dot4Designs are the int8 peak's designs; each runs int8PeakDots dots
// per word, so all do the same work.
var dot4Designs = []dot4Design{
	{"main", "chain", false, 4, func(w [4]uint32, l, steps int) uint32 { return dot4Chain(w[l], steps) }},
	{"main", "acc", true, 4, func(w [4]uint32, l, steps int) uint32 { return dot4Acc(w[l], steps) }},
	{"main_block", "block", false, 16, dot4Block},
}

// dot4Kernel is micro_dot4i8's design ds with dots dots per word over
// the bench's src (its float bits read as packed int8) into dst.
func (b *ceilingBench) dot4Kernel(ds dot4Design, dots int) (*microKernel, error) {
	steps := dots * 4 / ds.perStep
	consts := wgpu.Constants{"DOTS": float64(steps)}
	if ds.acc {
		consts["ACC"] = 1
	}
	p, err := b.pipelineAt("micro_dot4i8", ds.entry, consts)
	if err != nil {
		return nil, err
	}
	// Every word runs a chain of dots steps: the grid only needs to fill
	// the device, a quarter of the buffer does.
	n4 := max(b.n4/4, min(b.n4, 1<<18))
	bg, err := b.bind(p, []wgpu.BufferBinding{{Binding: 0, Buffer: b.src, Size: 16 * n4}, {Binding: 1, Buffer: b.dst, Size: 16 * n4}})
	if err != nil {
		return nil, err
	}
	const blk, count = 32, 4
	starts := sampleStarts(n4, blk, count)
	name := fmt.Sprintf("micro_dot4i8(%s, DOTS=%d)", ds.name, steps)
	return &microKernel{
		name:    name,
		pass:    wgpu.Pass{Label: name, Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: b.streamGroups(n4, 2), Y: 1, Z: 1}}},
		bytes:   float64(2 * 16 * n4),
		flops:   float64(8 * uint64(ds.perStep) * uint64(steps) * n4),
		prepare: func(int) error { return b.poison(b.dst, starts, blk, n4) },
		verify: func(int) error {
			return b.readSamples(b.dst, starts, blk, n4, func(i uint64, got [4]float32) error {
				var w [4]uint32
				for l := range w {
					w[l] = math.Float32bits(b.srcHost[4*i+uint64(l)])
				}
				for l := range got {
					if g, want := math.Float32bits(got[l]), ds.host(w, l, steps); g != want {
						return fmt.Errorf("%s: element %d lane %d = %#x, want %#x: %w", name, i, l, g, want, ErrVerify)
					}
				}
				return nil
			})
		},
	}, nil
}

// dot4Chain is micro_dot4i8's chain for one word w: x ← dot4I8Packed(x, w),
// dots times from x = w, as u32 bits.
func dot4Chain(w uint32, dots int) uint32 {
	x := w
	for range dots {
		x = uint32(dot4I8(x, w))
	}
	return x
}

// dot4Acc is micro_dot4i8's main with ACC for one word w: a ← a +
// dot4I8Packed(w ^ k, w) for k = 0 … dots-1 from a = w, in wrapping
// 32-bit arithmetic, as u32 bits.
func dot4Acc(w uint32, dots int) uint32 {
	a := w
	for k := range uint32(dots) {
		a += uint32(dot4I8(w^k, w))
	}
	return a
}

// dot4Block is micro_dot4i8's main_block for lane l of element w:
// w[l] + Σ_k Σ_j dot4I8Packed(w[j] ^ k, w[l]) for k = 0 … steps-1, in
// wrapping 32-bit arithmetic.
func dot4Block(w [4]uint32, l, steps int) uint32 {
	a := w[l]
	for k := range uint32(steps) {
		for j := range w {
			a += uint32(dot4I8(w[j]^k, w[l]))
		}
	}
	return a
}

// dot4I8 is WGSL's dot4I8Packed.
func dot4I8(x, y uint32) int32 {
	var s int32
	for j := 0; j < 32; j += 8 {
		s += int32(int8(x>>j)) * int32(int8(y>>j))
	}
	return s
}
