//go:build !noasm

// NEON (ASIMD) kernels for arm64, the NEON level of hostsimd.
//
// This file is written by hand: the amd64 kernels are generated with avo
// (see _gen/), but avo only emits amd64 assembly. Each reduction keeps
// several independent 4-lane (.S4) accumulators over a wide main loop,
// then runs a 4-element vector loop and a scalar tail, so any n and any
// alignment work; see the stubs in kernels_arm64.go for each kernel's
// reference loop.
//
// Go's arm64 assembler knows VLD1, VST1, VFMLA, VDUP, VMOV and VEOR, but
// not the floating-point vector add/subtract, pairwise add, half-to-single
// widening or non-temporal store-pair instructions. Those are written as
// WORD encodings through the macros below (arguments are register
// numbers: 5 for V5 or R5); each macro names the instruction it encodes.
//
// scripts/test.sh runs hostsimd's tests on them under qemu-aarch64 on an
// amd64 machine (scripts/test-arm64.sh, which names the test of each
// kernel); qemu timings say nothing about NEON speed on real hardware.
//
// Registers: R0-R13 for pointers and counters (R18 and R26-R30 are left
// alone), V0-V31 freely (these are ABI0 functions).

#include "textflag.h"

// fadd vd.4s, vn.4s, vm.4s
#define FADD4S(d, n, m) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d))

// fsub vd.4s, vn.4s, vm.4s  (vd = vn - vm)
#define FSUB4S(d, n, m) WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d))

// faddp vd.4s, vn.4s, vm.4s  (vd = [n0+n1, n2+n3, m0+m1, m2+m3])
#define FADDP4S(d, n, m) WORD $(0x6E20D400 | ((m)<<16) | ((n)<<5) | (d))

// faddp sd, vn.2s  (sd = n0+n1)
#define FADDP2S(d, n) WORD $(0x7E30D800 | ((n)<<5) | (d))

// fcvtl vd.4s, vn.4h  (widen the low 4 halves)
#define FCVTL4S(d, n) WORD $(0x0E217800 | ((n)<<5) | (d))

// fcvtl2 vd.4s, vn.8h  (widen the high 4 halves)
#define FCVTL24S(d, n) WORD $(0x4E217800 | ((n)<<5) | (d))

// stnp qt, qt2, [xn, #off]  (off a multiple of 16 in [0, 1008])
#define STNPQ(t, t2, n, off) WORD $(0xAC000000 | ((((off)/16)&0x7f)<<15) | ((t2)<<10) | ((n)<<5) | (t))

// HSUM leaves the sum of the 4 lanes of vector v in its scalar sv:
// (v0+v1) + (v2+v3).
#define HSUM(v) FADDP4S(v, v, v); FADDP2S(v, v)

// SUM4 sets va = (va+vb) + (vc+vd).
#define SUM4(a, b, c, d) FADD4S(a, a, b); FADD4S(c, c, d); FADD4S(a, a, c)

#define ZERO4(a, b, c, d) VEOR a.B16, a.B16, a.B16; VEOR b.B16, b.B16, b.B16; VEOR c.B16, c.B16, c.B16; VEOR d.B16, d.B16, d.B16

// func sumNEON(a *float32, n int) float32
TEXT ·sumNEON(SB), NOSPLIT, $0-20
	MOVD a+0(FP), R0
	MOVD n+8(FP), R1
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	LSR  $5, R1, R2
	CBZ  R2, vec4

loop32:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	FADD4S(2, 2, 18)
	FADD4S(3, 3, 19)
	FADD4S(4, 4, 20)
	FADD4S(5, 5, 21)
	FADD4S(6, 6, 22)
	FADD4S(7, 7, 23)
	SUBS   $1, R2, R2
	BNE    loop32

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	FADD4S(0, 0, 4)
	LSR $2, R1, R2
	AND $7, R2, R2
	CBZ R2, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	FADD4S(0, 0, 16)
	SUBS   $1, R2, R2
	BNE    loop4

