//go:build !noasm

package hostsimd

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

func registerArch() {
	c := cpuid.CPU
	if !c.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.F16C, cpuid.BMI2) {
		return
	}
	tables[AVX2] = avx2Kernels()
	if c.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL) {
		tables[AVX512] = avx512Kernels()
	}
}

func ptr(a []float32) *float32 { return unsafe.SliceData(a) }

func avx2Kernels() *kernelTable {
	return &kernelTable{
		level: AVX2,
		dot:   func(a, b []float32) float32 { return dotAVX2(ptr(a), ptr(b), len(a)) },
		l2:    func(a, b []float32) float32 { return l2AVX2(ptr(a), ptr(b), len(a)) },
		dotNorm: func(a, b []float32) (float32, float32) {
			return dotNormAVX2(ptr(a), ptr(b), len(a))
		},
		dot3: func(a, b []float32) (float32, float32, float32) {
			return dot3AVX2(ptr(a), ptr(b), len(a))
		},
		dotNormPF: func(a, b []float32, pfs int) (float32, float32) {
			return dotNormPFAVX2(ptr(a), ptr(b), len(a), pfs)
		},
		dotNormSeq: func(q, v []float32, d, n int, ab, bb []float32, pfs int) {
			dotNormSeq(dotNormSeqAVX2, q, v, d, n, ab, bb, pfs)
		},
		dotNormF16: func(a []float32, b []uint16) (float32, float32) {
			n := len(a) &^ 7
			ab, bb := dotNormF16AVX2(ptr(a), unsafe.SliceData(b), n)
			if n < len(a) {
				tab, tbb := dotNormF16Generic(a[n:], b[n:len(a)])
				ab += tab
				bb += tbb
			}
			return ab, bb
		},
		dotTile4: func(q, v []float32, d, n int, out []float32) {
			dotTile4AVX2(ptr(q), ptr(v), d, n, ptr(out))
		},
		tileW:     8,
		sum:       func(a []float32) float32 { return sumAVX2(ptr(a), len(a)) },
		sumPF:     func(a []float32, pfs int) float32 { return sumPFAVX2(ptr(a), len(a), pfs) },
		sum2:      func(a []float32) float32 { return sum2AVX2(ptr(a), len(a)) },
		fillNT:    func(p []float32, v float32) { fillNTAVX2(ptr(p), len(p), v) },
		copyNT:    func(dst, src []float32) { copyNTAVX2(ptr(dst), ptr(src), len(dst)) },
		triadNT:   func(a, b, c []float32, s float32) { triadNTAVX2(ptr(a), ptr(b), ptr(c), len(a), s) },
		scaleNT:   func(dst, src []float32, s float32) { scaleNTAVX2(ptr(dst), ptr(src), len(dst), s) },
		addNT:     func(c, a, b []float32) { addNTAVX2(ptr(c), ptr(a), ptr(b), len(c)) },
		fmaPeak:   fmaPeakAVX2,
		fmaLanes:  12 * 8,
		ntAlign:   8,
		ntBlock:   32,
		nonTempSt: true,
	}
}

func avx512Kernels() *kernelTable {
	return &kernelTable{
		level: AVX512,
		dot:   func(a, b []float32) float32 { return dotAVX512(ptr(a), ptr(b), len(a)) },
		l2:    func(a, b []float32) float32 { return l2AVX512(ptr(a), ptr(b), len(a)) },
		dotNorm: func(a, b []float32) (float32, float32) {
			return dotNormAVX512(ptr(a), ptr(b), len(a))
		},
		dot3: func(a, b []float32) (float32, float32, float32) {
			return dot3AVX512(ptr(a), ptr(b), len(a))
		},
		dotNormPF: func(a, b []float32, pfs int) (float32, float32) {
			return dotNormPFAVX512(ptr(a), ptr(b), len(a), pfs)
		},
		dotNormF16: func(a []float32, b []uint16) (float32, float32) {
			return dotNormF16AVX512(ptr(a), unsafe.SliceData(b), len(a))
		},
		dotTile4: func(q, v []float32, d, n int, out []float32) {
			n4 := n &^ 3
			if n4 > 0 {
				dotTile4x4AVX512(ptr(q), ptr(v), d, n4, ptr(out))
			}
			if n4 < n {
				dotTile4AVX512(ptr(q), ptr(v[n4*d:]), d, n-n4, ptr(out[n4*4:]))
			}
		},
		tileW:       16,
		cosTile8:    cosTile8AVX512,
		dotNormRows: dotNormRowsAVX512,
		dotNormSeq: func(q, v []float32, d, n int, ab, bb []float32, pfs int) {
			dotNormSeq(dotNormSeqAVX512, q, v, d, n, ab, bb, pfs)
		},
		sum:       func(a []float32) float32 { return sumAVX512(ptr(a), len(a)) },
		sumPF:     func(a []float32, pfs int) float32 { return sumPFAVX512(ptr(a), len(a), pfs) },
		sum2:      func(a []float32) float32 { return sum2AVX512(ptr(a), len(a)) },
		fillNT:    func(p []float32, v float32) { fillNTAVX512(ptr(p), len(p), v) },
		copyNT:    func(dst, src []float32) { copyNTAVX512(ptr(dst), ptr(src), len(dst)) },
		triadNT:   func(a, b, c []float32, s float32) { triadNTAVX512(ptr(a), ptr(b), ptr(c), len(a), s) },
		scaleNT:   func(dst, src []float32, s float32) { scaleNTAVX512(ptr(dst), ptr(src), len(dst), s) },
		addNT:     func(c, a, b []float32) { addNTAVX512(ptr(c), ptr(a), ptr(b), len(c)) },
		fmaPeak:   fmaPeakAVX512,
		fmaLanes:  24 * 16,
		ntAlign:   16,
		ntBlock:   64,
		nonTempSt: true,
	}
}

