package hostsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// These tests call the kernel table of every available level directly
// (the exported functions reach dotNorm, dotNormF16 and dotTile4 only
// through row loops) and compare each field with a float64 reference and
// with Generic, on misaligned inputs of every length up to 70 and a few
// long ones.

const kEps = 1.0 / (1 << 23)

func kernelLens() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	return append(ns, 127, 128, 129, 255, 256, 257, 768, 1023, 1025, 2049)
}

// offsetVec returns n values from gen starting off elements into a
// fresh buffer, so vector loads are misaligned for off > 0.
func offsetVec(n, off int, gen func() float32) []float32 {
	buf := make([]float32, n+off)
	for i := range buf {
		buf[i] = gen()
	}
	return buf[off : off+n : off+n]
}

// kNear reports |got-want| <= 2·n·eps·scale (+ a tiny absolute slack).
func kNear(got float32, want float64, n int, scale float64) bool {
	return math.Abs(float64(got)-want) <= 2*float64(n+1)*kEps*scale+1e-30
}

func TestKernelTableLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	uni := func() float32 { return rng.Float32()*2 - 1 }
	g := tables[Generic]
	for _, l := range Available() {
		k := tables[l]
		for _, n := range kernelLens() {
			off := n % 4
			a, b := offsetVec(n, off, uni), offsetVec(n, 3-off, uni)
			var ab, aa, bb, absab, suma, abssum, l2 float64
			for i := range a {
				x, y := float64(a[i]), float64(b[i])
				ab += x * y
				aa += x * x
				bb += y * y
				absab += math.Abs(x * y)
				suma += x
				abssum += math.Abs(x)
				l2 += (x - y) * (x - y)
			}
			name := fmt.Sprintf("%v n=%d", l, n)
			if got := k.sum(a); !kNear(got, suma, n, abssum) || !kNear(got, float64(g.sum(a)), 2*n, abssum) {
				t.Errorf("%s: sum=%v want %v (generic %v)", name, got, suma, g.sum(a))
			}
			if k.sumPF != nil {
				for _, pfs := range []int{0, 64, singlePrefetch} {
					if got, want := k.sumPF(a, pfs), k.sum(a); math.Float32bits(got) != math.Float32bits(want) {
						t.Errorf("%s: sumPF(pfs=%d)=%v want sum's %v bit for bit", name, pfs, got, want)
					}
				}
			}
			if got := k.dot(a, b); !kNear(got, ab, n, absab) || !kNear(got, float64(g.dot(a, b)), 2*n, absab) {
				t.Errorf("%s: dot=%v want %v (generic %v)", name, got, ab, g.dot(a, b))
			}
			if got := k.l2(a, b); !kNear(got, l2, n, l2) {
				t.Errorf("%s: l2=%v want %v", name, got, l2)
			}
			if gab, gbb := k.dotNorm(a, b); !kNear(gab, ab, n, absab) || !kNear(gbb, bb, n, bb) {
				t.Errorf("%s: dotNorm=%v,%v want %v,%v", name, gab, gbb, ab, bb)
			}
			if gab, gaa, gbb := k.dot3(a, b); !kNear(gab, ab, n, absab) || !kNear(gaa, aa, n, aa) || !kNear(gbb, bb, n, bb) {
				t.Errorf("%s: dot3=%v,%v,%v want %v,%v,%v", name, gab, gaa, gbb, ab, aa, bb)
			}
		}
	}
}

func TestKernelTableF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := tables[Generic]
	// finiteHalf draws any finite half, subnormals and zeros included.
	finiteHalf := func() uint16 {
		for {
			h := uint16(rng.Uint32())
			if h&0x7c00 != 0x7c00 {
				return h
			}
		}
	}
	for _, l := range Available() {
		k := tables[l]
		for _, n := range kernelLens() {
			a := offsetVec(n, n%4, func() float32 { return rng.Float32()*2 - 1 })
			hb := make([]uint16, n+1)[1:] // 2-byte aligned only
			for i := range hb {
				hb[i] = finiteHalf()
			}
			var ab, bb, absab float64
			for i := range a {
				x, y := float64(a[i]), float64(ops.F16ToF32(hb[i]))
				ab += x * y
				bb += y * y
				absab += math.Abs(x * y)
			}
			gab, gbb := k.dotNormF16(a, hb)
			rab, rbb := g.dotNormF16(a, hb)
			if !kNear(gab, ab, n, absab) || !kNear(gbb, bb, n, bb) || !kNear(gab, float64(rab), 2*n, absab) {
				t.Errorf("%v n=%d: dotNormF16=%v,%v want %v,%v (generic %v,%v)", l, n, gab, gbb, ab, bb, rab, rbb)
			}
			if n == 0 {
				continue
			}
			// A NaN or an infinity at the start, middle or end (the
			// vector body or the scalar tail) behaves as in Generic.
			for _, pos := range []int{0, n / 2, n - 1} {
				for _, special := range []uint16{0x7e00, 0x7d01, 0xfc00, 0x7c00} {
					hs := append([]uint16(nil), hb...)
					hs[pos] = special
					gab, gbb := k.dotNormF16(a, hs)
					rab, rbb := g.dotNormF16(a, hs)
					if !sameClass(gab, rab) || !sameClass(gbb, rbb) {
						t.Errorf("%v n=%d b[%d]=%#04x: dotNormF16=%v,%v generic %v,%v", l, n, pos, special, gab, gbb, rab, rbb)
					}
				}
			}
		}
	}
}

