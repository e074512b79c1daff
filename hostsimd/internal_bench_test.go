package hostsimd

import (
	"fmt"
	"testing"
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
	defer SetThreads(0)
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", th), func(b *testing.B) {
			SetThreads(th)
			for b.Loop() {
				CosineBatch(qs, v, d, out)
			}
			b.ReportMetric(2*float64(nq*n*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
