package compute_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// hostTopK is the exact selection on float32 scores: descending, equal
// scores by lower index.
func hostTopK(scores []float32, k int) []ops.Pair {
	all := make([]ops.Pair, len(scores))
	for i, s := range scores {
		all[i] = ops.Pair{Index: int32(i), Score: s}
	}
	slices.SortFunc(all, func(a, b ops.Pair) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return all[:k]
}

// checkTopKRef checks got (the k best of one query) against the float64
// reference scores of q against V: every score within tolerance of its
// row's reference, order descending (ties by index), the j-th score within
// tolerance of the j-th best reference, and no row left out that is better
// than the last one kept by more than the tolerance (so a different set is
// accepted only where scores tie within tolerance).
func checkTopKRef(t *testing.T, what string, q, v []float32, dim int, got []ops.Pair) {
	t.Helper()
	const eps32 = 1.0 / (1 << 23)
	n := len(v) / dim
	ref := make([]float64, n)
	var tol float64
	for i := range ref {
		var scale float64
		ref[i], scale = cosineRef(q, v[i*dim:(i+1)*dim])
		tol = max(tol, 4*float64(dim)*eps32*scale+1e-6)
	}
	sorted := slices.Clone(ref)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
	kept := map[int32]bool{}
	for j, p := range got {
		if p.Index < 0 || int(p.Index) >= n || kept[p.Index] {
			t.Fatalf("%s: pair %d has index %d: out of range or repeated (%v)", what, j, p.Index, got)
		}
		kept[p.Index] = true
		g := float64(p.Score)
		if math.IsNaN(g) || math.Abs(g-ref[p.Index]) > tol {
			t.Fatalf("%s: pair %d = %+v, reference score of row %d is %v (tol %.3g)", what, j, p, p.Index, ref[p.Index], tol)
		}
		if math.Abs(g-sorted[j]) > 2*tol {
			t.Fatalf("%s: pair %d = %+v, the %d-th best reference score is %v (tol %.3g)", what, j, p, j, sorted[j], 2*tol)
		}
		if j > 0 {
			prev := got[j-1]
			if prev.Score < p.Score || (prev.Score == p.Score && prev.Index > p.Index) {
				t.Fatalf("%s: pairs %d, %d out of order: %+v then %+v", what, j-1, j, prev, p)
			}
		}
	}
	last := float64(got[len(got)-1].Score)
	for i, r := range ref {
		if !kept[int32(i)] && r > last+2*tol {
			t.Fatalf("%s: row %d (reference %v) left out, better than the last kept %v by more than %.3g", what, i, r, last, 2*tol)
		}
	}
}

func poisonedPairs(n int) []ops.Pair {
	s := make([]ops.Pair, n)
	for i := range s {
		s[i] = ops.Pair{Index: -7, Score: float32(math.NaN())}
	}
	return s
}

func checkTwoPasses(t *testing.T, tm compute.Timing) {
	t.Helper()
	if len(tm.Passes)%2 != 0 || !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
		t.Fatalf("implausible timing %+v", tm)
	}
}

