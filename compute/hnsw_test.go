package compute_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// gatherRef is the float64 reference of one (query, row) distance with its
// error tolerance for float32 sums of d terms in any order: (d+8)·2u times
// the sum of the absolute terms (for cosine, relative to the norms), plus
// a tiny absolute floor.
func gatherRef(m ops.Metric, q, v []float32) (want, tol float64) {
	const u = 1.0 / (1 << 24)
	var dot, abs, l2, qq, vv float64
	for k := range q {
		a, b := float64(q[k]), float64(v[k])
		dot += a * b
		abs += math.Abs(a * b)
		l2 += (a - b) * (a - b)
		qq += a * a
		vv += b * b
	}
	g := float64(len(q)+8) * 2 * u
	switch m {
	case ops.L2Sq:
		return l2, g*l2 + 1e-30
	case ops.InnerProduct:
		return dot, g*abs + 1e-30
	}
	den := math.Sqrt(qq) * math.Sqrt(vv)
	if den == 0 {
		return 0, 0
	}
	return dot / den, g*abs/den + 1e-7
}

func checkGather(t *testing.T, what string, m ops.Metric, q, v []float32, dim int, ids []int32, c int, got []float32) {
	t.Helper()
	for i, x := range got {
		j, id := i/c, int(ids[i])
		want, tol := gatherRef(m, q[j*dim:(j+1)*dim], v[id*dim:(id+1)*dim])
		if g := float64(x); math.IsNaN(g) || math.Abs(g-want) > tol {
			t.Fatalf("%s: d[%d][%d] (id %d) = %v, want %v (tol %.3g)", what, j, i%c, id, x, want, tol)
		}
	}
}

// randIDs draws Q·C ids in [0,n) and forces duplicates: within a query
// (candidate 1 repeats candidate 0) and across queries.
func randIDs(r *rand.Rand, n, queries, c int) []int32 {
	ids := make([]int32, queries*c)
	for i := range ids {
		ids[i] = int32(r.IntN(n))
	}
	if c > 1 {
		ids[1] = ids[0]
	}
	if queries > 1 {
		ids[c] = ids[0]
	}
	return ids
}

var metrics = []ops.Metric{ops.L2Sq, ops.InnerProduct, ops.Cosine}

func TestGatherConformance(t *testing.T) {
	d := openDevice(t)
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	r := rand.New(rand.NewPCG(11, 12))
	const n = 1000
	for _, dim := range []int{4, 128, 768} {
		v := randFloats(r, n*dim)
		for k := 0; k < dim; k++ { // row 2 is zero: cosine gives 0, not NaN
			v[2*dim+k] = 0
		}
		for _, o := range []compute.GatherOptions{{}, {PerPair: true}} {
			for _, m := range metrics {
				g, err := compute.NewGather(d, v, dim, compute.GatherOptions{Metric: m, PerPair: o.PerPair})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []int{16, 32, 64, 128} {
					for _, nq := range []int{1, 3, 100} {
						what := fmt.Sprintf("%v D=%d C=%d Q=%d lanes=%d perPair=%v", m, dim, c, nq, g.Lanes(), o.PerPair)
						q := randFloats(r, nq*dim)
						ids := randIDs(r, n, nq, c)
						ids[len(ids)-1] = 2
						out := poisoned(nq * c)
						tm, err := g.Run(q, ids, c, out, timer)
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
							t.Fatalf("%s: implausible timing %+v", what, tm)
						}
						checkGather(t, what, m, q, v, dim, ids, c, out)
					}
				}
				g.Release()
				g.Release()
			}
		}
	}
}

// Every workgroup and lane split gives the same answers, including pair
// counts that do not fill the last workgroup and a zero query.
func TestGatherLanes(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(13, 14))
	const n, dim = 300, 96
	v := randFloats(r, n*dim)
	for _, o := range []struct{ wg, lanes int }{{64, 1}, {32, 4}, {64, 16}, {128, 32}, {256, 64}, {64, 64}} {
		for _, m := range metrics {
			g, err := compute.NewGather(d, v, dim, compute.GatherOptions{Metric: m, Workgroup: o.wg, Lanes: o.lanes})
			if err != nil {
				t.Fatal(err)
			}
			const nq, c = 7, 33
			q := randFloats(r, nq*dim)
			for k := 0; k < dim; k++ {
				q[3*dim+k] = 0
			}
			ids := randIDs(r, n, nq, c)
			out := poisoned(nq * c)
			if _, err := g.Run(q, ids, c, out, nil); err != nil {
				t.Fatal(err)
			}
			checkGather(t, fmt.Sprintf("%v wg=%d lanes=%d", m, o.wg, o.lanes), m, q, v, dim, ids, c, out)
			g.Release()
		}
	}
}