reduce:
	HSUM(0)
	AND $3, R1, R2
	CBZ R2, done

tail:
	FMOVS.P 4(R0), F16
	FADDS   F16, F0, F0
	SUBS    $1, R2, R2
	BNE     tail

done:
	FMOVS F0, ret+16(FP)
	RET

// func dotNEON(a *float32, b *float32, n int) float32
TEXT ·dotNEON(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	LSR  $5, R2, R3
	CBZ  R3, vec4

loop32:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]
	VFMLA  V16.S4, V24.S4, V0.S4
	VFMLA  V17.S4, V25.S4, V1.S4
	VFMLA  V18.S4, V26.S4, V2.S4
	VFMLA  V19.S4, V27.S4, V3.S4
	VLD1.P 64(R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R1), [V28.S4, V29.S4, V30.S4, V31.S4]
	VFMLA  V20.S4, V28.S4, V4.S4
	VFMLA  V21.S4, V29.S4, V5.S4
	VFMLA  V22.S4, V30.S4, V6.S4
	VFMLA  V23.S4, V31.S4, V7.S4
	SUBS   $1, R3, R3
	BNE    loop32

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	FADD4S(0, 0, 4)
	LSR $2, R2, R3
	AND $7, R3, R3
	CBZ R3, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 16(R1), [V24.S4]
	VFMLA  V16.S4, V24.S4, V0.S4
	SUBS   $1, R3, R3
	BNE    loop4

reduce:
	HSUM(0)
	AND $3, R2, R3
	CBZ R3, done

tail:
	FMOVS.P 4(R0), F16
	FMOVS.P 4(R1), F17
	FMADDS  F17, F0, F16, F0 // s0 += s16*s17
	SUBS    $1, R3, R3
	BNE     tail

done:
	FMOVS F0, ret+24(FP)
	RET

// func l2NEON(a *float32, b *float32, n int) float32
TEXT ·l2NEON(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	LSR  $5, R2, R3
	CBZ  R3, vec4

loop32:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1.P 64(R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R1), [V28.S4, V29.S4, V30.S4, V31.S4]
	FSUB4S(16, 16, 24)
	FSUB4S(17, 17, 25)
	FSUB4S(18, 18, 26)
	FSUB4S(19, 19, 27)
	FSUB4S(20, 20, 28)
	FSUB4S(21, 21, 29)
	FSUB4S(22, 22, 30)
	FSUB4S(23, 23, 31)
	VFMLA  V16.S4, V16.S4, V0.S4
	VFMLA  V17.S4, V17.S4, V1.S4
	VFMLA  V18.S4, V18.S4, V2.S4
	VFMLA  V19.S4, V19.S4, V3.S4
	VFMLA  V20.S4, V20.S4, V4.S4
	VFMLA  V21.S4, V21.S4, V5.S4
	VFMLA  V22.S4, V22.S4, V6.S4
	VFMLA  V23.S4, V23.S4, V7.S4
	SUBS   $1, R3, R3
	BNE    loop32

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	FADD4S(0, 0, 4)
	LSR $2, R2, R3
	AND $7, R3, R3
	CBZ R3, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 16(R1), [V24.S4]
	FSUB4S(16, 16, 24)
	VFMLA  V16.S4, V16.S4, V0.S4
	SUBS   $1, R3, R3
	BNE    loop4

reduce:
	HSUM(0)
	AND $3, R2, R3
	CBZ R3, done

tail:
	FMOVS.P 4(R0), F16
	FMOVS.P 4(R1), F17
	FSUBS   F17, F16, F16    // s16 -= s17
	FMADDS  F16, F0, F16, F0 // s0 += s16*s16
	SUBS    $1, R3, R3
	BNE     tail

done:
	FMOVS F0, ret+24(FP)
	RET

// func dotNormNEON(a *float32, b *float32, n int) (ab float32, bb float32)
TEXT ·dotNormNEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3) // a·b
	ZERO4(V4, V5, V6, V7) // b·b
	LSR  $4, R2, R3
	CBZ  R3, vec4

