package hostsimd_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

const guard = 8

var sentinel = float32(-12345.5)

// guarded returns an n-element output slice with guard bands on both
// sides: guards hold sentinel, the slice itself NaN (so unwritten
// elements are caught).
func guarded(n int) (out, buf []float32) {
	buf = make([]float32, n+2*guard)
	for i := range buf {
		buf[i] = sentinel
	}
	out = buf[guard : guard+n : guard+n]
	for i := range out {
		out[i] = float32(math.NaN())
	}
	return out, buf
}

func checkGuards(t *testing.T, what string, buf []float32, n int) {
	t.Helper()
	for i := 0; i < guard; i++ {
		if buf[i] != sentinel || buf[guard+n+i] != sentinel {
			t.Fatalf("%s: guard band overwritten", what)
		}
	}
}

func batchDims() []int {
	return []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 129, 257, 768, 769}
}

func TestCosineSingleLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range batchDims() {
		n := 1 + rng.IntN(40)
		q := randVec(rng, d)
		v := randVec(rng, n*d)
		copy(v[(n/2)*d:], make([]float32, d)) // one zero row
		v16 := make([]uint16, n*d+1)[1:]
		v16f := make([]float32, n*d)
		for i, x := range v {
			v16[i] = ops.F32ToF16(x)
			v16f[i] = ops.F16ToF32(v16[i])
		}
		norms := make([]float32, n)
		forEachLevel(t, func(h hostsimd.Host) {
			l := h.Level

			out, buf := guarded(n)
			if err := h.CosineSingle(q, v, d, out); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, "CosineSingle", buf, n)
			if err := h.RowNorms(v, d, norms); err != nil {
				t.Fatal(err)
			}
			outN, bufN := guarded(n)
			if err := h.CosineSingleNorms(q, v, d, norms, outN); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, "CosineSingleNorms", bufN, n)
			out16, buf16 := guarded(n)
			if err := h.CosineSingleF16(q, v16, d, out16); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, "CosineSingleF16", buf16, n)
			for i := 0; i < n; i++ {
				want, tol := refCos(q, v[i*d:(i+1)*d])
				if !near(out[i], want, tol) || !near(outN[i], want, tol) {
					t.Errorf("%v d=%d n=%d row %d: CosineSingle=%v Norms=%v want %v", l, d, n, i, out[i], outN[i], want)
				}
				want16, tol16 := refCos(q, v16f[i*d:(i+1)*d])
				if !near(out16[i], want16, tol16) {
					t.Errorf("%v d=%d row %d: CosineSingleF16=%v want %v", l, d, i, out16[i], want16)
				}
			}
		})
	}
}

func TestCosineBatchLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range batchDims() {
		// Query counts around the groups of 8 (AVX512) and 4: full
		// groups, a rest of 1-4 (a group of 4) and of 5-7 (a padded 8).
		for _, nq := range []int{1, 3, 4, 5, 8, 9, 12, 15, 16, 17, 23} {
			n := 1 + rng.IntN(23)
			qs := randVec(rng, nq*d)
			v := randVec(rng, n*d)
			if n > 2 {
				copy(v[d:2*d], make([]float32, d))
			}
			forEachLevel(t, func(h hostsimd.Host) {
				l := h.Level

				out, buf := guarded(nq * n)
				if err := h.CosineBatch(qs, v, d, out); err != nil {
					t.Fatal(err)
				}
				checkGuards(t, "CosineBatch", buf, nq*n)
				for j := 0; j < nq; j++ {
					for i := 0; i < n; i++ {
						want, tol := refCos(qs[j*d:(j+1)*d], v[i*d:(i+1)*d])
						if got := out[j*n+i]; !near(got, want, tol) {
							t.Fatalf("%v d=%d Q=%d N=%d [%d,%d]=%v want %v", l, d, nq, n, j, i, got, want)
						}
					}
				}
			})
		}
	}
}