func TestGatherRejectsBadInput(t *testing.T) {
	d := openDevice(t)
	v := make([]float32, 10*8)
	for i := range v {
		v[i] = float32(i)
	}
	cons := []struct {
		name string
		v    []float32
		dim  int
		o    compute.GatherOptions
		want string
	}{
		{"dim 6", v[:60], 6, compute.GatherOptions{}, "dimension 6"},
		{"empty", nil, 8, compute.GatherOptions{}, "len(V) = 0"},
		{"ragged", v[:20], 8, compute.GatherOptions{}, "len(V) = 20"},
		{"metric", v, 8, compute.GatherOptions{Metric: 9}, "metric 9"},
		{"lanes 3", v, 8, compute.GatherOptions{Lanes: 3}, "lanes 3"},
		{"lanes > wg", v, 8, compute.GatherOptions{Workgroup: 32, Lanes: 64}, "lanes 64"},
		{"workgroup", v, 8, compute.GatherOptions{Workgroup: 48}, "workgroup size 48"},
	}
	for _, c := range cons {
		if _, err := compute.NewGather(d, c.v, c.dim, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %q", c.name, err, c.want)
		}
	}
	nanV := append([]float32(nil), v...)
	nanV[13] = float32(math.NaN())
	if _, err := compute.NewGather(d, nanV, 8, compute.GatherOptions{}); err == nil || !strings.Contains(err.Error(), "V[13]") {
		t.Errorf("NaN in V: err = %v", err)
	}
	g, err := compute.NewGather(d, v, 8, compute.GatherOptions{Metric: ops.Cosine})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	q := make([]float32, 2*8)
	runs := []struct {
		name string
		q    []float32
		ids  []int32
		c    int
		out  int
		want string
	}{
		{"id = N", q, []int32{0, 1, 2, 10}, 2, 4, "ids[3] = 10 (query 1, candidate 1)"},
		{"negative id", q, []int32{0, -1, 2, 3}, 2, 4, "ids[1] = -1"},
		{"c = 0", q, nil, 0, 0, "c = 0"},
		{"ids length", q, []int32{0, 1, 2}, 2, 4, "len(ids) = 3"},
		{"out length", q, []int32{0, 1, 2, 3}, 2, 3, "len(out) = 3"},
		{"q length", q[:12], []int32{0, 1}, 2, 2, "len(q) = 12"},
		{"nan q", append(make([]float32, 9), float32(math.NaN()), 0, 0, 0, 0, 0, 0), []int32{0, 1, 2, 3}, 2, 4, "q[9]"},
	}
	for _, c := range runs {
		if _, err := g.Run(c.q, c.ids, c.c, poisoned(c.out), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to name %q", c.name, err, c.want)
		}
	}
	// Still works after the rejected calls.
	q[0], q[9] = 1, 2
	ids := []int32{9, 0, 0, 5}
	out := poisoned(4)
	if _, err := g.Run(q, ids, 2, out, nil); err != nil {
		t.Fatal(err)
	}
	checkGather(t, "after rejects", ops.Cosine, q, v, 8, ids, 2, out)
}

// V just past one storage binding (lavapipe: 128 MiB) is split by rows;
// candidates in both chunks, at the rows either side of the chunk
// boundary and at the first and last rows are each computed by their own
// chunk's dispatch.
func TestGatherChunkedPastBindingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates past the binding limit")
	}
	d := openDevice(t)
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	r := rand.New(rand.NewPCG(31, 32))
	const dim = 64
	n := int(d.Limits.MaxStorageBufferBindingSize/(4*dim)) + 1000
	v := randFloats(r, n*dim)
	const nq, c = 9, 40
	q := randFloats(r, nq*dim)
	for _, perPair := range []bool{false, true} {
		for _, m := range metrics {
			g, err := compute.NewGather(d, v, dim, compute.GatherOptions{Metric: m, PerPair: perPair})
			if err != nil {
				t.Fatal(err)
			}
			if g.Chunks() != 2 || g.InputBytes != uint64(4*len(v)) {
				t.Fatalf("N=%d D=%d: %d chunk(s) holding %d bytes; the test needs 2 chunks holding V's %d", n, dim, g.Chunks(), g.InputBytes, 4*len(v))
			}
			// The chunk boundary: the largest multiple of 64 rows that fits
			// one binding (the split rule documented in NewGather).
			b := int(d.Limits.MaxStorageBufferBindingSize/(4*dim)) &^ 63
			ids := randIDs(r, n, nq, c)
			for i, id := range []int32{0, int32(b - 1), int32(b), int32(b + 1), int32(n - 1), int32(b - 1), int32(b)} {
				ids[2+5*i] = id // spread over queries 0 and 1
			}
			for j := 2; j < nq; j++ { // queries 2…: half in the first chunk, half in the second
				for k := 0; k < c; k++ {
					if k%2 == 0 {
						ids[j*c+k] = int32(r.IntN(b))
					} else {
						ids[j*c+k] = int32(b + r.IntN(n-b))
					}
				}
			}
			out := poisoned(nq * c)
			tm, err := g.Run(q, ids, c, out, timer)
			if err != nil {
				t.Fatalf("%v: %v", m, err)
			}
			if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
				t.Fatalf("%v: implausible timing %+v", m, tm)
			}
			checkGather(t, fmt.Sprintf("%v chunked N=%d perPair=%v", m, n, perPair), m, q, v, dim, ids, c, out)
			g.Release()
			g.Release()
		}
	}
}

