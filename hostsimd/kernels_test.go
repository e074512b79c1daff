package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

const eps32 = 1.0 / (1 << 23)

// forEachLevel runs fn once per available level, restoring the default.
// forEachLevel runs fn once per available level with a Host fixing it.
func forEachLevel(t testing.TB, fn func(h hostsimd.Host)) {
	t.Helper()
	for _, l := range hostsimd.Available() {
		h := hostsimd.Host{Level: l, FixLevel: true}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		fn(h)
	}
}

// generic is the Host fixing the Generic level.
var generic = hostsimd.Host{Level: hostsimd.Generic, FixLevel: true}

// testDims is 1..70 densely, then a sparse set up to 2049.
func testDims() []int {
	var ds []int
	for d := 1; d <= 70; d++ {
		ds = append(ds, d)
	}
	return append(ds, 95, 96, 97, 127, 128, 129, 255, 256, 257, 383, 511, 513,
		767, 768, 769, 1000, 1023, 1024, 1025, 1536, 1537, 2047, 2048, 2049)
}

// randVec returns n random values in [-1,1) that start one element past
// a 64-byte aligned... i.e. at an odd offset in a bigger buffer, so SIMD
// loads are misaligned.
func randVec(rng *rand.Rand, n int) []float32 {
	buf := make([]float32, n+1)
	for i := range buf {
		buf[i] = rng.Float32()*2 - 1
	}
	return buf[1 : n+1 : n+1]
}

func ref3(a, b []float32) (ab, aa, bb, absab float64) {
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
		absab += math.Abs(x * y)
	}
	return
}

func refL2(a, b []float32) (s float64) {
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return
}

func refCos(a, b []float32) (c, tol float64) {
	ab, aa, bb, abs := ref3(a, b)
	if aa == 0 || bb == 0 {
		return 0, 0
	}
	den := math.Sqrt(aa * bb)
	n := float64(len(a))
	// error of ab, plus the relative error of the two norms
	return ab / den, 2*n*eps32*(abs/den+math.Abs(ab/den)) + 8*eps32
}

func dotTol(n int, abs float64) float64 { return 2*float64(n)*eps32*abs + 1e-30 }

func near(got float32, want, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol
}

func TestDotL2CosineLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range testDims() {
		a, b := randVec(rng, d), randVec(rng, d)
		ab, _, _, abs := ref3(a, b)
		l2 := refL2(a, b)
		cs, ctol := refCos(a, b)
		gDot := generic.Dot(a, b)
		forEachLevel(t, func(h hostsimd.Host) {
			l := h.Level

			if got := h.Dot(a, b); !near(got, ab, dotTol(d, abs)) {
				t.Errorf("%v d=%d Dot=%v want %v", l, d, got, ab)
			} else if !near(got, float64(gDot), 2*dotTol(d, abs)) {
				t.Errorf("%v d=%d Dot=%v generic %v", l, d, got, gDot)
			}
			if got := h.L2Squared(a, b); !near(got, l2, dotTol(d, l2)) {
				t.Errorf("%v d=%d L2Squared=%v want %v", l, d, got, l2)
			}
			if got := h.Cosine(a, b); !near(got, cs, ctol) {
				t.Errorf("%v d=%d Cosine=%v want %v", l, d, got, cs)
			}
		})
	}
}

func TestSpecialValues(t *testing.T) {
	forEachLevel(t, func(h hostsimd.Host) {
		l := h.Level

		for _, d := range []int{1, 7, 16, 17, 33, 100} {
			z := make([]float32, d)
			a := randVec(rand.New(rand.NewPCG(uint64(d), 9)), d)
			if got := h.Cosine(z, a); got != 0 {
				t.Errorf("%v d=%d Cosine(0,a)=%v want 0", l, d, got)
			}
			if got := h.Cosine(z, z); got != 0 {
				t.Errorf("%v d=%d Cosine(0,0)=%v want 0", l, d, got)
			}
			if got := h.Cosine(a, a); math.Abs(float64(got)-1) > 1e-6 {
				t.Errorf("%v d=%d Cosine(a,a)=%v want 1", l, d, got)
			}
			for _, pos := range []int{0, d / 2, d - 1} {
				b := append([]float32(nil), a...)
				b[pos] = float32(math.NaN())
				if got := h.Dot(a, b); !math.IsNaN(float64(got)) {
					t.Errorf("%v d=%d NaN@%d Dot=%v", l, d, pos, got)
				}
				if got := h.Cosine(a, b); !math.IsNaN(float64(got)) {
					t.Errorf("%v d=%d NaN@%d Cosine=%v", l, d, pos, got)
				}
				if got := h.Cosine(z, b); !math.IsNaN(float64(got)) {
					t.Errorf("%v d=%d NaN@%d Cosine(0,b)=%v", l, d, pos, got)
				}
				if got := h.L2Squared(a, b); !math.IsNaN(float64(got)) {
					t.Errorf("%v d=%d NaN@%d L2=%v", l, d, pos, got)
				}
			}
		}
		if got := h.Dot(nil, nil); got != 0 {
			t.Errorf("%v Dot(nil,nil)=%v", l, got)
		}
	})
}