loop16:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V20.S4, V20.S4, V4.S4
	VFMLA  V21.S4, V21.S4, V5.S4
	VFMLA  V22.S4, V22.S4, V6.S4
	VFMLA  V23.S4, V23.S4, V7.S4
	SUBS   $1, R3, R3
	BNE    loop16

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	LSR $2, R2, R3
	AND $3, R3, R3
	CBZ R3, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 16(R1), [V20.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V20.S4, V20.S4, V4.S4
	SUBS   $1, R3, R3
	BNE    loop4

reduce:
	HSUM(0)
	HSUM(4)
	AND $3, R2, R3
	CBZ R3, done

tail:
	FMOVS.P 4(R0), F16
	FMOVS.P 4(R1), F20
	FMADDS  F20, F0, F16, F0 // s0 += s16*s20
	FMADDS  F20, F4, F20, F4 // s4 += s20*s20
	SUBS    $1, R3, R3
	BNE     tail

done:
	FMOVS F0, ab+24(FP)
	FMOVS F4, bb+28(FP)
	RET

// func dot3NEON(a *float32, b *float32, n int) (ab float32, aa float32, bb float32)
TEXT ·dot3NEON(SB), NOSPLIT, $0-36
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3)   // a·b
	ZERO4(V4, V5, V6, V7)   // a·a
	ZERO4(V8, V9, V10, V11) // b·b
	LSR  $4, R2, R3
	CBZ  R3, vec4

