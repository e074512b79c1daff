package compute_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// The f16 gather agrees with the float64 metric of the rounded rows
// (queries f32) on both designs, chunked and not, reads half the bytes,
// and refuses rows past binary16's range by index.
func TestGatherF16(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct{ n, dim, chunk int }{{300, 4, 0}, {500, 132, 0}, {200, 768, 0}, {270, 64, 64}} {
		if c.chunk > 0 {
			d.Limits.MaxStorageBufferBindingSize = uint64(2 * c.dim * (c.chunk + 5))
		}
		v := randFloats(r, c.n*c.dim)
		clear(v[2*c.dim : 3*c.dim])
		w := make([]float32, len(v)) // the rounded rows
		for i, x := range v {
			w[i] = ops.F16ToF32(ops.F32ToF16(x))
		}
		for _, perPair := range []bool{false, true} {
			for _, m := range metrics {
				g, err := compute.NewGatherF16(d, v, c.dim, compute.GatherOptions{Metric: m, PerPair: perPair})
				if err != nil {
					t.Fatal(err)
				}
				if g.InputBytes != uint64(2*len(v)) || (c.chunk > 0) != (g.Chunks() > 1) {
					t.Fatalf("InputBytes %d (want %d), %d chunks", g.InputBytes, 2*len(v), g.Chunks())
				}
				const nq, cand = 3, 33
				q := randFloats(r, nq*c.dim)
				ids := randIDs(r, c.n, nq, cand)
				ids[len(ids)-1] = 2
				out := poisoned(nq * cand)
				if _, err := g.Run(q, ids, cand, out, nil); err != nil {
					t.Fatal(err)
				}
				checkGather(t, fmt.Sprintf("f16 %v D=%d perPair=%v chunks=%d", m, c.dim, perPair, g.Chunks()), m, q, w, c.dim, ids, cand, out)
				g.Release()
			}
		}
	}
	v := make([]float32, 8)
	v[5] = 70000
	if _, err := compute.NewGatherF16(d, v, 4, compute.GatherOptions{}); err == nil || !strings.Contains(err.Error(), "V[5]") || !strings.Contains(err.Error(), "65504") {
		t.Fatalf("out of range: %v, want an error naming V[5] and the range", err)
	}
}

// The untiled f16 batch kernel agrees with the float64 cosines of the
// rounded rows (queries f32), chunked and not, and reads half the bytes;
// TestCosineBatchConformance runs every design.
func TestCosineBatchF16(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(43, 44))
	for _, c := range []struct{ nq, n, dim, chunk int }{{1, 1, 4, 0}, {5, 300, 132, 0}, {17, 1000, 768, 0}, {3, 300, 64, 64}} {
		if c.chunk > 0 {
			d.Limits.MaxStorageBufferBindingSize = uint64(2 * c.dim * (c.chunk + 5))
		}
		v, qs := randFloats(r, c.n*c.dim), randFloats(r, c.nq*c.dim)
		w := make([]float32, len(v))
		for i, x := range v {
			w[i] = ops.F16ToF32(ops.F32ToF16(x))
		}
		cb, err := compute.NewCosineBatchF16(d, v, c.dim, compute.CosineBatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(2 * c.n * c.dim); cb.InputBytes != want {
			t.Fatalf("InputBytes = %d, want %d (f16)", cb.InputBytes, want)
		}
		out := poisoned(c.nq * c.n)
		if _, err := cb.Run(qs, out, nil); err != nil {
			t.Fatal(err)
		}
		cb.Release()
		for j := 0; j < c.nq; j++ {
			checkCosines(t, "cosine_batch_f16", qs[j*c.dim:(j+1)*c.dim], w, c.dim, out[j*c.n:(j+1)*c.n])
		}
	}
}
