package compute_test

import (
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/errconv"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Every constructor and measurement of the package refuses a nil device
// with an error reading "compute: Func: …" that wraps wgpu.ErrReleased;
// no GPU is needed for it.
func TestErrorConvention(t *testing.T) {
	v := make([]float32, 64)
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"NewCosineSingle", func() error { _, err := compute.NewCosineSingle(nil, v, 4, compute.CosineOptions{}); return err }},
		{"NewCosineBatch", func() error { _, err := compute.NewCosineBatch(nil, v, 4, compute.CosineBatchOptions{}); return err }},
		{"NewCosineSingleF16", func() error { _, err := compute.NewCosineSingleF16(nil, v, 4, compute.CosineOptions{}); return err }},
		{"NewCosineSingleInt8", func() error { _, err := compute.NewCosineSingleInt8(nil, v, 4, compute.CosineOptions{}); return err }},
		{"NewCosineBatchInt8", func() error {
			_, err := compute.NewCosineBatchInt8(nil, v, 4, compute.CosineBatchOptions{})
			return err
		}},
		{"NewGather", func() error { _, err := compute.NewGather(nil, v, 4, compute.GatherOptions{}); return err }},
		{"NewMemCompute", func() error { _, err := compute.NewMemCompute(nil, "cosine", v, 4, 64); return err }},
		{"NewMemStream", func() error { _, err := compute.NewMemStream(nil, 1<<20, 1, 1, 64); return err }},
		{"NewSpread", func() error { _, err := compute.NewSpread(nil, ops.CSR{}, compute.SpreadOptions{}); return err }},
		{"NewTinyCall", func() error { _, err := compute.NewTinyCall(nil); return err }},
		{"NewUserKernel", func() error { _, err := compute.NewUserKernel(nil, compute.UserKernelOptions{}); return err }},
		{"MeasureCeilings", func() error { _, err := compute.MeasureCeilings(nil, compute.CeilingOptions{}); return err }},
		{"MeasureOverhead", func() error { _, err := compute.MeasureOverhead(nil, 10); return err }},
		{"MeasureReadAt", func() error { _, err := compute.MeasureReadAt(nil, 1<<20, 3); return err }},
		{"RunStream", func() error { _, err := compute.RunStream(nil, compute.StreamOptions{}); return err }},
		{"MeasureInt8Peak", func() error { _, err := compute.MeasureInt8Peak(nil, compute.CeilingOptions{}); return err }},
	} {
		err := c.err()
		if !errconv.Prefixed(err, "compute") || !errors.Is(err, wgpu.ErrReleased) {
			t.Errorf("%s(nil device): %v; want \"compute: Func: …\" wrapping wgpu.ErrReleased", c.name, err)
		}
	}
	// A failed check is one error on both sides.
	if compute.ErrVerify != hostsimd.ErrVerify || compute.ErrStopped != hostsimd.ErrStopped {
		t.Error("compute's ErrVerify and ErrStopped are not hostsimd's")
	}
}
