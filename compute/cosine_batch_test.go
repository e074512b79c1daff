package compute_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// zeroRow zeroes row i of an [n][d] matrix when it exists.
func zeroRow(m []float32, d, i int) {
	if (i+1)*d <= len(m) {
		clear(m[i*d : (i+1)*d])
	}
}

// checkBatch compares S[q][i] with the float64 reference for every query.
func checkBatch(t *testing.T, what string, qs, v []float32, d int, got []float32) {
	t.Helper()
	n := len(v) / d
	for q := 0; q < len(qs)/d; q++ {
		checkCosines(t, fmt.Sprintf("%s: query %d", what, q), qs[q*d:(q+1)*d], v, d, got[q*n:(q+1)*n])
	}
}

func batchVariants() []compute.CosineBatchOptions {
	return []compute.CosineBatchOptions{
		{Tiled: false},
		{Tiled: false, Workgroup: 256},
		{Tiled: true, Tile: 8},
		{Tiled: true, Tile: 16},
		{Tiled: true, Tile: 32},
		{Tiled: true, Tile: 64},
		{Tiled: true, Tile: 128},
		{Register: true},
		{Register: true, Workgroup: 16},
		{Register: true, RegisterQueries: 8},
		{Register: true, Broadcast: true},
		{Register: true, Broadcast: true, Workgroup: 16},
	}
}

