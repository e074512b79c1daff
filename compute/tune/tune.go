// Package tune picks, for the adapter in hand, the fastest design of a
// compute runner that passes a float64 check, the way wgpu-prof run picks
// the design it measures: package compute's zero options are one fixed
// design (workgroup per row for CosineSingle), not the fastest on every
// adapter. Verification against references lives here, not in compute,
// which knows nothing of references. ExampleNewCosineSingle
// (example_test.go) tunes and runs one.
package tune

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// selectCalls is how many timed calls each verified design gets; the
// selection needs an order, not a confidence interval.
const selectCalls = 5

// selectRows caps the rows of V a selection builds each design on: enough
// that a call is dominated by the kernel, few enough that trying every
// design stays short.
const selectRows = 4096

// selectWorkgroups are the workgroup sizes each design is tried at (those
// the device allows).
var selectWorkgroups = []int{64, 128, 256}

// selectTol is the largest |GPU − float64| cosine a design may return and
// pass: float32 accumulation over a few thousand components stays two
// orders of magnitude below it; a wrong design is far above it (or NaN).
const selectTol = 1e-3

var (
	selectMu    sync.Mutex
	selectCache = map[selectKey]compute.CosineOptions{}
)

type selectKey struct {
	d   *wgpu.Device
	dim int
}

// Cosine returns the options of the fastest verified CosineSingle
// design on d for vectors of dimension dim, measured on up to the first
// selectRows rows of v (N rows of dim floats, row-major): each design
// (workgroup per row, row per invocation, subgroup per row where the
// device has subgroups) at each allowed workgroup size of 64, 128 and 256
// is built, run on a random query with its output poisoned with NaN,
// checked against float64 cosines, and timed over a few calls (median of
// the host clock). Designs the device cannot run or that fail the check
// are skipped; an error is returned only when none passes. The choice is
// kept per device and dimension for the life of the process.
func Cosine(d *wgpu.Device, v []float32, dim int) (compute.CosineOptions, error) {
	if d == nil {
		return compute.CosineOptions{}, errors.New("tune: Cosine: nil device")
	}
	if dim <= 0 || dim%4 != 0 {
		return compute.CosineOptions{}, fmt.Errorf("tune: Cosine: dimension %d: must be a positive multiple of 4", dim)
	}
	if len(v) < dim || len(v)%dim != 0 {
		return compute.CosineOptions{}, fmt.Errorf("tune: Cosine: len(v) = %d is not a positive multiple of the dimension %d", len(v), dim)
	}
	key := selectKey{d, dim}
	selectMu.Lock()
	opts, ok := selectCache[key]
	selectMu.Unlock()
	if ok {
		return opts, nil
	}
	rows := min(len(v)/dim, selectRows)
	sample := v[:rows*dim]
	r := rand.New(rand.NewPCG(uint64(dim), uint64(rows)))
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	want := cosineRef64(sample, q, dim)
	var designs []compute.CosineOptions
	for _, wg := range selectWorkgroups {
		if d.CheckWorkgroup(wg) != nil {
			continue
		}
		designs = append(designs, compute.CosineOptions{Workgroup: wg}, compute.CosineOptions{Workgroup: wg, RowPerInvocation: true}, compute.CosineOptions{Workgroup: wg, Subgroup: true})
	}
	best, bestT := compute.CosineOptions{}, math.Inf(1)
	var errs []error
	for _, o := range designs {
		t, err := timeCosineDesign(d, sample, dim, q, want, o)
		if err != nil {
			errs = append(errs, fmt.Errorf("%+v: %w", o, err))
			continue
		}
		if t < bestT {
			best, bestT = o, t
		}
	}
	if math.IsInf(bestT, 1) {
		return compute.CosineOptions{}, fmt.Errorf("tune: Cosine: no design passed: %w", errors.Join(errs...))
	}
	selectMu.Lock()
	selectCache[key] = best
	selectMu.Unlock()
	return best, nil
}

// NewCosineSingle uploads V like compute.NewCosineSingle, with the design
// Cosine picks for this device: the library's way to the design wgpu-prof
// run measures as the fastest.
func NewCosineSingle(d *wgpu.Device, v []float32, dim int) (*compute.CosineSingle, error) {
	opts, err := Cosine(d, v, dim)
	if err != nil {
		return nil, err
	}
	return compute.NewCosineSingle(d, v, dim, opts)
}

// timeCosineDesign builds one design, verifies it and returns its median
// call time in seconds.
func timeCosineDesign(d *wgpu.Device, v []float32, dim int, q []float32, want []float64, o compute.CosineOptions) (float64, error) {
	c, err := compute.NewCosineSingle(d, v, dim, o)
	if err != nil {
		return 0, err
	}
	defer c.Release()
	out := make([]float32, c.N)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	if _, err := c.Run(q, out, nil); err != nil {
		return 0, err
	}
	for i, g := range out {
		if !(math.Abs(float64(g)-want[i]) <= selectTol) {
			return 0, fmt.Errorf("row %d: got %v, want %v (±%v)", i, g, want[i], selectTol)
		}
	}
	ts := make([]float64, selectCalls)
	for i := range ts {
		start := clock.Now()
		if _, err := c.Run(q, out, nil); err != nil {
			return 0, err
		}
		ts[i] = clock.Since(start).Seconds()
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// cosineRef64 is the float64 cosine of q with every row of v (0 for a
// zero row or query).
func cosineRef64(v, q []float32, dim int) []float64 {
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	out := make([]float64, len(v)/dim)
	for i := range out {
		row := v[i*dim : (i+1)*dim]
		var dot, vv float64
		for j, x := range row {
			dot += float64(x) * float64(q[j])
			vv += float64(x) * float64(x)
		}
		if vv > 0 && qq > 0 {
			out[i] = dot / math.Sqrt(vv*qq)
		}
	}
	return out
}
