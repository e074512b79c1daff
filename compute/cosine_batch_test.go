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
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
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

// batchPrecision is a stored type of the batch kernels: its runner, the
// bytes of one stored value, and the values the float64 reference scores
// (f16: the rows rounded to binary16, queries as given; int8: the codes
// of the rows and of the queries, whose cosine is the quantized vectors').
type batchPrecision struct {
	name          string
	build         func(*wgpu.Device, []float32, int, compute.CosineBatchOptions) (*compute.CosineBatch, error)
	bytes         int
	rows, queries func(t *testing.T, x []float32, dim int) []float32
}

func same(_ *testing.T, x []float32, _ int) []float32 { return x }

func roundedF16(_ *testing.T, x []float32, _ int) []float32 {
	w := make([]float32, len(x))
	for i, a := range x {
		w[i] = ops.F16ToF32(ops.F32ToF16(a))
	}
	return w
}

// batchPrecisions are every stored type; every design of batchVariants
// runs each of them.
var batchPrecisions = []batchPrecision{
	{"f32", compute.NewCosineBatch, 4, same, same},
	{"f16", compute.NewCosineBatchF16, 2, roundedF16, same},
	{"int8", compute.NewCosineBatchInt8, 1, codesF32, codesF32},
}

// newBatch is NewCosineBatch for a test, skipping a design the device does
// not support (the subgroup broadcast without subgroups).
func newBatch(t *testing.T, d *wgpu.Device, v []float32, dim int, o compute.CosineBatchOptions) (*compute.CosineBatch, bool) {
	t.Helper()
	return newBatchIn(t, batchPrecisions[0], d, v, dim, o)
}

// newBatchIn is newBatch in the stored type p.
func newBatchIn(t *testing.T, p batchPrecision, d *wgpu.Device, v []float32, dim int, o compute.CosineBatchOptions) (*compute.CosineBatch, bool) {
	t.Helper()
	cb, err := p.build(d, v, dim, o)
	if errors.Is(err, compute.ErrUnsupported) && o.Broadcast {
		t.Logf("%+v: %v", o, err)
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return cb, true
}

// Every design (batchVariants) in every stored type (batchPrecisions)
// against the float64 cosines of the stored values, on fresh random
// inputs with a zero row and a zero query, outputs poisoned with NaN.
func TestCosineBatchConformance(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(4, uint64(time.Now().UnixNano())))
	timer, err := d.NewTimer(1)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	for _, p := range batchPrecisions {
		for _, dim := range []int{4, 128, 768} {
			for _, n := range []int{1, 5, 300} {
				v := randFloats(r, n*dim)
				zeroRow(v, dim, 2) // a zero row scores 0, not NaN
				for _, o := range batchVariants() {
					if dim == 768 && n == 300 && o.Tiled && o.Tile <= 16 {
						continue // slow on a CPU adapter; covered at D=128
					}
					checkBatchDesign(t, p, d, timer, r, v, dim, o)
				}
			}
		}
	}
}

// checkBatchDesign builds design o over v in the stored type p and checks
// it at 1, 3 and 64 queries.
func checkBatchDesign(t *testing.T, p batchPrecision, d *wgpu.Device, timer *wgpu.Timer, r *rand.Rand, v []float32, dim int, o compute.CosineBatchOptions) {
	t.Helper()
	n := len(v) / dim
	cb, ok := newBatchIn(t, p, d, v, dim, o)
	if !ok {
		return
	}
	defer cb.Release()
	if want := uint64(p.bytes * n * dim); cb.InputBytes != want {
		t.Fatalf("%s %+v: InputBytes = %d, want %d", p.name, o, cb.InputBytes, want)
	}
	stored := p.rows(t, v, dim)
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
		what := fmt.Sprintf("%s %+v (workgroup %d) Q=%d N=%d D=%d", p.name, o, cb.Options().Workgroup, nq, n, dim)
		checkBatch(t, what, p.queries(t, qs, dim), stored, dim, out)
	}
	cb.Release() // idempotent: the deferred Release is a no-op
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
	for _, p := range batchPrecisions {
		stored := p.rows(t, v, dim)
		for _, o := range []compute.CosineBatchOptions{{}, {Tiled: true, Tile: 16}, {Register: true}, {Register: true, Broadcast: true}} {
			cb, ok := newBatchIn(t, p, d, v, dim, o)
			if !ok {
				continue
			}
			if cb.Chunks() < 2 || cb.MaxQueriesPerSubmission() != 10 {
				t.Fatalf("%s: chunks %d, queries per submission %d: want ≥ 2 and 10", p.name, cb.Chunks(), cb.MaxQueriesPerSubmission())
			}
			for _, nq := range []int{2, 16, 23} {
				qs := randFloats(r, nq*dim)
				out := poisoned(nq * n)
				if _, err := cb.Run(qs, out, nil); err != nil {
					t.Fatal(err)
				}
				checkBatch(t, fmt.Sprintf("%s %+v Q=%d", p.name, o, nq), p.queries(t, qs, dim), stored, dim, out)
			}
			cb.Release()
		}
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
	for _, p := range batchPrecisions {
		for _, o := range []compute.CosineBatchOptions{{Tiled: false}, {Tiled: true, Tile: 32}, {Tiled: true, Tile: 8}, {Register: true}, {Register: true, RegisterQueries: 8}, {Register: true, Broadcast: true}} {
			if !d.HasFeature(wgpu.FeatureSubgroups) && !d.HasFeature(wgpu.FeatureNativeSubgroup) && o.Broadcast {
				continue
			}
			checkLoopBudget(t, p, d, r, o)
		}
	}
}

// checkLoopBudget finds the largest dimension the runner of design o in
// the stored type p accepts (int8 stops at hostsimd.MaxInt8Dim, the
// integer sums' exact range, where that comes first) and checks its
// scores there.
func checkLoopBudget(t *testing.T, p batchPrecision, d *wgpu.Device, r *rand.Rand, o compute.CosineBatchOptions) {
	t.Helper()
	const n, nq = 3, 2
	accepted := func(dim int) bool {
		cb, err := p.build(d, make([]float32, n*dim), dim, o)
		if err != nil {
			limit := errors.Is(err, wgpu.ErrLimit) || p.name == "int8" && dim > hostsimd.MaxInt8Dim
			if !limit || !strings.Contains(err.Error(), fmt.Sprintf("dimension %d", dim)) {
				t.Fatalf("%s %+v D=%d: want ErrLimit naming the dimension, got %v", p.name, o, dim, err)
			}
			return false
		}
		cb.Release()
		return true
	}
	lo, hi := 4, 4<<20 // accepted, refused (in units of floats)
	if !accepted(lo) || accepted(hi) {
		t.Fatalf("%s %+v: D=%d must be accepted and D=%d refused", p.name, o, lo, hi)
	}
	for hi-lo > 4 {
		mid := (lo + hi) / 2 &^ 3
		if accepted(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.Logf("%s %+v: largest dimension accepted: %d", p.name, o, lo)
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
	cb, err := p.build(d, v, lo, o)
	if err != nil {
		t.Fatal(err)
	}
	out := poisoned(nq * n)
	if _, err := cb.Run(qs, out, nil); err != nil {
		t.Fatal(err)
	}
	cb.Release()
	checkBatch(t, fmt.Sprintf("%s %+v D=%d (the largest accepted)", p.name, o, lo), p.queries(t, qs, lo), p.rows(t, v, lo), lo, out)
}
