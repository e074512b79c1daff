package hostsimd

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/stream"
)

// TestStreamKernelsLevels checks the Mul and Add kernels of every level
// (scaleNT, addNT) against a float64 reference on random inputs over
// aligned lengths, with the outputs poisoned with NaN first.
func TestStreamKernelsLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	for _, l := range Available() {
		k := tables[l]
		for _, blocks := range []int{0, 1, 2, 3, 17} {
			n := blocks * k.ntBlock
			a, b, c := alignedFloats(n), alignedFloats(n), alignedFloats(n)
			for i := range a {
				a[i], b[i], c[i] = rng.Float32()*2-1, rng.Float32()*2-1, float32(math.NaN())
			}
			const s = float32(0.4)
			k.scaleNT(c, a, s)
			for i := range c {
				if want := float64(s) * float64(a[i]); math.Abs(float64(c[i])-want) > kEps*math.Abs(want) || math.IsNaN(float64(c[i])) {
					t.Fatalf("%v n=%d: scaleNT[%d] = %v, want %v", l, n, i, c[i], want)
				}
			}
			for i := range c {
				c[i] = float32(math.NaN())
			}
			k.addNT(c, a, b)
			for i := range c {
				if want := float64(a[i]) + float64(b[i]); math.Abs(float64(c[i])-want) > kEps*math.Abs(want) || math.IsNaN(float64(c[i])) {
					t.Fatalf("%v n=%d: addNT[%d] = %v, want %v", l, n, i, c[i], want)
				}
			}
		}
	}
}

// TestRunStreamLevels runs the whole stream at every level on sizes that
// are and are not multiples of the NT block, on 1 to 3 threads; the run
// itself checks the final arrays (stream.Check).
func TestRunStreamLevels(t *testing.T) {
	for _, l := range Available() {
		for _, n := range []int{1, 63, 1000, 4099, 1 << 16} {
			for _, th := range []int{1, 2, 3} {
				res, err := runStream(tables[l], StreamOpts{ArraySize: n, NumTimes: 3, Threads: th})
				if err != nil {
					t.Fatalf("%v n=%d threads=%d: %v", l, n, th, err)
				}
				if len(res.Times) != 5 || len(res.Times[0]) != 3 || res.Level != l {
					t.Fatalf("%v n=%d: result %+v", l, n, res)
				}
				_, _, _, gs := stream.Gold[float32](3, n)
				if d := math.Abs(float64(res.Sum - gs)); d > 1e-3*math.Abs(float64(gs)) {
					t.Errorf("%v n=%d threads=%d: sum %v, gold %v", l, n, th, res.Sum, gs)
				}
			}
		}
	}
}

// TestRunStreamCatchesWrongKernel: a Mul that writes one wrong element
// (or a NaN) fails the run instead of returning times.
func TestRunStreamCatchesWrongKernel(t *testing.T) {
	for _, bad := range []float32{0.5, float32(math.NaN())} {
		k := *tables[Generic]
		k.scaleNT = func(dst, src []float32, s float32) {
			scaleGeneric(dst, src, s)
			if len(dst) > 5 {
				dst[5] = bad
			}
		}
		_, err := runStream(&k, StreamOpts{ArraySize: 4096, NumTimes: 2, Threads: 2})
		if err == nil || !strings.Contains(err.Error(), "failed validation") {
			t.Errorf("bad=%v: err = %v, want a validation failure", bad, err)
		}
	}
	if _, err := RunStream(StreamOpts{ArraySize: -1}); err == nil || !strings.Contains(err.Error(), "ArraySize -1") {
		t.Errorf("ArraySize -1: err = %v", err)
	}
	if _, err := RunStream(StreamOpts{NumTimes: 1}); err == nil || !strings.Contains(err.Error(), "NumTimes 1") {
		t.Errorf("NumTimes 1: err = %v", err)
	}
}
