package tune_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/tune"
)

// NewCosineSingle builds the CosineSingle design that is fastest on this
// adapter among those that pass the float64 check; it then runs like any
// compute.CosineSingle.
func ExampleNewCosineSingle() {
	dev, err := compute.Open(context.Background(), compute.Options{})
	if err != nil {
		fmt.Println(err) // no adapter, or wgpu-native not installed
		return
	}
	defer dev.Release()

	const dim, n = 64, 1024
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, n*dim)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	cs, err := tune.NewCosineSingle(dev.Device, v, dim)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Release()

	q := v[7*dim : 8*dim] // row 7 itself: its score is 1, the highest
	scores := make([]float32, n)
	if _, err := cs.Run(q, scores, dev.Timer); err != nil {
		fmt.Println(err)
		return
	}
	best := 0
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
	}
	fmt.Printf("best row %d, score %.3f\n", best, scores[best])
	// Output:
	// best row 7, score 1.000
}
