package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// Overhead is what a runner pays per call outside its kernel on this
// device, each the median over the calls measured: the pieces a runner's
// end-to-end time adds to its kernel time.
type Overhead struct {
	// Upload is one small queue write (a 16-byte uniform block).
	Upload time.Duration
	// BindGroup is creating (and releasing) one bind group of two
	// bindings; runners create theirs once, not per call.
	BindGroup time.Duration
	// Submit is recording, submitting and waiting for one pass of one
	// workgroup, less its kernel time (the whole host time where the
	// device has no timestamps).
	Submit time.Duration
	// Kernel is that workgroup's kernel time from timestamps (0 without).
	Kernel time.Duration
	// Readback is reading 16 bytes back to the host.
	Readback time.Duration
	Calls    int
}

// MeasureOverhead measures Overhead over calls calls (at least 10) of a
// one-workgroup fill kernel whose output is checked after every call.
func MeasureOverhead(d *wgpu.Device, calls int) (Overhead, error) {
	const op = "compute: MeasureOverhead"
	if err := checkDevice(op, d); err != nil {
		return Overhead{}, err
	}
	calls = max(calls, 10)
	b, err := newOverheadBench(d)
	if err != nil {
		return Overhead{}, fmt.Errorf("%s: %w", op, err)
	}
	defer b.release()
	var up, bgt, sub, kern, rd []time.Duration
	kernelOK := b.timer != nil
	for i := 0; i <= calls; i++ { // call 0 warms up
		t, passes, err := b.call(i)
		if err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		if i == 0 {
			continue
		}
		k := time.Duration(0)
		if kernelOK && len(passes) == 1 && passes[0].Valid && passes[0].Duration <= t[3].Sub(t[2]) {
			k = passes[0].Duration
		} else {
			kernelOK = false
		}
		up, bgt, kern, rd = append(up, t[1].Sub(t[0])), append(bgt, t[2].Sub(t[1])), append(kern, k), append(rd, t[4].Sub(t[3]))
		sub = append(sub, t[3].Sub(t[2])-k)
	}
	o := Overhead{Upload: medianDur(up), BindGroup: medianDur(bgt), Submit: medianDur(sub), Readback: medianDur(rd), Calls: calls}
	if kernelOK {
		o.Kernel = medianDur(kern)
	} else {
		// Without trustworthy timestamps the submit figure is host time.
		o.Submit = medianDur(func() []time.Duration {
			out := make([]time.Duration, len(sub))
			for i := range sub {
				out[i] = sub[i] + kern[i]
			}
			return out
		}())
	}
	return o, nil
}

// overheadBench is MeasureOverhead's one-invocation fill kernel with its
// buffers, bind group and (where the device has timestamps) timer.
type overheadBench struct {
	d           *wgpu.Device
	p           *wgpu.Pipeline
	params, dst *wgpu.Buffer
	bindings    []wgpu.BufferBinding
	bg          *wgpu.BindGroup
	timer       *wgpu.Timer
	pass        []wgpu.Pass
	got         []float32
}

func newOverheadBench(d *wgpu.Device) (*overheadBench, error) {
	b := &overheadBench{d: d, got: make([]float32, 4)}
	var err error
	if b.p, err = d.Pipeline("micro_fill", wgsl.MustSource("micro_fill"), "main", wgpu.Constants{"WG": 1}); err != nil {
		return nil, err
	}
	if b.params, err = d.CreateBuffer("overhead params", 16, wgpu.UsageUniform|wgpu.UsageCopyDst); err != nil {
		return nil, err
	}
	if b.dst, err = d.CreateBuffer("overhead dst", 16, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		b.release()
		return nil, err
	}
	b.bindings = []wgpu.BufferBinding{{Binding: 0, Buffer: b.params, Size: 16}, {Binding: 1, Buffer: b.dst}}
	if b.bg, err = d.CreateBindGroup(b.p, 0, b.bindings); err != nil {
		b.release()
		return nil, err
	}
	if d.HasTimestamps() {
		if b.timer, err = d.NewTimer(1); err != nil {
			b.release()
			return nil, err
		}
	}
	b.pass = []wgpu.Pass{{Label: "overhead", Dispatches: []wgpu.Dispatch{{Pipeline: b.p, BindGroups: []*wgpu.BindGroup{b.bg}, X: 1, Y: 1, Z: 1}}}}
	return b, nil
}

func (b *overheadBench) release() {
	b.timer.Release()
	b.bg.Release()
	b.dst.Release()
	b.params.Release()
}

// call runs call i: upload its seed, create (and drop) a bind group,
// submit and wait, read back and check. t holds the host clock before
// and after each step.
func (b *overheadBench) call(i int) (t [5]time.Time, passes []wgpu.PassTime, err error) {
	d := b.d
	seed := float32(i + 1)
	var blk [16]byte
	binary.LittleEndian.PutUint32(blk[:], math.Float32bits(seed))
	t[0] = clock.Now()
	if err := d.Write(b.params, 0, blk[:]); err != nil {
		return t, nil, err
	}
	t[1] = clock.Now()
	extra, err := d.CreateBindGroup(b.p, 0, b.bindings)
	if err != nil {
		return t, nil, err
	}
	extra.Release()
	t[2] = clock.Now()
	if passes, err = d.Submit(b.pass, nil, b.timer); err != nil {
		return t, nil, err
	}
	t[3] = clock.Now()
	if err := d.Read(b.dst, 0, wgpu.Bytes(b.got)); err != nil {
		return t, nil, err
	}
	t[4] = clock.Now()
	if got := b.got; got[0] != 0 || got[1] != 0 || got[2] != seed || got[3] != -seed {
		return t, nil, fmt.Errorf("call %d wrote %v, want [0 0 %v %v]: %w", i, got, seed, -seed, ErrVerify)
	}
	return t, passes, nil
}

func medianDur(x []time.Duration) time.Duration {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
