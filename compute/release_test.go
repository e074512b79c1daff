package compute_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// runner is one kernel with a cycle (upload, dispatch, readback) and its
// Release.
type runner struct {
	name string
	new  func() (run func() error, release func(), err error)
}

const saxpy = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < arrayLength(&y)) { y[g.x] = 2.0 * x[g.x] + y[g.x]; }
}`

// runners builds every GPU runner over small data.
func runners(d *wgpu.Device) []runner {
	r := rand.New(rand.NewPCG(7, 7))
	const n, dim, q, c, k = 512, 64, 4, 16, 8
	v := randFloats(r, n*dim)
	qs := randFloats(r, q*dim)
	out := make([]float32, q*n)
	pairs := make([]ops.Pair, q*k)
	ids := make([]int32, q*c)
	for i := range ids {
		ids[i] = int32(r.IntN(n))
	}
	g := mustGraph(hostsimd.UniformGraph(1000, 8, 3))
	a0 := randFloats(r, 1000)
	for i := range a0 {
		a0[i] = float32(max(a0[i], 0))
	}
	act := make([]float32, 1000)
	return []runner{
		{"CosineSingle", func() (func() error, func(), error) {
			cs, err := compute.NewCosineSingle(d, v, dim, compute.CosineOptions{})
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := cs.Run(qs[:dim], out[:n], nil); return err }, cs.Release, nil
		}},
		{"CosineBatch", func() (func() error, func(), error) {
			cb, err := compute.NewCosineBatch(d, v, dim, compute.CosineBatchOptions{Tiled: true})
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := cb.Run(qs, out, nil); return err }, cb.Release, nil
		}},
		{"CosineBatch.RunTopK", func() (func() error, func(), error) {
			cb, err := compute.NewCosineBatch(d, v, dim, compute.CosineBatchOptions{Tiled: true})
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := cb.RunTopK(qs, k, pairs, nil); return err }, cb.Release, nil
		}},
		{"TopKSingle", func() (func() error, func(), error) {
			cs, err := compute.NewCosineSingle(d, v, dim, compute.CosineOptions{})
			if err != nil {
				return nil, nil, err
			}
			tk, err := compute.NewTopKSingle(cs, k, compute.TopKOptions{})
			if err != nil {
				cs.Release()
				return nil, nil, err
			}
			return func() error { _, err := tk.Run(qs[:dim], pairs[:k], nil); return err }, func() { tk.Release(); cs.Release() }, nil
		}},
		{"Gather", func() (func() error, func(), error) {
			ga, err := compute.NewGather(d, v, dim, compute.GatherOptions{})
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := ga.Run(qs, ids, c, out[:q*c], nil); return err }, ga.Release, nil
		}},
		{"Spread", func() (func() error, func(), error) {
			sp, err := compute.NewSpread(d, ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: g.Weights}, compute.SpreadOptions{})
			if err != nil {
				return nil, nil, err
			}
			p := compute.SpreadParams{Retention: 0.5, Decay: 0.5, Steps: 3, Epsilon: -1}
			return func() error { _, err := sp.Run(a0, p, act, nil); return err }, sp.Release, nil
		}},
		{"MemCompute", func() (func() error, func(), error) {
			m, err := compute.NewMemCompute(d, "cosine_single", v, dim, 0)
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := m.Run(compute.VariantFull, nil); return err }, m.Release, nil
		}},
		{"UserKernel", func() (func() error, func(), error) {
			uk, err := compute.NewUserKernel(d, compute.UserKernelOptions{Source: saxpy, Dispatch: [3]uint32{16, 1, 1},
				Buffers: []compute.BufferSpec{{Name: "x", Type: "f32", Count: 1024, Init: "rand"}, {Name: "y", Type: "f32", Count: 1024, Init: "rand"}}})
			if err != nil {
				return nil, nil, err
			}
			return func() error { _, err := uk.Run(nil); return err }, uk.Release, nil
		}},
	}
}

// Every runner used after Release (twice) returns ErrReleased instead of
// reaching freed GPU handles.
func TestRunAfterReleaseIsAnError(t *testing.T) {
	d := openDevice(t)
	for _, r := range runners(d) {
		run, release, err := r.new()
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if err := run(); err != nil {
			t.Fatalf("%s: first run: %v", r.name, err)
		}
		release()
		release()
		if err := run(); !errors.Is(err, wgpu.ErrReleased) {
			t.Errorf("%s: run after Release: err = %v, want ErrReleased", r.name, err)
		}
	}
}

// cycles runs each runner n times (recreating it every 100 runs, so the
// create/release path is cycled as well) and returns its RSS growth over
// the second half, after a warm-up of the first half.
func cycles(t testing.TB, d *wgpu.Device, r runner, n int) (warm, grow int64) {
	run, release, err := r.new()
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	defer func() { release() }()
	var r0, r1 int64
	for i := 0; i < n; i++ {
		if i == n/2 {
			r0 = rss(t)
		}
		if i > 0 && i%100 == 0 {
			release()
			if run, release, err = r.new(); err != nil {
				t.Fatalf("%s at cycle %d: %v", r.name, i, err)
			}
		}
		if err := run(); err != nil {
			t.Fatalf("%s at cycle %d: %v", r.name, i, err)
		}
	}
	r1 = rss(t)
	return r0, r1 - r0
}

// Dispatch/readback cycles of every kernel do not grow memory (on
// lavapipe the GPU's memory is this process's, so RSS covers both). CI
// runs 1,000 cycles a kernel; BenchmarkCycles10k the full 10,000.
func TestKernelCyclesDoNotLeak(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	d := openDevice(t)
	for _, r := range runners(d) {
		warm, grow := cycles(t, d, r, n)
		t.Logf("%s: RSS %d KiB at cycle %d, %+d KiB over the last %d cycles", r.name, warm, n/2, grow, n-n/2)
		// A leak of one small buffer a cycle is ≥ 256 bytes × 500 = 125 KiB;
		// allow 2 MiB of allocator noise.
		if grow > 2048 {
			t.Errorf("%s: RSS grew by %d KiB over %d cycles", r.name, grow, n-n/2)
		}
	}
}

// BenchmarkCycles10k: 10,000 dispatch/readback cycles of every kernel,
// reporting the RSS growth over the last 5,000 (run with -benchtime 1x).
func BenchmarkCycles10k(b *testing.B) {
	d := openDevice(b)
	for _, r := range runners(d) {
		b.Run(r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				warm, grow := cycles(b, d, r, 10_000)
				b.ReportMetric(float64(warm), "KiB-RSS-at-5k")
				b.ReportMetric(float64(grow), "KiB-RSS-growth-last-5k")
				if grow > 2048 {
					b.Errorf("%s: RSS grew by %d KiB over 5,000 cycles", r.name, grow)
				}
			}
		})
	}
}

func rss(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm on this OS")
	}
	runtime.GC()
	debug.FreeOSMemory()
	f := strings.Fields(string(b))
	res, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return res * int64(os.Getpagesize()) / 1024
}