// packRef4 packs 4 queries of length d for dotTile4 with chunk width w,
// spelled out here from the layout dotTile4 documents:
// p[(c*4+j)*w+l] = q[j*d+c*w+l], the last chunk zero-padded.
func packRef4(q []float32, d, w int) []float32 {
	nc := (d + w - 1) / w
	p := make([]float32, nc*4*w)
	for j := 0; j < 4; j++ {
		for e := 0; e < d; e++ {
			p[(e/w*4+j)*w+e%w] = q[j*d+e]
		}
	}
	return p
}

// sameClass reports whether x and y are both NaN, the same infinity, or
// both finite.
func sameClass(x, y float32) bool {
	xn, yn := x != x, y != y
	if xn || yn {
		return xn == yn
	}
	if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) {
		return x == y
	}
	return true
}

func TestKernelTableTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	uni := func() float32 { return rng.Float32()*2 - 1 }
	const guard = 8
	const sentinel = float32(-7777.25)
	for _, l := range Available() {
		k := tables[l]
		for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 257, 768, 771} {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 13} {
				q := offsetVec(4*d, 0, uni)
				// misaligned rows that end at the end of their buffer
				v := offsetVec(n*d, (d+n)%4, uni)
				qp := packRef4(q, d, k.tileW)
				buf := make([]float32, 4*n+2*guard)
				for i := range buf {
					buf[i] = sentinel
				}
				out := buf[guard : guard+4*n]
				k.dotTile4(qp, v, d, n, out)
				for i := 0; i < guard; i++ {
					if buf[i] != sentinel || buf[guard+4*n+i] != sentinel {
						t.Fatalf("%v d=%d n=%d: guard band overwritten", l, d, n)
					}
				}
				for i := 0; i < n; i++ {
					for j := 0; j < 4; j++ {
						var s, abs float64
						for e := 0; e < d; e++ {
							p := float64(q[j*d+e]) * float64(v[i*d+e])
							s += p
							abs += math.Abs(p)
						}
						if got := out[i*4+j]; !kNear(got, s, d, abs) {
							t.Fatalf("%v d=%d n=%d: out[%d*4+%d]=%v want %v", l, d, n, i, j, got, s)
						}
					}
				}
			}
		}
	}
}

// FuzzKernelTable compares every level's dotNorm, dotNormF16 and dotTile4
// with Generic on fuzzed data (bytes become int8(x)/16; halves are the
// ops.F32ToF16 of the same values, so everything is finite).
func FuzzKernelTable(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint8(3))
	f.Add([]byte("a longer seed so the vector loops run more than once, then the tails"), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, dd uint8) {
		n := len(data) / 2
		a, b := make([]float32, n), make([]float32, n)
		hb := make([]uint16, n)
		var absab, bb float64
		for i := 0; i < n; i++ {
			a[i] = float32(int8(data[i])) / 16
			b[i] = float32(int8(data[n+i])) / 16
			hb[i] = ops.F32ToF16(b[i])
			absab += math.Abs(float64(a[i]) * float64(b[i]))
			bb += float64(b[i]) * float64(b[i])
		}
		g := tables[Generic]
		d := 1 + int(dd)%17
		rows := len(data) / d / 2
		v := make([]float32, rows*d)
		for i := range v {
			v[i] = float32(int8(data[i])) / 16
		}
		q := make([]float32, 4*d)
		for i := range q {
			q[i] = float32(int8(data[(i*7)%max(1, len(data))])) / 16
		}
		want := make([]float32, 4*rows)
		g.dotTile4(packRef4(q, d, g.tileW), v, d, rows, want)
		for _, l := range Available() {
			k := tables[l]
			gab, gbb := g.dotNorm(a, b)
			kab, kbb := k.dotNorm(a, b)
			fab, fbb := k.dotNormF16(a, hb)
			if !kNear(kab, float64(gab), 2*n, absab) || !kNear(kbb, float64(gbb), 2*n, bb) ||
				!kNear(fab, float64(gab), 2*n, absab) || !kNear(fbb, float64(gbb), 2*n, bb) {
				t.Fatalf("%v n=%d: dotNorm %v,%v dotNormF16 %v,%v generic %v,%v", l, n, kab, kbb, fab, fbb, gab, gbb)
			}
			got := make([]float32, 4*rows)
			k.dotTile4(packRef4(q, d, k.tileW), v, d, rows, got)
			for i := range got {
				r, j := i/4, i%4
				var abs float64
				for e := 0; e < d; e++ {
					abs += math.Abs(float64(q[j*d+e]) * float64(v[r*d+e]))
				}
				if !kNear(got[i], float64(want[i]), 2*d, abs) {
					t.Fatalf("%v d=%d rows=%d: dotTile4 out[%d]=%v generic %v", l, d, rows, i, got[i], want[i])
				}
			}
		}
	})
}
