package compute_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

// cosineRef is the float64 reference with its error scale:
// Σ|q_k v_k| / (‖q‖‖v‖), the condition of the dot product.
func cosineRef(q, v []float32) (cos, scale float64) {
	var dot, qq, vv, abs float64
	for k := range q {
		a, b := float64(q[k]), float64(v[k])
		dot += a * b
		abs += math.Abs(a * b)
		qq += a * a
		vv += b * b
	}
	den := math.Sqrt(qq) * math.Sqrt(vv)
	if den == 0 {
		return 0, 0
	}
	return dot / den, abs / den
}

// checkCosines compares GPU scores with the float64 reference row by row.
func checkCosines(t *testing.T, what string, q, v []float32, d int, got []float32) {
	t.Helper()
	const eps32 = 1.0 / (1 << 23)
	for i := range got {
		want, scale := cosineRef(q, v[i*d:(i+1)*d])
		tol := 4*float64(d)*eps32*scale + 1e-6
		g := float64(got[i])
		if math.IsNaN(g) || math.Abs(g-want) > tol {
			t.Fatalf("%s: s[%d] = %v, want %v (tol %.3g)", what, i, g, want, tol)
		}
	}
}

func poisoned(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(math.NaN())
	}
	return s
}

func TestCosineSingleConformance(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	cases := []struct{ n, dim, wg int }{
		{1, 4, 64}, {1, 768, 64}, {3, 128, 32}, {257, 384, 128}, {1000, 768, 64}, {77, 1536, 256}, {100, 1028, 64},
	}
	for _, c := range cases {
		for _, design := range []compute.CosineOptions{{}, {PrecomputedNorms: true}, {RowPerInvocation: true}, {Subgroup: true}} {
			norms := design.PrecomputedNorms
			v := randFloats(r, c.n*c.dim)
			if c.n > 2 { // a zero row scores 0, not NaN
				for k := 0; k < c.dim; k++ {
					v[2*c.dim+k] = 0
				}
			}
			q := randFloats(r, c.dim)
			cs, err := compute.NewCosineSingle(d, v, c.dim, compute.CosineOptions{Workgroup: c.wg, PrecomputedNorms: norms, RowPerInvocation: design.RowPerInvocation, Subgroup: design.Subgroup})
			if design.Subgroup && errors.Is(err, compute.ErrUnsupported) {
				t.Logf("%s: %v", d.Info.Name, err)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			out := poisoned(c.n)
			tm, err := cs.Run(q, out, timer)
			if err != nil {
				t.Fatal(err)
			}
			if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
				t.Fatalf("implausible timing %+v", tm)
			}
			checkCosines(t, "cosine_single", q, v, c.dim, out)
			cs.Release()
			cs.Release()
		}
	}
}

// V larger than maxStorageBufferBindingSize is split across bindings.
func TestCosineSingleChunked(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates past the binding limit")
	}
	d := openDevice(t)
	r := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	const dim = 768
	n := int(d.Limits.MaxStorageBufferBindingSize/(4*dim)) + 1000
	v := randFloats(r, n*dim)
	q := randFloats(r, dim)
	for _, o := range []compute.CosineOptions{{}, {RowPerInvocation: true}, {Subgroup: true}} {
		cs, err := compute.NewCosineSingle(d, v, dim, o)
		if o.Subgroup && errors.Is(err, compute.ErrUnsupported) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if cs.Chunks() < 2 {
			t.Fatalf("N=%d D=%d fit in %d chunk(s); the test needs a split", n, dim, cs.Chunks())
		}
		out := poisoned(n)
		if _, err := cs.Run(q, out, nil); err != nil {
			t.Fatal(err)
		}
		checkCosines(t, fmt.Sprintf("cosine_single chunked %+v", o), q, v, dim, out)
		cs.Release()
	}
}

func TestCosineSingleRejectsBadInput(t *testing.T) {
	d := openDevice(t)
	v := make([]float32, 6*8)
	if _, err := compute.NewCosineSingle(d, v, 6, compute.CosineOptions{}); err == nil {
		t.Fatal("dimension 6 (not a multiple of 4) accepted")
	}
	if _, err := compute.NewCosineSingle(d, nil, 8, compute.CosineOptions{}); err == nil {
		t.Fatal("empty V accepted")
	}
	v[5] = float32(math.NaN())
	if _, err := compute.NewCosineSingle(d, v, 8, compute.CosineOptions{}); err == nil {
		t.Fatal("NaN in V accepted")
	}
	if _, err := compute.NewCosineSingle(d, make([]float32, 16), 8, compute.CosineOptions{Workgroup: 48}); err == nil {
		t.Fatal("workgroup 48 accepted")
	}
}
