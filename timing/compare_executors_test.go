package timing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// modelled is an executor that really computes a sum over n values and
// reports the time a cost model gives for it (overhead + perItem·n), so
// that the comparison's output below is exact. A real executor times its
// call: start := time.Now(); work(); return timing.Sample{Host: time.Since(start)}.
func modelled(name string, overhead time.Duration, perItemNs float64, wrongAt int) timing.Executor {
	return timing.Executor{Name: name, At: func(n int) (timing.Call, error) {
		in := make([]float32, n)
		for i := range in {
			in[i] = 1
		}
		var out float32
		return timing.Call{
			Run: func() (timing.Sample, error) {
				out = 0
				for _, x := range in {
					out += x
				}
				if n == wrongAt {
					out++
				}
				return timing.Sample{Host: overhead + time.Duration(float64(n)*perItemNs)}, nil
			},
			Verify: func() error {
				if out != float32(n) {
					return fmt.Errorf("sum %v, want %d", out, n)
				}
				return nil
			},
		}, nil
	}}
}

// Two executors of one operation: a Go loop with little fixed cost and a
// dispatch to an accelerator with a large fixed cost and a small cost per
// item. CompareExecutors finds where the second becomes faster, fits each
// one's cost and says which to use where.
func ExampleCompareExecutors() {
	loop := modelled("go-loop", 200*time.Nanosecond, 2, -1)
	device := modelled("device", 20*time.Microsecond, 0.1, -1)
	r, err := timing.CompareExecutors(context.Background(), loop, device, timing.CompareOpts{
		Sizes: []int{1, 16, 256, 4096, 65536},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Verdict)
	fmt.Printf("models: %s %.0f ns + %.1f ns/item; %s %.0f ns + %.1f ns/item\n",
		r.A, r.ModelA.Single.Overhead*1e9, r.ModelA.Single.PerItem*1e9, r.B, r.ModelB.Single.Overhead*1e9, r.ModelB.Single.PerItem*1e9)
	fmt.Printf("predicted crossover n ≈ %.0f\n", r.Predicted.N)
	// Output:
	// go-loop faster up to n = 9742, device from n = 11585 (measured between 9742 and 11585; located)
	// models: go-loop 200 ns + 2.0 ns/item; device 20000 ns + 0.1 ns/item
	// predicted crossover n ≈ 10421
}

func TestCompareExecutorsRefusesWrongResults(t *testing.T) {
	loop := modelled("go-loop", 200*time.Nanosecond, 2, 256)
	device := modelled("device", 20*time.Microsecond, 0.1, -1)
	_, err := timing.CompareExecutors(context.Background(), loop, device, timing.CompareOpts{Sizes: []int{1, 16, 256, 4096}})
	if err == nil || !strings.Contains(err.Error(), "go-loop at n = 256: wrong result") {
		t.Fatalf("got %v, want the wrong result at 256 named", err)
	}
	if _, err := timing.CompareExecutors(context.Background(), loop, device, timing.CompareOpts{Sizes: []int{1, 2}}); !errors.Is(err, timing.ErrCompare) {
		t.Errorf("two sizes: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := timing.CompareExecutors(ctx, loop, device, timing.CompareOpts{Sizes: []int{1, 16, 64}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
