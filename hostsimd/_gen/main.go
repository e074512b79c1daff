// Command _gen generates the amd64 assembly kernels of package hostsimd with
// avo. Run it through `go generate` in the hostsimd directory:
//
//	cd hostsimd && go generate
//
// which writes kernels_amd64.s and its Go stubs kernels_amd64.go.
//
// Two instruction-set levels are generated for every kernel:
//
//   - AVX2: 8-wide ymm, FMA3, F16C for half loads; float32 tails use
//     VMASKMOVPS with a mask built from a sliding table, the float16
//     kernel leaves the n%8 tail to Go.
//   - AVX512: 16-wide zmm, AVX512F/VL instructions only (no DQ), tails use
//     zeroing-masked loads with a mask built by BZHI (BMI2).
//
// Masked-off lanes load as zero, so they add nothing to sums, products or
// differences, and masked loads never touch memory outside the slice.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

type isa struct {
	name string
	w    int // float32 lanes per vector
	avx5 bool
}

var (
	avx2   = isa{name: "AVX2", w: 8}
	avx512 = isa{name: "AVX512", w: 16, avx5: true}
)

// tailTable is 8 all-ones words followed by 8 zero words; loading 8 words
// at word offset 8-rem gives a VMASKMOVPS mask with the first rem lanes set.
var tailTable Mem

func (s isa) vec() VecVirtual {
	if s.avx5 {
		return ZMM()
	}
	return YMM()
}

func (s isa) zero(v VecVirtual) {
	if s.avx5 {
		VPXORD(v, v, v)
	} else {
		VXORPS(v, v, v)
	}
}

// mask holds whatever the level needs for a masked tail load.
type mask struct {
	k Op         // AVX512 opmask register
	y VecVirtual // AVX2 lane mask
}

// makeMask builds the mask for the first rem lanes (0 <= rem < w).
// rem is a 64-bit GP register and is clobbered.
func (s isa) makeMask(rem Register) mask {
	if s.avx5 {
		ones := GP32()
		MOVL(U32(0xffff), ones)
		m := GP32()
		BZHIL(rem.(GPVirtual).As32(), ones, m)
		k := K()
		KMOVW(m, k)
		return mask{k: k}
	}
	t := GP64()
	MOVQ(U32(8), t)
	SUBQ(rem, t)
	tbl := GP64()
	LEAQ(tailTable, tbl)
	y := YMM()
	VMOVUPS(Mem{Base: tbl, Index: t, Scale: 4}, y)
	return mask{y: y}
}

// loadF32 loads w floats from m into a new register, masked if mk != nil.
func (s isa) loadF32(m Mem, mk *mask) VecVirtual {
	v := s.vec()
	switch {
	case mk == nil:
		VMOVUPS(m, v)
	case s.avx5:
		VMOVUPS_Z(m, mk.k, v)
	default:
		VMASKMOVPS(m, mk.y, v)
	}
	return v
}

// loadF16 loads w halves from m and widens them to float32.
func (s isa) loadF16(m Mem, mk *mask) VecVirtual {
	v := s.vec()
	switch {
	case mk == nil:
		VCVTPH2PS(m, v)
	case s.avx5:
		VCVTPH2PS_Z(m, mk.k, v)
	default:
		panic("no masked f16 load on AVX2")
	}
	return v
}

// hsum reduces v horizontally; the sum ends up in lane 0 of the returned xmm.
func (s isa) hsum(v VecVirtual) VecVirtual {
	var y VecVirtual
	if s.avx5 {
		t := YMM()
		VEXTRACTF64X4(U8(1), v, t)
		y = v.AsY().(VecVirtual)
		VADDPS(t, y, y)
	} else {
		y = v
	}
	x := XMM()
	if s.avx5 {
		VEXTRACTF32X4(U8(1), y, x)
	} else {
		VEXTRACTF128(U8(1), y, x)
	}
	xl := y.AsX().(VecVirtual)
	VADDPS(x, xl, xl)
	t := XMM()
	VMOVHLPS(xl, xl, t)
	VADDPS(t, xl, xl)
	VMOVSHDUP(xl, t)
	VADDSS(t, xl, xl)
	return xl
}

