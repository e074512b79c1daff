// Command quant generates the amd64 assembly of package hostsimd's int8
// kernels with avo. Run it through `go generate` in the hostsimd directory
// (see quant.go there), which writes quant_amd64.s and its Go stubs
// quant_amd64.go.
//
// Two kernels, each over n rows of d int8 codes with stride d:
//
//   - dotI8RowsVNNI (AVX512F/BW + AVX512_VNNI): VPDPBUSD multiplies
//     unsigned by signed bytes, so each row byte is biased to unsigned,
//     u = v XOR 0x80 = v+128, and three sums are kept per row: Σu·q, Σu·v
//     and Σu (VPDPBUSD against a vector of ones). The caller recovers
//     q·v = Σu·q − 128·Σq and v·v = Σu·v − 128·Σv with Σv = Σu − 128·L,
//     L the lanes read (d rounded up to 64). This is exact for every int8
//     value, −128 included. The query must be padded with zeros to L bytes;
//     a row's last partial block is read with a zeroing byte mask.
//   - dotI8RowsAVX2 (AVX2): sign-extends 16 row bytes to int16
//     (VPMOVSXBW) and multiplies them with the query widened to int16 by
//     VPMADDWD, which sums pairs into int32: q·v and v·v directly. It reads
//     the first d&^15 bytes of each row; the caller adds the rest.
//
// Sums are int32 lanes: exact while d ≤ 65536 (each sum is bounded by
// d·255·128 < 2³¹).
package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// vpdpbusd emits VPDPBUSD (AVX512_VNNI), which avo's instruction table
// lacks: acc += Σ₄ unsigned(u)·signed(s) per int32 lane. Go's operand order
// is signed source, unsigned source, accumulator.
func vpdpbusd(s, u Op, acc VecVirtual) {
	Instruction(&ir.Instruction{
		Opcode:   "VPDPBUSD",
		Operands: []Op{s, u, acc},
		Inputs:   []Op{s, u, acc},
		Outputs:  []Op{acc},
		ISA:      []string{"AVX512_VNNI"},
	})
}

// hsumZ reduces the 16 int32 lanes of z and stores the sum at m.
func hsumZ(z VecVirtual, m Mem) {
	y := YMM()
	VEXTRACTI64X4(U8(1), z, y)
	VPADDD(z.AsY(), y, y)
	hsumY(y, m)
}

// hsumY reduces the 8 int32 lanes of y and stores the sum at m.
func hsumY(y VecVirtual, m Mem) {
	x := XMM()
	VEXTRACTI128(U8(1), y, x)
	VPADDD(y.AsX(), x, x)
	t := XMM()
	VPSHUFD(U8(0x4e), x, t)
	VPADDD(t, x, x)
	VPSHUFD(U8(0xb1), x, t)
	VPADDD(t, x, x)
	VMOVD(x, m)
}

