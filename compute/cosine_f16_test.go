package compute_test

import (
	"errors"
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

// roundF16 is v with every value rounded to binary16 and widened back.
func roundF16(t *testing.T, v []float32) []float32 {
	t.Helper()
	h, err := compute.ToF16(v)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(v))
	for i, x := range h {
		out[i] = ops.F16ToF32(x)
	}
	return out
}

func TestCosineSingleF16(t *testing.T) {
	d := openDevice(t)
	if !d.HasFeature(wgpu.FeatureShaderF16) {
		t.Skipf("%s has no shader-f16", d.Info.Name)
	}
	r := rand.New(rand.NewPCG(10, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	cases := []struct{ n, dim, wg int }{{1, 4, 64}, {3, 128, 32}, {257, 384, 128}, {1000, 768, 64}, {100, 1028, 64}}
	for _, c := range cases {
		for _, norms := range []bool{false, true} {
			v := randFloats(r, c.n*c.dim)
			if c.n > 2 {
				for k := 0; k < c.dim; k++ {
					v[2*c.dim+k] = 0
				}
			}
			v[0] = 3e-6 // an f16 subnormal
			q := randFloats(r, c.dim)
			cs, err := compute.NewCosineSingleF16(d, v, c.dim, compute.CosineOptions{Workgroup: c.wg, PrecomputedNorms: norms})
			if err != nil {
				t.Fatal(err)
			}
			if want := uint64(2 * c.n * c.dim); cs.InputBytes != want {
				t.Fatalf("InputBytes = %d, want %d (f16)", cs.InputBytes, want)
			}
			out := poisoned(c.n)
			tm, err := cs.Run(q, out, timer)
			if err != nil {
				t.Fatal(err)
			}
			if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
				t.Fatalf("implausible timing %+v", tm)
			}
			// f16 rounding is the only error beyond the f32 kernel's: the
			// reference is taken on the rounded V with the f32 tolerance.
			checkCosines(t, "cosine_single_f16", q, roundF16(t, v), c.dim, out)

			// The same runner feeds the GPU top-k.
			k := min(c.n, 10)
			ts, err := compute.NewTopKSingle(cs, k, compute.TopKOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := poisonedPairs(k)
			if _, err := ts.Run(q, got, timer); err != nil {
				t.Fatal(err)
			}
			if want := hostTopK(out, k); !slices.Equal(got, want) {
				t.Fatalf("top-%d on f16: got %v, want %v", k, got, want)
			}
			ts.Release()
			cs.Release()
		}
	}
}

func TestToF16(t *testing.T) {
	cases := []struct {
		x    float32
		want uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1.0 / (1 << 24), 0x0001},
		{1 + 1.0/2048, 0x3c00},                         // tie, even stays
		{1 + 3.0/2048, 0x3c02},                         // tie, odd rounds up
		{float32(math.Float32frombits(0x33000000)), 0}, // 2^-25: tie to even zero
	}
	for _, c := range cases {
		h, err := compute.ToF16([]float32{c.x})
		if err != nil || h[0] != c.want {
			t.Errorf("ToF16(%v) = %#04x, %v; want %#04x", c.x, h, err, c.want)
		}
	}
	if _, err := compute.ToF16([]float32{1, 65520}); err == nil || !strings.Contains(err.Error(), "V[1] = 65520") {
		t.Errorf("65520 (rounds to +Inf): err = %v", err)
	}
}

func TestCosineSingleF16Rejects(t *testing.T) {
	d := openDevice(t)
	if _, err := compute.NewCosineSingleF16(d, []float32{1, 2, 3, 1e5}, 4, compute.CosineOptions{}); err == nil || !strings.Contains(err.Error(), "V[3]") {
		t.Errorf("1e5 in V: err = %v", err)
	}
	if _, err := compute.NewCosineSingleF16(d, make([]float32, 6), 6, compute.CosineOptions{}); err == nil {
		t.Error("dimension 6 accepted")
	}
	feats := d.Features
	d.Features = slices.DeleteFunc(slices.Clone(feats), func(f wgpu.Feature) bool { return f == wgpu.FeatureShaderF16 })
	_, err := compute.NewCosineSingleF16(d, make([]float32, 8), 4, compute.CosineOptions{})
	d.Features = feats
	if !errors.Is(err, compute.ErrNoShaderF16) {
		t.Errorf("device without shader-f16: err = %v, want ErrNoShaderF16", err)
	}
}