// --- reductions -----------------------------------------------------------

type redKind int

const (
	kSum redKind = iota
	kDot
	kL2
	kDotNorm
	kDot3
	kDotNormF16
)

type redSpec struct {
	name   string
	sig    string
	nacc   int
	unroll int
	two    bool // two input streams
	f16    bool // second stream is float16
}

var reds = map[redKind]redSpec{
	kSum:        {"sum", "func(a *float32, n int) float32", 1, 4, false, false},
	kDot:        {"dot", "func(a, b *float32, n int) float32", 1, 4, true, false},
	kL2:         {"l2", "func(a, b *float32, n int) float32", 1, 4, true, false},
	kDotNorm:    {"dotNorm", "func(a, b *float32, n int) (ab, bb float32)", 2, 4, true, false},
	kDot3:       {"dot3", "func(a, b *float32, n int) (ab, aa, bb float32)", 3, 2, true, false},
	kDotNormF16: {"dotNormF16", "func(a *float32, b *uint16, n int) (ab, bb float32)", 2, 4, true, true},
}

func genReduce(s isa, kind redKind) {
	sp := reds[kind]
	name := sp.name + s.name
	TEXT(name, NOSPLIT, sp.sig)
	Pragma("noescape")
	doc := map[redKind]string{
		kSum:        "returns the sum of a[:n].",
		kDot:        "returns the dot product of a[:n] and b[:n].",
		kL2:         "returns the squared Euclidean distance of a[:n] and b[:n].",
		kDotNorm:    "returns a·b and b·b over n elements.",
		kDot3:       "returns a·b, a·a and b·b over n elements.",
		kDotNormF16: "returns a·b and b·b where b holds IEEE half floats.",
	}[kind]
	if kind == kDotNormF16 && !s.avx5 {
		doc += " n must be a multiple of 8."
	}
	Doc(name + " " + doc)
	a := Load(Param("a"), GP64())
	var b Register
	if sp.two {
		b = Load(Param("b"), GP64())
	}
	n := Load(Param("n"), GP64())

	acc := make([][]VecVirtual, sp.nacc)
	for p := range acc {
		acc[p] = make([]VecVirtual, sp.unroll)
		for u := range acc[p] {
			acc[p][u] = s.vec()
			s.zero(acc[p][u])
		}
	}
	bScale := uint8(4)
	if sp.f16 {
		bScale = 2
	}
	i := GP64()
	XORQ(i, i)

	// step accumulates one vector at element offset off (relative to i)
	// into accumulator column u.
	step := func(u, off int, mk *mask) {
		am := Mem{Base: a, Index: i, Scale: 4, Disp: off * 4}
		var bm Mem
		if sp.two {
			bm = Mem{Base: b, Index: i, Scale: bScale, Disp: off * int(bScale)}
		}
		switch kind {
		case kSum:
			if mk == nil {
				VADDPS(am, acc[0][u], acc[0][u])
			} else {
				va := s.loadF32(am, mk)
				VADDPS(va, acc[0][u], acc[0][u])
			}
		case kDot:
			va := s.loadF32(am, mk)
			if mk == nil {
				VFMADD231PS(bm, va, acc[0][u])
			} else {
				vb := s.loadF32(bm, mk)
				VFMADD231PS(vb, va, acc[0][u])
			}
		case kL2:
			va := s.loadF32(am, mk)
			if mk == nil {
				VSUBPS(bm, va, va)
			} else {
				vb := s.loadF32(bm, mk)
				VSUBPS(vb, va, va)
			}
			VFMADD231PS(va, va, acc[0][u])
		case kDotNorm, kDotNormF16:
			var vb VecVirtual
			if sp.f16 {
				vb = s.loadF16(bm, mk)
			} else {
				vb = s.loadF32(bm, mk)
			}
			if mk == nil {
				VFMADD231PS(am, vb, acc[0][u])
			} else {
				va := s.loadF32(am, mk)
				VFMADD231PS(va, vb, acc[0][u])
			}
			VFMADD231PS(vb, vb, acc[1][u])
		case kDot3:
			va := s.loadF32(am, mk)
			vb := s.loadF32(bm, mk)
			VFMADD231PS(vb, va, acc[0][u])
			VFMADD231PS(va, va, acc[1][u])
			VFMADD231PS(vb, vb, acc[2][u])
		}
	}

	big := GP64()
	MOVQ(n, big)
	ANDQ(I32(-(sp.unroll * s.w)), big)
	Label(name + "_big")
	CMPQ(i, big)
	JAE(LabelRef(name + "_vec"))
	for u := 0; u < sp.unroll; u++ {
		step(u, u*s.w, nil)
	}
	ADDQ(U32(sp.unroll*s.w), i)
	JMP(LabelRef(name + "_big"))

	Label(name + "_vec")
	vecEnd := GP64()
	MOVQ(n, vecEnd)
	ANDQ(I32(-s.w), vecEnd)
	Label(name + "_vecloop")
	CMPQ(i, vecEnd)
	JAE(LabelRef(name + "_tail"))
	step(0, 0, nil)
	ADDQ(U32(s.w), i)
	JMP(LabelRef(name + "_vecloop"))

	Label(name + "_tail")
	if !(sp.f16 && !s.avx5) {
		rem := GP64()
		MOVQ(n, rem)
		SUBQ(i, rem)
		JZ(LabelRef(name + "_reduce"))
		mk := s.makeMask(rem)
		step(1%sp.unroll, 0, &mk)
	}

	Label(name + "_reduce")
	for p := range acc {
		for u := 1; u < sp.unroll; u++ {
			VADDPS(acc[p][u], acc[p][0], acc[p][0])
		}
		x := s.hsum(acc[p][0])
		Store(x, ReturnIndex(p))
	}
	VZEROUPPER()
	RET()
}

