package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// Dispatch is one compute dispatch: a pipeline, its bind groups (index =
// group number) and the workgroup counts.
type Dispatch struct {
	Pipeline   *Pipeline
	BindGroups []*BindGroup
	X, Y, Z    uint32
}

// Pass is one compute pass: its dispatches run in order (WebGPU makes
// storage writes of one dispatch visible to the next). With a Timer, each
// pass is timed by timestamp writes at its beginning and end; one pass per
// measured kernel, so nothing is reordered across the timestamps.
type Pass struct {
	Label      string
	Dispatches []Dispatch
}

// Copy is a buffer-to-buffer copy recorded after the passes.
type Copy struct {
	Src       *Buffer
	SrcOffset uint64
	Dst       *Buffer
	DstOffset uint64
	Size      uint64
}

// PassTime is the GPU time of one pass from timestamp queries.
type PassTime struct {
	Duration   time.Duration
	Begin, End uint64 // raw ticks
	// Valid is false when the ticks cannot be right (zero, or end before
	// begin): callers must fall back to the host clock.
	Valid bool
}

// Timer owns the query set and buffers for timing up to MaxPasses passes
// per submission; reuse it across runs (no allocation per run).
type Timer struct {
	d         *Device
	qs        C.WGPUQuerySet
	resolve   *Buffer
	MaxPasses int
}

// NewTimer creates a timer for up to maxPasses passes. It fails with
// ErrNoTimestamps when the device has no timestamp queries.
func (d *Device) NewTimer(maxPasses int) (*Timer, error) {
	if err := d.check("NewTimer"); err != nil {
		return nil, err
	}
	if !d.timestamps {
		return nil, fmt.Errorf("wgpu: NewTimer: %w on %q", ErrNoTimestamps, d.Info.Name)
	}
	if maxPasses <= 0 || maxPasses > 2048 {
		return nil, fmt.Errorf("wgpu: NewTimer: maxPasses %d out of range 1..2048", maxPasses)
	}
	t := &Timer{d: d, MaxPasses: maxPasses}
	err := d.scoped("CreateQuerySet", func() {
		var desc C.WGPUQuerySetDescriptor
		desc._type = C.WGPUQueryType_Timestamp
		desc.count = C.uint32_t(2 * maxPasses)
		t.qs = C.wgpuDeviceCreateQuerySet(d.c, &desc)
	})
	if err != nil {
		if t.qs != nil {
			C.wgpuQuerySetRelease(t.qs)
		}
		return nil, err
	}
	t.resolve, err = d.CreateBuffer("timestamps", uint64(16*maxPasses), UsageQueryResolve|UsageCopySrc)
	if err != nil {
		t.Release()
		return nil, err
	}
	return t, nil
}

// Release frees the timer; idempotent.
func (t *Timer) Release() {
	if t == nil {
		return
	}
	if t.qs != nil {
		C.wgpuQuerySetRelease(t.qs)
		t.qs = nil
	}
	t.resolve.Release()
	t.resolve = nil
}