// TestCosineBatchLarge crosses the row-block and query-chunk boundaries
// and runs on the worker pool.
func TestCosineBatchLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, nq, n = 129, 37, 1100
	qs, v := randVec(rng, nq*d), randVec(rng, n*d)
	forEachLevel(t, func(h hostsimd.Host) {
		l := h.Level

		out := make([]float32, nq*n)
		if err := h.CosineBatch(qs, v, d, out); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < nq; j += 5 {
			for i := 0; i < n; i += 7 {
				want, tol := refCos(qs[j*d:(j+1)*d], v[i*d:(i+1)*d])
				if got := out[j*n+i]; !near(got, want, tol) {
					t.Fatalf("%v [%d,%d]=%v want %v", l, j, i, got, want)
				}
			}
		}
	})
}

// TestCosineBatchBlocks runs D=768 (row blocks of 84) over several
// blocks, with a last block of 1, 2 or 3 rows, at 1, 2 and 3 threads:
// with many blocks each task takes all queries and prefetches the next
// block, with few the queries are split over tasks.
func TestCosineBatchBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const d = 768
	for _, c := range []struct{ nq, n int }{{20, 84*9 + 1}, {13, 84*2 + 2}, {64, 84 + 3}, {8, 84*12 + 2}} {
		qs, v := randVec(rng, c.nq*d), randVec(rng, c.n*d)
		copy(v[(c.n/2)*d:(c.n/2+1)*d], make([]float32, d)) // a zero row
		want := make([]float64, c.nq*c.n)
		tol := make([]float64, c.nq*c.n)
		for j := 0; j < c.nq; j++ {
			for i := 0; i < c.n; i++ {
				want[j*c.n+i], tol[j*c.n+i] = refCos(qs[j*d:(j+1)*d], v[i*d:(i+1)*d])
			}
		}
		for _, th := range []int{1, 2, 3} {
			forEachLevel(t, func(h hostsimd.Host) {
				l := h.Level
				h.Threads = th
				out, buf := guarded(c.nq * c.n)
				if err := h.CosineBatch(qs, v, d, out); err != nil {
					t.Fatal(err)
				}
				checkGuards(t, "CosineBatch", buf, c.nq*c.n)
				for p, got := range out {
					if !near(got, want[p], tol[p]) {
						t.Fatalf("%v Q=%d N=%d threads=%d [%d,%d]=%v want %v", l, c.nq, c.n, th, p/c.n, p%c.n, got, want[p])
					}
				}
			})
		}
	}
}

func TestBatchNaN(t *testing.T) {
	const d, n = 19, 5
	q := randVec(rand.New(rand.NewPCG(1, 1)), d)
	v := randVec(rand.New(rand.NewPCG(2, 2)), n*d)
	v[2*d+3] = float32(math.NaN())
	forEachLevel(t, func(h hostsimd.Host) {
		l := h.Level

		out := make([]float32, n)
		h.CosineSingle(q, v, d, out)
		for i, x := range out {
			if math.IsNaN(float64(x)) != (i == 2) {
				t.Errorf("%v CosineSingle[%d]=%v", l, i, x)
			}
		}
		ob := make([]float32, 2*n)
		h.CosineBatch(append(append([]float32(nil), q...), q...), v, d, ob)
		for i, x := range ob {
			if math.IsNaN(float64(x)) != (i%n == 2) {
				t.Errorf("%v CosineBatch[%d]=%v", l, i, x)
			}
		}
	})
}

func TestShapeErrors(t *testing.T) {
	q := make([]float32, 4)
	v := make([]float32, 12)
	out := make([]float32, 3)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"d=0", hostsimd.CosineSingle(q, v, 0, out), "d=0"},
		{"len(q)", hostsimd.CosineSingle(q[:3], v, 4, out), "len(q)=3"},
		{"len(v)", hostsimd.CosineSingle(q, v[:10], 4, out), "len(v)=10"},
		{"out", hostsimd.CosineSingle(q, v, 4, out[:2]), "len(out)=2"},
		{"norms", hostsimd.CosineSingleNorms(q, v, 4, out[:1], out), "len(norms)=1"},
		{"f16", hostsimd.CosineSingleF16(q, make([]uint16, 7), 4, out), "len(v)=7"},
		{"batch qs", hostsimd.CosineBatch(q[:3], v, 4, out), "len(qs)=3"},
		{"batch out", hostsimd.CosineBatch(q, v, 4, out[:2]), "len(out)=2"},
		{"batch d", hostsimd.CosineBatch(q, v, -1, out), "d=-1"},
		{"rownorms", hostsimd.RowNorms(v, 5, out), "len(v)=12"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err=%v, want mention of %q", c.name, c.err, c.want)
		}
	}
}

func TestGatherDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, d := range []int{1, 3, 16, 17, 100, 768} {
		const nq, c, n = 3, 11, 50
		q, v := randVec(rng, nq*d), randVec(rng, n*d)
		ids := make([]int32, nq*c)
		for i := range ids {
			ids[i] = int32(rng.IntN(n))
		}
		for _, m := range []ops.Metric{ops.L2Sq, ops.InnerProduct, ops.Cosine} {
			forEachLevel(t, func(h hostsimd.Host) {
				l := h.Level

				out, buf := guarded(nq * c)
				if err := h.Gather(q, v, d, ids, m, out); err != nil {
					t.Fatal(err)
				}
				checkGuards(t, "GatherDistances", buf, nq*c)
				for p, id := range ids {
					a, b := q[(p/c)*d:(p/c+1)*d], v[int(id)*d:int(id+1)*d]
					var want, tol float64
					switch m {
					case ops.L2Sq:
						want = refL2(a, b)
						tol = dotTol(d, want)
					case ops.InnerProduct:
						var abs float64
						want, _, _, abs = ref3(a, b)
						tol = dotTol(d, abs)
					default:
						want, tol = refCos(a, b)
					}
					if !near(out[p], want, tol) {
						t.Fatalf("%v %v d=%d p=%d: %v want %v", l, m, d, p, out[p], want)
					}
				}
			})
		}
	}
	q, v := make([]float32, 8), make([]float32, 20)
	out := make([]float32, 4)
	err := hostsimd.Gather(q, v, 4, []int32{0, 4, 5, 1}, ops.L2Sq, out)
	if err == nil || !strings.Contains(err.Error(), "ids[2]=5") {
		t.Errorf("bad id: err=%v", err)
	}
	err = hostsimd.Gather(q, v, 4, []int32{0, -1, 1, 1}, ops.L2Sq, out)
	if err == nil || !strings.Contains(err.Error(), "ids[1]=-1") {
		t.Errorf("negative id: err=%v", err)
	}
	if err := hostsimd.Gather(q, v, 4, []int32{0, 1, 2}, ops.L2Sq, out); err == nil {
		t.Error("len(ids) not a multiple of Q accepted")
	}
	if err := hostsimd.Gather(q, v, 4, []int32{0, 1}, ops.Metric(7), out); err == nil || !strings.Contains(err.Error(), "Metric(7)") {
		t.Errorf("bad metric: err=%v", err)
	}
}

