package wgpu

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// Readback is a copy of len(Dst) bytes of Src from Offset to the host,
// recorded in the call's command buffer after its passes and copies.
// Offset and len(Dst) must be multiples of 4.
type Readback struct {
	Src    *Buffer
	Offset uint64
	Dst    []byte
}

// Call is one GPU call as a lean application makes it: the passes, then
// the buffer copies, then the readback copies, recorded in one command
// buffer, submitted once and waited on once. Queue writes made before the
// call (Device.Write) are part of the same submission.
type Call struct {
	Passes []Pass
	Copies []Copy
	Reads  []Readback
	// Timer, when set, times each pass by timestamp writes; the query set
	// is resolved in a second command buffer of the same submission (the
	// resolve has returned zeros on Vulkan when recorded in the encoder of
	// the passes) and its ticks are read back with the call's readbacks.
	Timer *Timer
}

// Run records c in one command buffer, submits it once, maps every
// readback's staging buffer and waits once (bounded by the device's wait
// timeout), then copies the readbacks out. With a timer it returns each
// pass's GPU time.
func (d *Device) Run(c Call) ([]PassTime, error) {
	if err := d.check("Run"); err != nil {
		return nil, err
	}
	if err := d.validateCall(&c); err != nil {
		return nil, err
	}
	timed := c.Timer != nil && len(c.Passes) > 0
	nReads := len(c.Reads)
	if timed {
		nReads++
	}
	stagings := make([]*Buffer, 0, nReads)
	putAll := func(release bool) {
		for _, st := range stagings {
			if release {
				st.Release()
			} else {
				d.putStaging(st)
			}
		}
	}
	for _, r := range c.Reads {
		if len(r.Dst) == 0 {
			stagings = append(stagings, nil)
			continue
		}
		st, err := d.getStaging(uint64(len(r.Dst)))
		if err != nil {
			putAll(false)
			return nil, fmt.Errorf("wgpu: Run: %w", err)
		}
		stagings = append(stagings, st)
	}
	var ticks []uint64
	if timed {
		ticks = make([]uint64, 2*len(c.Passes))
		st, err := d.getStaging(uint64(8 * len(ticks)))
		if err != nil {
			putAll(false)
			return nil, fmt.Errorf("wgpu: Run: %w", err)
		}
		stagings = append(stagings, st)
	}

	var cmds [2]C.WGPUCommandBuffer
	ncmd := 1
	enc := C.wgpuDeviceCreateCommandEncoder(d.c, nil)
	d.encodePasses(enc, c.Passes, c.Timer)
	for _, cp := range c.Copies {
		C.wgpuCommandEncoderCopyBufferToBuffer(enc, cp.Src.c, C.uint64_t(cp.SrcOffset), cp.Dst.c, C.uint64_t(cp.DstOffset), C.uint64_t(cp.Size))
	}
	for i, r := range c.Reads {
		if stagings[i] != nil {
			C.wgpuCommandEncoderCopyBufferToBuffer(enc, r.Src.c, C.uint64_t(r.Offset), stagings[i].c, 0, C.uint64_t(len(r.Dst)))
		}
	}
	cmds[0] = C.wgpuCommandEncoderFinish(enc, nil)
	C.wgpuCommandEncoderRelease(enc)
	if timed {
		n := len(ticks)
		enc = C.wgpuDeviceCreateCommandEncoder(d.c, nil)
		C.wgpuCommandEncoderResolveQuerySet(enc, c.Timer.qs, 0, C.uint32_t(n), c.Timer.resolve.c, 0)
		C.wgpuCommandEncoderCopyBufferToBuffer(enc, c.Timer.resolve.c, 0, stagings[nReads-1].c, 0, C.uint64_t(8*n))
		cmds[1] = C.wgpuCommandEncoderFinish(enc, nil)
		C.wgpuCommandEncoderRelease(enc)
		ncmd = 2
	}
	for i := 0; i < ncmd; i++ {
		if cmds[i] == nil {
			for j := 0; j < ncmd; j++ {
				if cmds[j] != nil {
					C.wgpuCommandBufferRelease(cmds[j])
				}
			}
			putAll(false)
			if err := d.check("Run"); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("wgpu: Run: command encoding failed")
		}
	}
	C.wgpuQueueSubmit(d.queue, C.size_t(ncmd), &cmds[0])
	for i := 0; i < ncmd; i++ {
		C.wgpuCommandBufferRelease(cmds[i])
	}

	// One status slot per map in C memory: the map callback stores into
	// it from C, so a completed map costs no call back into Go.
	var slots *C.int32_t
	if nReads > 0 {
		slots = (*C.int32_t)(C.calloc(C.size_t(nReads), 4))
		defer C.free(unsafe.Pointer(slots))
	}
	sl := unsafe.Slice(slots, nReads)
	for i, st := range stagings {
		if st == nil {
			sl[i] = C.int32_t(C.WGPUMapAsyncStatus_Success) + 1
			continue
		}
		n := uint64(len(ticks)) * 8
		if i < len(c.Reads) {
			n = uint64(len(c.Reads[i].Dst))
		}
		C.shim_buffer_map_read_slot(st.c, 0, C.size_t(n), &sl[i])
	}
	if err := d.await("Run", sl); err != nil {
		// A staging buffer whose map is still pending cannot go back to
		// the pool.
		putAll(true)
		return nil, err
	}
	var mapErr error
	for i, st := range stagings {
		if st == nil {
			continue
		}
		if s := int(sl[i]) - 1; s != int(C.WGPUMapAsyncStatus_Success) && mapErr == nil {
			mapErr = fmt.Errorf("wgpu: Run: MapAsync of readback %d failed (status %d)", i, s)
			continue
		}
		var dst []byte
		if i < len(c.Reads) {
			dst = c.Reads[i].Dst
		} else {
			dst = Bytes(ticks)
		}
		p := C.wgpuBufferGetConstMappedRange(st.c, 0, C.size_t(len(dst)))
		if p == nil {
			if mapErr == nil {
				mapErr = fmt.Errorf("wgpu: Run: mapped range of readback %d is null", i)
			}
		} else {
			// Mapped memory may be uncached: one bulk copy, never element reads.
			C.memcpy(unsafe.Pointer(&dst[0]), p, C.size_t(len(dst)))
		}
		C.wgpuBufferUnmap(st.c)
	}
	if mapErr != nil {
		putAll(true)
		return nil, mapErr
	}
	putAll(false)
	if err := d.state.take(); err != nil {
		return nil, fmt.Errorf("wgpu: Run: %w", err)
	}
	if !timed {
		return nil, nil
	}
	return passTimes(ticks, d.timestampPeriod), nil
}

