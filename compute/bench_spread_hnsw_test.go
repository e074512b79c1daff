package compute_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Sizes are kept small so the benchmarks stay cheap on lavapipe; the
// experiment driver, not these, sweeps real sizes.

// benchTimer returns a one-pass timer, or nil where the device has no
// timestamps (then only end-to-end time is reported).
func benchTimer(b *testing.B, d *wgpu.Device) *wgpu.Timer {
	if !d.HasTimestamps() {
		return nil
	}
	t, err := d.NewTimer(1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(t.Release)
	return t
}

// reportGPU reports gpu-ns/op (mean kernel time from timestamps, when every
// run's timestamps were valid) and GB/s of bytes per op over the kernel
// time (over the end-to-end time without timestamps).
func reportGPU(b *testing.B, kernel, e2e time.Duration, valid bool, runs int, bytes float64) {
	if runs == 0 {
		return
	}
	t := e2e
	if valid {
		t = kernel
		b.ReportMetric(float64(kernel.Nanoseconds())/float64(runs), "gpu-ns/op")
	}
	if t > 0 {
		b.ReportMetric(bytes*float64(runs)/t.Seconds()/1e9, "GB/s")
	}
}

// BenchmarkSpread times T steps of spreading activation in one submission.
// Bytes per op are the fewest a step can move, times T: the graph (offsets
// (N+1)·4, cols E·4, weights E·4) read once, the activations read once
// (N·4; the gathers a[j] are counted as one pass over a) and written once
// (N·4). The graph does not stay in cache between steps at real sizes, so
// each step reads it again.
func BenchmarkSpread(b *testing.B) {
	d := openDevice(b)
	timer := benchTimer(b, d)
	const steps = 10
	graphs := []struct {
		name string
		g    *ops.CSR
	}{
		{"uniform/n=4096/deg=16", mustGraph(hostsimd.UniformGraph(4096, 16, 1))},
		{"rmat/scale=12/deg=16", mustGraph(hostsimd.RMATGraph(12, 16, 1))},
	}
	for _, gr := range graphs {
		n, e := gr.g.N(), len(gr.g.Cols)
		bytes := float64(steps) * float64(4*(n+1)+8*e+8*n)
		for _, variant := range []compute.SpreadVariant{compute.SpreadRowPerThread, compute.SpreadRowPerWorkgroup, compute.SpreadRowPerThreadVec4} {
			b.Run(fmt.Sprintf("%s/%v/T=%d", gr.name, variant, steps), func(b *testing.B) {
				sp, err := compute.NewSpread(d, csrInput(gr.g), compute.SpreadOptions{Variant: variant})
				if err != nil {
					b.Fatal(err)
				}
				defer sp.Release()
				a0 := seeds(rand.New(rand.NewPCG(1, 2)), n)
				out := make([]float32, n)
				p := compute.SpreadParams{Retention: 0.3, Decay: 0.1, Threshold: 0.01, Steps: steps, Epsilon: -1}
				if _, err := sp.Run(a0, p, out, timer); err != nil { // warm-up
					b.Fatal(err)
				}
				var kernel, e2e time.Duration
				valid, runs := true, 0
				for b.Loop() {
					res, err := sp.Run(a0, p, out, timer)
					if err != nil {
						b.Fatal(err)
					}
					kernel += res.Kernel
					e2e += res.EndToEnd
					valid = valid && res.KernelValid
					runs++
				}
				reportGPU(b, kernel, e2e, valid, runs, bytes)
			})
		}
	}
}

// BenchmarkGather times one batch of HNSW candidate distances. Bytes per
// op are the fewest the batch can move: the queries (Q·D·4) and ids
// (Q·C·4) read once, each distinct gathered row of V read once (D·4 per
// distinct id in the batch) and the distances written once (Q·C·4).
func BenchmarkGather(b *testing.B) {
	d := openDevice(b)
	timer := benchTimer(b, d)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	for _, dim := range []int{128, 768} {
		v := randFloats(r, n*dim)
		for _, m := range metrics {
			g, err := compute.NewGather(d, v, dim, compute.GatherOptions{Metric: m})
			if err != nil {
				b.Fatal(err)
			}
			for _, shape := range []struct{ q, c int }{{1, 32}, {64, 32}, {256, 64}} {
				b.Run(fmt.Sprintf("%v/D=%d/Q=%d/C=%d", m, dim, shape.q, shape.c), func(b *testing.B) {
					q := randFloats(r, shape.q*dim)
					ids := randIDs(r, n, shape.q, shape.c)
					distinct := map[int32]bool{}
					for _, id := range ids {
						distinct[id] = true
					}
					bytes := float64(4*shape.q*dim + 8*shape.q*shape.c + 4*dim*len(distinct))
					out := make([]float32, len(ids))
					if _, err := g.Run(q, ids, shape.c, out, timer); err != nil { // warm-up
						b.Fatal(err)
					}
					var kernel, e2e time.Duration
					valid, runs := true, 0
					for b.Loop() {
						tm, err := g.Run(q, ids, shape.c, out, timer)
						if err != nil {
							b.Fatal(err)
						}
						kernel += tm.Kernel
						e2e += tm.EndToEnd
						valid = valid && tm.KernelValid
						runs++
					}
					reportGPU(b, kernel, e2e, valid, runs, bytes)
				})
			}
			g.Release()
		}
	}
}
