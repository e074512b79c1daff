package compute_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

// BenchmarkTopKDesigns times top-k (k = 10) of 65,536 scores already on
// the GPU with each design, side by side: the bitonic network and the
// threshold-filtered queues. Each result is checked against the host's
// selection before it is timed.
func BenchmarkTopKDesigns(b *testing.B) {
	d := openDevice(b)
	timer := benchTimer(b, d)
	const n, k = 65536, 10
	r := rand.New(rand.NewPCG(21, 22))
	scores := randFloats(r, n)
	buf := upload(b, d, "scores", scores, 0)
	b.Cleanup(buf.Release)
	want := hostTopK(scores, k)
	for _, o := range []struct {
		name string
		opts compute.TopKOptions
	}{{"bitonic", compute.TopKOptions{}}, {"queue", compute.TopKOptions{Queue: true}}} {
		b.Run(o.name, func(b *testing.B) {
			tk, err := compute.NewTopK(d, buf, 1, n, k, o.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer tk.Release()
			got := poisonedPairs(k)
			if _, err := tk.Run(got, timer); err != nil {
				b.Fatal(err)
			}
			if !slices.Equal(got, want) {
				b.Fatalf("got %v, want %v", got, want)
			}
			var kern, e2e time.Duration
			valid := timer != nil
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tm, err := tk.Run(got, timer)
				if err != nil {
					b.Fatal(err)
				}
				kern += tm.Kernel
				e2e += tm.EndToEnd
				valid = valid && tm.KernelValid
			}
			reportGPU(b, kern, e2e, valid, b.N, 4*n)
		})
	}
}