// validateCall checks every handle, workgroup count and readback range of
// c before anything is recorded.
func (d *Device) validateCall(c *Call) error {
	t := c.Timer
	if t != nil && len(c.Passes) > t.MaxPasses {
		return fmt.Errorf("wgpu: Run: %d passes > timer capacity %d", len(c.Passes), t.MaxPasses)
	}
	if t != nil && t.qs == nil {
		return fmt.Errorf("wgpu: Run: timer: %w", ErrReleased)
	}
	for i, p := range c.Passes {
		for j, ds := range p.Dispatches {
			if ds.Pipeline == nil || ds.Pipeline.c == nil {
				return fmt.Errorf("wgpu: Run: pass %d (%s) dispatch %d: pipeline %w", i, p.Label, j, ErrReleased)
			}
			max := d.Limits.MaxComputeWorkgroupsPerDimension
			if ds.X == 0 || ds.Y == 0 || ds.Z == 0 || ds.X > max || ds.Y > max || ds.Z > max {
				return fmt.Errorf("wgpu: Run: pass %d (%s): workgroup counts (%d,%d,%d) must be in 1..%d: %w", i, p.Label, ds.X, ds.Y, ds.Z, max, ErrLimit)
			}
			for g, bg := range ds.BindGroups {
				if bg == nil || bg.c == nil {
					return fmt.Errorf("wgpu: Run: pass %d (%s): bind group %d %w", i, p.Label, g, ErrReleased)
				}
			}
		}
	}
	for i, cp := range c.Copies {
		if cp.Src == nil || cp.Dst == nil || cp.Src.c == nil || cp.Dst.c == nil {
			return fmt.Errorf("wgpu: Run: copy %d: %w", i, ErrReleased)
		}
	}
	for i, r := range c.Reads {
		if r.Src == nil || r.Src.c == nil {
			return fmt.Errorf("wgpu: Run: readback %d: %w", i, ErrReleased)
		}
		n := uint64(len(r.Dst))
		if n%4 != 0 || r.Offset%4 != 0 {
			return fmt.Errorf("wgpu: Run: readback %d (%q): offset %d and length %d must be multiples of 4", i, r.Src.Label, r.Offset, n)
		}
		if r.Offset+n > r.Src.Size {
			return fmt.Errorf("wgpu: Run: readback %d (%q): %d bytes at offset %d overflow the %d-byte buffer", i, r.Src.Label, n, r.Offset, r.Src.Size)
		}
	}
	return nil
}

// encodePasses records each pass (with the timer's writes at its
// beginning and end) into enc.
func (d *Device) encodePasses(enc C.WGPUCommandEncoder, passes []Pass, t *Timer) {
	var tw *C.WGPUPassTimestampWrites
	if t != nil && len(passes) > 0 {
		tw = (*C.WGPUPassTimestampWrites)(C.calloc(1, C.size_t(unsafe.Sizeof(C.WGPUPassTimestampWrites{}))))
		defer C.free(unsafe.Pointer(tw))
	}
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
}

// WaitMode is how the calling goroutine waits for the GPU.
type WaitMode int

