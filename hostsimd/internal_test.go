package hostsimd

import (
	"math"
	"testing"
)

// TestCeilingKernels checks the unexported bandwidth kernels of every
// level compute what they claim (the external tests only see GB/s).
func TestCeilingKernels(t *testing.T) {
	for _, l := range Available() {
		k := tables[l]
		n := 4 * k.ntBlock * 3
		a, b, c := alignedFloats(n), alignedFloats(n), alignedFloats(n)
		for i := range b {
			b[i] = float32(i)
			c[i] = float32(2 * i)
		}
		k.fillNT(a, 3)
		for i, x := range a {
			if x != 3 {
				t.Fatalf("%v fill a[%d]=%v", l, i, x)
			}
		}
		k.copyNT(a, b)
		for i, x := range a {
			if x != b[i] {
				t.Fatalf("%v copy a[%d]=%v", l, i, x)
			}
		}
		k.triadNT(a, b, c, 0.5)
		for i, x := range a {
			if x != 2*float32(i) {
				t.Fatalf("%v triad a[%d]=%v", l, i, x)
			}
		}
		for m := 0; m < 70; m++ {
			if got, want := k.sum(b[:m]), float32(m*(m-1)/2); got != want {
				t.Fatalf("%v sum(%d)=%v want %v", l, m, got, want)
			}
			// Misaligned starts and guard floats (NaN) on both sides that a
			// reader straying out of its slice would pick up.
			if k.sum2 != nil {
				g := alignedFloats(m + 40)
				for i := range g {
					g[i] = float32(math.NaN())
				}
				for off := 0; off < 3; off++ {
					copy(g[16+off:], b[:m])
					if got, want := k.sum2(g[16+off:16+off+m]), float32(m*(m-1)/2); got != want {
						t.Fatalf("%v sum2(%d) off %d=%v want %v", l, m, off, got, want)
					}
					for i := range g {
						g[i] = float32(math.NaN())
					}
				}
			}
			if k.sumPF != nil {
				if got, want := k.sumPF(b[:m], singlePrefetch), float32(m*(m-1)/2); got != want {
					t.Fatalf("%v sumPF(%d)=%v want %v", l, m, got, want)
				}
			}
		}
		// fmaPeak: with m=1, c=1 every lane ends at 1+iters.
		if got, want := k.fmaPeak(10, 1, 1), float32(11*k.fmaLanes); got != want {
			t.Fatalf("%v fmaPeak=%v want %v", l, got, want)
		}
	}
}
