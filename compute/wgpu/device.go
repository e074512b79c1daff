package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// DeviceOptions controls device creation.
type DeviceOptions struct {
	// NoTimestamps creates the device without the timestamp-query feature
	// even where the adapter offers it (to measure timing overhead).
	NoTimestamps bool
	// WaitTimeout bounds every wait on the GPU; 0 means 2 minutes.
	WaitTimeout time.Duration
	// DumpShaders keeps the code the implementation compiles from each
	// WGSL module, for Device.ShaderDump (Dawn only; wgpu-native cannot
	// show it).
	DumpShaders bool
}

// deviceState is what the device-level callbacks write to.
type deviceState struct {
	mu         sync.Mutex
	lost       bool
	lostReason int
	lostMsg    string
	errs       []error
}

func (s *deviceState) setLost(reason int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return // the first cause stays (Destroy's, a timeout's)
	}
	if reason == int(C.WGPUDeviceLostReason_Destroyed) || reason == int(C.WGPUDeviceLostReason_CallbackCancelled) {
		// Our own Release; not an error anyone can observe.
		s.lost = true
		s.lostMsg = "device released"
		return
	}
	s.lost, s.lostReason, s.lostMsg = true, reason, msg
}

func (s *deviceState) addError(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}

// take returns the device's pending uncaptured errors joined, or the
// device-lost error.
func (s *deviceState) take() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return fmt.Errorf("%w: %s", ErrDeviceLost, s.lostMsg)
	}
	if len(s.errs) == 0 {
		return nil
	}
	err := errors.Join(s.errs...)
	s.errs = nil
	return err
}

// Device is a logical device with its queue.
type Device struct {
	c       C.WGPUDevice
	queue   C.WGPUQueue
	inst    *Instance
	adapter *Adapter
	id      uintptr
	state   *deviceState
	timeout time.Duration

	Info     AdapterInfo
	Limits   Limits
	Features []Feature

	timestampPeriod float64 // ns per tick
	timestamps      bool
	waitMode        WaitMode
	lastWait        atomic.Int64 // ns the last wait took; 0 before the first
	lastYield       atomic.Int64 // unix ns of the last pass through the scheduler (yieldNow)

	mu        sync.Mutex
	staging   map[uint64][]*Buffer // free map-read buffers by size class
	modules   map[string]*ShaderModule
	pipelines map[string]*Pipeline
	released  bool
	shaders   *shaderDump // nil unless DeviceOptions.DumpShaders on Dawn
}

// RequestDevice creates a device with the features the tool needs that the
// adapter offers (timestamp-query, shader-f16, subgroups, shader-f64) and every limit
// raised to the adapter's.
func (a *Adapter) RequestDevice(opts DeviceOptions) (*Device, error) {
	if a == nil || a.c == nil {
		return nil, fmt.Errorf("wgpu: RequestDevice: %w", ErrReleased)
	}
	want := []Feature{FeatureShaderF16, FeatureSubgroups, FeatureNativeSubgroup, FeatureShaderF64}
	if !opts.NoTimestamps {
		want = append(want, FeatureTimestampQuery)
	}
	var feats []C.WGPUFeatureName
	var enabled []Feature
	for _, f := range want {
		if a.HasFeature(f) {
			feats = append(feats, C.WGPUFeatureName(f))
			enabled = append(enabled, f)
		}
	}
	cfeats := (*C.WGPUFeatureName)(C.calloc(C.size_t(len(feats)+1), C.size_t(unsafe.Sizeof(C.WGPUFeatureName(0)))))
	defer C.free(unsafe.Pointer(cfeats))
	copy(unsafe.Slice(cfeats, len(feats)), feats)
	climits := (*C.WGPULimits)(C.malloc(C.size_t(unsafe.Sizeof(C.WGPULimits{}))))
	defer C.free(unsafe.Pointer(climits))
	*climits = a.cLimits
	climits.nextInChain = nil
	desc := (*C.WGPUDeviceDescriptor)(C.calloc(1, C.size_t(unsafe.Sizeof(C.WGPUDeviceDescriptor{}))))
	defer C.free(unsafe.Pointer(desc))
	label, n := cString("wgpu-prof")
	defer freeC(label)
	desc.label = C.shim_sv(label, n)
	desc.requiredFeatureCount = C.size_t(len(feats))
	desc.requiredFeatures = cfeats
	desc.requiredLimits = climits
	desc.defaultQueue.label = C.shim_sv(nil, 0)

	d := &Device{
		inst: a.inst, adapter: a, state: &deviceState{}, timeout: opts.WaitTimeout,
		Info: a.Info, Features: enabled,
		staging: map[uint64][]*Buffer{}, modules: map[string]*ShaderModule{}, pipelines: map[string]*Pipeline{},
	}
	if d.timeout <= 0 {
		d.timeout = 2 * time.Minute
	}
	d.id = registerDevice(d.state)
	res := &requestDeviceResult{}
	h := cgo.NewHandle(res)
	requestDumping(a.inst.Impl(), opts.DumpShaders, func() {
		C.shim_request_device(a.c, desc, C.uintptr_t(h), C.uintptr_t(d.id))
	})
	if !res.done {
		C.wgpuInstanceProcessEvents(a.inst.c)
	}
	if !res.done {
		h.Delete()
		unregisterDevice(d.id)
		return nil, fmt.Errorf("wgpu: RequestDevice: %q: no answer from wgpu-native", a.Info.Name)
	}
	if res.status != int(C.WGPURequestDeviceStatus_Success) || res.dev == nil {
		unregisterDevice(d.id)
		return nil, fmt.Errorf("wgpu: RequestDevice: %q: %s", a.Info.Name, res.msg)
	}
	d.c = res.dev
	if opts.DumpShaders && a.inst.Impl() == ImplDawn {
		d.shaders = &shaderDump{}
	}
	d.queue = C.wgpuDeviceGetQueue(d.c)
	var lim C.WGPULimits
	if C.wgpuDeviceGetLimits(d.c, &lim) == C.WGPUStatus_Success {
		d.Limits = limitsFromC(&lim)
	} else {
		d.Limits = a.Limits
	}
	for _, f := range enabled {
		if f == FeatureTimestampQuery {
			d.timestamps = true
		}
	}
	d.timestampPeriod = float64(C.wgpuQueueGetTimestampPeriod(d.queue))
	return d, nil
}

