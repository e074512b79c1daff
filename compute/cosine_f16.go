package compute

import (
	"errors"
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// ErrNoShaderF16: the device was created without the shader-f16 feature.
var ErrNoShaderF16 = errors.New("shader-f16 not available")

// maxF16 is the largest finite binary16 value.
const maxF16 = 65504

// ToF16 converts v to IEEE binary16 bits, rounding to nearest, ties to
// even, as NewCosineSingleF16 stores V. A value that would become infinite
// (|x| rounds past 65504) is an error naming it.
func ToF16(v []float32) ([]uint16, error) {
	h := make([]uint16, len(v))
	for i, x := range v {
		h[i] = ops.F32ToF16(x)
		if h[i]&0x7c00 == 0x7c00 {
			return nil, fmt.Errorf("V[%d] = %v: outside the f16 range ±%d", i, x, maxF16)
		}
	}
	return h, nil
}

// NewCosineSingleF16 is NewCosineSingle with V stored on the GPU as IEEE
// binary16 (rounded to nearest even on the host), halving the bytes each
// run reads; the shader widens every value to f32 and accumulates in f32.
// Precomputed norms are those of the rounded values. The result is an
// ordinary CosineSingle (same Run, usable with NewTopKSingle); its
// InputBytes is the f16 size. Needs FeatureShaderF16 (else ErrNoShaderF16).
func NewCosineSingleF16(d *wgpu.Device, v []float32, dim int, opts CosineOptions) (*CosineSingle, error) {
	op := "compute: NewCosineSingleF16"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := checkNeeds(d, "cosine_single_f16"); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", op, ErrNoShaderF16, err)
	}
	if opts.Subgroup {
		return nil, fmt.Errorf("%s: %w: the subgroup-per-row design reads f32 rows only", op, ErrUnsupported)
	}
	c, err := newCosineSingle(op, d, v, dim, opts)
	if err != nil {
		return nil, err
	}
	h, err := ToF16(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	err = c.init(rowStore{
		shader:   "cosine_single_f16",
		label:    "V16",
		rowBytes: uint64(2 * dim),
		rows:     func(from, to uint64) []byte { return wgpu.Bytes(h[from*uint64(dim) : to*uint64(dim)]) },
		value:    func(k uint64) float64 { return float64(ops.F16ToF32(h[k])) },
	})
	if err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}
