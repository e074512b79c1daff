package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

func TestF16RoundTripExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := ops.F16ToF32(uint16(h))
		exp, man := (h>>10)&0x1f, h&0x3ff
		if isNaN := exp == 0x1f && man != 0; isNaN != math.IsNaN(float64(f)) {
			t.Fatalf("%#04x -> %v: NaN-ness wrong", h, f)
		}
		if back := ops.F32ToF16(f); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
		if exp != 0x1f {
			// Value check against the definition.
			v := float64(man) * math.Pow(2, -24)
			if exp > 0 {
				v = (1 + float64(man)/1024) * math.Pow(2, float64(exp-15))
			}
			if h&0x8000 != 0 {
				v = -v
			}
			if float64(f) != v {
				t.Fatalf("%#04x -> %v want %v", h, f, v)
			}
		}
	}
}

// nearestF16 is the reference: the finite half (or Inf) nearest to f with
// ties to even, found by search over the sorted positive halves.
func nearestF16(f float32) uint16 {
	x := math.Abs(float64(f))
	sign := uint16(0)
	if math.Signbit(float64(f)) {
		sign = 0x8000
	}
	// 65520 = max half + half ulp: rounds to Inf at and above it.
	if x >= 65520 {
		return sign | 0x7c00
	}
	lo, hi := uint16(0), uint16(0x7bff)
	for lo < hi { // largest h with value(h) <= x
		mid := (lo + hi + 1) / 2
		if float64(ops.F16ToF32(mid)) <= x {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	h := lo
	if h < 0x7bff || float64(ops.F16ToF32(h)) < x {
		a, b := float64(ops.F16ToF32(h)), float64(ops.F16ToF32(h+1))
		if x-a > b-x || (x-a == b-x && h&1 == 1) {
			h++
		}
	}
	return sign | h
}

func TestF32ToF16Rounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	check := func(f float32) {
		if got, want := ops.F32ToF16(f), nearestF16(f); got != want {
			t.Fatalf("F32ToF16(%v [%#08x]) = %#04x, want %#04x", f, math.Float32bits(f), got, want)
		}
	}
	for i := 0; i < 200000; i++ {
		// Exponents around the half range, including subnormals and overflow.
		e := rng.IntN(50) - 30
		f := float32(math.Ldexp(1+rng.Float64(), e))
		if rng.IntN(2) == 0 {
			f = -f
		}
		check(f)
	}
	// Exact ties and neighbours of every half value.
	for h := uint16(0); h < 0x7c00; h++ {
		a := float64(ops.F16ToF32(h))
		b := float64(ops.F16ToF32(h + 1))
		if h == 0x7bff {
			b = 65536
		}
		mid := float32((a + b) / 2)
		check(mid)
		check(math.Nextafter32(mid, 0))
		check(math.Nextafter32(mid, 1e9))
	}
	for _, f := range []float32{0, float32(math.Copysign(0, -1)), 65504, 65519.99, 65520, 1e10, -1e10,
		float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, 1e-8, 2.98e-8, 2.99e-8} {
		check(f)
	}
	if h := ops.F32ToF16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN -> %#04x", h)
	}
	if h := ops.F32ToF16(math.Float32frombits(0x7f800001)); h&0x3ff == 0 {
		t.Errorf("low-payload NaN -> %#04x, not NaN", h)
	}
}
