package kernels

import (
	"encoding/binary"
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/gpu"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// Memory-vs-compute variants (METHOD.md): A reads every input with minimal
// arithmetic, B does the arithmetic with no global reads, C is the full
// kernel. Classification belongs to package timing.
const (
	VariantMemory  = "A"
	VariantCompute = "B"
	VariantFull    = "C"
)

// MemComputeKernels lists the kernels NewMemCompute accepts.
var MemComputeKernels = []string{"cosine_single"}

// MemCompute runs the three shaders of the memory-vs-compute experiment
// over the same resident data. For "cosine_single": V (N×D) is uploaded
// once and shared by A and C; the query is fixed (seeded) at creation and
// uploaded on every run, as the full kernel's runner does.
type MemCompute struct {
	Kernel    string
	N, D      int
	Workgroup int

	d     *gpu.Device
	cs    *CosineSingle
	q     []float32
	out   []float32
	nan   []float32
	passA gpu.Pass
	passB gpu.Pass
	bgs   []*gpu.BindGroup

	// Expected outputs, computed once on the host in float64, with their
	// tolerances: per row for A and C, per row class (row & 15) for B.
	wantA, tolA []float64
	wantB, tolB [16]float64
	wantC, tolC []float64
}

// NewMemCompute prepares the experiment for kernel over v (N rows of dim
// floats, row-major; dim a multiple of 4, values finite) with wg threads
// per workgroup (0: DefaultWorkgroup). v is not copied and must not change while m is
// in use.
func NewMemCompute(d *gpu.Device, kernel string, v []float32, dim int, wg int) (*MemCompute, error) {
	op := "kernels: NewMemCompute"
	if kernel != "cosine_single" {
		return nil, fmt.Errorf("%s: kernel %q: have %v", op, kernel, MemComputeKernels)
	}
	cs, err := NewCosineSingle(d, v, dim, CosineOptions{Workgroup: wg})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	m := &MemCompute{Kernel: kernel, N: cs.N, D: dim, Workgroup: cs.opts.Workgroup, d: d, cs: cs}
	if err := m.init(v); err != nil {
		m.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return m, nil
}

func (m *MemCompute) init(v []float32) error {
	d, cs := m.d, m.cs
	consts := gpu.Constants{"WG": float64(m.Workgroup)}
	pa, err := d.Pipeline("memcompute_cosine_single_mem", wgsl.MustSource("memcompute_cosine_single_mem"), "main", consts)
	if err != nil {
		return err
	}
	pb, err := d.Pipeline("memcompute_cosine_single_alu", wgsl.MustSource("memcompute_cosine_single_alu"), "main", consts)
	if err != nil {
		return err
	}
	m.passA = gpu.Pass{Label: "memcompute_cosine_single A"}
	m.passB = gpu.Pass{Label: "memcompute_cosine_single B"}
	row := uint64(0)
	for i, rows := range cs.chunks {
		full := cs.passes[0].Dispatches[i]
		params := gpu.BufferBinding{Binding: 0, Buffer: cs.params, Offset: uint64(i * uniformStride), Size: 16}
		out := gpu.BufferBinding{Binding: 3, Buffer: cs.out, Offset: 4 * row, Size: 4 * rows}
		ga, err := d.CreateBindGroup(pa, 0, []gpu.BufferBinding{params, {Binding: 1, Buffer: cs.q}, {Binding: 2, Buffer: cs.vbufs[i]}, out})
		if err != nil {
			return err
		}
		m.bgs = append(m.bgs, ga)
		gb, err := d.CreateBindGroup(pb, 0, []gpu.BufferBinding{params, out})
		if err != nil {
			return err
		}
		m.bgs = append(m.bgs, gb)
		m.passA.Dispatches = append(m.passA.Dispatches, gpu.Dispatch{Pipeline: pa, BindGroups: []*gpu.BindGroup{ga}, X: full.X, Y: full.Y, Z: 1})
		m.passB.Dispatches = append(m.passB.Dispatches, gpu.Dispatch{Pipeline: pb, BindGroups: []*gpu.BindGroup{gb}, X: full.X, Y: full.Y, Z: 1})
		row += rows
	}

	r := rand.New(rand.NewPCG(0x9e3779b9, uint64(m.D)))
	m.q = make([]float32, m.D)
	for i := range m.q {
		m.q[i] = float32(r.NormFloat64())
	}
	m.out = make([]float32, m.N)
	m.nan = make([]float32, m.N)
	for i := range m.nan {
		m.nan[i] = nanBits
	}
	m.expect(v)
	return nil
}

// expect computes the reference outputs of the three shaders.
func (m *MemCompute) expect(v []float32) {
	dim, wg := m.D, m.Workgroup
	d4 := dim / 4
	// Each lane accumulates ⌈d4/WG⌉ terms, then 2 + log2(WG) additions.
	depth := float64((d4+wg-1)/wg + 2 + bits.Len(uint(wg)))
	var qSum, qAbs, qq float64
	for _, x := range m.q {
		qSum += float64(x)
		qAbs += math.Abs(float64(x))
		qq += float64(x) * float64(x)
	}
	qNorm := float64(float32(math.Sqrt(qq))) // the f32 the shaders divide by
	m.wantA = make([]float64, m.N)
	m.tolA = make([]float64, m.N)
	m.wantC = make([]float64, m.N)
	m.tolC = make([]float64, m.N)
	for i := 0; i < m.N; i++ {
		row := v[i*dim : (i+1)*dim]
		var sum, abs, dot, dabs, vv float64
		for k, x := range row {
			a, b := float64(m.q[k]), float64(x)
			sum += b
			abs += math.Abs(b)
			dot += a * b
			dabs += math.Abs(a * b)
			vv += b * b
		}
		m.wantA[i] = sum + qSum
		// A adds v+q per element (one more rounding) before the reduction.
		m.tolA[i] = 2*(depth+1)*eps32*(abs+qAbs) + 1e-30
		m.wantC[i], m.tolC[i] = cosineWithTol(dot, dabs, qNorm, math.Sqrt(vv), dim)
	}
	for c := 0; c < 16; c++ {
		var dot, dabs, xx float64
		scale := 1 + float64(c)/32
		x0 := [4]float64{0.0625, 0.125, 0.1875, 0.25}
		dx := [4]float64{1.0 / 1024, 1.0 / 1024, 1.0 / 2048, 1.0 / 2048}
		q0 := [4]float64{-0.5, 0.25, -0.125, 0.375}
		dq := [4]float64{1.0 / 2048, -1.0 / 2048, 1.0 / 4096, -1.0 / 4096}
		for k := 0; k < d4; k++ {
			for l := 0; l < 4; l++ {
				x := scale*x0[l] + float64(k)*dx[l]
				q := q0[l] + float64(k)*dq[l]
				dot += q * x
				dabs += math.Abs(q * x)
				xx += x * x
			}
		}
		m.wantB[c], m.tolB[c] = cosineWithTol(dot, dabs, qNorm, math.Sqrt(xx), dim)
	}
}

// cosineWithTol is dot/(qn·vn), 0 when the denominator is 0, with the
// float32 error bound of a dot product of dim terms relative to Σ|qᵢvᵢ|.
func cosineWithTol(dot, dabs, qn, vn float64, dim int) (cos, tol float64) {
	den := qn * vn
	if den == 0 {
		return 0, 1e-30
	}
	return dot / den, 4*float64(dim)*eps32*dabs/den + 1e-6
}

// Run runs one variant ("A", "B" or "C") once: uploads the query and its
// norm, dispatches one pass (timed by t when not nil), reads the N outputs
// back and checks them against the host's reference. The output buffer is
// poisoned before the run, outside the timed region, so a stale result
// cannot pass. A mismatch is an error wrapping ErrVerify.
func (m *MemCompute) Run(variant string, t *gpu.Timer) (Timing, error) {
	op := fmt.Sprintf("kernels: MemCompute(%s).Run(%q)", m.Kernel, variant)
	if m.cs == nil {
		return Timing{}, fmt.Errorf("%s: %w", op, gpu.ErrReleased)
	}
	var pass gpu.Pass
	switch variant {
	case VariantMemory:
		pass = m.passA
	case VariantCompute:
		pass = m.passB
	case VariantFull:
	default:
		return Timing{}, fmt.Errorf("%s: unknown variant: want %q, %q or %q", op, VariantMemory, VariantCompute, VariantFull)
	}
	if err := m.d.Write(m.cs.out, 0, gpu.Bytes(m.nan)); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if _, err := m.d.Submit(nil, nil, nil); err != nil { // flush the poison before the clock starts
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	copy(m.out, m.nan)
	var tm Timing
	var err error
	if variant == VariantFull {
		tm, err = m.cs.Run(m.q, m.out, t)
	} else {
		tm, err = m.runPass(pass, t)
	}
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := m.check(variant); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	return tm, nil
}

// runPass does for A and B what CosineSingle.Run does for C.
func (m *MemCompute) runPass(pass gpu.Pass, t *gpu.Timer) (Timing, error) {
	start := time.Now()
	var qn float64
	for _, x := range m.q {
		qn += float64(x) * float64(x)
	}
	var norm [4]byte
	binary.LittleEndian.PutUint32(norm[:], math.Float32bits(float32(math.Sqrt(qn))))
	for i := range m.cs.chunks {
		if err := m.d.Write(m.cs.params, uint64(i*uniformStride+12), norm[:]); err != nil {
			return Timing{}, err
		}
	}
	if err := m.d.Write(m.cs.q, 0, gpu.Bytes(m.q)); err != nil {
		return Timing{}, err
	}
	passes, err := m.d.Submit([]gpu.Pass{pass}, nil, t)
	if err != nil {
		return Timing{}, err
	}
	if err := m.d.Read(m.cs.out, 0, gpu.Bytes(m.out)); err != nil {
		return Timing{}, err
	}
	return timingFrom(passes, start), nil
}

// check compares the last run's outputs with the reference.
func (m *MemCompute) check(variant string) error {
	for i, g := range m.out {
		var want, tol float64
		switch variant {
		case VariantMemory:
			want, tol = m.wantA[i], m.tolA[i]
		case VariantCompute:
			want, tol = m.wantB[i&15], m.tolB[i&15]
		default:
			want, tol = m.wantC[i], m.tolC[i]
		}
		if !(math.Abs(float64(g)-want) <= tol) {
			return fmt.Errorf("variant %s: row %d = %v, want %v (tolerance %.3g): %w", variant, i, g, want, tol, ErrVerify)
		}
	}
	return nil
}

// Release frees the experiment's GPU memory; idempotent.
func (m *MemCompute) Release() {
	if m == nil {
		return
	}
	releaseAll(m.bgs)
	m.bgs = nil
	m.cs.Release()
	m.cs = nil
}
