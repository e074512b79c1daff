package compute_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// cosineBenchN is N for the cosine benchmarks: $WGPU_PROF_BENCH_N, or def (kept
// modest so that a CPU adapter such as lavapipe finishes quickly).
func cosineBenchN(b *testing.B, def int) int {
	if s := os.Getenv("WGPU_PROF_BENCH_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("WGPU_PROF_BENCH_N=%q: want a positive integer", s)
		}
		return n
	}
	return def
}

// gpuMeter sums kernel time over a benchmark's iterations.
type gpuMeter struct {
	kernel time.Duration
	runs   int
}

func (m *gpuMeter) add(tm compute.Timing) {
	if tm.KernelValid {
		m.kernel += tm.Kernel
		m.runs++
	}
}

// report adds gpu-ns/op and, over kernel time, GB/s for the fewest bytes
// the operation must move (each input once, each output once) and GFLOP/s
// for the flops it must do (0: not reported).
func (m *gpuMeter) report(b *testing.B, bytes, flops float64) {
	if m.runs == 0 {
		b.Log("no valid timestamps: kernel metrics not reported")
		return
	}
	ns := float64(m.kernel.Nanoseconds()) / float64(m.runs)
	b.ReportMetric(ns, "gpu-ns/op")
	b.ReportMetric(bytes/ns, "GB/s")
	if flops > 0 {
		b.ReportMetric(flops/ns, "GFLOP/s")
	}
}

func cosineBenchTimer(b *testing.B, d *wgpu.Device, passes int) *wgpu.Timer {
	if !d.HasTimestamps() {
		return nil
	}
	t, err := d.NewTimer(passes)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(t.Release)
	return t
}

func BenchmarkCosineSingle(b *testing.B) {
	d := openDevice(b)
	const dim = 768
	n := cosineBenchN(b, 20_000)
	r := rand.New(rand.NewPCG(11, 1))
	v := randFloats(r, n*dim)
	q := randFloats(r, dim)
	timer := cosineBenchTimer(b, d, 1)
	variants := []struct {
		name  string
		f16   bool
		norms bool
	}{{"f32", false, false}, {"f32-norms", false, true}, {"f16", true, false}, {"f16-norms", true, true}}
	for _, vt := range variants {
		b.Run(fmt.Sprintf("%s/N=%d/D=%d", vt.name, n, dim), func(b *testing.B) {
			opts := compute.CosineOptions{PrecomputedNorms: vt.norms}
			var cs *compute.CosineSingle
			var err error
			if vt.f16 {
				if !d.HasFeature(wgpu.FeatureShaderF16) {
					b.Skip("no shader-f16")
				}
				cs, err = compute.NewCosineSingleF16(d, v, dim, opts)
			} else {
				cs, err = compute.NewCosineSingle(d, v, dim, opts)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Release()
			out := make([]float32, n)
			if _, err := cs.Run(q, out, timer); err != nil { // warm-up
				b.Fatal(err)
			}
			var m gpuMeter
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tm, err := cs.Run(q, out, timer)
				if err != nil {
					b.Fatal(err)
				}
				m.add(tm)
			}
			b.StopTimer()
			bytes := float64(cs.InputBytes) + 4*float64(dim+n)
			flops := 2 * float64(n) * dim
			if vt.norms {
				bytes += 4 * float64(n)
			} else {
				flops *= 2 // v·v as well
			}
			m.report(b, bytes, flops)
		})
	}
}

func BenchmarkCosineBatch(b *testing.B) {
	d := openDevice(b)
	const dim, nq = 768, 64
	n := cosineBenchN(b, 4096)
	r := rand.New(rand.NewPCG(12, 1))
	v := randFloats(r, n*dim)
	qs := randFloats(r, nq*dim)
	timer := cosineBenchTimer(b, d, 1)
	variants := []compute.CosineBatchOptions{{}, {Tiled: true, Tile: 16}, {Tiled: true, Tile: 32}, {Tiled: true, Tile: 64}, {Tiled: true, Tile: 128}}
	for _, o := range variants {
		name := "naive"
		if o.Tiled {
			name = fmt.Sprintf("tile=%d", o.Tile)
		}
		b.Run(fmt.Sprintf("%s/Q=%d/N=%d/D=%d", name, nq, n, dim), func(b *testing.B) {
			cb, err := compute.NewCosineBatch(d, v, dim, o)
			if err != nil {
				b.Skip(err) // a tile past this adapter's limits
			}
			defer cb.Release()
			out := make([]float32, nq*n)
			if _, err := cb.Run(qs, out, timer); err != nil {
				b.Fatal(err)
			}
			var m gpuMeter
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tm, err := cb.Run(qs, out, timer)
				if err != nil {
					b.Fatal(err)
				}
				m.add(tm)
			}
			b.StopTimer()
			// V and its norms once, the queries and their norms once, S once.
			bytes := float64(cb.InputBytes) + 4*float64(n) + 4*float64(nq*(dim+1)) + 4*float64(nq*n)
			m.report(b, bytes, 2*float64(nq)*float64(n)*dim)
		})
	}
}

func BenchmarkTopK(b *testing.B) {
	d := openDevice(b)
	n := cosineBenchN(b, 20_000)
	r := rand.New(rand.NewPCG(13, 1))
	timer := cosineBenchTimer(b, d, 1)
	for _, nq := range []int{1, 64} {
		scores := randFloats(r, nq*n)
		buf := upload(b, d, "scores", scores, 0)
		for _, k := range []int{10, 64} {
			b.Run(fmt.Sprintf("Q=%d/N=%d/k=%d", nq, n, k), func(b *testing.B) {
				tk, err := compute.NewTopK(d, buf, nq, n, k, compute.TopKOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer tk.Release()
				out := make([]ops.Pair, nq*k)
				if _, err := tk.Run(out, timer); err != nil {
					b.Fatal(err)
				}
				var m gpuMeter
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					tm, err := tk.Run(out, timer)
					if err != nil {
						b.Fatal(err)
					}
					m.add(tm)
				}
				b.StopTimer()
				m.report(b, 4*float64(nq*n)+8*float64(nq*k), 0)
			})
		}
		buf.Release()
	}
}
