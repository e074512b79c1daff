package experiment

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// Param declares one workload parameter (workload.Param).
type Param = workload.Param

// The kinds of a Param's value.
const (
	IntParam    = workload.IntParam
	StringParam = workload.StringParam
	Uint64Param = workload.Uint64Param
	FileParam   = workload.FileParam
)

// WorkloadConfig holds the values of the workload parameters
// (workload.Config).
type WorkloadConfig = workload.Config

// Params returns every workload parameter, in the command line's order.
func Params() []*Param { return workload.Params() }

// DataBytes estimates the host memory the workloads ds allocate at c
// (float64 so that absurd sizes do not overflow): the stored vectors
// with their float64 reference and the GPU upload, the queries, the batch
// outputs, and the graphs.
func DataBytes(c workload.Config, ds []*workload.Descriptor) float64 {
	d, n, q, cc := float64(c.Dim), float64(c.N), float64(c.Q), float64(c.C)
	nodes, deg := float64(c.Nodes), float64(c.Degree)
	var need float64
	for _, w := range ds {
		var b float64
		if w.Has("n") {
			b += 2*n*d*4 + n*16 // stored vectors (host + device copy) and the reference
		}
		if w.Has("q") {
			b += q*d*4 + q*n*(16+4+4) // queries; each score's float64 reference and tolerance, and both sides' outputs
		}
		if w.Has("c") {
			b += q * cc * 16
		}
		if w.Has("nodes") {
			b += nodes*deg*8*2 + nodes*32 // CSR (host + device) and activations
		}
		need = max(need, b)
	}
	return need
}

// CheckBatches refuses break-even batch sizes a workload cannot run:
// non-positive, repeated (each batch is one point of the fit and one row
// of the report), or past the largest size a break-even may measure
// (searchCap, the bound the adaptive search also stops at; the adapter's
// and the host's limits are checked once the device is open).
func (c *RunConfig) CheckBatches(ds []*workload.Descriptor) error {
	seen := map[int]bool{}
	for _, b := range c.Batches {
		if b <= 0 {
			return env.Invalid("batches", "", "%d is not a positive batch size", b)
		}
		if seen[b] {
			return env.Invalid("batches", "", "%d is given twice (each batch size is one point of the fit)", b)
		}
		seen[b] = true
	}
	for _, w := range ds {
		bp := w.BatchParam()
		if bp == nil {
			continue
		}
		size := *bp.Int(&c.Config)
		limit, why, _ := SearchCap(w, *c, size, 0)
		for _, b := range c.Batches {
			if b > limit {
				return env.Invalid("batches", "", "%d is past %d, the largest %s of %s a break-even measures (%s)", b, limit, w.Batch, w.Name, why)
			}
		}
	}
	return nil
}

// DefaultMaxGrow is how far past the default size a break-even may go
// (SearchConfig.MaxGrow 0).
const DefaultMaxGrow = 64

// SearchCap is the one rule for the largest batch size a break-even may
// measure, before the adapter's and the host's limits: the workload's size
// when its data cannot grow past it (rows of a file, data generated up to
// the default size), else maxGrow (0: DefaultMaxGrow) times the size.
// --batches (RunConfig.checkBatches) and the adaptive search's extension
// (extensionLimit) both stop there; grows says whether sizes past size
// are possible at all.
func SearchCap(w *workload.Descriptor, cfg RunConfig, size, maxGrow int) (limit int, why string, grows bool) {
	if maxGrow <= 0 {
		maxGrow = DefaultMaxGrow
	}
	switch w.Batch {
	case "n", "q", "nodes":
	default:
		return size, "the workload's data are generated up to its default size", false
	}
	if file, ok := cfg.FileSized(w); ok {
		return size, "the rows of " + file, false
	}
	if size > math.MaxInt/maxGrow {
		return math.MaxInt, "the largest int", true
	}
	return size * maxGrow, fmt.Sprintf("search cap: %d× the default size %d", maxGrow, size), true
}
