package compute

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// Int8Peak is a device's integer dot-product ceiling: the rate of chains
// of dot4I8Packed held in registers (wgsl/micro_dot4i8.wgsl), the
// instruction the int8 kernels use. A packed dot is 4 byte products, each
// with its accumulation counted as 2 integer ops (8 a dot), as an FMA
// counts 2 flops, so an int8 kernel's ops are judged against it as float
// kernels are against the FMA peak. Every run's sampled output words are
// checked exactly against the host's chain.
type Int8Peak struct {
	GOPs   float64 // 1e9 integer ops per second
	Kernel string  // the micro-kernel, e.g. "micro_dot4i8(DOTS=256)"
	Timed  string  // "timestamps" or "host clock", as Ceilings.Timed
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
	k, err := b.dot4Kernel(int8PeakDots)
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
	return Int8Peak{GOPs: k.flops / t.Seconds() / 1e9, Kernel: k.name, Timed: timed}, nil
}

// dot4Kernel is micro_dot4i8 with dots steps per word over the bench's
// src (its float bits read as packed int8) into dst.
func (b *ceilingBench) dot4Kernel(dots int) (*microKernel, error) {
	p, err := b.pipeline("micro_dot4i8", wgpu.Constants{"DOTS": float64(dots)})
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
	name := fmt.Sprintf("micro_dot4i8(DOTS=%d)", dots)
	return &microKernel{
		name:    name,
		pass:    wgpu.Pass{Label: name, Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: b.streamGroups(n4, 2), Y: 1, Z: 1}}},
		bytes:   float64(2 * 16 * n4),
		flops:   float64(8 * 4 * uint64(dots) * n4),
		prepare: func(int) error { return b.poison(b.dst, starts, blk, n4) },
		verify: func(int) error {
			return b.readSamples(b.dst, starts, blk, n4, func(i uint64, got [4]float32) error {
				for l := range got {
					w := math.Float32bits(b.srcHost[4*i+uint64(l)])
					if g, want := math.Float32bits(got[l]), dot4Chain(w, dots); g != want {
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
		var s int32
		for k := 0; k < 32; k += 8 {
			s += int32(int8(x>>k)) * int32(int8(w>>k))
		}
		x = uint32(s)
	}
	return x
}
