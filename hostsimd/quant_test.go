package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// int8Dims cross every kernel's block edges: the 16- and 32-byte steps of
// the AVX2 kernel, the 64- and 128-byte steps and the masked tail of the
// VNNI one.
var int8Dims = []int{1, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 768, 1000}

func levelHosts() []hostsimd.Host {
	var hs []hostsimd.Host
	for _, l := range hostsimd.Available() {
		hs = append(hs, hostsimd.Host{Level: l, FixLevel: true})
	}
	return hs
}

func randCodes(r *rand.Rand, n int) []int8 {
	c := make([]int8, n)
	for i := range c {
		c[i] = int8(r.IntN(256) - 128)
	}
	return c
}

// TestDotsInt8Exact checks every level's integer products against the
// integer reference on fresh random codes over the whole int8 range (−128
// included), extreme rows, row counts across the kernels' 64-row blocks,
// and misaligned slices; the outputs are poisoned first.
func TestDotsInt8Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 49))
	for _, h := range levelHosts() {
		for _, d := range int8Dims {
			for _, n := range []int{1, 5, 64, 131} {
				q := randCodes(r, d+1)[1:]
				v := randCodes(r, n*d+3)[3:]
				switch n {
				case 5: // extremes: the largest products and squares
					for k := range q {
						q[k] = 127
					}
					for k := range v {
						v[k] = -128
					}
				case 64:
					for k := range q {
						q[k] = -128
					}
				}
				dot, ss := make([]int32, n+1), make([]int32, n+1)
				for i := range dot {
					dot[i], ss[i] = math.MinInt32, math.MinInt32
				}
				if err := h.DotsInt8(q, v, d, dot[:n], ss[:n]); err != nil {
					t.Fatal(err)
				}
				if dot[n] != math.MinInt32 || ss[n] != math.MinInt32 {
					t.Fatalf("%v d=%d n=%d: wrote past the output", h.Level, d, n)
				}
				for i := 0; i < n; i++ {
					var a, b int64
					for k := 0; k < d; k++ {
						x := int64(v[i*d+k])
						a += int64(q[k]) * x
						b += x * x
					}
					if int64(dot[i]) != a || int64(ss[i]) != b {
						t.Fatalf("%v (%s) d=%d n=%d row %d: dot=%d ss=%d, want %d %d", h.Level, h.Int8Kernel(), d, n, i, dot[i], ss[i], a, b)
					}
				}
			}
		}
	}
}

// TestCosineSingleInt8 checks the scores of every level: against the
// cosine of the codes computed in float64 (the integer sums are exact, so
// only the final rounding to float32 may differ), and against the cosine
// of the float vectors within Int8CosBound (plus float32 rounding).
func TestCosineSingleInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 50))
	for _, h := range levelHosts() {
		for _, d := range []int{4, 17, 96, 768} {
			n := 100
			v := make([]float32, n*d)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			for k := 0; k < d; k++ { // a zero row scores 0
				v[7*d+k] = 0
			}
			q := make([]float32, d)
			for k := range q {
				q[k] = float32(r.NormFloat64()) * 1e3
			}
			codes, scales := make([]int8, n*d), make([]float32, n)
			if err := hostsimd.QuantizeInt8(v, d, codes, scales); err != nil {
				t.Fatal(err)
			}
			qc, qq, err := hostsimd.QuantizeQueryInt8(q)
			if err != nil {
				t.Fatal(err)
			}
			var qs float64
			for _, x := range q {
				qs = max(qs, math.Abs(float64(x)))
			}
			out := make([]float32, n)
			for i := range out {
				out[i] = float32(math.NaN())
			}
			if err := h.CosineSingleInt8(q, codes, d, out); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				row, rc := v[i*d:(i+1)*d], codes[i*d:(i+1)*d]
				var dot, ss, ab, aa, bb float64
				for k := 0; k < d; k++ {
					dot += float64(qc[k]) * float64(rc[k])
					ss += float64(rc[k]) * float64(rc[k])
					ab += float64(q[k]) * float64(row[k])
					aa += float64(q[k]) * float64(q[k])
					bb += float64(row[k]) * float64(row[k])
				}
				want := 0.0
				if ss > 0 {
					want = dot / (math.Sqrt(float64(qq)) * math.Sqrt(ss))
				}
				if got := float64(out[i]); math.IsNaN(got) || math.Abs(got-want) > 0x1p-23 {
					t.Fatalf("%v d=%d row %d: %v, cosine of the codes %v", h.Level, d, i, got, want)
				}
				exact := 0.0
				if bb > 0 {
					exact = ab / math.Sqrt(aa*bb)
				}
				bound := hostsimd.Int8CosBound(q, qc, float32(qs/127), row, rc, scales[i]) + 0x1p-22
				if math.Abs(float64(out[i])-exact) > bound {
					t.Fatalf("%v d=%d row %d: %v, f32 cosine %v: error above the bound %.3g", h.Level, d, i, out[i], exact, bound)
				}
			}
		}
	}
}

