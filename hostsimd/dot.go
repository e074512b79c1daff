package hostsimd

import (
	"fmt"
	"math"
)

func checkPair(fn string, a, b []float32) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("hostsimd: %s: length mismatch: len(a)=%d, len(b)=%d", fn, len(a), len(b)))
	}
}

// Dot returns a·b. It panics if len(a) != len(b). It runs with the zero
// Host.
func Dot(a, b []float32) float32 { return Host{}.Dot(a, b) }

// Dot is the package-level Dot at h's level (the default level when h's
// is not available).
func (h Host) Dot(a, b []float32) float32 {
	checkPair("Dot", a, b)
	return h.table().dot(a, b)
}

// L2Squared returns ‖a−b‖². It panics if len(a) != len(b). It runs with
// the zero Host.
func L2Squared(a, b []float32) float32 { return Host{}.L2Squared(a, b) }

// L2Squared is the package-level L2Squared at h's level (the default
// level when h's is not available).
func (h Host) L2Squared(a, b []float32) float32 {
	checkPair("L2Squared", a, b)
	return h.table().l2(a, b)
}

// Cosine returns the cosine similarity a·b/(‖a‖‖b‖). It panics if
// len(a) != len(b). If either vector is all zeros the result is 0 (not
// NaN); if an input holds a NaN the result is NaN. The division is done in
// float64 and the result clamped to [-1, 1]. It runs with the zero Host.
func Cosine(a, b []float32) float32 { return Host{}.Cosine(a, b) }

// Cosine is the package-level Cosine at h's level (the default level when
// h's is not available).
func (h Host) Cosine(a, b []float32) float32 {
	checkPair("Cosine", a, b)
	ab, aa, bb := h.table().dot3(a, b)
	if !normOK(aa) || !normOK(bb) {
		// Out of float32's range squared (or zero, or NaN): float64
		// (scale.go).
		return cosine64(a, b)
	}
	return cosineFinish(ab, aa, bb)
}

// cosineFinish turns a·b, a·a and b·b into a cosine; see Cosine.
func cosineFinish(ab, aa, bb float32) float32 {
	if ab != ab || aa != aa || bb != bb {
		return float32(math.NaN())
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return clampCos(float64(ab) / math.Sqrt(float64(aa)*float64(bb)))
}

// cosineNorms is cosineFinish with norms (not squared) given.
func cosineNorms(ab, na, nb float32) float32 {
	if ab != ab || na != na || nb != nb {
		return float32(math.NaN())
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return clampCos(float64(ab) / (float64(na) * float64(nb)))
}

func clampCos(c float64) float32 {
	if c > 1 {
		c = 1
	} else if c < -1 {
		c = -1
	}
	return float32(c)
}
