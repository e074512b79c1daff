//go:build arm64 && !noasm

package hostsimd_test

import (
	"slices"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// TestNEONDefault checks that an arm64 asm build offers NEON and uses it
// by default, so forEachLevel crosses it with Generic in every test.
func TestNEONDefault(t *testing.T) {
	if av := hostsimd.Available(); !slices.Contains(av, hostsimd.NEON) {
		t.Fatalf("Available()=%v lacks neon", av)
	}
	if l := (hostsimd.Host{}).ActiveLevel(); l != hostsimd.NEON {
		t.Errorf("default level %v, want neon", l)
	}
}