func TestPairLengthPanics(t *testing.T) {
	for name, f := range map[string]func(a, b []float32) float32{
		"Dot": hostsimd.Dot, "L2Squared": hostsimd.L2Squared, "Cosine": hostsimd.Cosine,
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), "len(a)=3, len(b)=2") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			f(make([]float32, 3), make([]float32, 2))
		}()
	}
}

func TestLevels(t *testing.T) {
	av := hostsimd.Available()
	if len(av) == 0 || av[0] != hostsimd.Generic {
		t.Fatalf("Available()=%v", av)
	}
	if l := (hostsimd.Host{}).ActiveLevel(); l != av[len(av)-1] {
		t.Errorf("default level %v, want best %v", l, av[len(av)-1])
	}
	for _, l := range []hostsimd.Level{hostsimd.Generic, hostsimd.AVX2, hostsimd.AVX512, hostsimd.NEON} {
		p, err := hostsimd.ParseLevel(strings.ToUpper(l.String()))
		if err != nil || p != l {
			t.Errorf("ParseLevel(%q)=%v,%v", l.String(), p, err)
		}
	}
	if _, err := hostsimd.ParseLevel("sse9"); err == nil || !strings.Contains(err.Error(), `"sse9"`) {
		t.Errorf("ParseLevel(sse9) err=%v", err)
	}
	if err := (hostsimd.Host{Level: 42, FixLevel: true}).Validate(); err == nil || !strings.Contains(err.Error(), "Level(42)") {
		t.Errorf("Host{Level: 42}.Validate() err=%v", err)
	}
	t.Logf("available levels: %v", av)
}

// FuzzDotLevels checks every level against Generic on fuzzed inputs: each
// byte becomes int8(b)/16, so values are finite; nanAt < len injects a NaN.
func FuzzDotLevels(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6}, 100)
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice, to get a long vector"), 5)
	f.Add(make([]byte, 66), 0)
	f.Fuzz(func(t *testing.T, data []byte, nanAt int) {
		n := len(data) / 2
		a, b := make([]float32, n), make([]float32, n)
		for i := 0; i < n; i++ {
			a[i] = float32(int8(data[i])) / 16
			b[i] = float32(int8(data[n+i])) / 16
		}
		if nanAt >= 0 && nanAt < n {
			b[nanAt] = float32(math.NaN())
		}
		gd, gl, gc := generic.Dot(a, b), generic.L2Squared(a, b), generic.Cosine(a, b)
		_, _, _, abs := ref3(a, b)
		cs, ctol := refCos(a, b)
		forEachLevel(t, func(h hostsimd.Host) {
			l := h.Level

			d, l2, c := h.Dot(a, b), h.L2Squared(a, b), h.Cosine(a, b)
			if math.IsNaN(float64(gd)) {
				if !math.IsNaN(float64(d)) || !math.IsNaN(float64(l2)) || !math.IsNaN(float64(c)) {
					t.Fatalf("%v: NaN input gave %v %v %v", l, d, l2, c)
				}
				return
			}
			// Values are multiples of 1/256 with small sums: exact in float32
			// up to n ~ 2^12, so compare with a tolerance anyway.
			if !near(d, float64(gd), 2*dotTol(n, abs)) || !near(l2, float64(gl), 2*dotTol(n, float64(gl))) ||
				!near(c, float64(gc), 2*ctol) || !near(c, cs, ctol) {
				t.Fatalf("%v n=%d: dot %v/%v l2 %v/%v cos %v/%v", l, n, d, gd, l2, gl, c, gc)
			}
		})
	})
}
