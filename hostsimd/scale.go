package hostsimd

import (
	"math"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Cosines over the whole float32 range.
//
// The kernels accumulate a·b, a·a and b·b in float32. For vectors whose
// squared norm leaves float32's range the fast path is wrong: with
// elements near 1e30 a·a overflows to +Inf (the cosine comes out 0, or NaN
// when a·b overflows too), near 1e-30 it underflows to 0 (the cosine comes
// out 0). Two rules keep the fast path for ordinary data and make the rare
// rows right (TestCosineExtremeScales checks them against float64 at every
// level):
//
//   - a query whose q·q is out of range is multiplied by the power of two
//     that brings its norm near 1 (exact: only the exponent changes, and a
//     cosine does not depend on the scale), once per call;
//   - a row whose v·v is out of range is computed again in float64
//     (cosine64), where the squares of any float32 stay in range.
//
// In range means v·v in [normLo, MaxFloat32]: a finite v·v bounds every
// partial sum of a·a and (Cauchy–Schwarz) of |a·b| too, so nothing
// overflowed; above normLo the squares that fell to subnormals (|x| <
// 2⁻⁶³) lose at most d·2⁻¹²⁶ of it, relative error d·2⁻⁴⁶ (1e-11 at
// d = 768). Zero vectors and NaNs count as out of range and take the
// float64 path, which gives the same 0 and NaN.

// normLo is the smallest squared norm the float32 fast path is trusted
// with (see above).
const normLo = 0x1p-80

// normOK reports whether a squared norm from the float32 kernels is in
// the range they compute exactly enough.
func normOK(ss float32) bool { return ss >= normLo && ss <= math.MaxFloat32 }

// cosine64 is Cosine computed in float64 (each square of a float32 is in
// range there): 0 for a zero vector, NaN for a NaN input.
func cosine64(a, b []float32) float32 {
	b = b[:len(a)]
	var ab, aa, bb float64
	for i, x := range a {
		y := float64(b[i])
		ab += float64(x) * y
		aa += float64(x) * float64(x)
		bb += y * y
	}
	if ab != ab || aa != aa || bb != bb {
		return float32(math.NaN())
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	if math.IsInf(aa, 0) || math.IsInf(bb, 0) || math.IsInf(ab, 0) {
		// An infinite element: no cosine.
		return float32(math.NaN())
	}
	return clampCos(ab / math.Sqrt(aa*bb))
}

// cosineF16x64 is cosine64 with b stored as binary16 bits.
func cosineF16x64(a []float32, b []uint16) float32 {
	w := make([]float32, len(a))
	for i := range w {
		w[i] = ops.F16ToF32(b[i])
	}
	return cosine64(a, w)
}

// scaleQuery returns q and q·q when q·q is in range; otherwise a copy of q
// times the power of two that brings its norm near 1, and that copy's
// squared norm. A zero or NaN q is returned as it is, and a q with an
// infinite element with a NaN squared norm (its cosines are NaN).
func scaleQuery(k *kernelTable, q []float32) ([]float32, float32) {
	qq := k.dot(q, q)
	if normOK(qq) {
		return q, qq
	}
	var ss float64
	for _, x := range q {
		ss += float64(x) * float64(x)
	}
	switch {
	case math.IsInf(ss, 0):
		// An infinite element: no cosine with any row.
		return q, float32(math.NaN())
	case !(ss > 0):
		return q, qq // zero (every cosine 0) or NaN (every cosine NaN)
	}
	// 2^e with e = −round(log2 ‖q‖): the norm becomes about 1.
	e := -int(math.Round(math.Log2(ss) / 2))
	s := q
	q = make([]float32, len(s))
	for i, x := range s {
		q[i] = float32(math.Ldexp(float64(x), e))
	}
	return q, k.dot(q, q)
}
