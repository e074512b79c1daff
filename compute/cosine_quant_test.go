package compute_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// codesF32 quantizes v (rows of d) and returns the codes as float32: the
// cosine of two quantized vectors is the cosine of their codes.
func codesF32(t *testing.T, v []float32, d int) []float32 {
	t.Helper()
	codes, scales := make([]int8, len(v)), make([]float32, len(v)/d)
	if err := hostsimd.QuantizeInt8(v, d, codes, scales); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(v))
	for i, c := range codes {
		out[i] = float32(c)
	}
	return out
}

// TestCosineSingleInt8 checks the int8 runner's cosines (both designs)
// against the float64 cosine of the codes with the f32 kernel's tolerance
// (the integer sums are exact: TestCosineSingleInt8Exact), and the GPU
// top-k it feeds against a top-k of the scores.
func TestCosineSingleInt8(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	for _, c := range []struct {
		n, dim, wg int
		rows       bool
	}{{1, 4, 64, false}, {3, 128, 32, true}, {257, 384, 128, false}, {1000, 768, 64, true}} {
		v := randFloats(r, c.n*c.dim)
		if c.n > 2 {
			for k := 0; k < c.dim; k++ {
				v[2*c.dim+k] = 0
			}
		}
		q := randFloats(r, c.dim)
		cs, err := compute.NewCosineSingleInt8(d, v, c.dim, compute.CosineOptions{Workgroup: c.wg, RowPerInvocation: c.rows})
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(c.n * c.dim); cs.InputBytes != want {
			t.Fatalf("InputBytes = %d, want %d (int8)", cs.InputBytes, want)
		}
		out := poisoned(c.n)
		if _, err := cs.Run(q, out, nil); err != nil {
			t.Fatal(err)
		}
		checkCosines(t, "cosine_single_int8", codesF32(t, q, c.dim), codesF32(t, v, c.dim), c.dim, out)
		k := min(c.n, 10)
		ts, err := compute.NewTopKSingle(cs, k, compute.TopKOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := poisonedPairs(k)
		if _, err := ts.Run(q, got, nil); err != nil {
			t.Fatal(err)
		}
		want := hostTopK(out, k)
		for i := range got {
			if got[i].Index != want[i].Index || math.Abs(float64(got[i].Score-want[i].Score)) > 1e-6 {
				t.Fatalf("top-%d on int8: got %v, want %v", k, got, want)
			}
		}
		ts.Release()
		cs.Release()
	}
}

func TestCosineSingleInt8Rejects(t *testing.T) {
	d := openDevice(t)
	for _, c := range []struct {
		v    []float32
		dim  int
		opts compute.CosineOptions
		want string
	}{
		{[]float32{1, 2, 3, float32(math.Inf(1))}, 4, compute.CosineOptions{}, "V[3]"},
		{make([]float32, 6), 6, compute.CosineOptions{}, "dimension 6"},
		{make([]float32, 8), 4, compute.CosineOptions{PrecomputedNorms: true}, "PrecomputedNorms"},
		{make([]float32, 8), 4, compute.CosineOptions{Subgroup: true}, "Subgroup"},
	} {
		if _, err := compute.NewCosineSingleInt8(d, c.v, c.dim, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %q, got %v", c.want, err)
		}
	}
}

// TestCosineBatchInt8 checks the untiled int8 batch runner against the
// float64 cosines of the codes (the f32 kernel's tolerance), across chunks
// of queries and rows; TestCosineBatchConformance runs every design.
func TestCosineBatchInt8(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(12, uint64(time.Now().UnixNano())))
	for _, c := range []struct{ nq, n, dim int }{{1, 1, 4}, {5, 300, 132}, {17, 1000, 768}} {
		v, qs := randFloats(r, c.n*c.dim), randFloats(r, c.nq*c.dim)
		cb, err := compute.NewCosineBatchInt8(d, v, c.dim, compute.CosineBatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(c.n * c.dim); cb.InputBytes != want {
			t.Fatalf("InputBytes = %d, want %d (int8)", cb.InputBytes, want)
		}
		out := poisoned(c.nq * c.n)
		if _, err := cb.Run(qs, out, nil); err != nil {
			t.Fatal(err)
		}
		cb.Release()
		vc := codesF32(t, v, c.dim)
		for j := 0; j < c.nq; j++ {
			checkCosines(t, "cosine_batch_int8", codesF32(t, qs[j*c.dim:(j+1)*c.dim], c.dim), vc, c.dim, out[j*c.n:(j+1)*c.n])
		}
	}
}

// The int8 peak's three designs (the chain through the dot, the
// accumulators, the register block) run and are checked word for word (a wrong word fails
// MeasureInt8Peak): the peak is the faster one's positive rate, naming it.
func TestMeasureInt8Peak(t *testing.T) {
	d := openDevice(t)
	p, err := compute.MeasureInt8Peak(d, compute.CeilingOptions{Bytes: 1 << 20, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !(p.GOPs > 0) || !strings.HasPrefix(p.Kernel, "micro_dot4i8") || len(p.Tried) != 3 {
		t.Fatalf("%+v", p)
	}
	for _, d := range p.Tried {
		if !(d.GBs > 0) || d.GBs > p.GOPs || (d.Name == p.Kernel) != (d.GBs == p.GOPs) {
			t.Errorf("design %+v against the peak %+v", d, p)
		}
	}
	t.Logf("%+v", p)
}
