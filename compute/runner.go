package compute

import (
	"fmt"
	"math"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// DefaultWorkgroup is the workgroup size of every kernel runner whose
// options leave it at 0; the one place it is set.
const DefaultWorkgroup = 64

// DefaultTile is the tiled cosine-batch kernel's tile side when
// CosineBatchOptions.Tile is 0.
const DefaultTile = 32

// CheckTile checks a tile side of the tiled cosine-batch kernel against
// the device's limits (invocations and workgroup memory) on the host.
func CheckTile(d *wgpu.Device, tile int) error {
	_, err := checkTile(d, tile, 0)
	return err
}

// Timing is what one run of a kernel runner measured.
type Timing struct {
	// Kernel is the GPU time of the run's passes, from timestamp queries
	// (summed over passes). Zero with KernelValid false when the run had no
	// timer or the timestamps were not plausible.
	Kernel      time.Duration
	KernelValid bool
	Passes      []wgpu.PassTime
	// EndToEnd is the host clock around what an application pays per call:
	// upload of the per-call inputs, dispatch, wait and readback. Stored
	// data (V, the graph) is resident on the GPU and not part of it.
	EndToEnd time.Duration
}

func timingFrom(passes []wgpu.PassTime, start time.Time) Timing {
	t := Timing{EndToEnd: time.Since(start), Passes: passes}
	if len(passes) > 0 {
		t.KernelValid = true
		for _, p := range passes {
			if !p.Valid {
				t.KernelValid = false
			}
			t.Kernel += p.Duration
		}
		if !t.KernelValid {
			t.Kernel = 0
		}
	}
	return t
}

// grid2D spreads n workgroups over x and y so that neither exceeds max.
func grid2D(n, max uint32) (x, y uint32) {
	if n <= max {
		return n, 1
	}
	y = (n + max - 1) / max
	x = (n + y - 1) / y
	return x, y
}

// checkRows validates stored vectors V of N rows of dim floats,
// row-major: dim a positive multiple of 4 (the shaders load vec4s) and
// len(V) a positive multiple of dim.
func checkRows(v []float32, dim int) error {
	if dim <= 0 || dim%4 != 0 {
		return fmt.Errorf("dimension %d: must be a positive multiple of 4 (vec4 loads)", dim)
	}
	if len(v) == 0 || len(v)%dim != 0 {
		return fmt.Errorf("len(V) = %d is not a positive multiple of dimension %d", len(v), dim)
	}
	return nil
}

// checkFinite returns an error naming the first NaN or Inf in s.
func checkFinite(what string, s []float32) error {
	for i, x := range s {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s[%d] = %v: inputs must be finite", what, i, x)
		}
	}
	return nil
}

// uniformStride is the spacing of per-chunk parameter blocks in one
// uniform buffer (WebGPU's minimum uniform offset alignment is at most 256).
const uniformStride = 256

// chunkRows is how many rows of rowBytes fit one storage binding (and one
// buffer: maxBufferSize bounds a chunk's buffer too), rounded down to a
// multiple of 64 so per-chunk output offsets stay aligned.
func chunkRows(d *wgpu.Device, rowBytes uint64) (uint64, error) {
	lim := min(d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize)
	r := lim / rowBytes
	r -= r % 64
	if r == 0 {
		return 0, fmt.Errorf("64 rows of %d bytes do not fit maxStorageBufferBindingSize %d and maxBufferSize %d: %w", rowBytes, d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize, wgpu.ErrLimit)
	}
	return r, nil
}

// releaseAll releases every non-nil object.
func releaseAll[T interface{ Release() }](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}
