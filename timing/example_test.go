package timing_test

import (
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A break-even between two executors of the same operation: measure each
// at several batch sizes, fit t(n) = overhead + n·per-item to both, and
// solve for the batch size where the second becomes faster. Here the two
// executors report synthetic, deterministic times (a side with a 50 µs
// start-up cost and 1 µs per item against one with 5 µs and 2 µs per
// item); a real executor would time its own call and return the Sample.
func Example_breakEven() {
	executor := func(overhead, perItem time.Duration, n int) func() (timing.Sample, error) {
		return func() (timing.Sample, error) {
			return timing.Sample{Host: overhead + time.Duration(n)*perItem}, nil
		}
	}
	batches := []int{4, 16, 64, 256}
	var ns, tFast, tSlow []float64
	var sumFast, sumSlow []timing.Summary
	for _, n := range batches {
		a, err := timing.Measure(timing.MeasureOpts{Budget: 10 * time.Millisecond}, executor(50*time.Microsecond, time.Microsecond, n))
		if err != nil {
			panic(err)
		}
		b, err := timing.Measure(timing.MeasureOpts{Budget: 10 * time.Millisecond}, executor(5*time.Microsecond, 2*time.Microsecond, n))
		if err != nil {
			panic(err)
		}
		ns = append(ns, float64(n))
		tFast, tSlow = append(tFast, a.Host.Median), append(tSlow, b.Host.Median)
		sumFast, sumSlow = append(sumFast, a.Host), append(sumSlow, b.Host)
	}
	// "cpu" is the side that wins small batches, "gpu" the one with the
	// start-up cost: CrossoverOf says where the second overtakes.
	small, err := timing.FitLinear(ns, tSlow)
	if err != nil {
		panic(err)
	}
	big, err := timing.FitLinear(ns, tFast)
	if err != nil {
		panic(err)
	}
	c := timing.CrossoverOf(small, big)
	n, found := timing.MeasuredCrossover(batches, sumSlow, sumFast)
	fmt.Printf("fitted: %s at n = %.0f\n", c.Kind, c.N)
	fmt.Printf("measured: the second executor is faster from n = %d (%v)\n", n, found)
	// Output:
	// fitted: at at n = 45
	// measured: the second executor is faster from n = 64 (true)
}
