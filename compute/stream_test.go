package compute

import (
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// TestRunStream runs the five kernels in float32 (and float64 where the
// adapter has shader-f64) on an array in one binding and on one split into
// parts (MaxBinding), with sizes that are not multiples of the workgroup;
// RunStream itself checks the final arrays.
func TestRunStream(t *testing.T) {
	d := ceilingDevice(t)
	for _, c := range []struct {
		n          int
		f64        bool
		maxBinding uint64
		wantParts  int
	}{
		{1, false, 0, 1},
		{100_003, false, 0, 1},
		{100_003, false, 64 << 10, 7},
		{50_001, true, 64 << 10, 7},
	} {
		res, err := RunStream(d, StreamOptions{ArraySize: c.n, NumTimes: 3, F64: c.f64, MaxBinding: c.maxBinding})
		if c.f64 && !d.HasFeature(wgpu.FeatureShaderF64) {
			if !errors.Is(err, ErrNoF64) {
				t.Errorf("f64 without shader-f64: err = %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if res.Parts != c.wantParts || len(res.Times) != 5 || len(res.Times[4]) != 3 || len(res.HostTimes[0]) != 3 {
			t.Errorf("%+v: parts %d, times %d", c, res.Parts, len(res.Times))
		}
		for k := range res.Times {
			for r, x := range res.Times[k] {
				if x <= 0 || x > res.HostTimes[k][r] {
					t.Errorf("%+v: kernel %d run %d: time %v, host %v", c, k, r, x, res.HostTimes[k][r])
				}
			}
		}
	}
	if _, err := RunStream(d, StreamOptions{ArraySize: -3}); err == nil {
		t.Error("ArraySize -3 accepted")
	}
}

// TestMeasureReadAt: a small working set reads at a positive, finite rate
// from one of the verified read designs; past the binding limit is refused.
func TestMeasureReadAt(t *testing.T) {
	d := ceilingDevice(t)
	pt, err := MeasureReadAt(d, 1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !finitePositive(pt.GBs) || pt.Design == "" || pt.Bytes != 1<<20 {
		t.Fatalf("%+v", pt)
	}
	if _, err := MeasureReadAt(d, d.Limits.MaxStorageBufferBindingSize+16, 2); !errors.Is(err, wgpu.ErrLimit) {
		t.Errorf("past the binding limit: %v", err)
	}
	if _, err := MeasureReadAt(d, 100, 2); err == nil {
		t.Error("100 bytes accepted")
	}
}
