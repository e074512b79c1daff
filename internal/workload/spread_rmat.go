package workload

import (
	"math/bits"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// SpreadRMAT spreads activation over an R-MAT (power-law) graph; the node
// count is rounded up to a power of two.
var SpreadRMAT = spreadDescriptor("spread-rmat", "an R-MAT power-law graph (nodes rounded up to a power of two)", 50, rmatGraph{})

// rmatGraph generates R-MAT graphs of n nodes rounded up to a power of two.
type rmatGraph struct{}

func (rmatGraph) Graph(n, degree int, seed uint64) (*ops.CSR, error) {
	return hostsimd.RMATGraph(max(1, bits.Len(uint(n-1))), degree, seed)
}

func init() { register(SpreadRMAT) }
