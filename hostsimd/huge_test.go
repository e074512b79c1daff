package hostsimd_test

import (
	"testing"
	"unsafe"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// HugeFloats returns n zeroed floats, 64-byte aligned, and from 8 MiB up
// 2 MiB aligned (the huge pages the kernel is asked for).
func TestHugeFloats(t *testing.T) {
	for _, n := range []int{1, 1000, 2<<20 - 1, 2 << 20, 5<<20 + 3} {
		s := hostsimd.HugeFloats(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("n=%d: len %d cap %d", n, len(s), cap(s))
		}
		addr := uintptr(unsafe.Pointer(&s[0]))
		align := uintptr(64)
		if n*4 >= 8<<20 {
			align = 2 << 20
		}
		if addr%align != 0 {
			t.Errorf("n=%d: starts at %#x, not %d-byte aligned", n, addr, align)
		}
		for i := 0; i < n; i += 4099 {
			if s[i] != 0 {
				t.Fatalf("n=%d: s[%d] = %v, want 0", n, i, s[i])
			}
		}
		s[n-1] = 1 // the whole length is usable
	}
}
