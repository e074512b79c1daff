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
