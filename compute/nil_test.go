package compute_test

import (
	"context"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// TestNilDeviceAndRunners: every constructor and measurement given a nil
// device, and every method of a nil runner, returns an error (Release: does
// nothing); none panics.
func TestNilDeviceAndRunners(t *testing.T) {
	v := make([]float32, 64)
	g := ops.CSR{Offsets: []int32{0, 1, 1}, Cols: []int32{1}, Weights: []float32{1}}
	src := "@group(0) @binding(0) var<storage, read_write> a: array<f32>;\n@compute @workgroup_size(1) fn main() { a[0] = 1.0; }"
	calls := map[string]func() error{
		"NewCosineSingle":    func() error { _, err := compute.NewCosineSingle(nil, v, 16, compute.CosineOptions{}); return err },
		"NewCosineSingleF16": func() error { _, err := compute.NewCosineSingleF16(nil, v, 16, compute.CosineOptions{}); return err },
		"NewCosineBatch":     func() error { _, err := compute.NewCosineBatch(nil, v, 16, compute.CosineBatchOptions{}); return err },
		"NewGather":          func() error { _, err := compute.NewGather(nil, v, 16, compute.GatherOptions{}); return err },
		"NewMemCompute":      func() error { _, err := compute.NewMemCompute(nil, "stream", v, 16, 64); return err },
		"NewMemStream":       func() error { _, err := compute.NewMemStream(nil, 1<<20, 1<<20, 1, 64); return err },
		"NewSpread":          func() error { _, err := compute.NewSpread(nil, g, compute.SpreadOptions{}); return err },
		"NewTopK":            func() error { _, err := compute.NewTopK(nil, nil, 1, 4, 2, compute.TopKOptions{}); return err },
		"NewTopKSingle":      func() error { _, err := compute.NewTopKSingle(nil, 2, compute.TopKOptions{}); return err },
		"NewUserKernel": func() error {
			_, err := compute.NewUserKernel(nil, compute.UserKernelOptions{Source: src, Buffers: []compute.BufferSpec{{Name: "a", Type: "f32", Count: 1, Init: "zero"}}, Dispatch: [3]uint32{1, 1, 1}})
			return err
		},
		"MeasureCeilings": func() error { _, err := compute.MeasureCeilings(nil, compute.CeilingOptions{}); return err },
		"MeasureOverhead": func() error { _, err := compute.MeasureOverhead(nil, 10); return err },
		"MeasureLatency": func() error {
			_, err := compute.MeasureLatency(context.Background(), nil, compute.LatencyOptions{})
			return err
		},
		"NewTinyCall": func() error { _, err := compute.NewTinyCall(nil); return err },
		"RunStream": func() error {
			_, err := compute.RunStream(nil, compute.StreamOptions{ArraySize: 1024, NumTimes: 2})
			return err
		},
		"CosineSingle.Run": func() error {
			var c *compute.CosineSingle
			_, err := c.Run(v[:16], v[:4], nil)
			return err
		},
		"CosineBatch.Run": func() error {
			var c *compute.CosineBatch
			_, err := c.Run(v[:16], v[:4], nil)
			return err
		},
		"CosineBatch.RunTopK": func() error {
			var c *compute.CosineBatch
			_, err := c.RunTopK(v[:16], 1, make([]ops.Pair, 1), nil)
			return err
		},
		"Gather.Run": func() error {
			var c *compute.Gather
			_, err := c.Run(v[:16], []int32{0}, 1, v[:1], nil)
			return err
		},
		"MemCompute.Run": func() error {
			var c *compute.MemCompute
			_, err := c.Run("full", nil)
			return err
		},
		"MemStream.Run": func() error {
			var c *compute.MemStream
			_, err := c.Run("full", nil)
			return err
		},
		"Spread.Run": func() error {
			var c *compute.Spread
			_, err := c.Run(v[:2], compute.SpreadParams{}, v[:2], nil)
			return err
		},
		"TopK.Run": func() error {
			var c *compute.TopK
			_, err := c.Run(make([]ops.Pair, 1), nil)
			return err
		},
		"TopK.Read": func() error {
			var c *compute.TopK
			return c.Read(make([]ops.Pair, 1))
		},
		"TopK.Pass": func() error {
			var c *compute.TopK
			_, err := c.Pass()
			return err
		},
		"TopKSingle.Run": func() error {
			var c *compute.TopKSingle
			_, err := c.Run(v[:16], make([]ops.Pair, 1), nil)
			return err
		},
		"UserKernel.Run": func() error {
			var c *compute.UserKernel
			_, err := c.Run(nil)
			return err
		},
		"UserKernel.Reset": func() error {
			var c *compute.UserKernel
			return c.Reset()
		},
		"UserKernel.Read": func() error {
			var c *compute.UserKernel
			_, err := c.Read("a")
			return err
		},
		"UserKernel.Check": func() error {
			var c *compute.UserKernel
			return c.Check()
		},
	}
	for name, call := range calls {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("%s with nil: panic %v", name, v)
				}
			}()
			if err := call(); err == nil {
				t.Errorf("%s with nil: no error", name)
			}
		}()
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Errorf("Release/accessors of nil runners: panic %v", v)
			}
		}()
		(*compute.CosineSingle)(nil).Release()
		(*compute.CosineBatch)(nil).Release()
		(*compute.Gather)(nil).Release()
		(*compute.MemCompute)(nil).Release()
		(*compute.MemStream)(nil).Release()
		(*compute.Spread)(nil).Release()
		(*compute.TopK)(nil).Release()
		(*compute.TopKSingle)(nil).Release()
		(*compute.UserKernel)(nil).Release()
		(*compute.CosineSingle)(nil).Chunks()
		(*compute.CosineBatch)(nil).Chunks()
		(*compute.CosineBatch)(nil).Options()
		(*compute.CosineBatch)(nil).MaxQueriesPerSubmission()
		(*compute.Gather)(nil).Chunks()
		(*compute.Gather)(nil).Lanes()
		(*compute.Spread)(nil).Chunks()
		(*compute.UserKernel)(nil).Entry()
		(*compute.UserKernel)(nil).DeclaredBytes()
	}()
}
