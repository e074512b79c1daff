package kernels_test

import (
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"

	"github.com/wgpu-prof/wgpu-prof/gpu"
)

// openDevice opens the default adapter's device (gputest.Open).
func openDevice(t testing.TB) *gpu.Device { return gputest.Open(t) }

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