// cosTile8AVX512 runs blocks of 3 rows through cosTile8x3AVX512 (or
// cosTile8x3nAVX512, which also computes the rows' inverse norms) and the
// last 1 or 2 rows through cosTile8x1AVX512 or cosTile8x2AVX512, after
// checking the slices so the assembly stays inside them (pf is only
// prefetched, never read).
func cosTile8AVX512(q, v []float32, d, n int, out []float32, ldo int, iqs, iv []float32, norms bool, pf []float32, pfs int) {
	if n <= 0 {
		return
	}
	_ = q[8*16*((d+15)/16)-1]
	_ = v[n*d-1]
	_ = out[7*ldo+n-1]
	_ = iqs[47]
	_ = iv[n-1]
	n3 := n - n%3
	if norms {
		for i := n3; i < n; i++ {
			r := v[i*d : (i+1)*d]
			iv[i] = invNorm(dotAVX512(ptr(r), ptr(r), d))
		}
	}
	if n3 > 0 {
		pfp := ptr(pf)
		if len(pf) == 0 {
			// Prefetch a line the kernel reads anyway.
			pfp, pfs = ptr(q), 0
		}
		kern := cosTile8x3AVX512
		if norms {
			kern = cosTile8x3nAVX512
		}
		kern(ptr(q), ptr(v), d, n3, ptr(out), ldo, ptr(iqs), ptr(iv), pfp, pfs)
	}
	switch n - n3 {
	case 2:
		cosTile8x2AVX512(ptr(q), ptr(v[n3*d:]), d, 2, ptr(out[n3:]), ldo, ptr(iqs), ptr(iv[n3:]), nil, 0)
	case 1:
		cosTile8x1AVX512(ptr(q), ptr(v[n3*d:]), d, 1, ptr(out[n3:]), ldo, ptr(iqs), ptr(iv[n3:]), nil, 0)
	}
}

// dotNormRowsAVX512 runs blocks of 3 rows through dotNormRows3AVX512 and
// the last n%3 rows through dotNormAVX512.
func dotNormRowsAVX512(q, v []float32, d, n int, ab, bb []float32, pfs int) {
	dotNormRows3(dotNormRows3AVX512, dotNormAVX512, q, v, d, n, ab, bb, pfs)
}

// dotNormRows3 runs blocks of 3 rows through rows3 and the last n%3 rows
// through one. The blocks whose prefetches (at most pfs + 3 rows past the
// block's start) would leave v run with pfs = 0, so the assembly never
// touches memory outside v.
func dotNormRows3(rows3 func(q, v *float32, d, n int, ab, bb *float32, pfs int), one func(a, b *float32, n int) (float32, float32),
	q, v []float32, d, n int, ab, bb []float32, pfs int) {
	if n <= 0 {
		return
	}
	_ = q[d-1]
	_ = v[n*d-1]
	_ = ab[n-1]
	_ = bb[n-1]
	n3 := n - n%3
	pfs = max(pfs, 0)
	// Blocks b with (b+1)*3*d*4 + pfs <= len(v)*4 may prefetch.
	safe := 0
	if lim := len(v)*4 - pfs; lim > 0 {
		safe = min(n3, lim/(12*d)*3)
	}
	if safe > 0 {
		rows3(ptr(q), ptr(v), d, safe, ptr(ab), ptr(bb), pfs)
	}
	if safe < n3 {
		rows3(ptr(q), ptr(v[safe*d:]), d, n3-safe, ptr(ab[safe:]), ptr(bb[safe:]), 0)
	}
	for i := n3; i < n; i++ {
		ab[i], bb[i] = one(ptr(q), ptr(v[i*d:]), d)
	}
}

// dotNormSeq runs the first n rows of v through seq: the rows whose
// prefetches (pfs bytes past the end of the row at most) stay inside v with
// pfs, the others with pfs = 0, so the assembly never touches memory
// outside v.
func dotNormSeq(seq func(q, v *float32, d, n int, ab, bb *float32, pfs int), q, v []float32, d, n int, ab, bb []float32, pfs int) {
	if n <= 0 {
		return
	}
	_ = q[d-1]
	_ = v[n*d-1]
	_ = ab[n-1]
	_ = bb[n-1]
	pfs = max(pfs, 0)
	// Row i may prefetch when (i+1)*d*4 + pfs <= len(v)*4.
	safe := 0
	if lim := len(v)*4 - pfs; lim > 0 {
		safe = min(n, lim/(4*d))
	}
	if safe > 0 {
		seq(ptr(q), ptr(v), d, safe, ptr(ab), ptr(bb), pfs)
	}
	if safe < n {
		seq(ptr(q), ptr(v[safe*d:]), d, n-safe, ptr(ab[safe:]), ptr(bb[safe:]), 0)
	}
}
