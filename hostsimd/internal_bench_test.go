package hostsimd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"
)

// BenchmarkDotTile4Kernel times the raw 4-query kernel on cache-resident
// rows (single thread), to separate kernel speed from memory effects.
func BenchmarkDotTile4Kernel(b *testing.B) {
	for _, l := range Available() {
		for _, rows := range []int{8, 84} {
			k := tables[l]
			const d = 768
			q := make([]float32, 4*d)
			v := make([]float32, rows*d)
			for i := range v {
				v[i] = float32(i%7) * 0.1
			}
			for i := range q {
				q[i] = float32(i%5) * 0.1
			}
			out := make([]float32, 4*rows)
			qp := packQueries4(q, d, k.tileW)
			b.Run(fmt.Sprintf("%v/rows=%d", l, rows), func(b *testing.B) {
				for b.Loop() {
					k.dotTile4(qp, v, d, rows, out)
				}
				b.ReportMetric(2*4*float64(rows*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkCosineBatchThreads(b *testing.B) {
	const d, nq, n = 768, 64, 20000
	qs := make([]float32, nq*d)
	v := make([]float32, n*d)
	for i := range v {
		v[i] = float32(i%7) * 0.1
	}
	for i := range qs {
		qs[i] = float32(i%5) * 0.1
	}
	out := make([]float32, nq*n)
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", th), func(b *testing.B) {
			h := Host{Threads: th}
			for b.Loop() {
				h.CosineBatch(qs, v, d, out)
			}
			b.ReportMetric(2*float64(nq*n*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkCosTile8Kernel times the 8-query cosine kernel on
// cache-resident rows (single thread): rows=8 stays in L1, rows=84 (one
// row block) in L2.
func BenchmarkCosTile8Kernel(b *testing.B) {
	for _, l := range Available() {
		k := tables[l]
		if k.cosTile8 == nil {
			continue
		}
		for _, rows := range []int{8, 84} {
			const d = 768
			q := make([]float32, 8*d)
			v := make([]float32, rows*d)
			for i := range v {
				v[i] = float32(i%7) * 0.1
			}
			for i := range q {
				q[i] = float32(i%5) * 0.1
			}
			out := make([]float32, 8*rows)
			iqs := make([]float32, 48)
			iv := make([]float32, rows)
			qp := packQueries(q, 8, d, k.tileW)
			b.Run(fmt.Sprintf("%v/rows=%d", l, rows), func(b *testing.B) {
				for b.Loop() {
					k.cosTile8(qp, v, d, rows, out, rows, iqs, iv, false, nil, 0)
				}
				b.ReportMetric(2*8*float64(rows*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestCosineBatchPaths times, on one core, CosineBatch Q=64 N=20000 D=768
// three ways, interleaved with the FMA peak kernel so that all see the
// same load on a shared machine: the AVX512 path (cosTile8), the same
// without prefetching the next row block, and the 4-query path (dotTile4
// and a separate norm and scaling pass) that AVX2 uses. It logs each as
// a fraction of the peak, counting 2·Q·N·D flops as TestTargets does.
// HOSTSIMD_TARGETS=1 enables it.
func TestCosineBatchPaths(t *testing.T) {
	skipIfEmulated(t)
	if os.Getenv("HOSTSIMD_TARGETS") != "1" {
		t.Skip("set HOSTSIMD_TARGETS=1 to time the CosineBatch paths")
	}
	k8 := tables[AVX512]
	if k8 == nil || k8.cosTile8 == nil {
		t.Skip("no AVX512 cosTile8 on this machine/build")
	}
	k4 := *k8
	k4.cosTile8 = nil
	knp := *k8
	knp.cosTile8 = func(q, v []float32, d, n int, out []float32, ldo int, iqs, iv []float32, norms bool, pf []float32, pfs int) {
		k8.cosTile8(q, v, d, n, out, ldo, iqs, iv, norms, nil, 0)
	}
	const d, nq, n = 768, 64, 20000
	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([]float32, nq*d)
	v := make([]float32, n*d)
	for i := range qs {
		qs[i] = rng.Float32()*2 - 1
	}
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	out := make([]float32, nq*n)
	const iters = 1 << 22
	paths := []struct {
		name string
		k    *kernelTable
	}{{"peak", nil}, {"cosTile8", k8}, {"cosTile8, no prefetch", &knp}, {"dotTile4", &k4}}
	best := make([]time.Duration, len(paths))
	for r := 0; r < 20; r++ {
		for i, p := range paths {
			t0 := time.Now()
			if p.k == nil {
				k8.fmaPeak(iters, 0.99999994, 1e-3)
			} else {
				r := run{k: p.k, threads: 1, minBytes: defaultMinBytesPerThread}
				r.cosineBatch(qs, v, d, out)
			}
			if dt := time.Since(t0); r == 0 || dt < best[i] {
				best[i] = dt
			}
		}
	}
	peak := float64(iters) * float64(k8.fmaLanes) * 2 / best[0].Seconds() / 1e9
	for i, p := range paths[1:] {
		gf := 2 * float64(nq*n*d) / best[i+1].Seconds() / 1e9
		t.Logf("CosineBatch Q=64 N=20000 D=768 one core, %s: %v, %.1f GFLOP/s = %.1f%% of FMA peak %.1f GFLOP/s",
			p.name, best[i+1], gf, 100*gf/peak, peak)
	}
}

// BenchmarkCosineSinglePaths times every row walk of every level (the
// candidates Calibrate chooses from) cache-resident (N=2,000) and from
// DRAM (N=200,000), at 1 thread and all threads.
func BenchmarkCosineSinglePaths(b *testing.B) {
	const d = 768
	rng := rand.New(rand.NewPCG(1, 2))
	q := ctVec(rng, d)
	v := HugeFloats(200_000 * d)
	SplitRows(200_000, d, func(lo, hi int) {
		r := rand.New(rand.NewPCG(uint64(lo), 5))
		for i := lo * d; i < hi*d; i++ {
			v[i] = r.Float32()*2 - 1
		}
	})
	for _, n := range []int{2_000, 200_000} {
		out := make([]float32, n)
		for _, l := range Available() {
			for _, p := range singlePaths(tables[l]) {
				for _, th := range []int{1, runtime.GOMAXPROCS(0)} {
					b.Run(fmt.Sprintf("level=%v/path=%v/threads=%d/N=%d", l, p, th, n), func(b *testing.B) {
						r := Host{Threads: th}.mustResolve()
						im := singleImpl{tables[l], p}
						for b.Loop() {
							r.cosineSingleWith(im, q, v[:n*d], d, n, out)
						}
						b.ReportMetric(float64(n*d*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
					})
				}
			}
		}
	}
}