// Submit records the passes (and then the copies) in one command buffer,
// submits it and waits for completion. With a timer it returns each pass's
// GPU time; the query set is resolved in a separate submission after the
// work (resolving in the same encoder has returned zeros on Vulkan).
func (d *Device) Submit(passes []Pass, copies []Copy, t *Timer) ([]PassTime, error) {
	if err := d.check("Submit"); err != nil {
		return nil, err
	}
	if t != nil && len(passes) > t.MaxPasses {
		return nil, fmt.Errorf("wgpu: Submit: %d passes > timer capacity %d", len(passes), t.MaxPasses)
	}
	if t != nil && t.qs == nil {
		return nil, fmt.Errorf("wgpu: Submit: timer: %w", ErrReleased)
	}
	for i, p := range passes {
		for j, ds := range p.Dispatches {
			if ds.Pipeline == nil || ds.Pipeline.c == nil {
				return nil, fmt.Errorf("wgpu: Submit: pass %d (%s) dispatch %d: pipeline %w", i, p.Label, j, ErrReleased)
			}
			max := d.Limits.MaxComputeWorkgroupsPerDimension
			if ds.X == 0 || ds.Y == 0 || ds.Z == 0 || ds.X > max || ds.Y > max || ds.Z > max {
				return nil, fmt.Errorf("wgpu: Submit: pass %d (%s): workgroup counts (%d,%d,%d) must be in 1..%d: %w", i, p.Label, ds.X, ds.Y, ds.Z, max, ErrLimit)
			}
			for g, bg := range ds.BindGroups {
				if bg == nil || bg.c == nil {
					return nil, fmt.Errorf("wgpu: Submit: pass %d (%s): bind group %d %w", i, p.Label, g, ErrReleased)
				}
			}
		}
	}
	for i, c := range copies {
		if c.Src == nil || c.Dst == nil || c.Src.c == nil || c.Dst.c == nil {
			return nil, fmt.Errorf("wgpu: Submit: copy %d: %w", i, ErrReleased)
		}
	}
	var tw *C.WGPUPassTimestampWrites
	if t != nil {
		tw = (*C.WGPUPassTimestampWrites)(C.calloc(1, C.size_t(unsafe.Sizeof(C.WGPUPassTimestampWrites{}))))
		defer C.free(unsafe.Pointer(tw))
	}
	enc := C.wgpuDeviceCreateCommandEncoder(d.c, nil)
	for i, p := range passes {
		var desc C.WGPUComputePassDescriptor
		if tw != nil {
			tw.querySet = t.qs
			tw.beginningOfPassWriteIndex = C.uint32_t(2 * i)
			tw.endOfPassWriteIndex = C.uint32_t(2*i + 1)
			desc.timestampWrites = tw
		}
		pe := C.wgpuCommandEncoderBeginComputePass(enc, &desc)
		for _, ds := range p.Dispatches {
			C.wgpuComputePassEncoderSetPipeline(pe, ds.Pipeline.c)
			for g, bg := range ds.BindGroups {
				C.wgpuComputePassEncoderSetBindGroup(pe, C.uint32_t(g), bg.c, 0, nil)
			}
			C.wgpuComputePassEncoderDispatchWorkgroups(pe, C.uint32_t(ds.X), C.uint32_t(ds.Y), C.uint32_t(ds.Z))
		}
		C.wgpuComputePassEncoderEnd(pe)
		C.wgpuComputePassEncoderRelease(pe)
	}
	for _, c := range copies {
		C.wgpuCommandEncoderCopyBufferToBuffer(enc, c.Src.c, C.uint64_t(c.SrcOffset), c.Dst.c, C.uint64_t(c.DstOffset), C.uint64_t(c.Size))
	}
	cmd := C.wgpuCommandEncoderFinish(enc, nil)
	C.wgpuCommandEncoderRelease(enc)
	if cmd == nil {
		if err := d.check("Submit"); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("wgpu: Submit: command encoding failed")
	}
	C.wgpuQueueSubmit(d.queue, 1, &cmd)
	C.wgpuCommandBufferRelease(cmd)
	if t == nil || len(passes) == 0 {
		if err := d.Wait(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	n := 2 * len(passes)
	enc = C.wgpuDeviceCreateCommandEncoder(d.c, nil)
	C.wgpuCommandEncoderResolveQuerySet(enc, t.qs, 0, C.uint32_t(n), t.resolve.c, 0)
	cmd = C.wgpuCommandEncoderFinish(enc, nil)
	C.wgpuCommandEncoderRelease(enc)
	C.wgpuQueueSubmit(d.queue, 1, &cmd)
	C.wgpuCommandBufferRelease(cmd)
	ticks := make([]uint64, n)
	if err := d.Read(t.resolve, 0, Bytes(ticks)); err != nil {
		return nil, err
	}
	return passTimes(ticks, d.timestampPeriod), nil
}

// passTimes turns resolved (begin, end) tick pairs into pass times. A pair
// is valid only when begin is not zero (never written) and end is after
// begin: equal, backward or wrapped ticks (end < begin as unsigned
// numbers) and a difference too large for a time.Duration give Valid
// false, so the caller falls back to the host clock
// (TestPassTimesRefusesBadTicks).
func passTimes(ticks []uint64, periodNS float64) []PassTime {
	out := make([]PassTime, len(ticks)/2)
	for i := range out {
		b, e := ticks[2*i], ticks[2*i+1]
		pt := PassTime{Begin: b, End: e}
		if ns := float64(e-b) * periodNS; b != 0 && e > b && periodNS > 0 && ns < math.MaxInt64 {
			pt.Duration = ticksToDuration(e-b, periodNS)
			pt.Valid = true
		}
		out[i] = pt
	}
	return out
}

// ticksToDuration converts a timestamp difference in ticks to a duration
// with the queue's timestamp period (nanoseconds per tick).
func ticksToDuration(ticks uint64, periodNS float64) time.Duration {
	return time.Duration(float64(ticks) * periodNS)
}
