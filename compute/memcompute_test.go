package compute_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

func TestMemComputeCosineSingle(t *testing.T) {
	d := openDevice(t)
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	r := rand.New(rand.NewPCG(7, 11))
	for _, c := range []struct{ n, dim, wg int }{{1, 4, 64}, {300, 768, 64}, {129, 1536, 256}, {2000, 128, 32}} {
		v := randFloats(r, c.n*c.dim)
		m, err := compute.NewMemCompute(d, "cosine_single", v, c.dim, c.wg)
		if err != nil {
			t.Fatal(err)
		}
		for _, variant := range []string{compute.VariantMemory, compute.VariantCompute, compute.VariantFull} {
			for run := 0; run < 2; run++ { // a second run must verify too (poisoned output)
				tm, err := m.Run(variant, timer)
				if err != nil {
					t.Fatalf("N=%d D=%d WG=%d: %v", c.n, c.dim, c.wg, err)
				}
				if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
					t.Fatalf("N=%d D=%d variant %s: implausible timing %+v", c.n, c.dim, variant, tm)
				}
			}
		}
		if _, err := m.Run("D", nil); err == nil {
			t.Error("variant D accepted")
		}
		tm, err := m.Run(compute.VariantFull, nil) // no timer: host clock only
		if err != nil || tm.KernelValid || tm.EndToEnd <= 0 {
			t.Errorf("untimed run: %+v, %v", tm, err)
		}
		m.Release()
		m.Release()
		if _, err := m.Run(compute.VariantFull, nil); !errors.Is(err, wgpu.ErrReleased) {
			t.Errorf("Run after Release: %v, want ErrReleased", err)
		}
	}
}

func TestMemComputeRejectsBadInput(t *testing.T) {
	d := openDevice(t)
	if _, err := compute.NewMemCompute(d, "spread", make([]float32, 16), 4, 64); err == nil {
		t.Error("unknown kernel accepted")
	}
	if _, err := compute.NewMemCompute(d, "cosine_single", make([]float32, 18), 6, 64); err == nil {
		t.Error("dimension 6 accepted")
	}
	if _, err := compute.NewMemCompute(d, "cosine_single", make([]float32, 16), 4, 48); err == nil {
		t.Error("workgroup 48 accepted")
	}
}
