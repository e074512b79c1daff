package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"time"
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
// submits it once and waits once: Run without readbacks. With a timer it
// returns each pass's GPU time.
func (d *Device) Submit(passes []Pass, copies []Copy, t *Timer) ([]PassTime, error) {
	return d.Run(Call{Passes: passes, Copies: copies, Timer: t})
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