func TestTopKSingle(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(6, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	cases := []struct{ n, dim int }{{1, 4}, {5, 128}, {300, 768}, {5000, 64}, {40_000, 4}} // 40000: three rounds at k = 256
	for _, c := range cases {
		v := randFloats(r, c.n*c.dim)
		zeroRow(v, c.dim, 3)
		cs, err := compute.NewCosineSingle(d, v, c.dim, compute.CosineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q := randFloats(r, c.dim)
		all := poisoned(c.n)
		if _, err := cs.Run(q, all, nil); err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 7, 64, 256, c.n} {
			if k > c.n || (k == c.n && c.n > compute.MaxTopK) {
				continue
			}
			ts, err := compute.NewTopKSingle(cs, k, compute.TopKOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := poisonedPairs(k)
			tm, err := ts.Run(q, got, timer)
			if err != nil {
				t.Fatal(err)
			}
			checkTwoPasses(t, tm)
			what := fmt.Sprintf("TopKSingle N=%d D=%d k=%d", c.n, c.dim, k)
			// Exact: the same selection as the host makes on the GPU's scores.
			if want := hostTopK(all, k); !slices.Equal(got, want) {
				t.Fatalf("%s: got %v\nwant %v (host selection on the GPU scores)", what, headPairs(got), headPairs(want))
			}
			checkTopKRef(t, what, q, v, c.dim, got)
			ts.Release()
			ts.Release()
		}
		cs.Release()
	}
}

func headPairs(p []ops.Pair) []ops.Pair { return p[:min(len(p), 12)] }

// Many equal scores: ties must go to the lower index, across slices and
// rounds.
func TestTopKTies(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	const q, n = 3, 9000
	scores := make([]float32, q*n)
	levels := []float32{-1, -0.25, 0, 0.5, 0.75, 1}
	for i := range scores {
		scores[i] = levels[r.IntN(len(levels))]
	}
	buf := upload(t, d, "scores", scores, 0)
	defer buf.Release()
	for _, k := range []int{1, 33, 100, 256} {
		tk, err := compute.NewTopK(d, buf, q, n, k, compute.TopKOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := poisonedPairs(q * k)
		if _, err := tk.Run(got, nil); err != nil {
			t.Fatal(err)
		}
		for row := 0; row < q; row++ {
			want := hostTopK(scores[row*n:(row+1)*n], k)
			if g := got[row*k : (row+1)*k]; !slices.Equal(g, want) {
				t.Fatalf("k=%d row %d: got %v\nwant %v", k, row, headPairs(g), headPairs(want))
			}
		}
		tk.Release()
	}
}

func TestCosineBatchTopK(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(8, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	const dim = 128
	for _, n := range []int{5, 300, 3000} {
		v := randFloats(r, n*dim)
		zeroRow(v, dim, 1)
		for _, o := range []compute.CosineBatchOptions{{}, {Tiled: true, Tile: 32}} {
			cb, err := compute.NewCosineBatch(d, v, dim, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, nq := range []int{1, 3, 64} {
				qs := randFloats(r, nq*dim)
				zeroRow(qs, dim, 2)
				all := poisoned(nq * n)
				if _, err := cb.Run(qs, all, nil); err != nil {
					t.Fatal(err)
				}
				for _, k := range []int{1, 10, n} {
					if k > n || k > compute.MaxTopK {
						continue
					}
					got := poisonedPairs(nq * k)
					tm, err := cb.RunTopK(qs, k, got, timer)
					if err != nil {
						t.Fatal(err)
					}
					checkTwoPasses(t, tm)
					for qi := 0; qi < nq; qi++ {
						what := fmt.Sprintf("%+v Q=%d N=%d k=%d query %d", cb.Options(), nq, n, k, qi)
						g := got[qi*k : (qi+1)*k]
						if want := hostTopK(all[qi*n:(qi+1)*n], k); !slices.Equal(g, want) {
							t.Fatalf("%s: got %v\nwant %v", what, headPairs(g), headPairs(want))
						}
						checkTopKRef(t, what, qs[qi*dim:(qi+1)*dim], v, dim, g)
					}
				}
			}
			cb.Release()
		}
	}
}

func TestTopKRejects(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(9, 1))
	v := randFloats(r, 5*8)
	cb, err := compute.NewCosineBatch(d, v, 8, compute.CosineBatchOptions{Tiled: true, Tile: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	qs := randFloats(r, 8)
	for _, k := range []int{0, 6, compute.MaxTopK + 1} {
		if _, err := cb.RunTopK(qs, k, make([]ops.Pair, max(k, 0)), nil); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("k = %d", k)) {
			t.Errorf("k = %d with N = 5: err = %v", k, err)
		}
	}
	if _, err := cb.RunTopK(qs, 2, make([]ops.Pair, 3), nil); err == nil {
		t.Error("len(out) = 3 for k = 2 accepted")
	}
	cs, err := compute.NewCosineSingle(d, v, 8, compute.CosineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Release()
	if _, err := compute.NewTopKSingle(cs, 6, compute.TopKOptions{}); err == nil || !strings.Contains(err.Error(), "k = 6 > N = 5") {
		t.Errorf("TopKSingle k = 6 with N = 5: err = %v", err)
	}
	one, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Release()
	if _, err := cb.RunTopK(qs, 2, make([]ops.Pair, 2), one); err == nil {
		t.Error("a one-pass timer accepted for two passes")
	}
}

// The queue design selects exactly what the host selects: random scores,
// ties across slices and rounds, and scores in ascending order (every
// input beats the running threshold: the worst case for the loop budget),
// up to the largest k the adapter's loop budget lets through; a larger k
// is refused with ErrLimit, never truncated.
func TestTopKQueue(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(17, uint64(time.Now().UnixNano())))
	const q, n = 2, 20_000 // three rounds at k = 10
	levels := []float32{-1, -0.25, 0, 0.5, 0.75, 1}
	inputs := map[string][]float32{"random": randFloats(r, q*n), "ties": make([]float32, q*n), "ascending": make([]float32, q*n)}
	for i := range inputs["ties"] {
		inputs["ties"][i] = levels[r.IntN(len(levels))]
		inputs["ascending"][i] = float32(i%n) / n
	}
	// 126 is the largest k lavapipe's loop budget lets through (a slice of
	// 4k inputs, each shifting up to k entries); 127 is refused there.
	// 4, 5, 16 and 17 sit at the register queue's edges (vec4 blocks, its
	// 16 entries; 17 takes the shifting queue).
	ks := []int{1, 4, 5, 10, 16, 17, 126, 127}
	for name, scores := range inputs {
		buf := upload(t, d, "scores", scores, 0)
		for _, k := range ks {
			tk, err := compute.NewTopK(d, buf, q, n, k, compute.TopKOptions{Queue: true})
			if err != nil {
				if d.LoopBudget() > 0 && errors.Is(err, wgpu.ErrLimit) && k > 10 {
					continue // past the loop budget: refused
				}
				t.Fatalf("%s k=%d: %v", name, k, err)
			}
			got := poisonedPairs(q * k)
			if _, err := tk.Run(got, nil); err != nil {
				t.Fatal(err)
			}
			for row := 0; row < q; row++ {
				want := hostTopK(scores[row*n:(row+1)*n], k)
				if g := got[row*k : (row+1)*k]; !slices.Equal(g, want) {
					t.Fatalf("queue %s k=%d row %d: got %v\nwant %v", name, k, row, headPairs(g), headPairs(want))
				}
			}
			tk.Release()
		}
		buf.Release()
	}
	// One slice per row (one round): the output is one invocation's queue
	// as it stands, so every entry of it, the 16th included, must be right;
	// descending scores bring each entry in after all the better ones (a
	// threshold one place too high would drop the 16th).
	for _, m := range []int{40, 700, -700} {
		scores := randFloats(r, q*abs(m))
		if m < 0 {
			m = -m
			for row := 0; row < q; row++ {
				slices.Sort(scores[row*m : (row+1)*m])
				slices.Reverse(scores[row*m : (row+1)*m])
			}
		}
		buf := upload(t, d, "scores", scores, 0)
		for _, k := range []int{10, 15, 16} {
			tk, err := compute.NewTopK(d, buf, q, m, k, compute.TopKOptions{Queue: true})
			if err != nil {
				t.Fatalf("one slice m=%d k=%d: %v", m, k, err)
			}
			got := poisonedPairs(q * k)
			if _, err := tk.Run(got, nil); err != nil {
				t.Fatal(err)
			}
			for row := 0; row < q; row++ {
				if want, g := hostTopK(scores[row*m:(row+1)*m], k), got[row*k:(row+1)*k]; !slices.Equal(g, want) {
					t.Fatalf("queue one slice m=%d k=%d row %d: got %v\nwant %v", m, k, row, headPairs(g), headPairs(want))
				}
			}
			tk.Release()
		}
		buf.Release()
	}
	if d.LoopBudget() > 0 {
		buf := upload(t, d, "scores", make([]float32, 4096), 0)
		defer buf.Release()
		for _, k := range []int{127, compute.MaxTopK} {
			if _, err := compute.NewTopK(d, buf, 1, 4096, k, compute.TopKOptions{Queue: true}); !errors.Is(err, wgpu.ErrLimit) {
				t.Fatalf("k=%d on %s: want ErrLimit (loop budget), got %v", k, d.Info.Name, err)
			}
		}
		tk, err := compute.NewTopK(d, buf, 1, 4096, 126, compute.TopKOptions{Queue: true})
		if err != nil {
			t.Fatalf("k=126 on %s: %v", d.Info.Name, err)
		}
		tk.Release()
	}
	// Cosine scores then the queue, in one submission.
	const dim = 64
	v := randFloats(r, 5000*dim)
	cs, err := compute.NewCosineSingle(d, v, dim, compute.CosineOptions{RowPerInvocation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Release()
	qv := randFloats(r, dim)
	all := poisoned(5000)
	if _, err := cs.Run(qv, all, nil); err != nil {
		t.Fatal(err)
	}
	ts, err := compute.NewTopKSingle(cs, 10, compute.TopKOptions{Queue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Release()
	got := poisonedPairs(10)
	if _, err := ts.Run(qv, got, nil); err != nil {
		t.Fatal(err)
	}
	if want := hostTopK(all, 10); !slices.Equal(got, want) {
		t.Fatalf("TopKSingle queue: got %v\nwant %v", got, want)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
