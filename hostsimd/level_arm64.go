//go:build !noasm

package hostsimd

import "unsafe"

// registerArch adds the NEON level. Advanced SIMD (ASIMD, "NEON") with
// the half-to-single FCVTL is part of the ARMv8.0 baseline Go requires on
// arm64, so there is nothing to detect.
func registerArch() {
	tables[NEON] = neonKernels()
}

func ptr(a []float32) *float32 { return unsafe.SliceData(a) }

// neonKernels is the NEON level: every field is a NEON kernel from
// kernels_arm64.s, none falls back to Generic.
func neonKernels() *kernelTable {
	return &kernelTable{
		level: NEON,
		dot:   func(a, b []float32) float32 { return dotNEON(ptr(a), ptr(b), len(a)) },
		l2:    func(a, b []float32) float32 { return l2NEON(ptr(a), ptr(b), len(a)) },
		dotNorm: func(a, b []float32) (float32, float32) {
			return dotNormNEON(ptr(a), ptr(b), len(a))
		},
		dot3: func(a, b []float32) (float32, float32, float32) {
			return dot3NEON(ptr(a), ptr(b), len(a))
		},
		dotNormF16: func(a []float32, b []uint16) (float32, float32) {
			return dotNormF16NEON(ptr(a), unsafe.SliceData(b), len(a))
		},
		// 4 queries × 4 rows, queries packed in 4-float chunks (one
		// vector per query per chunk).
		dotTile4: func(q, v []float32, d, n int, out []float32) {
			dotTile4NEON(ptr(q), ptr(v), d, n, ptr(out))
		},
		tileW:   4,
		sum:     func(a []float32) float32 { return sumNEON(ptr(a), len(a)) },
		fillNT:  func(p []float32, v float32) { fillNTNEON(ptr(p), len(p), v) },
		copyNT:  func(dst, src []float32) { copyNTNEON(ptr(dst), ptr(src), len(dst)) },
		triadNT: func(a, b, c []float32, s float32) { triadNTNEON(ptr(a), ptr(b), ptr(c), len(a), s) },
		// Mul has no NEON kernel yet: the Go loop (the compiler's scalar
		// code). Add is the triad with s = 1 (a fused a + 1*b rounds
		// exactly as a + b).
		scaleNT:  scaleGeneric,
		addNT:    func(c, a, b []float32) { triadNTNEON(ptr(c), ptr(a), ptr(b), len(c), 1) },
		fmaPeak:  fmaPeakNEON,
		fmaLanes: 24 * 4,
		// STNP works on any address; a cache-line aligned destination
		// is what MeasureCeilings passes and lets whole lines be written.
		ntAlign:   16,
		ntBlock:   16,
		nonTempSt: true, // STNP is a hint: the core may still allocate lines
	}
}
