package hostsimd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotNormRowsShapes calls the dotNormRows and dotNormSeq kernels of
// the levels that have them directly and checks them against dotNorm per
// row, bit-identical, on
// every tail shape: n%3 (3-row blocks plus a 1- or 2-row rest), d below,
// at and past multiples of 16 and 64 (the unrolled loop, single steps and
// the masked tail), rows starting off a 64-byte boundary, v longer than n
// rows, prefetch distances from 0 to past the end of v, zero rows and
// NaN. ab and bb past n and the floats around v must stay untouched.
func TestDotNormRowsShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const sentinel = float32(-7.25)
	const guard = 16
	type rowKernel struct {
		name string
		fn   func(q, v []float32, d, n int, ab, bb []float32, pfs int)
	}
	for _, l := range Available() {
		lk := tables[l]
		for _, rk := range []rowKernel{{"dotNormRows", lk.dotNormRows}, {"dotNormSeq", lk.dotNormSeq}} {
			if rk.fn == nil {
				continue
			}
			k := lk
			for _, d := range []int{1, 3, 15, 16, 17, 31, 47, 63, 64, 65, 100, 129, 768, 770} {
				for n := 0; n <= 10; n++ {
					for _, extra := range []int{0, 2} { // rows of v past n
						for _, pfs := range []int{0, 64, 18 << 10, 1 << 30} {
							for _, off := range []int{0, 1, 3} { // misalignment in floats
								q := ctVec(rng, d+off)[off:]
								buf := ctVec(rng, guard+off+(n+extra)*d+guard)
								v := buf[guard+off : guard+off+(n+extra)*d]
								if n > 3 {
									copy(v[2*d:3*d], make([]float32, d)) // a zero row
								}
								if n > 5 && d > 2 {
									v[4*d+d/2] = float32(math.NaN())
								}
								before := append([]float32(nil), buf...)
								abBuf := make([]float32, n+guard)
								bbBuf := make([]float32, n+guard)
								for i := range abBuf {
									abBuf[i], bbBuf[i] = sentinel, sentinel
								}
								rk.fn(q, v, d, n, abBuf[:n], bbBuf[:n], pfs)
								for i := 0; i < n; i++ {
									wab, wbb := k.dotNorm(q, v[i*d:(i+1)*d])
									if !same32(abBuf[i], wab) || !same32(bbBuf[i], wbb) {
										t.Fatalf("%v %s d=%d n=%d extra=%d pfs=%d off=%d row %d: got (%v, %v), dotNorm (%v, %v)",
											l, rk.name, d, n, extra, pfs, off, i, abBuf[i], bbBuf[i], wab, wbb)
									}
								}
								for i := n; i < len(abBuf); i++ {
									if abBuf[i] != sentinel || bbBuf[i] != sentinel {
										t.Fatalf("%v d=%d n=%d: ab/bb[%d] overwritten", l, d, n, i)
									}
								}
								for i := range buf {
									if !same32(buf[i], before[i]) {
										t.Fatalf("%v d=%d n=%d: v buffer changed at %d", l, d, n, i)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// same32 reports whether a and b have the same bits, or are both NaN.
func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// TestCosineSingleRowsPath runs every row walk of every level
// (cosineSingleWith, as the calibration's choice would) on 1, 2 and 3
// threads, with the thread split forced on small inputs, over rows starting
// off a 64-byte boundary, and checks each output bit-identical to dotNorm
// per row of the same level, a zero row 0, a NaN row NaN, and the guard
// floats after out untouched.
func TestCosineSingleRowsPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, l := range Available() {
		k := tables[l]
		for _, path := range singlePaths(k) {
			for _, d := range []int{17, 64, 768} {
				for _, n := range []int{1, 2, 3, 4, 15, 16, 17, 47, 48, 49, 50, 97, 1001, 3000} {
					for _, off := range []int{0, 3} {
						q := ctVec(rng, d)
						v := ctVec(rng, off+n*d)[off:]
						copy(v[(n/2)*d:(n/2+1)*d], make([]float32, d))
						if n > 3 {
							v[(n-1)*d+1] = float32(math.NaN())
						}
						qq := k.dot(q, q)
						for _, th := range []int{1, 2, 3} {
							r := Host{Threads: th, MinBytesPerThread: 1}.mustResolve()
							out := make([]float32, n+16)
							for i := range out {
								out[i] = -7.25
							}
							r.cosineSingleWith(singleImpl{k, path}, q, v, d, n, out[:n])
							for i := n; i < len(out); i++ {
								if out[i] != -7.25 {
									t.Fatalf("%v/%v d=%d n=%d: out[%d] overwritten", l, path, d, n, i)
								}
							}
							for i := 0; i < n; i++ {
								ab, vv := k.dotNorm(q, v[i*d:(i+1)*d])
								if want := cosineFinish(ab, qq, vv); !same32(out[i], want) {
									t.Fatalf("%v/%v d=%d n=%d threads=%d row %d: %v, per-row %v", l, path, d, n, th, i, out[i], want)
								}
							}
							if out[n/2] != 0 || (n > 3 && !math.IsNaN(float64(out[n-1]))) {
								t.Fatalf("%v/%v d=%d n=%d: zero row %v, NaN row %v", l, path, d, n, out[n/2], out[n-1])
							}
						}
					}
				}
			}
		}
	}
}

// TestSplitBounds checks the per-thread row ranges: contiguous, covering
// [0,n), boundaries on multiples of rowAlign, sizes within rowAlign.
func TestSplitBounds(t *testing.T) {
	for _, n := range []int{1, 15, 16, 17, 100, 1000, 200_000} {
		for th := 1; th <= 9; th++ {
			b := splitBounds(n, th)
			if len(b) != th+1 || b[0] != 0 || b[th] != n {
				t.Fatalf("n=%d t=%d: %v", n, th, b)
			}
			lo, hi := n, 0
			for w := 0; w < th; w++ {
				if b[w] > b[w+1] || (w > 0 && b[w]%rowAlign != 0 && b[w] != n) {
					t.Fatalf("n=%d t=%d: bounds %v", n, th, b)
				}
				lo, hi = min(lo, b[w+1]-b[w]), max(hi, b[w+1]-b[w])
			}
			if n >= rowAlign*th && hi-lo > rowAlign {
				t.Fatalf("n=%d t=%d: unbalanced %v", n, th, b)
			}
		}
	}
}

// TestThreadsFor checks that small calls stay on one thread and large ones
// use every thread.
func TestThreadsFor(t *testing.T) {
	h := Host{Threads: 4, MinBytesPerThread: 1 << 20}
	for _, c := range []struct {
		bytes int64
		want  int
	}{{0, 1}, {1 << 20, 1}, {2 << 20, 2}, {3<<20 + 5, 3}, {1 << 30, 4}} {
		if got := h.ThreadsFor(c.bytes); got != c.want {
			t.Errorf("ThreadsFor(%d) = %d, want %d", c.bytes, got, c.want)
		}
	}
	prev := calibCur.Load()
	defer calibCur.Store(prev)
	calibCur.Store(nil)
	if got := (Host{}).BytesPerThread(); got != defaultMinBytesPerThread {
		t.Errorf("uncalibrated Host{}.BytesPerThread() = %d, want the default %d", got, defaultMinBytesPerThread)
	}
	calibCur.Store(&Calibration{MinBytesPerThread: 12345})
	if got := (Host{}).BytesPerThread(); got != 12345 {
		t.Errorf("calibrated Host{}.BytesPerThread() = %d, want the calibration's 12345", got)
	}
}

// TestDotNormPF checks dotNormPF bit-identical to dotNorm on every level
// that has it, for d around the vector and unroll widths, rows starting
// off a 64-byte boundary between NaN guard floats (a read outside the row
// would turn the result into NaN), and prefetch distances from 0 to far
// past the end.
func TestDotNormPF(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, l := range Available() {
		k := tables[l]
		if k.dotNormPF == nil {
			continue
		}
		for _, d := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 768, 770} {
			for _, off := range []int{0, 1, 3} {
				for _, pfs := range []int{0, 64, 12 << 10, 1 << 30} {
					q := ctVec(rng, d+off)[off:]
					buf := ctVec(rng, 16+off+d+16)
					for i := range buf {
						if i < 16+off || i >= 16+off+d {
							buf[i] = float32(math.NaN())
						}
					}
					b := buf[16+off : 16+off+d]
					gab, gbb := k.dotNormPF(q, b, pfs)
					wab, wbb := k.dotNorm(q, b)
					if !same32(gab, wab) || !same32(gbb, wbb) {
						t.Fatalf("%v d=%d off=%d pfs=%d: (%v, %v), dotNorm (%v, %v)", l, d, off, pfs, gab, gbb, wab, wbb)
					}
					if d > 0 {
						rab, rbb := dotNormGeneric(q, b)
						tol := 1e-5 * float64(d) * float64(max(abs32(rbb), 1))
						if math.Abs(float64(gab-rab)) > tol || math.Abs(float64(gbb-rbb)) > tol {
							t.Fatalf("%v d=%d: (%v, %v) vs generic (%v, %v)", l, d, gab, gbb, rab, rbb)
						}
					}
				}
			}
		}
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
