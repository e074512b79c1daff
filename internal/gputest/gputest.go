// Package gputest opens the default adapter's device for tests. It fails
// (never skips) when there is no adapter: CI must run the GPU path.
package gputest

import (
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// Open opens the default adapter's device with a one-minute wait timeout
// and releases it (and its adapters and instance) when the test ends.
func Open(t testing.TB) *wgpu.Device {
	t.Helper()
	return OpenWith(t, wgpu.DeviceOptions{WaitTimeout: time.Minute})
}

// OpenWith is Open with explicit device options.
func OpenWith(t testing.TB, opts wgpu.DeviceOptions) *wgpu.Device {
	t.Helper()
	inst, err := wgpu.NewInstance(wgpu.BackendUndefined)
	if err != nil {
		t.Fatal(err)
	}
	adapters, err := inst.Adapters()
	if err != nil {
		inst.Release()
		t.Fatal(err)
	}
	release := func() {
		for _, x := range adapters {
			x.Release()
		}
		inst.Release()
	}
	a, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Index: -1})
	if err != nil {
		release()
		t.Fatalf("%v (run scripts/setup.sh to install wgpu-native and Mesa lavapipe)", err)
	}
	d, err := a.RequestDevice(opts)
	if err != nil {
		release()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Release()
		release()
	})
	return d
}