// --- 4 queries x N rows dot products ----------------------------------------

// genTile generates dotTile4: 4 queries against n rows, written as a tile
// out[i*4+j] = q_j·v_i. The queries are packed: for each chunk c of w
// elements, the 4 queries' chunks follow each other (q[(c*4+j)*w+l] =
// q_j[c*w+l]), zero-padded to a whole number of chunks, so one moving
// pointer reaches all four and the d%w tail needs no mask on the query
// side. Rows are register-blocked: 4 at a time on AVX512 (16
// accumulators), 2 on AVX2 (8 accumulators), with smaller blocks for the
// last rows.
//
// avo's greedy allocator fails on the 4-row and the 2/1-row blocks in one
// function, so AVX512 has two functions: dotTile4x4AVX512 (n must be a
// multiple of 4) and dotTile4AVX512 for the rest.
func genTile(s isa, name string, blocks []int) {
	TEXT(name, NOSPLIT, "func(q, v *float32, d, n int, out *float32)")
	Pragma("noescape")
	doc := []string{name + " writes out[i*4+j] = q_j·v_i for 4 packed queries q (see dotTile4Generic)",
		"and n rows of v with stride d."}
	if blocks[len(blocks)-1] != 1 {
		doc = append(doc, fmt.Sprintf("n must be a multiple of %d.", blocks[len(blocks)-1]))
	}
	Doc(doc...)
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	op := Load(Param("out"), GP64())

	d4 := GP64()
	MOVQ(d, d4)
	SHLQ(U8(2), d4)
	// AVX512 builds the tail mask once, in an opmask register (no GP or
	// vector register pressure).
	var kmask mask
	if s.avx5 {
		rem := GP64()
		MOVQ(d, rem)
		ANDQ(I32(s.w-1), rem)
		kmask = s.makeMask(rem)
	}
	ANDQ(I32(-s.w), d)
	dvec := d

	body := func(rows int, tag string) {
		var vrow [4]Register
		vrow[0] = vp
		for r := 1; r < rows; r++ {
			vrow[r] = GP64()
		}
		if rows >= 2 {
			LEAQ(Mem{Base: vp, Index: d4, Scale: 1}, vrow[1])
		}
		if rows == 4 {
			LEAQ(Mem{Base: vp, Index: d4, Scale: 2}, vrow[2])
			LEAQ(Mem{Base: vrow[1], Index: d4, Scale: 2}, vrow[3])
		}
		var acc [4][4]VecVirtual
		for j := 0; j < 4; j++ {
			for r := 0; r < rows; r++ {
				acc[j][r] = s.vec()
				s.zero(acc[j][r])
			}
		}
		k := GP64()
		XORQ(k, k)
		// The query pointer is reloaded from the argument frame for each
		// block to keep general registers free.
		qk := Load(Param("q"), GP64())
		inner := func(m *mask) {
			var vv [4]VecVirtual
			for r := 0; r < rows; r++ {
				vv[r] = s.loadF32(Mem{Base: vrow[r], Index: k, Scale: 4}, m)
			}
			for j := 0; j < 4; j++ {
				qm := Mem{Base: qk, Disp: 4 * j * s.w}
				if rows == 1 {
					VFMADD231PS(qm, vv[0], acc[j][0])
					continue
				}
				qv := s.loadF32(qm, nil)
				for r := 0; r < rows; r++ {
					VFMADD231PS(qv, vv[r], acc[j][r])
				}
			}
		}
		Label(name + tag + "_loop")
		CMPQ(k, dvec)
		JAE(LabelRef(name + tag + "_tail"))
		inner(nil)
		ADDQ(U32(s.w), k)
		ADDQ(U32(4*4*s.w), qk)
		JMP(LabelRef(name + tag + "_loop"))
		Label(name + tag + "_tail")
		// Skip the masked step when d%w == 0. AVX2 rebuilds its mask here
		// rather than keeping it live, leaving ymm registers to the
		// accumulators.
		mk := kmask
		if s.avx5 {
			KORTESTW(kmask.k, kmask.k)
			JZ(LabelRef(name + tag + "_sum"))
		} else {
			rem := GP64()
			MOVQ(d4, rem)
			SHRQ(U8(2), rem)
			SUBQ(dvec, rem)
			JZ(LabelRef(name + tag + "_sum"))
			mk = s.makeMask(rem)
		}
		inner(&mk)
		Label(name + tag + "_sum")
		for r := 0; r < rows; r++ {
			for j := 0; j < 4; j++ {
				x := s.hsum(acc[j][r])
				MOVSS(x, Mem{Base: op, Disp: 16*r + 4*j})
			}
		}
	}

	for bi, rows := range blocks {
		tag := fmt.Sprintf("_r%d", rows)
		Label(name + tag)
		CMPQ(n, U8(rows))
		next := name + "_done"
		if bi+1 < len(blocks) {
			next = name + fmt.Sprintf("_r%d", blocks[bi+1])
		}
		JB(LabelRef(next))
		body(rows, tag)
		if rows == 1 {
			ADDQ(d4, vp)
		} else {
			LEAQ(Mem{Base: vp, Index: d4, Scale: uint8(rows)}, vp)
		}
		ADDQ(U8(16*rows), op)
		SUBQ(U8(rows), n)
		JMP(LabelRef(name + tag))
	}
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// --- bandwidth / peak kernels ----------------------------------------------

func genStores(s isa) {
	const u = 4
	blk := u * s.w
	// fill
	name := "fillNT" + s.name
	TEXT(name, NOSPLIT, "func(p *float32, n int, v float32)")
	Pragma("noescape")
	Doc(name+" sets p[:n] to v with non-temporal stores.",
		fmt.Sprintf("p must be %d-byte aligned and n a multiple of %d.", s.w*4, blk))
	p := Load(Param("p"), GP64())
	n := Load(Param("n"), GP64())
	vv := s.vec()
	VBROADCASTSS(addr("v"), vv)
	i := GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	for k := 0; k < u; k++ {
		VMOVNTPS(vv, Mem{Base: p, Index: i, Scale: 4, Disp: 4 * k * s.w})
	}
	ADDQ(U32(blk), i)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	SFENCE()
	VZEROUPPER()
	RET()

	// copy
	name = "copyNT" + s.name
	TEXT(name, NOSPLIT, "func(dst, src *float32, n int)")
	Pragma("noescape")
	Doc(name+" copies src[:n] to dst[:n] with non-temporal stores.",
		fmt.Sprintf("dst must be %d-byte aligned and n a multiple of %d.", s.w*4, blk))
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n = Load(Param("n"), GP64())
	i = GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	var regs [u]VecVirtual
	for k := 0; k < u; k++ {
		regs[k] = s.loadF32(Mem{Base: src, Index: i, Scale: 4, Disp: 4 * k * s.w}, nil)
	}
	for k := 0; k < u; k++ {
		VMOVNTPS(regs[k], Mem{Base: dst, Index: i, Scale: 4, Disp: 4 * k * s.w})
	}
	ADDQ(U32(blk), i)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	SFENCE()
	VZEROUPPER()
	RET()

	// triad
	name = "triadNT" + s.name
	TEXT(name, NOSPLIT, "func(a, b, c *float32, n int, s float32)")
	Pragma("noescape")
	Doc(name+" sets a[i] = b[i] + s*c[i] for i < n with non-temporal stores.",
		fmt.Sprintf("a must be %d-byte aligned and n a multiple of %d.", s.w*4, blk))
	a := Load(Param("a"), GP64())
	b := Load(Param("b"), GP64())
	c := Load(Param("c"), GP64())
	n = Load(Param("n"), GP64())
	sv := s.vec()
	VBROADCASTSS(addr("s"), sv)
	i = GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	for k := 0; k < u; k++ {
		regs[k] = s.loadF32(Mem{Base: c, Index: i, Scale: 4, Disp: 4 * k * s.w}, nil)
		VFMADD213PS(Mem{Base: b, Index: i, Scale: 4, Disp: 4 * k * s.w}, sv, regs[k])
	}
	for k := 0; k < u; k++ {
		VMOVNTPS(regs[k], Mem{Base: a, Index: i, Scale: 4, Disp: 4 * k * s.w})
	}
	ADDQ(U32(blk), i)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	SFENCE()
	VZEROUPPER()
	RET()
}

// fmaChains is the number of independent FMA chains in fmaPeak; enough to
// cover a 4-cycle latency on two FMA ports with room to spare.
func fmaChains(s isa) int {
	if s.avx5 {
		return 24
	}
	return 12
}

func genFMAPeak(s isa) {
	name := "fmaPeak" + s.name
	chains := fmaChains(s)
	TEXT(name, NOSPLIT, "func(iters int, m, c float32) float32")
	Pragma("noescape")
	Doc(name+fmt.Sprintf(" runs iters rounds of %d independent vector FMA chains x = x*m + c", chains),
		"and returns the sum of all lanes (so the work cannot be discarded).")
	iters := Load(Param("iters"), GP64())
	mv, cv := s.vec(), s.vec()
	VBROADCASTSS(addr("m"), mv)
	VBROADCASTSS(addr("c"), cv)
	acc := make([]VecVirtual, chains)
	for k := range acc {
		acc[k] = s.vec()
		if s.avx5 {
			VMOVAPS(cv, acc[k])
		} else {
			VMOVAPS(cv, acc[k])
		}
	}
	Label(name + "_loop")
	TESTQ(iters, iters)
	JZ(LabelRef(name + "_done"))
	for k := range acc {
		VFMADD213PS(cv, mv, acc[k])
	}
	DECQ(iters)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	for k := 1; k < chains; k++ {
		VADDPS(acc[k], acc[0], acc[0])
	}
	x := s.hsum(acc[0])
	Store(x, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

func main() {
	ConstraintExpr("!noasm")
	tailTable = GLOBL("tailmask", RODATA|NOPTR)
	for k := 0; k < 16; k++ {
		v := uint32(0)
		if k < 8 {
			v = 0xffffffff
		}
		DATA(4*k, U32(v))
	}
	for _, s := range []isa{avx2, avx512} {
		for _, k := range []redKind{kSum, kDot, kL2, kDotNorm, kDot3, kDotNormF16} {
			genReduce(s, k)
		}
		genTile(s, "dotTile4"+s.name, []int{2, 1})
		if s.avx5 {
			genTile(s, "dotTile4x4"+s.name, []int{4})
		}
		genStores(s)
		genFMAPeak(s)
	}
	Generate()
}

func addr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