func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	nan := float32(math.NaN())
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(300)
		s := make([]float32, n)
		for i := range s {
			switch rng.IntN(10) {
			case 0:
				s[i] = nan
			case 1, 2:
				s[i] = float32(rng.IntN(3)) // ties
			default:
				s[i] = rng.Float32()
			}
		}
		k := rng.IntN(n + 3)
		got := hostsimd.TopK(s, k)
		if want := min(k, n); len(got) != want {
			t.Fatalf("len=%d want %d", len(got), want)
		}
		// Reference: every selected pair ranks before every unselected one,
		// and the output is in rank order.
		isNaN := func(x float32) bool { return x != x }
		before := func(a, b ops.Pair) bool {
			if isNaN(a.Score) != isNaN(b.Score) {
				return isNaN(b.Score)
			}
			if !isNaN(a.Score) && a.Score != b.Score {
				return a.Score > b.Score
			}
			return a.Index < b.Index
		}
		sel := map[int32]bool{}
		for i, p := range got {
			if s[p.Index] != p.Score && !(isNaN(p.Score) && isNaN(s[p.Index])) {
				t.Fatalf("pair %v does not match input", p)
			}
			sel[p.Index] = true
			if i > 0 && !before(got[i-1], p) {
				t.Fatalf("out of order: %v then %v", got[i-1], p)
			}
		}
		if len(got) > 0 {
			last := got[len(got)-1]
			for i, x := range s {
				if !sel[int32(i)] && before(ops.Pair{Index: int32(i), Score: x}, last) {
					t.Fatalf("unselected %d (%v) beats %v", i, x, last)
				}
			}
		}
	}
	if got := hostsimd.TopK([]float32{1, 2}, 0); len(got) != 0 {
		t.Errorf("k=0: %v", got)
	}
	got := hostsimd.TopK([]float32{nan, 0.5, 0.5, 2}, 4)
	want := []ops.Pair{{Index: 3, Score: 2}, {Index: 1, Score: 0.5}, {Index: 2, Score: 0.5}, {Index: 0, Score: nan}}
	for i := range want {
		if got[i].Index != want[i].Index {
			t.Fatalf("TopK = %v, want %v", got, want)
		}
	}
}

func TestThreadsAndPool(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const d, n = 64, 5000
	q, v := randVec(rng, d), randVec(rng, n*d)
	if c := (hostsimd.Host{Threads: 1}).ThreadCount(); c != 1 {
		t.Fatalf("Host{Threads: 1}.ThreadCount() = %d", c)
	}
	one := make([]float32, n)
	hostsimd.Host{Threads: 1}.CosineSingle(q, v, d, one)
	for _, th := range []int{2, 3, 8} {
		many := make([]float32, n)
		if err := (hostsimd.Host{Threads: th}).CosineSingle(q, v, d, many); err != nil {
			t.Fatal(err)
		}
		for i := range one {
			if one[i] != many[i] {
				t.Fatalf("threads=%d row %d: %v vs %v", th, i, many[i], one[i])
			}
		}
	}
}

// FuzzCosineBatch checks CosineBatch on every level against the float64
// reference for fuzzed shapes: d = 1+d8%130, Q = 1+q8%20, N = n8%40, with
// values from a PCG seeded by seed and a NaN at nanAt when it is inside v.
func FuzzCosineBatch(f *testing.F) {
	f.Add(uint64(1), uint8(15), uint8(8), uint8(7), -1)
	f.Add(uint64(2), uint8(31), uint8(13), uint8(30), 40)
	f.Add(uint64(3), uint8(0), uint8(4), uint8(3), 2)
	f.Fuzz(func(t *testing.T, seed uint64, d8, q8, n8 uint8, nanAt int) {
		d, nq, n := 1+int(d8)%130, 1+int(q8)%20, int(n8)%40
		rng := rand.New(rand.NewPCG(seed, 1))
		qs, v := randVec(rng, nq*d), randVec(rng, n*d)
		if n > 3 {
			copy(v[3*d:4*d], make([]float32, d))
		}
		if nanAt >= 0 && nanAt < len(v) {
			v[nanAt] = float32(math.NaN())
		}
		forEachLevel(t, func(h hostsimd.Host) {
			l := h.Level

			out, buf := guarded(nq * n)
			if err := h.CosineBatch(qs, v, d, out); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, "CosineBatch", buf, nq*n)
			for j := 0; j < nq; j++ {
				for i := 0; i < n; i++ {
					got := out[j*n+i]
					if nanAt >= i*d && nanAt < (i+1)*d {
						if !math.IsNaN(float64(got)) {
							t.Fatalf("%v d=%d Q=%d N=%d [%d,%d]=%v, want NaN", l, d, nq, n, j, i, got)
						}
						continue
					}
					want, tol := refCos(qs[j*d:(j+1)*d], v[i*d:(i+1)*d])
					if !near(got, want, tol) {
						t.Fatalf("%v d=%d Q=%d N=%d [%d,%d]=%v want %v", l, d, nq, n, j, i, got, want)
					}
				}
			}
		})
	})
}
