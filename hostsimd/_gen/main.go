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
	kSumPF
	kSum2
	kDotNormPF
)

type redSpec struct {
	name   string
	sig    string
	nacc   int
	unroll int
	two    bool // two input streams
	f16    bool // second stream is float16
	pf     bool // prefetch pfs bytes ahead in the unrolled loop
}

var reds = map[redKind]redSpec{
	kSum:        {"sum", "func(a *float32, n int) float32", 1, 4, false, false, false},
	kDot:        {"dot", "func(a, b *float32, n int) float32", 1, 4, true, false, false},
	kL2:         {"l2", "func(a, b *float32, n int) float32", 1, 4, true, false, false},
	kDotNorm:    {"dotNorm", "func(a, b *float32, n int) (ab, bb float32)", 2, 4, true, false, false},
	kDot3:       {"dot3", "func(a, b *float32, n int) (ab, aa, bb float32)", 3, 2, true, false, false},
	kDotNormF16: {"dotNormF16", "func(a *float32, b *uint16, n int) (ab, bb float32)", 2, 4, true, true, false},
	kSumPF:      {"sumPF", "func(a *float32, n int, pfs int) float32", 1, 4, false, false, true},
	kSum2:       {"sum2", "func(a *float32, n int) float32", 1, 2, false, false, false},
	kDotNormPF:  {"dotNormPF", "func(a, b *float32, n int, pfs int) (ab, bb float32)", 2, 4, true, false, true},
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
		kSumPF:      "returns the sum of a[:n], bit-identical to sum" + s.name + ", prefetching (PREFETCHT0) pfs bytes ahead.",
		kDotNormPF:  "returns a·b and b·b over n elements, bit-identical to dotNorm" + s.name + ", prefetching (PREFETCHT0) b's lines pfs bytes ahead.",
		kSum2:       "returns the sum of a[:n] with two vector accumulators (a plain two-accumulator reader, as compilers vectorize a sum).",
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
	var pf Register
	if sp.pf {
		pf = Load(Param("pfs"), GP64())
		if sp.two {
			ADDQ(b, pf) // prefetch the second (streamed) input
		} else {
			ADDQ(a, pf)
		}
	}

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
		case kSum, kSumPF, kSum2:
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
		case kDotNorm, kDotNormF16, kDotNormPF:
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
	if sp.pf {
		lines := sp.unroll * s.w * 4 / 64
		for l := 0; l < lines; l++ {
			PREFETCHT0(Mem{Base: pf, Disp: 64 * l})
		}
		ADDQ(U32(64*lines), pf)
	}
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

// --- 8 queries x N rows cosines, AVX512 -------------------------------------

// cosConst holds the constants of the cosine kernels: float32 1 and -1
// (the clamp) at 0 and 4, float64 1 at 8 and at 16 the VPERMPS indices
// 3, 7, 11 that gather the row norms of genCosTile8, followed by zeros
// (at 32, 16 bytes of float32 0).
var cosConst Mem

// reduce16 sums each of the 16 vectors horizontally and returns one vector
// whose lane L holds the sum of lane[L]. It is a transpose-and-add tree:
// each of the four levels halves the number of vectors with two shuffles
// and one add per pair (30 shuffles and 15 adds in all, against 64 of each
// for 16 separate reductions; fewer where lanes are nil, not wanted). It
// overwrites its inputs.
func reduce16(lane []VecVirtual) VecVirtual {
	// The tree leaves the sum of its input m in lane 4*(m%4) + m/4, so
	// input m is the vector for that lane.
	a := make([]VecVirtual, 16)
	for m := range a {
		a[m] = lane[4*(m%4)+m/4]
	}
	// Each pair is summed into its first vector, so the inputs are
	// overwritten. A nil input is a lane whose sum is not wanted: a pair
	// of nils gives nil, and a nil beside a vector is replaced by that
	// vector (its lanes then hold garbage).
	x := ZMM()
	level := func(in []VecVirtual, lo, hi uint8, shuf func(imm, b, a, dst Op)) []VecVirtual {
		out := make([]VecVirtual, len(in)/2)
		for i := range out {
			a, b := in[2*i], in[2*i+1]
			switch {
			case a == nil && b == nil:
				continue
			case a == nil:
				a = b
			case b == nil:
				b = a
			}
			shuf(U8(lo), b, a, x)
			shuf(U8(hi), b, a, a)
			VADDPS(x, a, a)
			out[i] = a
		}
		return out
	}
	shuf128 := func(imm, b, a, dst Op) { VSHUFF64X2(imm, b, a, dst) }
	shuf32 := func(imm, b, a, dst Op) { VSHUFPS(imm, b, a, dst) }
	// 256-bit halves, then 128-bit lanes, then 64-bit pairs, then words.
	b := level(a, 0x44, 0xee, shuf128)
	c := level(b, 0x88, 0xdd, shuf128)
	d := level(c, 0x44, 0xee, shuf32)
	return level(d, 0x88, 0xdd, shuf32)[0]
}

// genCosTile8 generates an 8-query cosine kernel of AVX512: the cosines of
// 8 packed queries (see packQueries, width 16) against the n rows of v
// (stride d), written straight into the output rows,
//
//	out[j*ldo+i] = clamp(q_j·v_i * iqs[4j] * iv[i], -1, 1)
//
// with NaN passed through, multiplied in the order of scaleCosTile. iqs
// holds the 8 inverse query norms four times over, iqs[4j+r] = iq_j for
// r < 4, then twice over, iqs[32+2j+r] = iq_j for r < 2.
//
// rows is the register block and n must be a multiple of it: 3 rows for
// the main kernel (24 accumulators, two reduce16 trees whose 128-bit lane
// j holds query j's three rows), 2 (16 accumulators, one reduce16 tree)
// and 1 (horizontal sums) for the last rows of a block. avo's allocator
// fails on more than one block size in one function, so each gets its
// own.
//
// With norms, the kernel also sums the rows' squares (3 more
// accumulators, their sums ride in the spare fourth lanes of the first
// tree) and writes iv[i] = 1/sqrt(v_i·v_i) (0 for a zero row, NaN for
// NaN), with the square root and division in float64 as in invNorm, and
// uses them. Otherwise it reads iv.
//
// With prefetch, the main loop issues one PREFETCHT1 at pf per two steps
// and advances pf by pfs bytes, so the caller can pull the next row block
// into L2 while this one is computed.
func genCosTile8(s isa, name string, rows int, norms, prefetch bool) {
	TEXT(name, NOSPLIT, "func(q, v *float32, d, n int, out *float32, ldo int, iqs, iv, pf *float32, pfs int)")
	Pragma("noescape")
	doc := []string{name + " writes out[j*ldo+i] = clamp(q_j·v_i * iqs[4j] * iv[i]) for 8 packed queries q",
		"(see packQueries) and n rows of v with stride d; see genCosTile8 in _gen."}
	if rows > 1 {
		doc = append(doc, fmt.Sprintf("n must be a multiple of %d.", rows))
	}
	if norms {
		doc = append(doc, "It computes and writes iv[i] = 1/‖v_i‖ (0 for zero rows) first.")
	}
	if prefetch {
		doc = append(doc, "Every two steps of 16 elements it prefetches the line at pf into L2 and advances pf by pfs bytes.")
	} else {
		doc = append(doc, "pf and pfs are unused.")
	}
	Doc(doc...)
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	ob := Load(Param("out"), GP64())
	ivp := Load(Param("iv"), GP64())
	var pf Register
	if prefetch {
		pf = Load(Param("pf"), GP64())
	}

	d4 := GP64()
	MOVQ(d, d4)
	SHLQ(U8(2), d4)
	rem := GP64()
	MOVQ(d, rem)
	ANDQ(I32(s.w-1), rem)
	kmask := s.makeMask(rem)
	ANDQ(I32(-s.w), d)
	dvec := d

	const nq = 8
	body := func() {
		vrow := make([]Register, rows)
		vrow[0] = vp
		for r := 1; r < rows; r++ {
			vrow[r] = GP64()
			LEAQ(Mem{Base: vp, Index: d4, Scale: uint8(r)}, vrow[r])
		}
		acc := make([][]VecVirtual, nq)
		for j := range acc {
			acc[j] = make([]VecVirtual, rows)
			for r := range acc[j] {
				acc[j][r] = s.vec()
				s.zero(acc[j][r])
			}
		}
		var nacc []VecVirtual
		if norms {
			nacc = make([]VecVirtual, rows)
			for r := range nacc {
				nacc[r] = s.vec()
				s.zero(nacc[r])
			}
		}
		k := GP64()
		XORQ(k, k)
		qk := Load(Param("q"), GP64())
		// inner does one step of w elements, off steps past k. Its
		// registers are shared by all steps, which helps avo's greedy
		// allocator.
		vv := make([]VecVirtual, rows)
		for r := range vv {
			vv[r] = s.vec()
		}
		qv := s.vec()
		inner := func(m *mask, off int) {
			for r := range vv {
				rm := Mem{Base: vrow[r], Index: k, Scale: 4, Disp: 4 * off * s.w}
				if m == nil {
					VMOVUPS(rm, vv[r])
				} else {
					VMOVUPS_Z(rm, m.k, vv[r])
				}
				if norms {
					VFMADD231PS(vv[r], vv[r], nacc[r])
				}
			}
			for j := 0; j < nq; j++ {
				qm := Mem{Base: qk, Disp: 4 * (off*nq + j) * s.w}
				if rows == 1 {
					VFMADD231PS(qm, vv[0], acc[j][0])
					continue
				}
				VMOVUPS(qm, qv)
				for r := range vv {
					VFMADD231PS(qv, vv[r], acc[j][r])
				}
			}
		}
		// Two steps at a time while they fit, then single steps, then
		// the masked d%w tail.
		dbig := GP64()
		MOVQ(dvec, dbig)
		SUBQ(U32(s.w), dbig)
		CMPQ(k, dbig)
		JGE(LabelRef(name + "_one"))
		Label(name + "_two")
		if prefetch {
			PREFETCHT1(Mem{Base: pf})
			ADDQ(addr("pfs"), pf)
		}
		inner(nil, 0)
		inner(nil, 1)
		ADDQ(U32(2*s.w), k)
		ADDQ(U32(2*nq*4*s.w), qk)
		CMPQ(k, dbig)
		JL(LabelRef(name + "_two"))
		Label(name + "_one")
		CMPQ(k, dvec)
		JAE(LabelRef(name + "_tail"))
		inner(nil, 0)
		ADDQ(U32(s.w), k)
		ADDQ(U32(nq*4*s.w), qk)
		Label(name + "_tail")
		KORTESTW(kmask.k, kmask.k)
		JZ(LabelRef(name + "_sum"))
		inner(&kmask, 0)

		Label(name + "_sum")
		// The clamp bounds are loaded where they are used, to keep
		// register pressure down during the reductions.
		bounds := func() (one, mone VecVirtual) {
			one, mone = s.vec(), s.vec()
			VBROADCASTSS(cosConst, one)
			VBROADCASTSS(cosConst.Offset(4), mone)
			return one, mone
		}
		ldo4 := Load(Param("ldo"), GP64())
		SHLQ(U8(2), ldo4)
		iqs := Load(Param("iqs"), GP64())
		t := GP64()
		MOVQ(ob, t)
		// finish scales, clamps (VMINPS/VMAXPS return their second
		// source, res, when either operand is NaN) and returns res.
		finish := func(res VecVirtual, iq Mem, ivv VecVirtual) {
			one, mone := bounds()
			VMULPS(iq, res, res)
			VMULPS(ivv, res, res)
			VMINPS(res, one, res)
			VMAXPS(res, mone, res)
		}
		switch rows {
		case 3:
			k3 := K()
			m3 := GP32()
			MOVL(U32(7), m3)
			KMOVW(m3, k3)
			var la, lb [16]VecVirtual
			for j := 0; j < 4; j++ {
				for r := 0; r < 3; r++ {
					la[4*j+r] = acc[j][r]
					lb[4*j+r] = acc[4+j][r]
				}
				// Spare lanes: row norms, else nothing.
				if norms && j < 3 {
					la[4*j+3] = nacc[j]
				}
			}
			ra := reduce16(la[:])
			rb := reduce16(lb[:])
			iv3 := XMM()
			if norms {
				// The sums of squares sit in lanes 3, 7 and 11 of ra.
				idx, ss := ZMM(), ZMM()
				VMOVUPS(cosConst.Offset(16), idx)
				VPERMPS(ra, idx, ss)
				x := ss.AsX()
				y := YMM()
				VCVTPS2PD(x, y)
				VSQRTPD(y, y)
				onePD := YMM()
				VBROADCASTSD(cosConst.Offset(8), onePD)
				VDIVPD(y, onePD, y)
				VCVTPD2PSY(y, iv3)
				// Zero rows (ss == 0) get 0; NaN stays NaN.
				nz := K()
				VCMPPS(U8(4), cosConst.Offset(32), x, nz) // NEQ_UQ: ss != 0 or NaN
				VMOVAPS_Z(iv3, nz, iv3)
				VMOVUPS(iv3, k3, Mem{Base: ivp})
			} else {
				VMOVUPS_Z(Mem{Base: ivp}, k3, iv3)
			}
			ivv := ZMM()
			VSHUFF32X4(U8(0), iv3.AsZ(), iv3.AsZ(), ivv)
			finish(ra, Mem{Base: iqs}, ivv)
			finish(rb, Mem{Base: iqs, Disp: 64}, ivv)
			for j := 0; j < nq; j++ {
				res := ra
				if j >= 4 {
					res = rb
				}
				if j%4 == 0 {
					VMOVUPS(res.AsX(), k3, Mem{Base: t})
				} else {
					VEXTRACTF32X4(U8(j%4), res, k3, Mem{Base: t})
				}
				if j < nq-1 {
					ADDQ(ldo4, t)
				}
			}
		case 2:
			lane := make([]VecVirtual, 16)
			for L := range lane {
				lane[L] = acc[L/2][L%2]
			}
			res := reduce16(lane)
			ivv := s.vec()
			VBROADCASTSD(Mem{Base: ivp}, ivv)
			finish(res, Mem{Base: iqs, Disp: 4 * 32}, ivv)
			for l := 0; l < 4; l++ {
				x := res.AsX()
				if l > 0 {
					x = XMM()
					VEXTRACTF32X4(U8(l), res, x)
				}
				VMOVLPS(x, Mem{Base: t})
				ADDQ(ldo4, t)
				VMOVHPS(x, Mem{Base: t})
				if l < 3 {
					ADDQ(ldo4, t)
				}
			}
		case 1:
			one, mone := bounds()
			for j := 0; j < nq; j++ {
				x := s.hsum(acc[j][0])
				VMULSS(Mem{Base: iqs, Disp: 4 * 4 * j}, x, x)
				VMULSS(Mem{Base: ivp}, x, x)
				VMINSS(x, one.AsX(), x)
				VMAXSS(x, mone.AsX(), x)
				VMOVSS(x, Mem{Base: t})
				if j < nq-1 {
					ADDQ(ldo4, t)
				}
			}
		}
	}

	Label(name + "_rows")
	CMPQ(n, U8(rows))
	JB(LabelRef(name + "_done"))
	body()
	if rows >= 2 {
		LEAQ(Mem{Base: vp, Index: d4, Scale: 2}, vp)
	}
	if rows%2 == 1 {
		ADDQ(d4, vp)
	}
	ADDQ(U8(4*rows), ob)
	ADDQ(U8(4*rows), ivp)
	SUBQ(U8(rows), n)
	JMP(LabelRef(name + "_rows"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// --- q against several rows at once ------------------------------------------

// rowLoops emits the loops over one row's elements that genDotNormRows and
// genDotNormSeq share: while i < big, lines prefetches at pf (which then
// moves on) and unroll steps of w floats; then single steps while
// i < vecEnd; it ends by jumping to name+"_tail".
func rowLoops(name string, i, big, vecEnd, pf Register, lines, unroll, w int, step func(u, off int, mk *mask)) {
	Label(name + "_big")
	CMPQ(i, big)
	JAE(LabelRef(name + "_vec"))
	for l := 0; l < lines; l++ {
		PREFETCHT0(Mem{Base: pf, Disp: 64 * l})
	}
	ADDQ(U32(64*lines), pf)
	for u := 0; u < unroll; u++ {
		step(u, u*w, nil)
	}
	ADDQ(U32(unroll*w), i)
	JMP(LabelRef(name + "_big"))

	Label(name + "_vec")
	CMPQ(i, vecEnd)
	JAE(LabelRef(name + "_tail"))
	step(0, 0, nil)
	ADDQ(U32(w), i)
	JMP(LabelRef(name + "_vec"))
}

// genDotNormRows generates a kernel that writes ab[i] = q·v_i and
// bb[i] = v_i·v_i for n rows of v with stride d, rows at a time (n must be
// a multiple of rows). Each step of w elements loads the query chunk once
// and uses it for all rows, so the rows' memory streams have more loads in
// flight per L1 access to q and per loop iteration than one dotNorm call
// per row, and the per-row call overhead is gone. Every row's sums use the
// same accumulator layout and order as dotNorm (unroll 4, whole vectors
// into column 0, the masked tail into column 1, columns added in order,
// then hsum), so the results are bit-identical to dotNorm's.
//
// While the rows are summed the kernel prefetches (PREFETCHT0) the bytes
// pfs further on: per unrolled step, rows·unroll lines from a pointer that
// starts pfs bytes after the block and advances by rows·unroll lines, so
// a block's lines are covered by its own steps when d is a multiple of
// unroll·w. pfs = 0 prefetches lines the kernel reads anyway.
func genDotNormRows(s isa, name string, rows int) {
	const unroll = 4
	TEXT(name, NOSPLIT, "func(q, v *float32, d, n int, ab, bb *float32, pfs int)")
	Pragma("noescape")
	Doc(name+" writes ab[i] = q·v_i and bb[i] = v_i·v_i for n rows of v with stride d,",
		fmt.Sprintf("bit-identical to dotNorm%s; n must be a multiple of %d. It prefetches pfs bytes ahead", s.name, rows),
		"of the rows it reads (see genDotNormRows in _gen).")
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	abp := Load(Param("ab"), GP64())
	bbp := Load(Param("bb"), GP64())

	d4 := GP64()
	MOVQ(d, d4)
	SHLQ(U8(2), d4)
	rem := GP64()
	MOVQ(d, rem)
	ANDQ(I32(s.w-1), rem)
	kmask := s.makeMask(rem)
	dvec := GP64()
	MOVQ(d, dvec)
	ANDQ(I32(-s.w), dvec)
	dbig := d
	ANDQ(I32(-(unroll * s.w)), dbig)

	Label(name + "_rows")
	CMPQ(n, U8(rows))
	JB(LabelRef(name + "_done"))

	vrow := make([]Register, rows)
	vrow[0] = vp
	for r := 1; r < rows; r++ {
		vrow[r] = GP64()
		switch r {
		case 1, 2, 4, 8:
			LEAQ(Mem{Base: vp, Index: d4, Scale: uint8(r)}, vrow[r])
		default:
			LEAQ(Mem{Base: vrow[r-1], Index: d4, Scale: 1}, vrow[r])
		}
	}
	pf := GP64()
	MOVQ(addr("pfs"), pf)
	ADDQ(vp, pf)
	// acc[r][p][u]: row r, p = 0 for q·v, 1 for v·v, column u.
	acc := make([][2][unroll]VecVirtual, rows)
	for r := range acc {
		for p := 0; p < 2; p++ {
			for u := 0; u < unroll; u++ {
				acc[r][p][u] = s.vec()
				s.zero(acc[r][p][u])
			}
		}
	}
	qk := Load(Param("q"), GP64())
	i := GP64()
	XORQ(i, i)
	qv := s.vec()
	vv := s.vec()
	step := func(u, off int, mk *mask) {
		qm := Mem{Base: qk, Index: i, Scale: 4, Disp: 4 * off}
		if mk == nil {
			VMOVUPS(qm, qv)
		} else {
			VMOVUPS_Z(qm, mk.k, qv)
		}
		for r := 0; r < rows; r++ {
			rm := Mem{Base: vrow[r], Index: i, Scale: 4, Disp: 4 * off}
			if mk == nil {
				VMOVUPS(rm, vv)
			} else {
				VMOVUPS_Z(rm, mk.k, vv)
			}
			VFMADD231PS(qv, vv, acc[r][0][u])
			VFMADD231PS(vv, vv, acc[r][1][u])
		}
	}
	rowLoops(name, i, dbig, dvec, pf, rows*unroll*s.w*4/64, unroll, s.w, step)

	Label(name + "_tail")
	KORTESTW(kmask.k, kmask.k)
	JZ(LabelRef(name + "_reduce"))
	step(1%unroll, 0, &kmask)

	Label(name + "_reduce")
	for r := 0; r < rows; r++ {
		for p := 0; p < 2; p++ {
			a := acc[r][p]
			for u := 1; u < unroll; u++ {
				VADDPS(a[u], a[0], a[0])
			}
			x := s.hsum(a[0])
			if p == 0 {
				VMOVSS(x, Mem{Base: abp, Disp: 4 * r})
			} else {
				VMOVSS(x, Mem{Base: bbp, Disp: 4 * r})
			}
		}
	}
	ADDQ(U8(4*rows), abp)
	ADDQ(U8(4*rows), bbp)
	for r := 0; r < rows; r++ {
		ADDQ(d4, vp)
	}
	SUBQ(U8(rows), n)
	JMP(LabelRef(name + "_rows"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// genDotNormSeq generates dotNormSeq: dotNorm of n consecutive rows in one
// call, one row after the other, so the rows stay one contiguous stream for
// the hardware prefetchers (dotNormRows walks 3 rows side by side: three
// streams), with no Go call per row. Each row runs exactly dotNorm's loop
// (same accumulators, order and tail), so the results are bit-identical.
// pfs > 0 prefetches (PREFETCHT0) that many bytes ahead of the read
// position, into the rows that follow.
func genDotNormSeq(s isa, name string) {
	sp := reds[kDotNorm]
	unroll := sp.unroll
	TEXT(name, NOSPLIT, "func(q, v *float32, d, n int, ab, bb *float32, pfs int)")
	Pragma("noescape")
	Doc(name+" writes ab[i] = q·v_i and bb[i] = v_i·v_i for n consecutive rows of v",
		"(stride d), bit-identical to dotNorm"+s.name+" per row, reading the rows one after the other",
		"in one call. It prefetches pfs bytes ahead of the row it reads (see genDotNormSeq in _gen).")
	qp := Load(Param("q"), GP64())
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	abp := Load(Param("ab"), GP64())
	bbp := Load(Param("bb"), GP64())
	pfs := Load(Param("pfs"), GP64())

	big := GP64()
	MOVQ(d, big)
	ANDQ(I32(-(unroll * s.w)), big)
	vecEnd := GP64()
	MOVQ(d, vecEnd)
	ANDQ(I32(-s.w), vecEnd)
	d4 := d // d's bytes from here on
	SHLQ(U8(2), d4)

	Label(name + "_row")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	acc := make([][]VecVirtual, 2)
	for p := range acc {
		acc[p] = make([]VecVirtual, unroll)
		for u := range acc[p] {
			acc[p][u] = s.vec()
			s.zero(acc[p][u])
		}
	}
	pf := GP64()
	LEAQ(Mem{Base: vp, Index: pfs, Scale: 1}, pf)
	i := GP64()
	XORQ(i, i)
	step := func(u, off int, mk *mask) {
		am := Mem{Base: qp, Index: i, Scale: 4, Disp: off * 4}
		bm := Mem{Base: vp, Index: i, Scale: 4, Disp: off * 4}
		vb := s.loadF32(bm, mk)
		if mk == nil {
			VFMADD231PS(am, vb, acc[0][u])
		} else {
			va := s.loadF32(am, mk)
			VFMADD231PS(va, vb, acc[0][u])
		}
		VFMADD231PS(vb, vb, acc[1][u])
	}
	rowLoops(name, i, big, vecEnd, pf, unroll*s.w*4/64, unroll, s.w, step)

	Label(name + "_tail")
	rem := GP64()
	MOVQ(d4, rem)
	SHRQ(U8(2), rem)
	SUBQ(i, rem)
	JZ(LabelRef(name + "_reduce"))
	mk := s.makeMask(rem)
	step(1%unroll, 0, &mk)

	Label(name + "_reduce")
	for p := range acc {
		for u := 1; u < unroll; u++ {
			VADDPS(acc[p][u], acc[p][0], acc[p][0])
		}
		x := s.hsum(acc[p][0])
		if p == 0 {
			VMOVSS(x, Mem{Base: abp})
		} else {
			VMOVSS(x, Mem{Base: bbp})
		}
	}
	ADDQ(U8(4), abp)
	ADDQ(U8(4), bbp)
	ADDQ(d4, vp)
	DECQ(n)
	JMP(LabelRef(name + "_row"))
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

// genStreamStores generates the two BabelStream kernels the ceiling
// kernels do not cover (Copy is copyNT, Triad is triadNT): scaleNT
// (Mul, b = s*c) and addNT (Add, c = a + b), with non-temporal stores
// like the others, so a stored line is not read first.
func genStreamStores(s isa) {
	const u = 4
	blk := u * s.w
	var regs [u]VecVirtual

	name := "scaleNT" + s.name
	TEXT(name, NOSPLIT, "func(dst, src *float32, n int, s float32)")
	Pragma("noescape")
	Doc(name+" sets dst[i] = s*src[i] for i < n with non-temporal stores.",
		fmt.Sprintf("dst must be %d-byte aligned and n a multiple of %d.", s.w*4, blk))
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	sv := s.vec()
	VBROADCASTSS(addr("s"), sv)
	i := GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	for k := 0; k < u; k++ {
		regs[k] = s.vec()
		VMULPS(Mem{Base: src, Index: i, Scale: 4, Disp: 4 * k * s.w}, sv, regs[k])
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

	name = "addNT" + s.name
	TEXT(name, NOSPLIT, "func(c, a, b *float32, n int)")
	Pragma("noescape")
	Doc(name+" sets c[i] = a[i] + b[i] for i < n with non-temporal stores.",
		fmt.Sprintf("c must be %d-byte aligned and n a multiple of %d.", s.w*4, blk))
	c := Load(Param("c"), GP64())
	a := Load(Param("a"), GP64())
	b := Load(Param("b"), GP64())
	n = Load(Param("n"), GP64())
	i = GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	for k := 0; k < u; k++ {
		regs[k] = s.loadF32(Mem{Base: a, Index: i, Scale: 4, Disp: 4 * k * s.w}, nil)
		VADDPS(Mem{Base: b, Index: i, Scale: 4, Disp: 4 * k * s.w}, regs[k], regs[k])
	}
	for k := 0; k < u; k++ {
		VMOVNTPS(regs[k], Mem{Base: c, Index: i, Scale: 4, Disp: 4 * k * s.w})
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
	cosConst = GLOBL("cosconst", RODATA|NOPTR)
	DATA(0, U32(0x3f800000))         // float32 1
	DATA(4, U32(0xbf800000))         // float32 -1
	DATA(8, U64(0x3ff0000000000000)) // float64 1
	for k, idx := range []uint32{3, 7, 11, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} {
		DATA(16+4*k, U32(idx))
	}
	for _, s := range []isa{avx2, avx512} {
		for _, k := range []redKind{kSum, kDot, kL2, kDotNorm, kDot3, kDotNormF16} {
			genReduce(s, k)
		}
		genTile(s, "dotTile4"+s.name, []int{2, 1})
		genReduce(s, kSumPF)
		genReduce(s, kSum2)
		genReduce(s, kDotNormPF)
		genDotNormSeq(s, "dotNormSeq"+s.name)
		if s.avx5 {
			genTile(s, "dotTile4x4"+s.name, []int{4})
			genCosTile8(s, "cosTile8x3"+s.name, 3, false, true)
			genCosTile8(s, "cosTile8x3n"+s.name, 3, true, true)
			genCosTile8(s, "cosTile8x2"+s.name, 2, false, false)
			genCosTile8(s, "cosTile8x1"+s.name, 1, false, false)
			genDotNormRows(s, "dotNormRows3"+s.name, 3)
		}
		genStores(s)
		genStreamStores(s)
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