// newBatch is NewCosineBatch for a test, skipping a design the device does
// not support (the subgroup broadcast without subgroups).
func newBatch(t *testing.T, d *wgpu.Device, v []float32, dim int, o compute.CosineBatchOptions) (*compute.CosineBatch, bool) {
	t.Helper()
	cb, err := compute.NewCosineBatch(d, v, dim, o)
	if errors.Is(err, compute.ErrUnsupported) && o.Broadcast {
		t.Logf("%+v: %v", o, err)
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return cb, true
}

func TestCosineBatchConformance(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(4, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	for _, dim := range []int{4, 128, 768} {
		for _, n := range []int{1, 5, 300} {
			v := randFloats(r, n*dim)
			zeroRow(v, dim, 2) // a zero row scores 0, not NaN
			for _, o := range batchVariants() {
				if dim == 768 && n == 300 && o.Tiled && o.Tile <= 16 {
					continue // slow on a CPU adapter; covered at D=128
				}
				cb, ok := newBatch(t, d, v, dim, o)
				if !ok {
					continue
				}
				for _, nq := range []int{1, 3, 64} {
					qs := randFloats(r, nq*dim)
					zeroRow(qs, dim, 1) // a zero query scores 0
					out := poisoned(nq * n)
					tm, err := cb.Run(qs, out, timer)
					if err != nil {
						t.Fatal(err)
					}
					if !tm.KernelValid || tm.Kernel <= 0 || tm.Kernel > tm.EndToEnd {
						t.Fatalf("implausible timing %+v", tm)
					}
					what := fmt.Sprintf("%+v Q=%d N=%d D=%d", cb.Options(), nq, n, dim)
					checkBatch(t, what, qs, v, dim, out)
				}
				cb.Release()
				cb.Release()
			}
		}
	}
}

// A batch larger than one submission can hold is split into groups, and a
// later call with more queries grows the buffers.
func TestCosineBatchQueryGroupsAndGrowth(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(5, uint64(time.Now().UnixNano())))
	const dim, n = 64, 1000
	// Shrink the binding limit so that S of 16 queries needs 2 submissions
	// (and V, 256 KB, is split into chunks of 128 rows).
	d.Limits.MaxStorageBufferBindingSize = 4 * 10 * n
	v := randFloats(r, n*dim)
	for _, o := range []compute.CosineBatchOptions{{}, {Tiled: true, Tile: 16}, {Register: true}, {Register: true, Broadcast: true}} {
		cb, ok := newBatch(t, d, v, dim, o)
		if !ok {
			continue
		}
		if cb.Chunks() < 2 || cb.MaxQueriesPerSubmission() != 10 {
			t.Fatalf("chunks %d, queries per submission %d: want ≥ 2 and 10", cb.Chunks(), cb.MaxQueriesPerSubmission())
		}
		for _, nq := range []int{2, 16, 23} {
			qs := randFloats(r, nq*dim)
			out := poisoned(nq * n)
			if _, err := cb.Run(qs, out, nil); err != nil {
				t.Fatal(err)
			}
			checkBatch(t, fmt.Sprintf("%+v Q=%d", o, nq), qs, v, dim, out)
		}
		cb.Release()
	}
}

func TestCosineBatchRejects(t *testing.T) {
	d := openDevice(t)
	v := make([]float32, 8*8)
	bad := []struct {
		what string
		v    []float32
		dim  int
		o    compute.CosineBatchOptions
		want string
	}{
		{"dimension 6", make([]float32, 36), 6, compute.CosineBatchOptions{}, "dimension 6"},
		{"empty V", nil, 8, compute.CosineBatchOptions{}, "len(V) = 0"},
		{"tile 12", v, 8, compute.CosineBatchOptions{Tiled: true, Tile: 12}, "tile 12"},
		{"tile 256 threads", v, 8, compute.CosineBatchOptions{Tiled: true, Tile: 256}, "maxComputeInvocationsPerWorkgroup"},
		{"tile/workgroup mismatch", v, 8, compute.CosineBatchOptions{Tiled: true, Tile: 32, Workgroup: 32}, "workgroup 32"},
		{"workgroup 48", v, 8, compute.CosineBatchOptions{Workgroup: 48}, "workgroup size 48"},
	}
	for _, b := range bad {
		if _, err := compute.NewCosineBatch(d, b.v, b.dim, b.o); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want one naming %q", b.what, err, b.want)
		}
	}
	nan := make([]float32, 8*8)
	nan[9] = float32(math.Inf(1))
	if _, err := compute.NewCosineBatch(d, nan, 8, compute.CosineBatchOptions{}); err == nil || !strings.Contains(err.Error(), "V[9]") {
		t.Errorf("Inf in V: err = %v", err)
	}

	// Workgroup memory: with the limit lowered, tile 64 (8 KiB) no longer fits.
	lim := d.Limits
	d.Limits.MaxComputeWorkgroupStorageSize = 4096
	_, err := compute.NewCosineBatch(d, v, 8, compute.CosineBatchOptions{Tiled: true, Tile: 64})
	if !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), "8192 bytes") || !strings.Contains(err.Error(), "4096") {
		t.Errorf("tile 64 with 4 KiB of workgroup memory: err = %v", err)
	}
	d.Limits = lim

	cb, err := compute.NewCosineBatch(d, v, 8, compute.CosineBatchOptions{Tiled: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	if _, err := cb.Run(make([]float32, 12), make([]float32, 8), nil); err == nil {
		t.Error("len(qs) = 12 with D = 8 accepted")
	}
	if _, err := cb.Run(make([]float32, 16), make([]float32, 8), nil); err == nil {
		t.Error("len(out) = 8 for Q = 2, N = 8 accepted")
	}
	qs := make([]float32, 8)
	qs[3] = float32(math.NaN())
	if _, err := cb.Run(qs, make([]float32, 8), nil); err == nil || !strings.Contains(err.Error(), "qs[3]") {
		t.Errorf("NaN in qs: err = %v", err)
	}
}

// On an adapter with a loop budget (lavapipe: Device.LoopBudget), the
// largest dimension NewCosineBatch accepts must still give right scores
// (the runner's count of loop iterations is not an underestimate), and
// the next one is refused with ErrLimit naming the dimension.
func TestCosineBatchLoopBudget(t *testing.T) {
	d := openDevice(t)
	if d.LoopBudget() == 0 {
		t.Skipf("%s has no loop budget", d.Info.Name)
	}
	r := rand.New(rand.NewPCG(6, uint64(time.Now().UnixNano())))
	const n, nq = 3, 2
	for _, o := range []compute.CosineBatchOptions{{Tiled: false}, {Tiled: true, Tile: 32}, {Tiled: true, Tile: 8}, {Register: true}, {Register: true, RegisterQueries: 8}, {Register: true, Broadcast: true}} {
		if !d.HasFeature(wgpu.FeatureSubgroups) && !d.HasFeature(wgpu.FeatureNativeSubgroup) && o.Broadcast {
			continue
		}
		accepted := func(dim int) bool {
			cb, err := compute.NewCosineBatch(d, make([]float32, n*dim), dim, o)
			if err != nil {
				if !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("dimension %d", dim)) {
					t.Fatalf("%+v D=%d: want ErrLimit naming the dimension, got %v", o, dim, err)
				}
				return false
			}
			cb.Release()
			return true
		}
		lo, hi := 4, 4<<20 // accepted, refused (in units of floats)
		if !accepted(lo) || accepted(hi) {
			t.Fatalf("%+v: D=%d must be accepted and D=%d refused", o, lo, hi)
		}
		for hi-lo > 4 {
			mid := (lo + hi) / 2 &^ 3
			if accepted(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		t.Logf("%+v: largest dimension within the loop budget: %d", o, lo)
		// Rows and queries are faint noise except the last 16 components,
		// shared by all: every cosine is close to 1 and comes from the end
		// of the vectors, so a loop cut short by the driver scores near 0
		// instead (a tolerance scaled by D would hide a few lost terms).
		tail := randFloats(r, 16)
		faint := func(rows int) []float32 {
			m := randFloats(r, rows*lo)
			for i := range rows {
				row := m[i*lo : (i+1)*lo]
				for k := range row[:lo-16] {
					row[k] *= 1e-3
				}
				copy(row[lo-16:], tail)
			}
			return m
		}
		v, qs := faint(n), faint(nq)
		cb, err := compute.NewCosineBatch(d, v, lo, o)
		if err != nil {
			t.Fatal(err)
		}
		out := poisoned(nq * n)
		if _, err := cb.Run(qs, out, nil); err != nil {
			t.Fatal(err)
		}
		cb.Release()
		checkBatch(t, fmt.Sprintf("%+v D=%d (at the loop budget)", o, lo), qs, v, lo, out)
	}
}