loop16:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V16.S4, V16.S4, V4.S4
	VFMLA  V17.S4, V17.S4, V5.S4
	VFMLA  V18.S4, V18.S4, V6.S4
	VFMLA  V19.S4, V19.S4, V7.S4
	VFMLA  V20.S4, V20.S4, V8.S4
	VFMLA  V21.S4, V21.S4, V9.S4
	VFMLA  V22.S4, V22.S4, V10.S4
	VFMLA  V23.S4, V23.S4, V11.S4
	SUBS   $1, R3, R3
	BNE    loop16

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	SUM4(8, 9, 10, 11)
	LSR $2, R2, R3
	AND $3, R3, R3
	CBZ R3, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 16(R1), [V20.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V16.S4, V16.S4, V4.S4
	VFMLA  V20.S4, V20.S4, V8.S4
	SUBS   $1, R3, R3
	BNE    loop4

reduce:
	HSUM(0)
	HSUM(4)
	HSUM(8)
	AND $3, R2, R3
	CBZ R3, done

tail:
	FMOVS.P 4(R0), F16
	FMOVS.P 4(R1), F20
	FMADDS  F20, F0, F16, F0 // s0 += s16*s20
	FMADDS  F16, F4, F16, F4 // s4 += s16*s16
	FMADDS  F20, F8, F20, F8 // s8 += s20*s20
	SUBS    $1, R3, R3
	BNE     tail

done:
	FMOVS F0, ab+24(FP)
	FMOVS F4, aa+28(FP)
	FMOVS F8, bb+32(FP)
	RET

// func dotNormF16NEON(a *float32, b *uint16, n int) (ab float32, bb float32)
TEXT ·dotNormF16NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	ZERO4(V0, V1, V2, V3) // a·b
	ZERO4(V4, V5, V6, V7) // b·b
	LSR  $4, R2, R3
	CBZ  R3, vec4

loop16:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 32(R1), [V24.H8, V25.H8]
	FCVTL4S(20, 24)
	FCVTL24S(21, 24)
	FCVTL4S(22, 25)
	FCVTL24S(23, 25)
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V20.S4, V20.S4, V4.S4
	VFMLA  V21.S4, V21.S4, V5.S4
	VFMLA  V22.S4, V22.S4, V6.S4
	VFMLA  V23.S4, V23.S4, V7.S4
	SUBS   $1, R3, R3
	BNE    loop16

vec4:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	LSR $2, R2, R3
	AND $3, R3, R3
	CBZ R3, reduce

loop4:
	VLD1.P 16(R0), [V16.S4]
	VLD1.P 8(R1), [V24.H4]
	FCVTL4S(20, 24)
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V20.S4, V20.S4, V4.S4
	SUBS   $1, R3, R3
	BNE    loop4

reduce:
	HSUM(0)
	HSUM(4)
	AND $3, R2, R3
	CBZ R3, done

tail:
	VLD1.P  2(R1), V24.H[0]
	FCVTL4S(20, 24)          // lane 0 of v20 is the widened half
	FMOVS.P 4(R0), F16
	FMADDS  F20, F0, F16, F0 // s0 += s16*s20
	FMADDS  F20, F4, F20, F4 // s4 += s20*s20
	SUBS    $1, R3, R3
	BNE     tail

done:
	FMOVS F0, ab+24(FP)
	FMOVS F4, bb+28(FP)
	RET

// TILE_FMA4 accumulates the query chunk V16-V19 (queries 0-3) times the
// row chunks V20-V23 (rows 0-3) into V0-V15: V(4*row+query).
#define TILE_FMA4 \
	VFMLA V16.S4, V20.S4, V0.S4;  \
	VFMLA V17.S4, V20.S4, V1.S4;  \
	VFMLA V18.S4, V20.S4, V2.S4;  \
	VFMLA V19.S4, V20.S4, V3.S4;  \
	VFMLA V16.S4, V21.S4, V4.S4;  \
	VFMLA V17.S4, V21.S4, V5.S4;  \
	VFMLA V18.S4, V21.S4, V6.S4;  \
	VFMLA V19.S4, V21.S4, V7.S4;  \
	VFMLA V16.S4, V22.S4, V8.S4;  \
	VFMLA V17.S4, V22.S4, V9.S4;  \
	VFMLA V18.S4, V22.S4, V10.S4; \
	VFMLA V19.S4, V22.S4, V11.S4; \
	VFMLA V16.S4, V23.S4, V12.S4; \
	VFMLA V17.S4, V23.S4, V13.S4; \
	VFMLA V18.S4, V23.S4, V14.S4; \
	VFMLA V19.S4, V23.S4, V15.S4

// TILE_FMA1 is TILE_FMA4 for one row (V20) into V0-V3.
#define TILE_FMA1 \
	VFMLA V16.S4, V20.S4, V0.S4; \
	VFMLA V17.S4, V20.S4, V1.S4; \
	VFMLA V18.S4, V20.S4, V2.S4; \
	VFMLA V19.S4, V20.S4, V3.S4

// ROWSUM sets vd = [sum(va), sum(vb), sum(vc), sum(ve)] (the 4 query
// dots of one row), using V16 and V17 as scratch.
#define ROWSUM(d, a, b, c, e) FADDP4S(16, a, b); FADDP4S(17, c, e); FADDP4S(d, 16, 17)

// func dotTile4NEON(q *float32, v *float32, d int, n int, out *float32)
TEXT ·dotTile4NEON(SB), NOSPLIT, $0-40
	MOVD q+0(FP), R0
	MOVD v+8(FP), R4
	MOVD d+16(FP), R1
	MOVD n+24(FP), R2
	MOVD out+32(FP), R3
	LSR  $2, R1, R9  // whole 4-element chunks per row
	AND  $3, R1, R10 // elements left in each row
	LSL  $2, R1, R11 // row stride in bytes
	LSR  $2, R2, R12 // blocks of 4 rows
	CBZ  R12, rows1

block4:
	ADD  R11, R4, R5 // R4-R7: rows i..i+3
	ADD  R11, R5, R6
	ADD  R11, R6, R7
	MOVD R0, R8
	ZERO4(V0, V1, V2, V3)
	ZERO4(V4, V5, V6, V7)
	ZERO4(V8, V9, V10, V11)
	ZERO4(V12, V13, V14, V15)
	MOVD R9, R13
	CBZ  R13, rem4

loop4:
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 16(R4), [V20.S4]
	VLD1.P 16(R5), [V21.S4]
	VLD1.P 16(R6), [V22.S4]
	VLD1.P 16(R7), [V23.S4]
	TILE_FMA4
	SUBS   $1, R13, R13
	BNE    loop4

rem4:
	CBZ  R10, store4
	VLD1 (R8), [V16.S4, V17.S4, V18.S4, V19.S4] // last chunk, zero-padded
	ZERO4(V20, V21, V22, V23)
	VLD1.P 4(R4), V20.S[0]
	VLD1.P 4(R5), V21.S[0]
	VLD1.P 4(R6), V22.S[0]
	VLD1.P 4(R7), V23.S[0]
	CMP    $2, R10
	BLT    fma4
	VLD1.P 4(R4), V20.S[1]
	VLD1.P 4(R5), V21.S[1]
	VLD1.P 4(R6), V22.S[1]
	VLD1.P 4(R7), V23.S[1]
	CMP    $3, R10
	BLT    fma4
	VLD1.P 4(R4), V20.S[2]
	VLD1.P 4(R5), V21.S[2]
	VLD1.P 4(R6), V22.S[2]
	VLD1.P 4(R7), V23.S[2]

fma4:
	TILE_FMA4

store4:
	ROWSUM(24, 0, 1, 2, 3)
	ROWSUM(25, 4, 5, 6, 7)
	ROWSUM(26, 8, 9, 10, 11)
	ROWSUM(27, 12, 13, 14, 15)
	VST1.P [V24.S4, V25.S4, V26.S4, V27.S4], 64(R3)
	MOVD   R7, R4 // R7 ends where row i+4 starts
	SUBS   $1, R12, R12
	BNE    block4

rows1:
	AND $3, R2, R12
	CBZ R12, done

row1:
	MOVD R0, R8
	ZERO4(V0, V1, V2, V3)
	MOVD R9, R13
	CBZ  R13, rem1

loop1:
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 16(R4), [V20.S4]
	TILE_FMA1
	SUBS   $1, R13, R13
	BNE    loop1

rem1:
	CBZ    R10, store1
	VLD1   (R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VEOR   V20.B16, V20.B16, V20.B16
	VLD1.P 4(R4), V20.S[0]
	CMP    $2, R10
	BLT    fma1
	VLD1.P 4(R4), V20.S[1]
	CMP    $3, R10
	BLT    fma1
	VLD1.P 4(R4), V20.S[2]

fma1:
	TILE_FMA1

store1:
	ROWSUM(24, 0, 1, 2, 3)
	VST1.P [V24.S4], 16(R3)
	SUBS   $1, R12, R12
	BNE    row1

done:
	RET

// func fillNTNEON(p *float32, n int, v float32)
TEXT ·fillNTNEON(SB), NOSPLIT, $0-20
	MOVD  p+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS v+16(FP), F0
	VDUP  V0.S[0], V0.S4
	VMOV  V0.B16, V1.B16
	LSR   $4, R1, R1
	CBZ   R1, done

loop:
	STNPQ(0, 1, 0, 0)  // stnp q0, q1, [x0]
	STNPQ(0, 1, 0, 32) // stnp q0, q1, [x0, #32]
	ADD   $64, R0
	SUBS  $1, R1, R1
	BNE   loop

done:
	RET

// func copyNTNEON(dst *float32, src *float32, n int)
TEXT ·copyNTNEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	LSR  $4, R2, R2
	CBZ  R2, done

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	STNPQ(0, 1, 0, 0)  // stnp q0, q1, [x0]
	STNPQ(2, 3, 0, 32) // stnp q2, q3, [x0, #32]
	ADD    $64, R0
	SUBS   $1, R2, R2
	BNE    loop

done:
	RET

// func triadNTNEON(a *float32, b *float32, c *float32, n int, s float32)
TEXT ·triadNTNEON(SB), NOSPLIT, $0-36
	MOVD  a+0(FP), R0
	MOVD  b+8(FP), R1
	MOVD  c+16(FP), R2
	MOVD  n+24(FP), R3
	FMOVS s+32(FP), F31
	VDUP  V31.S[0], V31.S4
	LSR   $4, R3, R3
	CBZ   R3, done

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA  V4.S4, V31.S4, V0.S4
	VFMLA  V5.S4, V31.S4, V1.S4
	VFMLA  V6.S4, V31.S4, V2.S4
	VFMLA  V7.S4, V31.S4, V3.S4
	STNPQ(0, 1, 0, 0)  // stnp q0, q1, [x0]
	STNPQ(2, 3, 0, 32) // stnp q2, q3, [x0, #32]
	ADD    $64, R0
	SUBS   $1, R3, R3
	BNE    loop

done:
	RET

// FMA24 is one round of the 24 chains V0-V23 += V24*V25.
#define FMA24 \
	VFMLA V24.S4, V25.S4, V0.S4;  \
	VFMLA V24.S4, V25.S4, V1.S4;  \
	VFMLA V24.S4, V25.S4, V2.S4;  \
	VFMLA V24.S4, V25.S4, V3.S4;  \
	VFMLA V24.S4, V25.S4, V4.S4;  \
	VFMLA V24.S4, V25.S4, V5.S4;  \
	VFMLA V24.S4, V25.S4, V6.S4;  \
	VFMLA V24.S4, V25.S4, V7.S4;  \
	VFMLA V24.S4, V25.S4, V8.S4;  \
	VFMLA V24.S4, V25.S4, V9.S4;  \
	VFMLA V24.S4, V25.S4, V10.S4; \
	VFMLA V24.S4, V25.S4, V11.S4; \
	VFMLA V24.S4, V25.S4, V12.S4; \
	VFMLA V24.S4, V25.S4, V13.S4; \
	VFMLA V24.S4, V25.S4, V14.S4; \
	VFMLA V24.S4, V25.S4, V15.S4; \
	VFMLA V24.S4, V25.S4, V16.S4; \
	VFMLA V24.S4, V25.S4, V17.S4; \
	VFMLA V24.S4, V25.S4, V18.S4; \
	VFMLA V24.S4, V25.S4, V19.S4; \
	VFMLA V24.S4, V25.S4, V20.S4; \
	VFMLA V24.S4, V25.S4, V21.S4; \
	VFMLA V24.S4, V25.S4, V22.S4; \
	VFMLA V24.S4, V25.S4, V23.S4

#define DUP4(s, a, b, c, d) VMOV s.B16, a.B16; VMOV s.B16, b.B16; VMOV s.B16, c.B16; VMOV s.B16, d.B16

// func fmaPeakNEON(iters int, m float32, c float32) float32
TEXT ·fmaPeakNEON(SB), NOSPLIT, $0-20
	MOVD  iters+0(FP), R0
	FMOVS m+8(FP), F24
	FMOVS c+12(FP), F25
	VDUP  V24.S[0], V24.S4
	VDUP  V25.S[0], V25.S4
	DUP4(V25, V0, V1, V2, V3)
	DUP4(V25, V4, V5, V6, V7)
	DUP4(V25, V8, V9, V10, V11)
	DUP4(V25, V12, V13, V14, V15)
	DUP4(V25, V16, V17, V18, V19)
	DUP4(V25, V20, V21, V22, V23)
	CMP   $0, R0
	BLE   sum

loop:
	FMA24
	SUBS $1, R0, R0
	BNE  loop

sum:
	SUM4(0, 1, 2, 3)
	SUM4(4, 5, 6, 7)
	SUM4(8, 9, 10, 11)
	SUM4(12, 13, 14, 15)
	SUM4(16, 17, 18, 19)
	SUM4(20, 21, 22, 23)
	SUM4(0, 4, 8, 12)
	FADD4S(16, 16, 20)
	FADD4S(0, 0, 16)
	HSUM(0)
	FMOVS F0, ret+16(FP)
	RET
