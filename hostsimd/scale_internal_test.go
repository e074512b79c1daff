package hostsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// extremeCase is a query and rows scaled far from 1: their squared norms
// leave float32's range.
type extremeCase struct {
	name   string
	qScale float32
	// vScales[i] scales row i (the rows cycle through them).
	vScales []float32
	ones    bool // q (and v, when its scale equals q's) all ones
}

var extremeCases = []extremeCase{
	{"q=1e30*ones", 1e30, []float32{1}, true},
	{"q=v=1e30*ones", 1e30, []float32{1e30}, true},
	{"q=v=1e-30*ones", 1e-30, []float32{1e-30}, true},
	{"q=1e-30, v=1", 1e-30, []float32{1}, false},
	{"q=1, v=1e30", 1, []float32{1e30}, false},
	{"q=1e30, v=1e-30", 1e30, []float32{1e-30}, false},
	{"q=1, rows 1, 1e30, 1e-30, 1e-40, 0", 1, []float32{1, 1e30, 1e-30, 1e-40, 0}, false},
	{"q=1e-38, rows mixed", 1e-38, []float32{3e38 / 64, 1e-20, 1e20, 1}, false},
}

// inputs builds q (d) and n rows of d for c, from PCG values in [-1, 1).
func (c extremeCase) inputs(d, n int, seed uint64) (q, v []float32) {
	rng := rand.New(rand.NewPCG(seed, 99))
	q, v = make([]float32, d), make([]float32, n*d)
	for i := range q {
		x := rng.Float32()*2 - 1
		if c.ones {
			x = 1
		}
		q[i] = x * c.qScale
	}
	for r := range n {
		s := c.vScales[r%len(c.vScales)]
		for i := range d {
			x := rng.Float32()*2 - 1
			if c.ones && s == c.qScale {
				x = 1
			}
			v[r*d+i] = x * s
		}
	}
	return q, v
}

// ref64 is the cosine of q and row in float64 (0 for a zero vector).
func ref64(q, row []float32) float64 {
	var ab, aa, bb float64
	for i := range q {
		ab += float64(q[i]) * float64(row[i])
		aa += float64(q[i]) * float64(q[i])
		bb += float64(row[i]) * float64(row[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

const extremeTol = 2e-5

func checkExtreme(t *testing.T, what string, got []float32, q, v []float32, d int) {
	t.Helper()
	for i := range len(v) / d {
		want := ref64(q, v[i*d:(i+1)*d])
		if diff := math.Abs(float64(got[i]) - want); !(diff <= extremeTol) {
			t.Fatalf("%s row %d: %v, want %v (float64)", what, i, got[i], want)
		}
	}
}

// TestCosineExtremeScales: the cosine kernels give the float64 cosine for
// vectors whose squared norms overflow or underflow float32 (1e±30 and
// beyond), at every level, every CosineSingle row walk and one or two
// threads; ordinary rows beside them stay on the fast path.
func TestCosineExtremeScales(t *testing.T) {
	for _, c := range extremeCases {
		for _, d := range []int{5, 64, 768} {
			const n = 53
			q, v := c.inputs(d, n, uint64(d))
			for _, l := range Available() {
				k := tables[l]
				for _, th := range []int{1, 2} {
					r := Host{Level: l, FixLevel: true, ExactThreads: th}.mustResolve()
					for _, p := range singlePaths(k) {
						out := make([]float32, n)
						r.cosineSingleWith(singleImpl{k, p}, q, v, d, n, out)
						checkExtreme(t, fmt.Sprintf("%s d=%d %v/%v threads=%d CosineSingle", c.name, d, l, p, th), out, q, v, d)
					}
					h := Host{Level: l, FixLevel: true, ExactThreads: th}
					what := fmt.Sprintf("%s d=%d %v threads=%d", c.name, d, l, th)
					norms, out := make([]float32, n), make([]float32, n)
					if err := h.RowNorms(v, d, norms); err != nil {
						t.Fatal(err)
					}
					if err := h.CosineSingleNorms(q, v, d, norms, out); err != nil {
						t.Fatal(err)
					}
					for i := range n {
						if math.IsInf(float64(norms[i]), 0) {
							out[i] = float32(ref64(q, v[i*d:(i+1)*d])) // the norm itself exceeds float32
						}
					}
					checkExtreme(t, what+" CosineSingleNorms", out, q, v, d)
					// Queries: the case's q and an ordinary one.
					qs := append(append([]float32(nil), q...), v[:d]...)
					batch := make([]float32, 2*n)
					if err := h.CosineBatch(qs, v, d, batch); err != nil {
						t.Fatal(err)
					}
					checkExtreme(t, what+" CosineBatch q0", batch[:n], qs[:d], v, d)
					checkExtreme(t, what+" CosineBatch q1", batch[n:], qs[d:], v, d)
					ids := make([]int32, n)
					for i := range ids {
						ids[i] = int32(n - 1 - i)
					}
					g := make([]float32, n)
					if err := h.Gather(q, v, d, ids, ops.Cosine, g); err != nil {
						t.Fatal(err)
					}
					for i, id := range ids {
						want := ref64(q, v[int(id)*d:(int(id)+1)*d])
						if diff := math.Abs(float64(g[i]) - want); !(diff <= extremeTol) {
							t.Fatalf("%s Gather cosine id %d: %v, want %v", what, id, g[i], want)
						}
					}
					for i := range n {
						row := v[i*d : (i+1)*d]
						if got, want := h.Cosine(q, row), ref64(q, row); !(math.Abs(float64(got)-want) <= extremeTol) {
							t.Fatalf("%s Cosine row %d: %v, want %v", what, i, got, want)
						}
					}
					// Binary16 rows are in range; the query need not be.
					if c.vScales[0] == 1 {
						v16 := make([]uint16, d*n)
						w := make([]float32, d*n)
						for i, x := range v[:d*n] {
							if c.vScales[(i/d)%len(c.vScales)] != 1 {
								x = 0.5
							}
							v16[i] = ops.F32ToF16(x)
							w[i] = ops.F16ToF32(v16[i])
						}
						if err := h.CosineSingleF16(q, v16, d, out); err != nil {
							t.Fatal(err)
						}
						checkExtreme(t, what+" CosineSingleF16", out, q, w, d)
					}
				}
			}
		}
	}
}

// The fast path stays allocation-free and untouched for ordinary inputs:
// scaleQuery returns the query itself.
func TestScaleQueryOrdinary(t *testing.T) {
	q := []float32{0.5, -1, 2}
	k := defaultKernels()
	if s, ss := scaleQuery(k, q); &s[0] != &q[0] || ss != k.dot(q, q) {
		t.Errorf("an ordinary query was copied or its norm changed")
	}
	if a := testing.AllocsPerRun(10, func() { scaleQuery(k, q) }); a != 0 {
		t.Errorf("scaleQuery of an ordinary query: %.0f allocations", a)
	}
	inf := []float32{1, float32(math.Inf(1))}
	if _, ss := scaleQuery(k, inf); !math.IsNaN(float64(ss)) {
		t.Errorf("a query with +Inf: squared norm %v, want NaN (no cosine)", ss)
	}
}
