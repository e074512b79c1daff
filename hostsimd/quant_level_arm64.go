//go:build !noasm

package hostsimd

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// The int8 kernel of the NEON level (quant_arm64.s), where the CPU has the
// dot-product extension (SDOT, ARMv8.2 ASIMDDP); without it the NEON
// level runs the generic one.
func init() {
	if cpuid.CPU.Supports(cpuid.ASIMDDP) {
		quantTables[NEON] = quantKernels{name: "neon-sdot", dots: dotsI8SDOT,
			peak: int8PeakSDOT, peakProducts: 8 * 16, peakName: "neon-sdot"}
	}
}

// dotI8RowsSDOT writes, for each of the n rows v_i of v (stride d),
// out[2i] = Σ q_k·v_ik and out[2i+1] = Σ v_ik² over k < d&^15:
//
//	for k := 0; k < d&^15; k++ { out[2i] += q[k]*v[i*d+k]; out[2i+1] += v[i*d+k]*v[i*d+k] }
//
//go:noescape
func dotI8RowsSDOT(q *int8, v *int8, d, n int, out *int32)

// int8PeakSDOT runs iters rounds of 8 independent SDOT chains (8·16 byte
// products a round) on registers and returns lane 0 of their sum.
//
//go:noescape
func int8PeakSDOT(iters int) int32

// dotsI8SDOT runs dotI8RowsSDOT under dotsI8Wide16.
func dotsI8SDOT(q *int8Query, v []int8, n int, dot, ss []int32) {
	var out [2 * int8Block]int32
	d := len(q.c)
	dotsI8Wide16(q, v, n, dot, ss, &out, func(i, m int) {
		dotI8RowsSDOT(unsafe.SliceData(q.c), unsafe.SliceData(v[i*d:]), d, m, &out[0])
	})
}