func genVNNI() {
	const name = "dotI8RowsVNNI"
	TEXT(name, NOSPLIT, "func(q, v *int8, d, n int, out *int32)")
	Pragma("noescape")
	Doc(name+" writes, for each of the n rows v_i of v (stride d), out[3i] = Σu·q,",
		"out[3i+1] = Σu·v_i and out[3i+2] = Σu with u = v_i+128 as unsigned bytes,",
		"summed over d rounded up to 64 lanes (v_i reads as 0 past d, so u as 128);",
		"q is padded with zeros to that length. Needs AVX512F, AVX512BW and AVX512_VNNI.")
	qp := Load(Param("q"), GP64())
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	op := Load(Param("out"), GP64())

	bias, ones := ZMM(), ZMM()
	c := GP32()
	MOVL(U32(0x80808080), c)
	VPBROADCASTD(c, bias)
	MOVL(U32(0x01010101), c)
	VPBROADCASTD(c, ones)

	// k: the first d%64 bytes of a block.
	rem := GP64()
	MOVQ(d, rem)
	ANDQ(U8(63), rem)
	all := GP64()
	MOVQ(I32(-1), all)
	m := GP64()
	BZHIQ(rem, all, m)
	k := K()
	KMOVQ(m, k)
	full := GP64() // d rounded down to 64
	MOVQ(d, full)
	ANDQ(I32(-64), full)
	big := GP64() // d rounded down to 128
	MOVQ(d, big)
	ANDQ(I32(-128), big)

	Label(name + "_row")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	var acc [2][3]VecVirtual
	for u := range acc {
		for j := range acc[u] {
			acc[u][j] = ZMM()
			VPXORD(acc[u][j], acc[u][j], acc[u][j])
		}
	}
	i := GP64()
	XORQ(i, i)
	x, ub := ZMM(), ZMM()
	block := func(a [3]VecVirtual, off int, masked bool) {
		vm := Mem{Base: vp, Index: i, Scale: 1, Disp: off}
		if masked {
			VMOVDQU8_Z(vm, k, x)
		} else {
			VMOVDQU64(vm, x)
		}
		VPXORD(bias, x, ub)
		vpdpbusd(Mem{Base: qp, Index: i, Scale: 1, Disp: off}, ub, a[0])
		vpdpbusd(x, ub, a[1])
		vpdpbusd(ones, ub, a[2])
	}
	Label(name + "_loop2")
	CMPQ(i, big)
	JAE(LabelRef(name + "_loop1"))
	block(acc[0], 0, false)
	block(acc[1], 64, false)
	ADDQ(U8(128), i)
	JMP(LabelRef(name + "_loop2"))
	Label(name + "_loop1")
	CMPQ(i, full)
	JAE(LabelRef(name + "_tail"))
	block(acc[0], 0, false)
	ADDQ(U8(64), i)
	Label(name + "_tail")
	KORTESTQ(k, k)
	JZ(LabelRef(name + "_reduce"))
	block(acc[1], 0, true)
	Label(name + "_reduce")
	for j := 0; j < 3; j++ {
		VPADDD(acc[1][j], acc[0][j], acc[0][j])
		hsumZ(acc[0][j], Mem{Base: op, Disp: 4 * j})
	}
	ADDQ(U8(12), op)
	ADDQ(d, vp)
	DECQ(n)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

func genAVX2() {
	const name = "dotI8RowsAVX2"
	TEXT(name, NOSPLIT, "func(qw *int16, v *int8, d, n int, out *int32)")
	Pragma("noescape")
	Doc(name+" writes, for each of the n rows v_i of v (stride d), out[2i] = Σ q_k·v_ik",
		"and out[2i+1] = Σ v_ik² over k < d&^15, with the query widened to int16 in qw.",
		"Needs AVX2.")
	qp := Load(Param("qw"), GP64())
	vp := Load(Param("v"), GP64())
	d := Load(Param("d"), GP64())
	n := Load(Param("n"), GP64())
	op := Load(Param("out"), GP64())
	full := GP64()
	MOVQ(d, full)
	ANDQ(I32(-16), full)
	big := GP64()
	MOVQ(d, big)
	ANDQ(I32(-32), big)

	Label(name + "_row")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	var acc [2][2]VecVirtual
	for u := range acc {
		for j := range acc[u] {
			acc[u][j] = YMM()
			VPXOR(acc[u][j], acc[u][j], acc[u][j])
		}
	}
	i := GP64()
	XORQ(i, i)
	x, t := YMM(), YMM()
	block := func(a [2]VecVirtual, off int) {
		VPMOVSXBW(Mem{Base: vp, Index: i, Scale: 1, Disp: off}, x)
		VPMADDWD(Mem{Base: qp, Index: i, Scale: 2, Disp: 2 * off}, x, t)
		VPADDD(t, a[0], a[0])
		VPMADDWD(x, x, t)
		VPADDD(t, a[1], a[1])
	}
	Label(name + "_loop2")
	CMPQ(i, big)
	JAE(LabelRef(name + "_loop1"))
	block(acc[0], 0)
	block(acc[1], 16)
	ADDQ(U8(32), i)
	JMP(LabelRef(name + "_loop2"))
	Label(name + "_loop1")
	CMPQ(i, full)
	JAE(LabelRef(name + "_reduce"))
	block(acc[0], 0)
	Label(name + "_reduce")
	for j := 0; j < 2; j++ {
		VPADDD(acc[1][j], acc[0][j], acc[0][j])
		hsumY(acc[0][j], Mem{Base: op, Disp: 4 * j})
	}
	ADDQ(U8(8), op)
	ADDQ(d, vp)
	DECQ(n)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// peakChains is the number of independent accumulators of the int8 peak
// kernels: more than the instructions' latency × issue rate on current
// cores, so the chains measure throughput.
const peakChains = 12

// genPeakVNNI: int8PeakVNNI runs iters rounds of peakChains independent
// VPDPBUSD (64 byte products each) on registers and returns lane 0 of
// their sum, so the work cannot be removed.
func genPeakVNNI() {
	const name = "int8PeakVNNI"
	TEXT(name, NOSPLIT, "func(iters int) int32")
	Doc(name+" runs iters rounds of 12 independent VPDPBUSD chains on 512-bit",
		"registers (12·64 byte products a round) and returns lane 0 of their sum.",
		"Needs AVX512F and AVX512_VNNI.")
	n := Load(Param("iters"), GP64())
	a, b := ZMM(), ZMM()
	c := GP32()
	MOVL(U32(0x01020301), c)
	VPBROADCASTD(c, a)
	MOVL(U32(0x02ff01fe), c)
	VPBROADCASTD(c, b)
	var acc [peakChains]VecVirtual
	for j := range acc {
		acc[j] = ZMM()
		VPXORD(acc[j], acc[j], acc[j])
	}
	Label(name + "_loop")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	for j := range acc {
		vpdpbusd(b, a, acc[j])
	}
	DECQ(n)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	for j := 1; j < peakChains; j++ {
		VPADDD(acc[j], acc[0], acc[0])
	}
	r := GP32()
	VMOVD(acc[0].AsX(), r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// genPeakAVX2: int8PeakAVX2 runs the AVX2 int8 dot-product sequence
// (VPMADDUBSW: 32 unsigned×signed byte products summed in pairs to int16;
// VPMADDWD by ones: pairs to int32; VPADDD) on peakChains/2 independent
// chains.
func genPeakAVX2() {
	const name = "int8PeakAVX2"
	TEXT(name, NOSPLIT, "func(iters int) int32")
	Doc(name+" runs iters rounds of 6 independent VPMADDUBSW + VPMADDWD + VPADDD",
		"chains on 256-bit registers (6·32 byte products a round) and returns lane 0",
		"of their sum. Needs AVX2.")
	n := Load(Param("iters"), GP64())
	a, b, ones := YMM(), YMM(), YMM()
	c := GP32()
	MOVL(U32(0x01020301), c)
	MOVD(c, a.AsX())
	VPBROADCASTD(a.AsX(), a)
	MOVL(U32(0x02ff01fe), c)
	MOVD(c, b.AsX())
	VPBROADCASTD(b.AsX(), b)
	MOVL(U32(0x00010001), c)
	MOVD(c, ones.AsX())
	VPBROADCASTD(ones.AsX(), ones)
	var acc, t [peakChains / 2]VecVirtual
	for j := range acc {
		acc[j], t[j] = YMM(), YMM()
		VPXOR(acc[j], acc[j], acc[j])
	}
	Label(name + "_loop")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	for j := range acc {
		VPMADDUBSW(b, a, t[j])
		VPMADDWD(ones, t[j], t[j])
		VPADDD(t[j], acc[j], acc[j])
	}
	DECQ(n)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	for j := 1; j < len(acc); j++ {
		VPADDD(acc[j], acc[0], acc[0])
	}
	r := GP32()
	VMOVD(acc[0].AsX(), r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

func main() {
	ConstraintExpr("!noasm")
	genVNNI()
	genAVX2()
	genPeakVNNI()
	genPeakAVX2()
	Generate()
}
