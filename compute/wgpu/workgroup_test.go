package wgpu_test

import (
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// CheckWorkgroup refuses a size past the device's invocation limit with
// ErrLimit, and a size that is not a power of two; the limit itself and
// powers of two below it pass.
func TestCheckWorkgroupLimit(t *testing.T) {
	d := openDevice(t)
	lim := int(min(d.Limits.MaxComputeInvocationsPerWorkgroup, d.Limits.MaxComputeWorkgroupSizeX))
	top := 1
	for top*2 <= lim {
		top *= 2
	}
	for wg := 1; wg <= top; wg *= 2 {
		if err := d.CheckWorkgroup(wg); err != nil {
			t.Errorf("workgroup %d (limit %d): %v", wg, lim, err)
		}
	}
	if err := d.CheckWorkgroup(2 * top); !errors.Is(err, wgpu.ErrLimit) {
		t.Errorf("workgroup %d past the limit %d: %v, want ErrLimit", 2*top, lim, err)
	}
	for _, wg := range []int{0, -64, 3, 48} {
		if err := d.CheckWorkgroup(wg); err == nil {
			t.Errorf("workgroup %d accepted", wg)
		}
	}
}