func TestQuantizeInt8Rule(t *testing.T) {
	v := []float32{0.5, -1, 0.25, 0.003, 0, 0, 0, 0}
	codes, scales := make([]int8, 8), make([]float32, 2)
	if err := hostsimd.QuantizeInt8(v, 4, codes, scales); err != nil {
		t.Fatal(err)
	}
	want := []int8{64, -127, 32, 0, 0, 0, 0, 0} // 63.5 rounds to even 64, 31.75 to 32
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("codes %v, want %v", codes, want)
		}
	}
	if scales[0] != float32(1.0/127) || scales[1] != 0 {
		t.Fatalf("scales %v, want [1/127 0]", scales)
	}
}

// Ties round to even, not away from zero: a row whose largest magnitude
// is 127 has scale 1, so each value is its own code before rounding, and
// the halves below are exact ties where the two rules differ (0.5 → 0
// not 1, 2.5 → 2 not 3, −0.5 → 0 not −1, −2.5 → −2 not −3) or agree
// (1.5 → 2, −1.5 → −2, 126.5 → 126 not 127).
func TestQuantizeInt8TiesToEven(t *testing.T) {
	v := []float32{127, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5, 126.5, -126.5, 4.5}
	want := []int8{127, 0, 2, 2, 0, -2, -2, 4, -4, 126, -126, 4}
	codes, scales := make([]int8, len(v)), make([]float32, 1)
	if err := hostsimd.QuantizeInt8(v, len(v), codes, scales); err != nil {
		t.Fatal(err)
	}
	if scales[0] != 1 {
		t.Fatalf("scale %v, want 1", scales[0])
	}
	for k := range want {
		if codes[k] != want[k] {
			t.Errorf("%v quantized to %d, want %d (ties to even)", v[k], codes[k], want[k])
		}
	}
}

func TestInt8BadInput(t *testing.T) {
	h := hostsimd.Host{}
	big := hostsimd.MaxInt8Dim + 4
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"nan", "v[5]", hostsimd.QuantizeInt8([]float32{1, 2, 3, 4, 1, float32(math.NaN()), 0, 0}, 4, make([]int8, 8), make([]float32, 2))},
		{"short codes", "len(codes)", hostsimd.QuantizeInt8(make([]float32, 8), 4, make([]int8, 7), make([]float32, 2))},
		{"big d", "exceeds 65536", h.CosineSingleInt8(make([]float32, big), make([]int8, big), big, make([]float32, 1))},
		{"q len", "len(q)=3", h.CosineSingleInt8(make([]float32, 3), make([]int8, 8), 4, make([]float32, 2))},
		{"q inf", "q[1]", h.CosineSingleInt8([]float32{1, float32(math.Inf(1)), 0, 0}, make([]int8, 8), 4, make([]float32, 2))},
		{"rows", "not a multiple", h.DotsInt8(make([]int8, 4), make([]int8, 7), 4, make([]int32, 2), make([]int32, 2))},
		{"ss", "len(ss)", h.DotsInt8(make([]int8, 4), make([]int8, 8), 4, make([]int32, 2), make([]int32, 1))},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, c.err, c.want)
		}
	}
}

// BenchmarkCosineSingleInt8 scores one query against rows stored as f32,
// f16 and int8 codes (the same vectors).
func BenchmarkCosineSingleInt8(b *testing.B) {
	const d, n = 768, 1 << 16
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, n*d)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	q := v[:d]
	codes, scales := make([]int8, n*d), make([]float32, n)
	if err := hostsimd.QuantizeInt8(v, d, codes, scales); err != nil {
		b.Fatal(err)
	}
	h16 := make([]uint16, n*d)
	for i, x := range v {
		h16[i] = ops.F32ToF16(x)
	}
	out := make([]float32, n)
	h := hostsimd.Host{Threads: 1}
	b.Run("f32", func(b *testing.B) {
		b.SetBytes(4 * n * d)
		for b.Loop() {
			_ = h.CosineSingle(q, v, d, out)
		}
	})
	b.Run("f16", func(b *testing.B) {
		b.SetBytes(2 * n * d)
		for b.Loop() {
			_ = h.CosineSingleF16(q, h16, d, out)
		}
	})
	b.Run("int8", func(b *testing.B) {
		b.SetBytes(n * d)
		for b.Loop() {
			_ = h.CosineSingleInt8(q, codes, d, out)
		}
	})
}

