package compute_test

import (
	"github.com/wgpu-prof/wgpu-prof/ops"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// openDevice opens the default adapter's device (gputest.Open).
func openDevice(t testing.TB) *wgpu.Device { return gputest.Open(t) }

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func upload(t testing.TB, d *wgpu.Device, label string, data []float32, extra wgpu.BufferUsage) *wgpu.Buffer {
	t.Helper()
	b, err := d.CreateBuffer(label, uint64(4*len(data)), wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc|extra)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(b, 0, wgpu.Bytes(data)); err != nil {
		t.Fatal(err)
	}
	return b
}

// mustGraph is a test graph from a generator called with good arguments.
func mustGraph(g *ops.CSR, err error) *ops.CSR {
	if err != nil {
		panic(err)
	}
	return g
}
