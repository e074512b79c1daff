package compute

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
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
// A MemCompute is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type MemCompute struct {
	runnerGuard
	Kernel    string
	N, D      int
	Workgroup int

	d     *wgpu.Device
	cs    *CosineSingle
	q     []float32
	out   []float32
	nan   []float32
	passA wgpu.Pass
	passB wgpu.Pass
	bgs   []*wgpu.BindGroup

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
func NewMemCompute(d *wgpu.Device, kernel string, v []float32, dim int, wg int) (*MemCompute, error) {
	op := "compute: NewMemCompute"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
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
	consts := wgpu.Constants{"WG": float64(m.Workgroup)}
	pa, err := d.Pipeline("memcompute_cosine_single_mem", wgsl.MustSource("memcompute_cosine_single_mem"), "main", consts)
	if err != nil {
		return err
	}
	pb, err := d.Pipeline("memcompute_cosine_single_alu", wgsl.MustSource("memcompute_cosine_single_alu"), "main", consts)
	if err != nil {
		return err
	}
	m.passA = wgpu.Pass{Label: "memcompute_cosine_single A"}
	m.passB = wgpu.Pass{Label: "memcompute_cosine_single B"}
	row := uint64(0)
	for i, rows := range cs.chunks {
		full := cs.passes[0].Dispatches[i]
		params := cs.params.binding(i)
		out := wgpu.BufferBinding{Binding: 3, Buffer: cs.out, Offset: 4 * row, Size: 4 * rows}
		ga, err := d.CreateBindGroup(pa, 0, []wgpu.BufferBinding{params, {Binding: 1, Buffer: cs.q}, {Binding: 2, Buffer: cs.vbufs[i]}, out})
		if err != nil {
			return err
		}
		m.bgs = append(m.bgs, ga)
		gb, err := d.CreateBindGroup(pb, 0, []wgpu.BufferBinding{params, out})
		if err != nil {
			return err
		}
		m.bgs = append(m.bgs, gb)
		m.passA.Dispatches = append(m.passA.Dispatches, wgpu.Dispatch{Pipeline: pa, BindGroups: []*wgpu.BindGroup{ga}, X: full.X, Y: full.Y, Z: 1})
		m.passB.Dispatches = append(m.passB.Dispatches, wgpu.Dispatch{Pipeline: pb, BindGroups: []*wgpu.BindGroup{gb}, X: full.X, Y: full.Y, Z: 1})
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
func (m *MemCompute) Run(variant string, t *wgpu.Timer) (Timing, error) {
	op := fmt.Sprintf("compute: MemCompute.Run(%q)", variant)
	if m != nil {
		op = fmt.Sprintf("compute: MemCompute.Run(%s, %q)", m.Kernel, variant)
	}
	unlock, err := lockLive(op, m)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	var pass wgpu.Pass
	switch variant {
	case VariantMemory:
		pass = m.passA
	case VariantCompute:
		pass = m.passB
	case VariantFull:
	default:
		return Timing{}, fmt.Errorf("%s: unknown variant: want %q, %q or %q", op, VariantMemory, VariantCompute, VariantFull)
	}
	if err := m.d.Write(m.cs.out, 0, wgpu.Bytes(m.nan)); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if _, err := m.d.Submit(nil, nil, nil); err != nil { // flush the poison before the clock starts
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	copy(m.out, m.nan)
	var tm Timing
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
func (m *MemCompute) runPass(pass wgpu.Pass, t *wgpu.Timer) (Timing, error) {
	start := clock.Now()
	if err := m.cs.setQuery(m.q); err != nil {
		return Timing{}, err
	}
	passes, err := m.d.Run(wgpu.Call{Passes: []wgpu.Pass{pass}, Reads: []wgpu.Readback{{Src: m.cs.out, Dst: wgpu.Bytes(m.out)}}, Timer: t})
	if err != nil {
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
func (m *MemCompute) Release() { releaseRunner(m) }

func (m *MemCompute) free() {
	releaseAll(m.bgs)
	m.bgs = nil
	m.cs.Release()
	m.cs = nil
}

// VariantEmpty is the empty skeleton of the generic family: launch,
// reduction and write-back with no loads and no arithmetic loop.
const VariantEmpty = "E"

// MemComputeStream is the generic memory-vs-compute family, usable for
// any kernel whose bytes and arithmetic are known (METHOD.md,
// "Memory-vs-compute"): shader A reads exactly Bytes (rounded up to a
// vec4) with one add per loaded vec4, shader B performs Flops as vec4 FMAs
// on registers with no global reads, and E is their shared skeleton
// (launch, tree reduction, one f32 written per workgroup). The work is split
// over Passes dispatches (a multi-step kernel launches once per step) and
// over chunks of the storage-binding limit; every dispatch reads from the
// start of one buffer, as a multi-step kernel re-reads its data. Every
// output is checked: A's data are small integers, so its sums are exact.
const MemComputeStream = "stream"

// memStreamPer is the vec4s each thread of shader A loads (PER in the
// shader).
const memStreamPer = 16

// MemStream runs the generic family's three shaders A, B and E.
// A MemStream is safe for concurrent use: its calls share its GPU buffers, so
// they are serialised (TestRunnersConcurrentCallers).
type MemStream struct {
	runnerGuard
	Workgroup int
	// Bytes and Flops are what A reads and what B computes (B rounds to
	// whole FMA iterations per thread; Flops is the rounded count).
	Bytes, Flops float64
	Dispatches   int

	d      *wgpu.Device
	src    *wgpu.Buffer
	out    *wgpu.Buffer
	params *chunkParams
	pipes  []*wgpu.Pipeline
	bgs    []*wgpu.BindGroup
	pass   map[string]wgpu.Pass
	got    []float32
	nan    []float32
	// want per output for each variant.
	want map[string][]float64
	tolB float64
}

// NewMemStream prepares the generic family for a kernel that must move
// bytes and perform flops in passes launches, with wg threads per
// workgroup (0: DefaultWorkgroup).
func NewMemStream(d *wgpu.Device, bytes, flops float64, passes, wg int) (*MemStream, error) {
	op := "compute: NewMemStream"
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	if wg == 0 {
		wg = DefaultWorkgroup
	}
	if err := d.CheckWorkgroup(wg); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if !(bytes >= 16) || !(flops >= 0) || math.IsInf(bytes, 0) || math.IsInf(flops, 0) || passes < 1 {
		return nil, fmt.Errorf("%s: bytes %v, flops %v, passes %d: want bytes ≥ 16, flops ≥ 0 (finite), passes ≥ 1", op, bytes, flops, passes)
	}
	total := uint64(math.Ceil(bytes / 16)) // vec4s A reads in all
	block := uint64(wg * memStreamPer)
	lim := min(d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize) / 16
	lim -= lim % block
	if lim == 0 {
		return nil, fmt.Errorf("%s: a storage binding of %d bytes cannot hold one block of %d vec4s", op, d.Limits.MaxStorageBufferBindingSize, block)
	}
	// Equal dispatches of at most lim vec4s, at least passes of them.
	nd := max(uint64(passes), (total+lim-1)/lim)
	per := (total + nd - 1) / nd
	per = (per + block - 1) / block * block
	nd = (total + per - 1) / per
	groups := per / block
	maxX := uint64(d.Limits.MaxComputeWorkgroupsPerDimension)
	gx := min(groups, maxX)
	gy := (groups + gx - 1) / gx
	if gy > maxX {
		return nil, fmt.Errorf("%s: %d workgroups per dispatch: past the %d×%d grid", op, groups, maxX, maxX)
	}
	threads := float64(nd * groups * uint64(wg))
	iters := uint32(math.Max(1, math.Round(flops/(16*threads))))
	m := &MemStream{Workgroup: wg, Bytes: float64(16 * total), Flops: 16 * threads * float64(iters), Dispatches: int(nd), d: d,
		pass: map[string]wgpu.Pass{}, want: map[string][]float64{}}
	if err := m.init(total, per, nd, groups, gx, gy, iters); err != nil {
		m.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return m, nil
}

func (m *MemStream) init(total, per, nd, groups, gx, gy uint64, iters uint32) error {
	d := m.d
	var err error
	if m.src, err = d.CreateBuffer("memstream src", 16*per, wgpu.UsageStorage|wgpu.UsageCopyDst); err != nil {
		return err
	}
	nOut := nd * groups
	if m.out, err = d.CreateBuffer("memstream out", 4*nOut, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		return err
	}
	if m.params, err = newChunkParams(d, "memstream params", int(nd), 8); err != nil {
		return err
	}
	// Small integers in [-8, 8]: every block sum is exact in f32.
	r := rand.New(rand.NewPCG(0x5eed, per))
	src := make([]float32, 4*per)
	for i := range src {
		src[i] = float32(r.IntN(17) - 8)
	}
	if err := d.Write(m.src, 0, wgpu.Bytes(src)); err != nil {
		return err
	}
	for j := uint64(0); j < nd; j++ {
		count := min(per, total-j*per)
		m.params.set(int(j), uint32(count), uint32(groups), uint32(gx), iters, uint32(j*groups), math.Float32bits(memStreamMul), math.Float32bits(memStreamAdd))
	}
	if err := m.params.flush(d); err != nil {
		return err
	}
	for _, v := range memStreamShaders {
		if err := m.initPass(v.variant, v.shader, nd, gx, gy); err != nil {
			return err
		}
	}
	m.expect(src, total, per, nd, groups, iters)
	m.got = make([]float32, nOut)
	m.nan = make([]float32, nOut)
	for i := range m.nan {
		m.nan[i] = nanBits
	}
	return nil
}

// memStreamMul and memStreamAdd are shader B's FMA coefficients.
const memStreamMul, memStreamAdd = 1, 0.5

// memStreamShaders are the generic family's variants and their shaders.
var memStreamShaders = []struct{ variant, shader string }{
	{VariantMemory, "memcompute_stream_mem"},
	{VariantCompute, "memcompute_stream_alu"},
	{VariantEmpty, "memcompute_stream_empty"},
}

// initPass builds one variant's pass: nd dispatches of gx×gy workgroups,
// each on its own parameter block (A also reads the source buffer).
func (m *MemStream) initPass(variant, shader string, nd, gx, gy uint64) error {
	d := m.d
	pl, err := d.Pipeline(shader, wgsl.MustSource(shader), "main", wgpu.Constants{"WG": float64(m.Workgroup)})
	if err != nil {
		return err
	}
	m.pipes = append(m.pipes, pl)
	pass := wgpu.Pass{Label: "memcompute_stream " + variant}
	for j := uint64(0); j < nd; j++ {
		binds := []wgpu.BufferBinding{m.params.binding(int(j))}
		if variant == VariantMemory {
			binds = append(binds, wgpu.BufferBinding{Binding: 1, Buffer: m.src})
		}
		binds = append(binds, wgpu.BufferBinding{Binding: 2, Buffer: m.out})
		bg, err := d.CreateBindGroup(pl, 0, binds)
		if err != nil {
			return err
		}
		m.bgs = append(m.bgs, bg)
		pass.Dispatches = append(pass.Dispatches, wgpu.Dispatch{Pipeline: pl, BindGroups: []*wgpu.BindGroup{bg}, X: uint32(gx), Y: uint32(gy), Z: 1})
	}
	m.pass[variant] = pass
	return nil
}

// expect computes every variant's expected outputs (one per workgroup of
// every dispatch) and B's tolerance.
func (m *MemStream) expect(src []float32, total, per, nd, groups uint64, iters uint32) {
	wg := m.Workgroup
	nOut := nd * groups
	block := uint64(wg * memStreamPer)
	wantA := make([]float64, nOut)
	for j := uint64(0); j < nd; j++ {
		count := min(per, total-j*per)
		for g := uint64(0); g < groups; g++ {
			var s float64
			for k := g * block; k < min((g+1)*block, count); k++ {
				s += float64(src[4*k]) + float64(src[4*k+1]) + float64(src[4*k+2]) + float64(src[4*k+3])
			}
			wantA[j*groups+g] = s
		}
	}
	var b, e float64
	for lid := 0; lid < wg; lid++ {
		b += 8 * (float64(lid) + memStreamAdd*float64(iters))
		e += float64(lid)
	}
	wantB, wantE := make([]float64, nOut), make([]float64, nOut)
	for i := range wantB {
		wantB[i], wantE[i] = b, e
	}
	m.want[VariantMemory], m.want[VariantCompute], m.want[VariantEmpty] = wantA, wantB, wantE
	// B's per-thread value lid + 0.5·iters may round once it passes 2^24;
	// its sum over the workgroup carries log2(WG)+3 roundings.
	m.tolB = float64(iters+uint32(wg))*float64(wg)*8*eps32*float64(iters+8) + 1e-6
}

// Run runs variant A, B or E once (timed by t when not nil), reads the
// outputs back and checks them; the outputs are poisoned first, outside
// the timed region. A mismatch is an error wrapping ErrVerify.
func (m *MemStream) Run(variant string, t *wgpu.Timer) (Timing, error) {
	op := fmt.Sprintf("compute: MemStream.Run(%q)", variant)
	unlock, err := lockLive(op, m)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	pass, ok := m.pass[variant]
	if !ok {
		return Timing{}, fmt.Errorf("%s: unknown variant: want %q, %q or %q", op, VariantMemory, VariantCompute, VariantEmpty)
	}
	if err := m.d.Write(m.out, 0, wgpu.Bytes(m.nan)); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	if _, err := m.d.Submit(nil, nil, nil); err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	start := clock.Now()
	passes, err := m.d.Run(wgpu.Call{Passes: []wgpu.Pass{pass}, Reads: []wgpu.Readback{{Src: m.out, Dst: wgpu.Bytes(m.got)}}, Timer: t})
	if err != nil {
		return Timing{}, fmt.Errorf("%s: %w", op, err)
	}
	tm := timingFrom(passes, start)
	want := m.want[variant]
	tol := 0.0
	if variant == VariantCompute {
		tol = m.tolB
	}
	for i, g := range m.got {
		if !(math.Abs(float64(g)-want[i]) <= tol) {
			return Timing{}, fmt.Errorf("%s: output %d = %v, want %v (tolerance %.3g): %w", op, i, g, want[i], tol, ErrVerify)
		}
	}
	return tm, nil
}

// Release frees the family's GPU objects; idempotent.
func (m *MemStream) Release() { releaseRunner(m) }

func (m *MemStream) free() {
	releaseAll(m.bgs)
	m.bgs = nil
	releaseAll(m.pipes)
	m.pipes = nil
	m.params.Release()
	m.params = nil
	for _, b := range []**wgpu.Buffer{&m.src, &m.out} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
}
