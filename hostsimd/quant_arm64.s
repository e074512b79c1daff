//go:build !noasm

#include "textflag.h"

// func dotI8RowsSDOT(q *int8, v *int8, d int, n int, out *int32)
// For each of the n rows v_i of v (stride d): out[2i] = Σ q_k·v_ik and
// out[2i+1] = Σ v_ik² over k < d&^15, with SDOT (the ARMv8.2 dot-product
// extension), which sums four byte products into each int32 lane. The
// assembler has no SDOT mnemonic, so each is a WORD:
//   SDOT Vd.4S, Vn.16B, Vm.16B = 0x4E809400 | Rm<<16 | Rn<<5 | Rd.
TEXT ·dotI8RowsSDOT(SB), NOSPLIT, $0-40
	MOVD q+0(FP), R0
	MOVD v+8(FP), R1
	MOVD d+16(FP), R2
	MOVD n+24(FP), R3
	MOVD out+32(FP), R4
	AND  $~15, R2, R5

row:
	CBZ  R3, done
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	MOVD R0, R6
	MOVD R1, R7
	MOVD R5, R8

loop:
	CBZ    R8, reduce
	VLD1.P 16(R6), [V2.B16]
	VLD1.P 16(R7), [V3.B16]
	WORD   $0x4E839440      // SDOT V0.4S, V2.16B, V3.16B
	WORD   $0x4E839461      // SDOT V1.4S, V3.16B, V3.16B
	SUB    $16, R8, R8
	B      loop

reduce:
	VADDV V0.S4, V0
	VADDV V1.S4, V1
	FMOVS F0, R9
	FMOVS F1, R10
	MOVW  R9, (R4)
	MOVW  R10, 4(R4)
	ADD   $8, R4, R4
	ADD   R2, R1, R1
	SUB   $1, R3, R3
	B     row

done:
	RET

// func int8PeakSDOT(iters int) int32
// iters rounds of 8 independent SDOT chains V0..V7 += V8·V9 (each lane
// gains 1·(−2) + 3·1 + 2·(−1) + 1·2 = 1 a round); returns lane 0 of
// their sum. SDOT Vd.4S, V8.16B, V9.16B = 0x4E899500 | Rd.
TEXT ·int8PeakSDOT(SB), NOSPLIT, $0-12
	MOVD iters+0(FP), R0
	MOVW $0x01020301, R1
	VDUP R1, V8.S4
	MOVW $0x02ff01fe, R1
	VDUP R1, V9.S4
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16

peakloop:
	CBZ  R0, peakdone
	WORD $0x4E899500 // SDOT V0.4S, V8.16B, V9.16B
	WORD $0x4E899501 // SDOT V1.4S, V8.16B, V9.16B
	WORD $0x4E899502 // SDOT V2.4S, V8.16B, V9.16B
	WORD $0x4E899503 // SDOT V3.4S, V8.16B, V9.16B
	WORD $0x4E899504 // SDOT V4.4S, V8.16B, V9.16B
	WORD $0x4E899505 // SDOT V5.4S, V8.16B, V9.16B
	WORD $0x4E899506 // SDOT V6.4S, V8.16B, V9.16B
	WORD $0x4E899507 // SDOT V7.4S, V8.16B, V9.16B
	SUB  $1, R0, R0
	B    peakloop

peakdone:
	VADD V1.S4, V0.S4, V0.S4
	VADD V2.S4, V0.S4, V0.S4
	VADD V3.S4, V0.S4, V0.S4
	VADD V4.S4, V0.S4, V0.S4
	VADD V5.S4, V0.S4, V0.S4
	VADD V6.S4, V0.S4, V0.S4
	VADD V7.S4, V0.S4, V0.S4
	VMOV V0.S[0], R1
	MOVW R1, ret+8(FP)
	RET