const (
	// WaitAuto, the default, blocks in wgpuDevicePoll on the calling
	// goroutine while the device's last wait ended well inside the wait
	// timeout (under 1/64 of it), with a watchdog that marks the device
	// lost if the timeout passes; the device's first wait, and any wait
	// after a slow one, block on a helper goroutine instead, so a wait
	// that may hang returns ErrTimeout when the timeout passes. Blocking
	// in the caller costs no thread hand-off; spinning takes a core from
	// a CPU driver's own threads (BenchmarkWaitModes, bench/_tinycall).
	WaitAuto WaitMode = iota
	// WaitBlockHelper blocks in wgpuDevicePoll on a helper goroutine,
	// bounded by the wait timeout.
	WaitBlockHelper
	// WaitBlockCaller blocks in wgpuDevicePoll on the calling goroutine
	// with the watchdog only: a wait past the timeout returns ErrTimeout
	// when the driver returns.
	WaitBlockCaller
	// WaitBlockLocked is WaitBlockCaller on a goroutine locked to its OS
	// thread.
	WaitBlockLocked
	// WaitSpinThenBlock polls without blocking for a short window, then
	// waits as WaitBlockHelper.
	WaitSpinThenBlock
)

// spinWindow is how long WaitSpinThenBlock polls before it blocks.
const spinWindow = 200 * time.Microsecond

// SetWaitMode sets how d's calls wait for the GPU (WaitAuto unless set).
// Not safe to change while calls are in flight.
func (d *Device) SetWaitMode(m WaitMode) {
	if d != nil {
		d.waitMode = m
	}
}

// await is the one wait of a call: it returns once the work submitted so
// far has finished and every map status slot in slots is set (0 means
// pending), or fails with ErrTimeout after the device's wait timeout (the
// device is then treated as lost). Every wait of the binding goes through
// it, so an implementation without wgpuDevicePoll replaces this function
// only.
func (d *Device) await(op string, slots []C.int32_t) error {
	mapsDone := func() bool {
		for i := range slots {
			if atomic.LoadInt32((*int32)(unsafe.Pointer(&slots[i]))) == 0 {
				return false
			}
		}
		return true
	}
	start := time.Now()
	mode := d.waitMode
	if mode == WaitAuto {
		mode = WaitBlockHelper
		if last := d.lastWait.Load(); last > 0 && time.Duration(last) < d.timeout/64 {
			mode = WaitBlockCaller
		}
	}
	switch mode {
	case WaitBlockCaller, WaitBlockLocked:
		if mode == WaitBlockLocked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		if err := d.guardedWait(op); err != nil {
			return err
		}
	case WaitSpinThenBlock:
		// Only a map is a completion signal to spin on: a non-blocking
		// poll's queue-empty answer has been seen true while work ran.
		for len(slots) > 0 && time.Since(start) < spinWindow {
			C.wgpuDevicePoll(d.c, 0, nil)
			if mapsDone() {
				return d.afterWait(op, start)
			}
		}
		fallthrough
	default:
		if err := d.blockingWait(op); err != nil {
			return err
		}
	}
	// A map callback may come from the poll after the one that finished
	// the work: poll on, bounded by the timeout.
	deadline := time.Now().Add(d.timeout)
	for !mapsDone() {
		C.wgpuDevicePoll(d.c, 0, nil)
		C.wgpuInstanceProcessEvents(d.inst.c)
		if mapsDone() {
			break
		}
		if time.Now().After(deadline) {
			d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), fmt.Sprintf("a readback did not complete within %v", d.timeout))
			return fmt.Errorf("wgpu: %s: MapAsync: %w after %v", op, ErrTimeout, d.timeout)
		}
		time.Sleep(20 * time.Microsecond)
	}
	return d.afterWait(op, start)
}

// guardedWait blocks in wgpuDevicePoll on the calling goroutine; a
// watchdog marks the device lost if the wait timeout passes first, and
// the wait then returns ErrTimeout once the driver returns.
func (d *Device) guardedWait(op string) error {
	var late atomic.Bool
	dog := time.AfterFunc(d.timeout, func() {
		late.Store(true)
		d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), fmt.Sprintf("GPU work did not finish within %v", d.timeout))
	})
	C.wgpuDevicePoll(d.c, 1, nil)
	dog.Stop()
	if late.Load() {
		return fmt.Errorf("wgpu: %s: %w after %v", op, ErrTimeout, d.timeout)
	}
	return nil
}

func (d *Device) afterWait(op string, start time.Time) error {
	d.lastWait.Store(int64(max(time.Since(start), 1)))
	if err := d.state.take(); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	return nil
}

// blockingWait blocks in wgpuDevicePoll on a helper goroutine until the
// queue is empty or the device's wait timeout passes (then the device is
// treated as lost: a GPU that does not finish cannot be trusted with more
// work).
func (d *Device) blockingWait(op string) error {
	done := make(chan struct{})
	c := d.c
	go func() {
		C.wgpuDevicePoll(c, 1, nil)
		close(done)
	}()
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), fmt.Sprintf("GPU work did not finish within %v", d.timeout))
		return fmt.Errorf("wgpu: %s: %w after %v", op, ErrTimeout, d.timeout)
	}
}