// With the binding limit lowered, V is split into many small chunks: some
// chunks get no candidate, a single query or a single pair, odd counts,
// every candidate in one chunk, and later calls with more pairs grow the
// per-call buffers, each against the float64 reference.
func TestGatherManyChunks(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(33, 34))
	const dim = 128
	const per = 64 // rows per chunk
	// 74 rows per binding round down to 64 per chunk; per-call buffers up
	// to 74 queries and 9,472 pairs fit.
	d.Limits.MaxStorageBufferBindingSize = 4 * dim * (per + 10)
	const n = 7*per + 13 // 8 chunks, the last of 13 rows
	v := randFloats(r, n*dim)
	for k := 0; k < dim; k++ { // row per+1 is zero: cosine gives 0, not NaN
		v[(per+1)*dim+k] = 0
	}
	inChunk := func(k int) int32 { return int32(k*per + r.IntN(min(per, n-k*per))) }
	for _, m := range metrics {
		for _, o := range []compute.GatherOptions{{Metric: m}, {Metric: m, Workgroup: 32, Lanes: 1}} {
			g, err := compute.NewGather(d, v, dim, o)
			if err != nil {
				t.Fatal(err)
			}
			if g.Chunks() != 8 {
				t.Fatalf("%d chunks, want 8", g.Chunks())
			}
			// The rows either side of every chunk boundary, and the first
			// and last rows.
			edges := []int32{0, n - 1}
			for k := 1; k < 8; k++ {
				edges = append(edges, int32(k*per-1), int32(k*per))
			}
			calls := []struct {
				what  string
				nq, c int
				ids   func(i int) int32 // id of pair i
			}{
				{"one pair, last row", 1, 1, func(int) int32 { return n - 1 }},
				{"one pair, first row", 1, 1, func(int) int32 { return 0 }},
				{"N=1 query, odd C, chunks 2 and 5 only", 1, 7, func(i int) int32 { return inChunk(2 + 3*(i%2)) }},
				{"every candidate in the last chunk", 3, 5, func(int) int32 { return inChunk(7) }},
				{"chunk boundaries", 2, 17, func(i int) int32 { return edges[i%len(edges)] }},
				{"uniform over V and the zero row, grows", 37, 29, func(i int) int32 {
					if i%10 == 3 {
						return per + 1
					}
					return int32(r.IntN(n))
				}},
				{"fewer pairs after growth, odd chunks empty", 5, 3, func(int) int32 { return inChunk(2 * r.IntN(4)) }},
				{"grows again", 60, 33, func(int) int32 { return int32(r.IntN(n)) }},
			}
			for _, call := range calls {
				what := fmt.Sprintf("%v wg=%d lanes=%d %s (Q=%d C=%d)", m, o.Workgroup, g.Lanes(), call.what, call.nq, call.c)
				q := randFloats(r, call.nq*dim)
				ids := make([]int32, call.nq*call.c)
				for i := range ids {
					ids[i] = call.ids(i)
				}
				out := poisoned(len(ids))
				if _, err := g.Run(q, ids, call.c, out, nil); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkGather(t, what, m, q, v, dim, ids, call.c, out)
			}
			g.Release()
			g.Release()
		}
	}
}

// More pairs than workgroups fit in one grid dimension: the grid becomes
// 2-D.
func TestGatherTwoDimensionalGrid(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(24, 25))
	const n, dim = 500, 8
	v := randFloats(r, n*dim)
	g, err := compute.NewGather(d, v, dim, compute.GatherOptions{Metric: ops.L2Sq, Workgroup: 64, Lanes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	c := int(d.Limits.MaxComputeWorkgroupsPerDimension) + 77 // one pair per workgroup
	q := randFloats(r, dim)
	ids := randIDs(r, n, 1, c)
	out := poisoned(c)
	if _, err := g.Run(q, ids, c, out, nil); err != nil {
		t.Fatal(err)
	}
	checkGather(t, "2-D grid", ops.L2Sq, q, v, dim, ids, c, out)
}
