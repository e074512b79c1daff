package compute

import (
	"context"
	"errors"
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// ErrInvalidOption is wrapped by the errors of Open for options it refuses.
var ErrInvalidOption = errors.New("invalid option")

// Options says which adapter Open picks and how it opens the device. The
// zero value opens the default adapter (a discrete GPU before an integrated
// one, before a CPU adapter) of any backend, with timestamps where the
// adapter offers them.
type Options struct {
	// Impl is the WebGPU implementation (wgpu-native or Dawn);
	// ImplDefault: $WGPU_PROF_IMPL, else wgpu-native.
	Impl wgpu.Impl
	// Backend restricts the adapters to one backend; BackendUndefined: any.
	Backend wgpu.Backend
	// Name picks the adapters whose name contains it (case-insensitive);
	// empty: any.
	Name string
	// Index picks the adapter at this position of the instance's list (as
	// `wgpu-prof devices` numbers them); it is used only when UseIndex is set.
	Index    int
	UseIndex bool
	// Device is passed to RequestDevice (NoTimestamps, WaitTimeout).
	Device wgpu.DeviceOptions
	// TimerPasses is how many timestamped passes one submission of the
	// returned Timer may hold; 0 means 64.
	TimerPasses int
}

// Device is an open, ready device: the adapter it runs on, a Timer when
// the timestamp probe found working timestamps, and that probe's outcome.
// Pass Device.Device to the runners of this package. Release frees the
// timer, the device, the adapters and the instance; it is idempotent. A
// Device is safe for concurrent use to the extent wgpu.Device is; the
// Timer is not (see wgpu.Timer).
type Device struct {
	*wgpu.Device
	Adapter *wgpu.Adapter
	// Timer is nil when the probe found no working timestamps; kernel
	// times are then absent and Timestamps.Reason says why.
	Timer      *wgpu.Timer
	Timestamps wgpu.TimestampProbe

	inst     *wgpu.Instance
	adapters []*wgpu.Adapter
}

// Open creates an instance, picks the adapter opts names, requests its
// device, and runs a tiny timestamped dispatch to find out whether kernel
// times can be trusted there. It replaces the instance/adapter/device/probe
// sequence every user of the binding would otherwise write. ctx is checked
// between the steps.
func Open(ctx context.Context, opts Options) (*Device, error) {
	const op = "compute: Open"
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.UseIndex && opts.Index < 0 {
		return nil, fmt.Errorf("%s: adapter index %d: %w", op, opts.Index, ErrInvalidOption)
	}
	if opts.TimerPasses < 0 {
		return nil, fmt.Errorf("%s: TimerPasses %d < 0: %w", op, opts.TimerPasses, ErrInvalidOption)
	}
	inst, err := wgpu.NewInstanceImpl(opts.Impl, opts.Backend)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	d := &Device{inst: inst}
	fail := func(err error) (*Device, error) {
		d.Release()
		return nil, err
	}
	if d.adapters, err = inst.Adapters(); err != nil {
		return fail(fmt.Errorf("%s: %w", op, err))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	q := wgpu.AdapterQuery{Backend: opts.Backend, Index: -1, Name: opts.Name}
	if opts.UseIndex {
		q.Index = opts.Index
	}
	if d.Adapter, err = wgpu.SelectAdapter(d.adapters, q); err != nil {
		if hint := inst.Impl().NoAdapterHint(opts.Backend); hint != "" && len(d.adapters) == 0 {
			err = fmt.Errorf("wgpu: %w: %s", wgpu.ErrNoAdapter, hint)
		}
		return fail(fmt.Errorf("%s: %w", op, err))
	}
	if d.Device, err = d.Adapter.RequestDevice(opts.Device); err != nil {
		return fail(fmt.Errorf("%s: %w", op, err))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if d.Timestamps, err = d.Device.ProbeTimestamps(); err != nil {
		return fail(fmt.Errorf("%s: a probe dispatch failed on %q: %w", op, d.Adapter.Info.Name, err))
	}
	if d.Timestamps.OK {
		passes := opts.TimerPasses
		if passes == 0 {
			passes = 64
		}
		if d.Timer, err = d.Device.NewTimer(passes); err != nil {
			return fail(fmt.Errorf("%s: %w", op, err))
		}
	}
	return d, nil
}

// Release frees the timer, the device, the adapters and the instance.
// It is idempotent and safe on a nil Device.
func (d *Device) Release() {
	if d == nil {
		return
	}
	d.Timer.Release()
	d.Timer = nil
	if d.Device != nil {
		d.Device.Release()
		d.Device = nil
	}
	for _, a := range d.adapters {
		a.Release()
	}
	d.adapters, d.Adapter = nil, nil
	d.inst.Release()
	d.inst = nil
}