// Adapter returns the adapter the device was created on.
func (d *Device) Adapter() *Adapter {
	if d == nil {
		return nil
	}
	return d.adapter
}

// HasFeature reports whether the device was created with f.
func (d *Device) HasFeature(f Feature) bool {
	if d == nil {
		return false
	}
	for _, g := range d.Features {
		if g == f {
			return true
		}
	}
	return false
}

// HasTimestamps reports whether kernel timing by timestamp queries is
// available on this device.
func (d *Device) HasTimestamps() bool { return d != nil && d.timestamps }

// TimestampPeriod is the number of nanoseconds per timestamp tick, from
// wgpuQueueGetTimestampPeriod.
func (d *Device) TimestampPeriod() float64 {
	if d == nil {
		return 0
	}
	return d.timestampPeriod
}

// Err returns (and clears) the errors the device reported outside error
// scopes, or ErrDeviceLost once the device is lost.
func (d *Device) Err() error {
	if d == nil {
		return fmt.Errorf("wgpu: Err: nil device: %w", ErrReleased)
	}
	return d.state.take()
}

func (d *Device) check(op string) error {
	if d == nil || d.c == nil {
		return fmt.Errorf("wgpu: %s: %w", op, ErrReleased)
	}
	if err := d.state.take(); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	return nil
}

// Destroy makes the device lost, as a driver reset or a removed GPU
// would: every later use fails with ErrDeviceLost (a run can then report
// what it finished). The device must still be Released. Tests use it to
// simulate a device lost mid-run.
func (d *Device) Destroy() {
	if d == nil || d.c == nil {
		return
	}
	d.state.setLost(int(C.WGPUDeviceLostReason_Unknown), "the device was destroyed (lost)")
	C.wgpuDeviceDestroy(d.c)
}

// Release frees the device with its cached pipelines and staging buffers.
// Idempotent.
func (d *Device) Release() {
	if d == nil || d.c == nil {
		return
	}
	d.mu.Lock()
	for _, p := range d.pipelines {
		p.free()
	}
	for _, m := range d.modules {
		m.Release()
	}
	for _, list := range d.staging {
		for _, b := range list {
			b.Release()
		}
	}
	d.pipelines, d.modules, d.staging = nil, nil, nil
	d.released = true
	d.mu.Unlock()
	d.collectShaders(true)
	C.wgpuQueueRelease(d.queue)
	C.wgpuDeviceDestroy(d.c)
	C.wgpuDeviceRelease(d.c)
	d.c, d.queue = nil, nil
	unregisterDevice(d.id)
}

// scoped runs fn inside validation and out-of-memory error
// scopes and returns the first error they caught, prefixed with op.
func (d *Device) scoped(op string, fn func()) error {
	if err := d.check(op); err != nil {
		return err
	}
	C.shim_push_error_scopes(d.c)
	fn()
	var first error
	for i := 0; i < 2; i++ {
		r := &popResult{}
		h := cgo.NewHandle(r)
		C.shim_pop_error_scope(d.c, C.uintptr_t(h))
		if !r.done {
			C.wgpuInstanceProcessEvents(d.inst.c)
		}
		if !r.done {
			d.pollOnce(false)
		}
		if !r.done {
			h.Delete()
			return fmt.Errorf("wgpu: %s: error scope never answered", op)
		}
		if r.status == int(C.WGPUPopErrorScopeStatus_Success) && r.errType != int(C.WGPUErrorType_NoError) && first == nil {
			first = &GPUError{Type: errorType(r.errType), Message: r.msg}
		}
	}
	if first != nil {
		return fmt.Errorf("wgpu: %s: %w", op, first)
	}
	if err := d.state.take(); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op, err)
	}
	return nil
}

func (d *Device) pollOnce(wait bool) {
	w := C.WGPUBool(0)
	if wait {
		w = 1
	}
	C.wgpuDevicePoll(d.c, w, nil)
}

// Wait blocks until all submitted work is done, or the device's wait
// timeout passes (then the device is treated as lost: a GPU that does not
// finish cannot be trusted with more work).
func (d *Device) Wait() error {
	if err := d.check("Wait"); err != nil {
		return err
	}
	return d.await("Wait", nil)
}
