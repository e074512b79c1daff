package wgpu_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// A dispatch that runs far past the device's wait timeout (a shader that
// loops; lavapipe ends each invocation's loops after 65,536 iterations, so
// the dispatch is made long by its size, sized on the adapter) is reported as ErrTimeout when the timeout passes, not waited on
// until it ends, and the device is then lost for every later call. A
// wait in the caller (WaitBlockCaller) returns when the driver does, and
// then with ErrTimeout too.
func TestWatchdogReportsAHungDispatch(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a core busy for seconds")
	}
	t.Run("helper", func(t *testing.T) { hungDispatch(t, wgpu.WaitAuto) })
	t.Run("caller", func(t *testing.T) { hungDispatch(t, wgpu.WaitBlockCaller) })
}

func hungDispatch(t *testing.T, mode wgpu.WaitMode) {
	inst, err := wgpu.NewInstance(wgpu.BackendUndefined)
	if err != nil {
		t.Fatal(err)
	}
	adapters, err := inst.Adapters()
	if err != nil {
		t.Fatal(err)
	}
	a, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Index: -1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.RequestDevice(wgpu.DeviceOptions{WaitTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const spin = `override N: u32 = 1u;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	var acc = 0.0;
	for (var i = 0u; i < N; i++) { acc = sqrt(acc + out[i & 63u] + f32(i)); }
	out[g.x & 63u] = acc;
}`
	p, err := d.Pipeline("spin", spin, "main", wgpu.Constants{"N": 60_000})
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.CreateBuffer("out", 256, wgpu.UsageStorage|wgpu.UsageCopySrc)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: buf}})
	if err != nil {
		t.Fatal(err)
	}
	x := hungSize(t, d, p, bg)
	d.SetWaitMode(mode)
	start := time.Now()
	_, err = d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: x, Y: 1, Z: 1}}}}, nil, nil)
	took := time.Since(start)
	if !errors.Is(err, wgpu.ErrTimeout) {
		t.Fatalf("a dispatch past the timeout: err = %v after %v, want ErrTimeout", err, took)
	}
	t.Logf("reported after %v: %v", took, err)
	if mode != wgpu.WaitBlockCaller && took > 5*time.Second {
		t.Errorf("reported after %v, the timeout is 300ms", took)
	}
	if err := d.Write(buf, 0, make([]byte, 4)); !errors.Is(err, wgpu.ErrDeviceLost) {
		t.Errorf("a call after the timeout: err = %v, want ErrDeviceLost", err)
	}
	// Release waits for the driver to finish the dispatch.
	bg.Release()
	buf.Release()
	d.Release()
	for _, x := range adapters {
		x.Release()
	}
	inst.Release()
}

// hungSize is how many workgroups make the spin dispatch last about five
// times the 300 ms timeout on this adapter: some workgroups (enough to
// fill a CPU adapter's cores) are timed first, so a faster adapter gets
// a larger dispatch rather than one that ends before the timeout.
func hungSize(t *testing.T, d *wgpu.Device, p *wgpu.Pipeline, bg *wgpu.BindGroup) uint32 {
	t.Helper()
	const probe = 64 // enough to keep every core of a CPU adapter busy
	start := time.Now()
	if _, err := d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: probe, Y: 1, Z: 1}}}}, nil, nil); err != nil {
		t.Fatalf("a probe of %d workgroups: %v", probe, err)
	}
	per := time.Since(start).Seconds() / probe
	return uint32(min(max(1.5/per, 256), 65535))
}
