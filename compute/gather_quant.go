package compute

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// gatherStore is a stored type of V for Gather: its shader
// (wgsl/hnsw_distances.wgsl.tmpl rendered for the type), the bytes of a
// row and of a query as the shader reads them, V's rows [from, to) as
// bytes, and, for int8, every row's scale.
type gatherStore struct {
	shader     string
	rowBytes   uint64
	queryBytes int
	rows       func(from, to int) []byte
	vscale     []float32
	int8       bool
}

func f32Store(v []float32, dim int) gatherStore {
	return gatherStore{shader: "hnsw_distances", rowBytes: 4 * uint64(dim), queryBytes: 4 * dim,
		rows: func(from, to int) []byte { return wgpu.Bytes(v[from*dim : to*dim]) }}
}

// NewGatherF16 is NewGather with V stored on the GPU as IEEE binary16
// (ToF16: rounded to nearest even, an error past ±65504), four per
// vec2<u32>, widened with unpack2x16float (no shader-f16 feature needed):
// half the bytes each gathered row moves. Queries stay f32; sums are f32.
func NewGatherF16(d *wgpu.Device, v []float32, dim int, opts GatherOptions) (*Gather, error) {
	return newGather("compute: NewGatherF16", d, v, dim, opts, func(v []float32, dim int) (gatherStore, error) {
		h, err := ToF16(v)
		if err != nil {
			return gatherStore{}, err
		}
		return gatherStore{shader: "hnsw_distances_f16", rowBytes: 2 * uint64(dim), queryBytes: 4 * dim,
			rows: func(from, to int) []byte { return wgpu.Bytes(h[from*dim : to*dim]) }}, nil
	})
}

// NewGatherInt8 is NewGather with V stored on the GPU as int8 codes, four
// per 32-bit word, each row quantized on the host by hostsimd.QuantizeInt8
// (symmetric, per vector: scale max|x|/127) with its scale kept beside
// it: a quarter of the f32 bytes per gathered row. Run quantizes each
// query by the same rule; the shader sums q·v, v·v and q·q exactly in i32
// with dot4I8Packed and rescales in f32 by hostsimd.Int8Metric's rule.
// D ≤ hostsimd.MaxInt8Dim.
func NewGatherInt8(d *wgpu.Device, v []float32, dim int, opts GatherOptions) (*Gather, error) {
	return newGather("compute: NewGatherInt8", d, v, dim, opts, func(v []float32, dim int) (gatherStore, error) {
		if dim > hostsimd.MaxInt8Dim {
			return gatherStore{}, fmt.Errorf("dimension %d exceeds %d (the i32 sums' exact range)", dim, hostsimd.MaxInt8Dim)
		}
		codes, scales := make([]int8, len(v)), make([]float32, len(v)/dim)
		if err := hostsimd.QuantizeInt8(v, dim, codes, scales); err != nil {
			return gatherStore{}, err
		}
		return gatherStore{shader: "hnsw_distances_int8", rowBytes: uint64(dim), queryBytes: dim, vscale: scales, int8: true,
			rows: func(from, to int) []byte { return wgpu.Bytes(codes[from*dim : to*dim]) }}, nil
	})
}

// uploadQueries writes the nq queries of q as the shader reads them and
// their per-query values: f32 or its codes for int8 (with the scales),
// and the norms for the cosine of the float types.
func (g *Gather) uploadQueries(q []float32, nq int) error {
	if g.store.int8 {
		codes, scales := make([]int8, len(q)), make([]float32, nq)
		if err := hostsimd.QuantizeInt8(q, g.D, codes, scales); err != nil {
			return err
		}
		if err := g.d.Write(g.q, 0, wgpu.Bytes(codes)); err != nil {
			return err
		}
		return g.d.Write(g.qnorm, 0, wgpu.Bytes(scales))
	}
	if err := g.d.Write(g.q, 0, wgpu.Bytes(q)); err != nil {
		return err
	}
	if g.opts.Metric != ops.Cosine {
		return nil
	}
	norms := make([]float32, nq)
	for j := range norms {
		var s float64
		for _, x := range q[j*g.D : (j+1)*g.D] {
			s += float64(x) * float64(x)
		}
		norms[j] = float32(math.Sqrt(s))
	}
	return g.d.Write(g.qnorm, 0, wgpu.Bytes(norms))
}
