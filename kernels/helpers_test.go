package kernels_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/gpu"
)

// openDevice opens the default adapter's device. It fails (never skips)
// when there is no adapter: CI must run the GPU path.
func openDevice(t testing.TB) *gpu.Device {
	t.Helper()
	inst, err := gpu.NewInstance(gpu.BackendUndefined)
	if err != nil {
		t.Fatal(err)
	}
	adapters, err := inst.Adapters()
	if err != nil {
		t.Fatal(err)
	}
	a, err := gpu.SelectAdapter(adapters, gpu.AdapterQuery{Index: -1})
	if err != nil {
		t.Fatalf("%v (run scripts/setup.sh to install wgpu-native and Mesa lavapipe)", err)
	}
	d, err := a.RequestDevice(gpu.DeviceOptions{WaitTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Release()
		for _, x := range adapters {
			x.Release()
		}
		inst.Release()
	})
	return d
}

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func upload(t testing.TB, d *gpu.Device, label string, data []float32, extra gpu.BufferUsage) *gpu.Buffer {
	t.Helper()
	b, err := d.CreateBuffer(label, uint64(4*len(data)), gpu.UsageStorage|gpu.UsageCopyDst|gpu.UsageCopySrc|extra)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(b, 0, gpu.Bytes(data)); err != nil {
		t.Fatal(err)
	}
	return b
}
