package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
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
	p, err := d.Pipeline("micro_fill", wgsl.MustSource("micro_fill"), "main", wgpu.Constants{"WG": 1})
	if err != nil {
		return Overhead{}, fmt.Errorf("%s: %w", op, err)
	}
	params, err := d.CreateBuffer("overhead params", 16, wgpu.UsageUniform|wgpu.UsageCopyDst)
	if err != nil {
		return Overhead{}, fmt.Errorf("%s: %w", op, err)
	}
	defer params.Release()
	dst, err := d.CreateBuffer("overhead dst", 16, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst)
	if err != nil {
		return Overhead{}, fmt.Errorf("%s: %w", op, err)
	}
	defer dst.Release()
	bindings := []wgpu.BufferBinding{{Binding: 0, Buffer: params, Size: 16}, {Binding: 1, Buffer: dst}}
	bg, err := d.CreateBindGroup(p, 0, bindings)
	if err != nil {
		return Overhead{}, fmt.Errorf("%s: %w", op, err)
	}
	defer bg.Release()
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		if timer, err = d.NewTimer(1); err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		defer timer.Release()
	}
	pass := []wgpu.Pass{{Label: "overhead", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 1, Y: 1, Z: 1}}}}
	var up, bgt, sub, kern, rd []time.Duration
	kernelOK := timer != nil
	got := make([]float32, 4)
	for i := 0; i <= calls; i++ { // call 0 warms up
		seed := float32(i + 1)
		var blk [16]byte
		binary.LittleEndian.PutUint32(blk[:], math.Float32bits(seed))
		t0 := time.Now()
		if err := d.Write(params, 0, blk[:]); err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		t1 := time.Now()
		extra, err := d.CreateBindGroup(p, 0, bindings)
		if err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		extra.Release()
		t2 := time.Now()
		passes, err := d.Submit(pass, nil, timer)
		if err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		t3 := time.Now()
		if err := d.Read(dst, 0, wgpu.Bytes(got)); err != nil {
			return Overhead{}, fmt.Errorf("%s: %w", op, err)
		}
		t4 := time.Now()
		if got[0] != 0 || got[1] != 0 || got[2] != seed || got[3] != -seed {
			return Overhead{}, fmt.Errorf("%s: call %d wrote %v, want [0 0 %v %v]: %w", op, i, got, seed, -seed, ErrVerify)
		}
		if i == 0 {
			continue
		}
		k := time.Duration(0)
		if kernelOK && len(passes) == 1 && passes[0].Valid && passes[0].Duration <= t3.Sub(t2) {
			k = passes[0].Duration
		} else {
			kernelOK = false
		}
		up, bgt, kern, rd = append(up, t1.Sub(t0)), append(bgt, t2.Sub(t1)), append(kern, k), append(rd, t4.Sub(t3))
		sub = append(sub, t3.Sub(t2)-k)
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

func medianDur(x []time.Duration) time.Duration {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
