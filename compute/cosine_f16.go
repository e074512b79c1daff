package compute

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
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
		h[i] = hostsimd.F32ToF16(x)
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
func NewCosineSingleF16(d *Device, v []float32, dim int, opts CosineOptions) (*CosineSingle, error) {
	op := "compute: NewCosineSingleF16"
	if !d.HasFeature(FeatureShaderF16) {
		return nil, fmt.Errorf("%s: %w on %q", op, ErrNoShaderF16, d.Info.Name)
	}
	if dim <= 0 || dim%4 != 0 {
		return nil, fmt.Errorf("%s: dimension %d: must be a positive multiple of 4 (vec4 loads)", op, dim)
	}
	if len(v) == 0 || len(v)%dim != 0 {
		return nil, fmt.Errorf("%s: len(V) = %d is not a positive multiple of dimension %d", op, len(v), dim)
	}
	if err := checkFinite("V", v); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	h, err := ToF16(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	wg, err := validWorkgroup(d, opts.Workgroup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	opts.Workgroup = wg
	c := &CosineSingle{d: d, N: len(v) / dim, D: dim, opts: opts}
	if err := initF16(c, h); err != nil {
		c.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// initF16 is CosineSingle.init for f16 rows.
func initF16(c *CosineSingle, h []uint16) error {
	d, dim := c.d, c.D
	rowBytes := uint64(2 * dim)
	per, err := d.chunkRows(rowBytes)
	if err != nil {
		return err
	}
	entry := "main"
	if c.opts.PrecomputedNorms {
		entry = "main_norms"
	}
	c.pipe, err = d.Pipeline("cosine_single_f16", wgsl.MustSource("cosine_single_f16"), entry, Constants{"WG": float64(c.opts.Workgroup)})
	if err != nil {
		return err
	}
	if c.q, err = d.CreateBuffer("q", uint64(4*dim), UsageStorage|UsageCopyDst); err != nil {
		return err
	}
	if c.out, err = d.CreateBuffer("scores", uint64(4*c.N), UsageStorage|UsageCopySrc|UsageCopyDst); err != nil {
		return err
	}
	for start := uint64(0); start < uint64(c.N); start += per {
		c.chunks = append(c.chunks, min(per, uint64(c.N)-start))
	}
	if c.params, err = d.CreateBuffer("params", uint64(uniformStride*len(c.chunks)), UsageUniform|UsageCopyDst); err != nil {
		return err
	}
	var dispatches []Dispatch
	row := uint64(0)
	for i, rows := range c.chunks {
		part := h[row*uint64(dim) : (row+rows)*uint64(dim)]
		vb, err := d.CreateBuffer(fmt.Sprintf("V16[%d]", i), rows*rowBytes, UsageStorage|UsageCopyDst)
		if err != nil {
			return err
		}
		c.vbufs = append(c.vbufs, vb)
		c.InputBytes += vb.Size
		if err := d.Write(vb, 0, Bytes(part)); err != nil {
			return err
		}
		bindings := []BufferBinding{
			{Binding: 0, Buffer: c.params, Offset: uint64(i * uniformStride), Size: 16},
			{Binding: 1, Buffer: c.q},
			{Binding: 2, Buffer: vb},
			{Binding: 3, Buffer: c.out, Offset: 4 * row, Size: 4 * rows},
		}
		if c.opts.PrecomputedNorms {
			norms := make([]float32, rows)
			for r := range norms {
				var s float64
				for _, x := range part[r*dim : (r+1)*dim] {
					f := float64(hostsimd.F16ToF32(x))
					s += f * f
				}
				norms[r] = float32(math.Sqrt(s))
			}
			nb, err := d.CreateBuffer(fmt.Sprintf("norms[%d]", i), 4*rows, UsageStorage|UsageCopyDst)
			if err != nil {
				return err
			}
			c.nbufs = append(c.nbufs, nb)
			if err := d.Write(nb, 0, Bytes(norms)); err != nil {
				return err
			}
			bindings = append(bindings, BufferBinding{Binding: 4, Buffer: nb})
		}
		bg, err := d.CreateBindGroup(c.pipe, 0, bindings)
		if err != nil {
			return err
		}
		c.groups = append(c.groups, bg)
		gx, gy := grid2D(uint32(rows), d.Limits.MaxComputeWorkgroupsPerDimension)
		var blk [16]byte
		binary.LittleEndian.PutUint32(blk[0:], uint32(rows))
		binary.LittleEndian.PutUint32(blk[4:], uint32(dim/4))
		binary.LittleEndian.PutUint32(blk[8:], gx)
		if err := d.Write(c.params, uint64(i*uniformStride), blk[:]); err != nil {
			return err
		}
		dispatches = append(dispatches, Dispatch{Pipeline: c.pipe, BindGroups: []*BindGroup{bg}, X: gx, Y: gy, Z: 1})
		row += rows
	}
	c.passes = []Pass{{Label: "cosine_single_f16", Dispatches: dispatches}}
	return nil
}
