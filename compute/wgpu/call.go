package wgpu

/*
#include "callrun.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
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
// pass's GPU time. Recording, submitting and mapping are one crossing
// into C (callrun.c), the wait another and each readback's copy one
// more, whatever the number of dispatches.
func (d *Device) Run(c Call) ([]PassTime, error) {
	if err := d.check("Run"); err != nil {
		return nil, err
	}
	if err := d.validateCall(&c); err != nil {
		return nil, err
	}
	s := getRunScratch()
	if err := s.stage(d, &c); err != nil {
		s.putStagings(d, false)
		putRunScratch(s)
		return nil, fmt.Errorf("wgpu: Run: %w", err)
	}
	s.describe(&c)
	if err := d.submitCall(s); err != nil {
		s.putStagings(d, false)
		putRunScratch(s)
		return nil, err
	}
	if err := d.await("Run", s); err != nil {
		// A staging buffer whose map is still pending cannot go back to
		// the pool, and its status slots stay allocated: the map's
		// callback may still write them.
		runtime.SetFinalizer(s, nil)
		s.putStagings(d, true)
		return nil, err
	}
	err := s.copyOut(&c)
	s.putStagings(d, err != nil)
	timed := s.timed
	ticks := s.ticks
	putRunScratch(s)
	if err != nil {
		return nil, err
	}
	if err := d.state.take(); err != nil {
		return nil, fmt.Errorf("wgpu: Run: %w", err)
	}
	if !timed {
		return nil, nil
	}
	return passTimes(ticks, d.timestampPeriod), nil
}

// runScratch is one call's description in C's shapes (callrun.h), its
// staging buffers and its map status slots (C memory, written by the map
// callbacks). Scratches are pooled, so a call allocates nothing in the
// steady state.
type runScratch struct {
	passN    []C.uint32_t
	ds       []C.shim_dispatch
	bgs      []C.WGPUBindGroup
	copies   []C.shim_copy
	maps     []C.shim_map
	tm       *C.shim_timer // an object of its own: C may see no Go pointer
	timed    bool
	ticks    []uint64
	stagings []*Buffer // per readback (nil for an empty one), then the timer's
	slots    []C.int32_t
	dog      *watchdog
}

var runScratches = sync.Pool{New: func() any {
	s := &runScratch{dog: newWatchdog(), tm: new(C.shim_timer)}
	// The pool may drop a scratch: its slots go with it.
	runtime.SetFinalizer(s, func(s *runScratch) { s.freeSlots() })
	return s
}}

func getRunScratch() *runScratch { return runScratches.Get().(*runScratch) }

func putRunScratch(s *runScratch) {
	clear(s.stagings)
	s.stagings = s.stagings[:0]
	runScratches.Put(s)
}

func (s *runScratch) freeSlots() {
	if cap(s.slots) > 0 {
		C.free(unsafe.Pointer(unsafe.SliceData(s.slots)))
	}
	s.slots = nil
}

// slotsFor returns n map status slots in C memory (callrun.c zeroes each
// as it maps).
func (s *runScratch) slotsFor(n int) []C.int32_t {
	if cap(s.slots) < n {
		s.freeSlots()
		p := (*C.int32_t)(C.calloc(C.size_t(max(n, 4)), 4))
		s.slots = unsafe.Slice(p, max(n, 4))
	}
	s.slots = s.slots[:n]
	return s.slots
}

// stage takes a pooled staging buffer for every non-empty readback and
// one for the timer's ticks.
func (s *runScratch) stage(d *Device, c *Call) error {
	s.timed, s.ticks = c.Timer != nil && len(c.Passes) > 0, nil
	for _, r := range c.Reads {
		if len(r.Dst) == 0 {
			s.stagings = append(s.stagings, nil)
			continue
		}
		st, err := d.getStaging(uint64(len(r.Dst)))
		if err != nil {
			return err
		}
		s.stagings = append(s.stagings, st)
	}
	if !s.timed {
		return nil
	}
	n := 2 * len(c.Passes)
	// A fresh slice per timed call: the pass times are read from it
	// after the scratch goes back to the pool.
	s.ticks = make([]uint64, n)
	st, err := d.getStaging(uint64(8 * n))
	if err != nil {
		return err
	}
	s.stagings = append(s.stagings, st)
	*s.tm = C.shim_timer{qs: c.Timer.qs, resolve: c.Timer.resolve.c, staging: st.c, n: C.uint32_t(n)}
	return nil
}

// putStagings returns the call's staging buffers to the device's pool,
// or releases them (a map may still be pending, or failed).
func (s *runScratch) putStagings(d *Device, release bool) {
	for _, st := range s.stagings {
		switch {
		case st == nil:
		case release:
			st.Release()
		default:
			d.putStaging(st)
		}
	}
}

// describe fills the scratch's C arrays from c: the passes' dispatches
// and bind groups, the copies then the readback copies, and one map per
// staging buffer.
func (s *runScratch) describe(c *Call) {
	s.passN, s.ds, s.bgs = s.passN[:0], s.ds[:0], s.bgs[:0]
	s.copies, s.maps = s.copies[:0], s.maps[:0]
	for _, p := range c.Passes {
		s.passN = append(s.passN, C.uint32_t(len(p.Dispatches)))
		for _, ds := range p.Dispatches {
			s.ds = append(s.ds, C.shim_dispatch{pipe: ds.Pipeline.c, bg: C.uint32_t(len(s.bgs)), nbg: C.uint32_t(len(ds.BindGroups)),
				x: C.uint32_t(ds.X), y: C.uint32_t(ds.Y), z: C.uint32_t(ds.Z)})
			for _, bg := range ds.BindGroups {
				s.bgs = append(s.bgs, bg.c)
			}
		}
	}
	for _, cp := range c.Copies {
		s.copies = append(s.copies, C.shim_copy{src: cp.Src.c, dst: cp.Dst.c, src_off: C.uint64_t(cp.SrcOffset), dst_off: C.uint64_t(cp.DstOffset), size: C.uint64_t(cp.Size)})
	}
	for i, r := range c.Reads {
		if st := s.stagings[i]; st != nil {
			s.copies = append(s.copies, C.shim_copy{src: r.Src.c, dst: st.c, src_off: C.uint64_t(r.Offset), size: C.uint64_t(len(r.Dst))})
		}
	}
	slots := s.slotsFor(len(s.stagings))
	for i, st := range s.stagings {
		if st == nil {
			continue
		}
		n := uint64(len(s.ticks)) * 8
		if i < len(c.Reads) {
			n = uint64(len(c.Reads[i].Dst))
		}
		s.maps = append(s.maps, C.shim_map{buf: st.c, size: C.uint64_t(n), slot: &slots[i]})
	}
}

// submitCall records, submits and maps the described call.
func (d *Device) submitCall(s *runScratch) error {
	var tm *C.shim_timer
	if s.timed {
		tm = s.tm
	}
	rc := C.shim_call_submit(d.c, d.queue, C.uint32_t(len(s.passN)), unsafe.SliceData(s.passN), unsafe.SliceData(s.ds), unsafe.SliceData(s.bgs),
		C.uint32_t(len(s.copies)), unsafe.SliceData(s.copies), tm, C.uint32_t(len(s.maps)), unsafe.SliceData(s.maps))
	if rc != 0 {
		if err := d.check("Run"); err != nil {
			return err
		}
		return fmt.Errorf("wgpu: Run: command encoding failed")
	}
	return nil
}

// copyOut copies every mapped readback (and the timer's ticks) out and
// unmaps it.
func (s *runScratch) copyOut(c *Call) error {
	var mapErr error
	for i, st := range s.stagings {
		if st == nil {
			continue
		}
		if v := int(s.slots[i]) - 1; v != int(C.WGPUMapAsyncStatus_Success) {
			if mapErr == nil {
				mapErr = fmt.Errorf("wgpu: Run: MapAsync of readback %d failed (status %d)", i, v)
			}
			continue
		}
		dst := Bytes(s.ticks)
		if i < len(c.Reads) {
			dst = c.Reads[i].Dst
		}
		if C.shim_read_mapped(st.c, unsafe.Pointer(&dst[0]), C.size_t(len(dst))) != 0 && mapErr == nil {
			mapErr = fmt.Errorf("wgpu: Run: mapped range of readback %d is null", i)
		}
	}
	return mapErr
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
// far has finished and every map of s (nil: none) has completed, or fails
// with ErrTimeout after the device's wait timeout (the device is then
// treated as lost). Every wait of the binding goes through it, so an
// implementation without wgpuDevicePoll replaces this function only.
func (d *Device) await(op string, s *runScratch) error {
	var maps []C.shim_map
	dog := (*watchdog)(nil)
	if s != nil {
		maps, dog = s.maps, s.dog
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
		d.yieldNow(start)
		done, err := d.guardedWait(op, dog, maps)
		if err != nil {
			return err
		}
		if done {
			return d.afterWait(op, start)
		}
	case WaitSpinThenBlock:
		// Only a map is a completion signal to spin on: a non-blocking
		// poll's queue-empty answer has been seen true while work ran.
		for len(maps) > 0 && time.Since(start) < spinWindow {
			C.wgpuDevicePoll(d.c, 0, nil)
			if mapsDone(maps) {
				return d.afterWait(op, start)
			}
		}
		fallthrough
	default:
		if err := d.blockingWait(op); err != nil {
			return err
		}
	}
	return d.awaitMaps(op, maps, start)
}

// yieldEvery is how often a goroutine waiting in its own cgo calls
// passes through the scheduler (yieldNow).
const yieldEvery = 2 * time.Millisecond

// yieldNow passes the calling goroutine through the scheduler when the
// device's last pass is yieldEvery old. A goroutine that only ever runs
// and blocks in cgo calls is never rescheduled, and the Go runtime's
// monitor then takes its P from the blocking call every 10 ms and wakes
// every 20 µs for the next millisecond or so, stealing a core from the
// driver's threads and stalling the call's return; a pass through the
// scheduler every few milliseconds keeps the monitor asleep. (Each pass
// may wake another thread to take the goroutine, so not every call.)
func (d *Device) yieldNow(now time.Time) {
	if last := d.lastYield.Load(); now.UnixNano()-last < int64(yieldEvery) {
		return
	}
	d.lastYield.Store(now.UnixNano())
	runtime.Gosched()
}

// mapsDone reports whether every map has completed.
func mapsDone(maps []C.shim_map) bool {
	for i := range maps {
		if atomic.LoadInt32((*int32)(unsafe.Pointer(maps[i].slot))) == 0 {
			return false
		}
	}
	return true
}

// awaitMaps polls, once the work has finished, until every map has
// completed (a map callback may come from a poll after the one that
// finished the work), bounded by the wait timeout.
func (d *Device) awaitMaps(op string, maps []C.shim_map, start time.Time) error {
	deadline := time.Now().Add(d.timeout)
	for !mapsDone(maps) {
		C.wgpuDevicePoll(d.c, 0, nil)
		C.wgpuInstanceProcessEvents(d.inst.c)
		if mapsDone(maps) {
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

// waitPolls is how many non-blocking polls a wait in the caller makes,
// after its blocking one, for the maps' callbacks before it falls back
// to awaitMaps.
const waitPolls = 64

// guardedWait blocks in wgpuDevicePoll on the calling goroutine, then
// polls for the maps (shim_call_wait, one crossing into C); a watchdog
// marks the device lost if the wait timeout passes first, and the wait
// then returns ErrTimeout once the driver returns. done reports whether
// every map has completed.
func (d *Device) guardedWait(op string, dog *watchdog, maps []C.shim_map) (done bool, err error) {
	if dog == nil {
		dog = newWatchdog()
	}
	dog.arm(d)
	done = C.shim_call_wait(d.c, C.uint32_t(len(maps)), unsafe.SliceData(maps), waitPolls) != 0
	if dog.disarm() {
		return false, fmt.Errorf("wgpu: %s: %w after %v", op, ErrTimeout, d.timeout)
	}
	return done, nil
}

// watchdog marks a device lost when a wait on it outlasts the device's
// wait timeout. One is reused across calls (no allocation per wait); a
// watchdog that fired is not reused.
type watchdog struct {
	t   *time.Timer
	dev atomic.Pointer[Device]
}

func newWatchdog() *watchdog {
	w := &watchdog{}
	w.t = time.AfterFunc(time.Hour, func() {
		if d := w.dev.Load(); d != nil {
			d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), fmt.Sprintf("GPU work did not finish within %v", d.timeout))
		}
	})
	w.t.Stop()
	return w
}

func (w *watchdog) arm(d *Device) {
	w.dev.Store(d)
	w.t.Reset(d.timeout)
}

// disarm stops the watchdog and reports whether it fired (the device is
// then lost, whichever of the two got there first).
func (w *watchdog) disarm() (fired bool) {
	fired = !w.t.Stop()
	if d := w.dev.Swap(nil); fired && d != nil {
		d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), fmt.Sprintf("GPU work did not finish within %v", d.timeout))
	}
	return fired
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
