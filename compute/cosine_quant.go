package compute

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// NewCosineSingleInt8 is NewCosineSingle with V stored on the GPU as int8
// codes, four per 32-bit word: each row quantized on the host by
// hostsimd.QuantizeInt8 (symmetric, per vector: scale max|x|/127), so a
// run reads a quarter of the f32 bytes. Run quantizes each query by the
// same rule; the shader sums q·v and v·v exactly in i32 with
// dot4I8Packed and rescales to a cosine in f32 (the scales cancel and are
// not uploaded). The result is an ordinary CosineSingle (same Run, usable
// with NewTopKSingle); InputBytes is the int8 size. D ≤
// hostsimd.MaxInt8Dim. Neither PrecomputedNorms nor Subgroup.
func NewCosineSingleInt8(d *wgpu.Device, v []float32, dim int, opts CosineOptions) (*CosineSingle, error) {
	return newCosineSingleInt8(d, v, dim, opts, "")
}

// newCosineSingleInt8 builds the int8 runner with the shader's entry
// point entry ("": the design's); main_dot and main_sq write each row's
// exact integer sums, bit-cast, instead of its cosine.
func newCosineSingleInt8(d *wgpu.Device, v []float32, dim int, opts CosineOptions, entry string) (*CosineSingle, error) {
	op := "compute: NewCosineSingleInt8"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if opts.Subgroup || opts.PrecomputedNorms {
		return nil, fmt.Errorf("%s: %w: the int8 kernel has the workgroup-per-row and row-per-invocation designs only (no Subgroup, no PrecomputedNorms)", op, ErrUnsupported)
	}
	if dim > hostsimd.MaxInt8Dim {
		return nil, fmt.Errorf("%s: dimension %d exceeds %d (the i32 sums' exact range)", op, dim, hostsimd.MaxInt8Dim)
	}
	c, err := newCosineSingle(op, d, v, dim, opts)
	if err != nil {
		return nil, err
	}
	codes, scales := make([]int8, len(v)), make([]float32, len(v)/dim)
	if err := hostsimd.QuantizeInt8(v, dim, codes, scales); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c.query = func(q []float32) ([]byte, float64, error) {
		qc, qq, err := hostsimd.QuantizeQueryInt8(q)
		if err != nil {
			return nil, 0, err
		}
		return wgpu.Bytes(qc), math.Sqrt(float64(qq)), nil
	}
	err = c.init(rowStore{
		shader:   "cosine_single_int8",
		label:    "V8",
		rowBytes: uint64(dim),
		rows:     func(from, to uint64) []byte { return wgpu.Bytes(codes[from*uint64(dim) : to*uint64(dim)]) },
		value:    func(k uint64) float64 { return float64(codes[k]) },
		entry:    entry,
	})
	if err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// NewCosineBatchInt8 is NewCosineBatch with V stored on the GPU as int8
// codes, four per 32-bit word (hostsimd.QuantizeInt8), and each call's
// queries quantized by the same rule: every design (untiled:
// wgsl/cosine_batch_int8.wgsl; tiled: cosine_batch_tiled_int8, the codes
// staged packed in workgroup memory; register-blocked:
// cosine_batch_reg*_int8) sums q·v exactly in i32 with dot4I8Packed and
// rescales by the norms of the codes. D ≤ hostsimd.MaxInt8Dim.
func NewCosineBatchInt8(d *wgpu.Device, v []float32, dim int, opts CosineBatchOptions) (*CosineBatch, error) {
	op := "compute: NewCosineBatchInt8"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if dim > hostsimd.MaxInt8Dim {
		return nil, fmt.Errorf("%s: dimension %d exceeds %d (the i32 sums' exact range)", op, dim, hostsimd.MaxInt8Dim)
	}
	if err := checkRows(v, dim); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkFinite("V", v); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	codes, scales := make([]int8, len(v)), make([]float32, len(v)/dim)
	if err := hostsimd.QuantizeInt8(v, dim, codes, scales); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.store = &batchStore{
		elem:     "int8",
		rowBytes: uint64(dim),
		rows: func(from, to uint64) ([]byte, []float32) {
			part := codes[from*uint64(dim) : to*uint64(dim)]
			return wgpu.Bytes(part), codeNorms(part, dim)
		},
		queries: func(qs []float32, nq int) ([]byte, []float32, error) {
			c := make([]int8, len(qs))
			for q := 0; q < nq; q++ {
				qc, _, err := hostsimd.QuantizeQueryInt8(qs[q*dim : (q+1)*dim])
				if err != nil {
					return nil, nil, fmt.Errorf("query %d: %w", q, err)
				}
				copy(c[q*dim:], qc)
			}
			return wgpu.Bytes(c), codeNorms(c, dim), nil
		},
	}
	c, err := NewCosineBatch(d, v, dim, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// codeNorms is the norm of each row of dim codes, in float64.
func codeNorms(c []int8, dim int) []float32 {
	out := make([]float32, len(c)/dim)
	for r := range out {
		var s int64
		for _, x := range c[r*dim : (r+1)*dim] {
			s += int64(x) * int64(x)
		}
		out[r] = float32(math.Sqrt(float64(s)))
	}
	return out
}

// NewCosineBatchF16 is NewCosineBatch with V stored on the GPU as IEEE
// binary16 (ToF16: rounded to nearest even, an error past ±65504), four
// per vec2<u32>, widened to f32 with unpack2x16float as every design
// loads it (untiled: wgsl/cosine_batch_naive.wgsl.tmpl as
// cosine_batch_f16; tiled: cosine_batch_tiled_f16, widened while staging;
// register-blocked: cosine_batch_reg*_f16), so no design needs the
// shader-f16 feature: half the bytes of V. Queries stay f32; sums are
// f32; V's norms are those of the rounded values.
func NewCosineBatchF16(d *wgpu.Device, v []float32, dim int, opts CosineBatchOptions) (*CosineBatch, error) {
	op := "compute: NewCosineBatchF16"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if err := checkRows(v, dim); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	h, err := ToF16(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.store = &batchStore{
		elem:     "f16",
		rowBytes: 2 * uint64(dim),
		rows: func(from, to uint64) ([]byte, []float32) {
			part := h[from*uint64(dim) : to*uint64(dim)]
			norms := make([]float32, to-from)
			for r := range norms {
				var s float64
				for _, x := range part[r*dim : (r+1)*dim] {
					f := float64(ops.F16ToF32(x))
					s += f * f
				}
				norms[r] = float32(math.Sqrt(s))
			}
			return wgpu.Bytes(part), norms
		},
		queries: func(qs []float32, nq int) ([]byte, []float32, error) {
			norms := make([]float32, nq)
			for q := range norms {
				norms[q] = norm64(qs[q*dim : (q+1)*dim])
			}
			return wgpu.Bytes(qs[:nq*dim]), norms, nil
		},
	}
	c, err := NewCosineBatch(d, v, dim, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}