// FuzzDotsInt8 compares every level's integer products with the generic
// level's on any bytes as codes and any dimension.
func FuzzDotsInt8(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"), uint16(7))
	f.Add(make([]byte, 300), uint16(64))
	f.Add([]byte{0x80, 0x80, 0x7f, 0x7f, 0x80, 0x01, 0xff, 0x00}, uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, d16 uint16) {
		d := 1 + int(d16)%200
		if len(data) < d {
			return
		}
		codes := make([]int8, len(data))
		for i, b := range data {
			codes[i] = int8(b)
		}
		q, v := codes[:d], codes[d:d+(len(codes)-d)/d*d]
		n := len(v) / d
		ref := hostsimd.Host{Level: hostsimd.Generic, FixLevel: true}
		wd, ws := make([]int32, n), make([]int32, n)
		if err := ref.DotsInt8(q, v, d, wd, ws); err != nil {
			t.Fatal(err)
		}
		for _, h := range levelHosts() {
			dot, ss := make([]int32, n), make([]int32, n)
			for i := range dot {
				dot[i], ss[i] = math.MaxInt32, math.MaxInt32
			}
			if err := h.DotsInt8(q, v, d, dot, ss); err != nil {
				t.Fatal(err)
			}
			for i := range dot {
				if dot[i] != wd[i] || ss[i] != ws[i] {
					t.Fatalf("%v d=%d row %d: %d %d, generic %d %d", h.Level, d, i, dot[i], ss[i], wd[i], ws[i])
				}
			}
		}
	})
}

// TestCosineBatchInt8 checks every level's batch against CosineSingleInt8
// of each query (bit-identical: the same sums and rescale).
func TestCosineBatchInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), 51))
	for _, h := range levelHosts() {
		for _, c := range []struct{ nq, n, d int }{{1, 1, 4}, {3, 70, 33}, {9, 130, 768}} {
			v, qs := make([]float32, c.n*c.d), make([]float32, c.nq*c.d)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			for i := range qs {
				qs[i] = float32(r.NormFloat64())
			}
			codes, scales := make([]int8, len(v)), make([]float32, c.n)
			if err := hostsimd.QuantizeInt8(v, c.d, codes, scales); err != nil {
				t.Fatal(err)
			}
			out := make([]float32, c.nq*c.n)
			for i := range out {
				out[i] = float32(math.NaN())
			}
			if err := h.CosineBatchInt8(qs, codes, c.d, out); err != nil {
				t.Fatal(err)
			}
			want := make([]float32, c.n)
			for j := 0; j < c.nq; j++ {
				if err := h.CosineSingleInt8(qs[j*c.d:(j+1)*c.d], codes, c.d, want); err != nil {
					t.Fatal(err)
				}
				for i, w := range want {
					if got := out[j*c.n+i]; got != w {
						t.Fatalf("%v nq=%d n=%d d=%d: S[%d][%d] = %v, want %v", h.Level, c.nq, c.n, c.d, j, i, got, w)
					}
				}
			}
		}
	}
	if err := (hostsimd.Host{}).CosineBatchInt8(make([]float32, 8), make([]int8, 8), 4, make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "len(out)") {
		t.Errorf("short out: %v", err)
	}
}

// Every level's int8 peak kernel does the work it counts (its chains'
// sum is exact) and MeasureInt8Peak gives a positive rate naming it.
func TestInt8PeakLevels(t *testing.T) {
	for _, h := range levelHosts() {
		p, err := h.MeasureInt8Peak(1)
		if err != nil {
			t.Fatalf("%v: %v", h.Level, err)
		}
		if !(p.GOPs > 0) || p.Kernel == "" || p.Threads != 1 {
			t.Fatalf("%v: %+v", h.Level, p)
		}
		t.Logf("%v: %.1f GOP/s (%s)", h.Level, p.GOPs, p.Kernel)
	}
}

// The int8 and f16 kernels of a Host that does not fix a level run at a
// measured level this CPU has; a fixed level is kept.
func TestStoredLevels(t *testing.T) {
	i8, h16 := hostsimd.Host{}.StoredLevels()
	avail := hostsimd.Available()
	if !slices.Contains(avail, i8) || !slices.Contains(avail, h16) {
		t.Fatalf("measured levels %v, %v not in %v", i8, h16, avail)
	}
	t.Logf("int8 at %v (%s), f16 at %v", i8, hostsimd.Host{}.Int8Kernel(), h16)
	for _, h := range levelHosts() {
		if a, b := h.StoredLevels(); a != h.Level || b != h.Level {
			t.Fatalf("fixed %v: stored levels %v, %v", h.Level, a, b)
		}
	}
}
