package hostsimd

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

func TestForceThreadsSplitsEveryCall(t *testing.T) {
	for _, f := range []int{1, 2, 3} {
		r := Host{ExactThreads: f}.mustResolve()
		for _, n := range []int{1, 2, 7, 100} {
			var mu sync.Mutex
			calls, covered := 0, 0
			r.parallelFor(n, 1, 1<<20, func(lo, hi int) {
				mu.Lock()
				calls++
				covered += hi - lo
				mu.Unlock()
			})
			if covered != n || calls != min(f, n) {
				t.Errorf("forced %d threads, n=%d: %d ranges covering %d, want %d covering %d", f, n, calls, covered, min(f, n), n)
			}
		}
	}
}

// A one-thread CosineSingle call allocates nothing, on every level and row
// walk: a timed call that allocates pays a page fault wherever the heap
// grows into fresh pages, and allocating would cost more than the work of
// a 1-row call. rowThreads agrees with the ranges parallelRows
// runs.
func TestCosineSingleOneThreadAllocatesNothing(t *testing.T) {
	const d = 96
	q, v := cosineInputs(d, 200, 5, 7)
	out := make([]float32, 200)
	for _, l := range Available() {
		k := tables[l]
		for _, p := range singlePaths(k) {
			for _, f := range []int{1, 2} {
				r := Host{ExactThreads: f}.mustResolve()
				for _, n := range []int{1, 7, 200} {
					run := func() { r.cosineSingleWith(singleImpl{k, p}, q, v[:n*d], d, n, out[:n]) }
					// (AllocsPerRun runs on one P: a call that waits on a
					// worker would wait for the scheduler.)
					if r.rowThreads(n, 4*d) <= 1 {
						if a := testing.AllocsPerRun(20, run); a != 0 {
							t.Errorf("%v %v, %d rows on one thread (forced %d): %.1f allocations per call, want 0", l, p, n, f, a)
						}
					} else {
						run()
					}
					// The result is what the reference says.
					for i := range n {
						want := cosineRef64(q, v[i*d:(i+1)*d])
						if diff := math.Abs(float64(out[i]) - want); !(diff <= 1e-5) {
							t.Fatalf("%v %v forced %d, n=%d: out[%d] = %v, want %v", l, p, f, n, i, out[i], want)
						}
					}
				}
			}
		}
	}
	// Through the exported call too (the calibrated or forced level's
	// choice of walk, made on every call).
	for _, l := range Available() {
		h := Host{Level: l, FixLevel: true, ExactThreads: 1}
		if a := testing.AllocsPerRun(20, func() { h.CosineSingle(q, v[:7*d], d, out[:7]) }); a != 0 {
			t.Errorf("CosineSingle at level %v, 7 rows on one thread: %.1f allocations per call, want 0", l, a)
		}
	}
	if a := testing.AllocsPerRun(20, func() { Host{ExactThreads: 1}.CosineSingle(q, v[:7*d], d, out[:7]) }); a != 0 {
		t.Errorf("CosineSingle, calibrated level, 7 rows on one thread: %.1f allocations per call, want 0", a)
	}
	for _, c := range []struct{ f, n, want int }{{1, 100, 1}, {2, 1, 1}, {2, 100, 2}, {3, 2, 2}} {
		r := Host{ExactThreads: c.f}.mustResolve()
		if got := r.rowThreads(c.n, 4*d); got != c.want {
			t.Errorf("forced %d, n=%d: rowThreads %d, want %d", c.f, c.n, got, c.want)
		}
	}
}

// cosineInputs is a query of d values and rows of d, repeating the
// values 1..qPeriod and 1..vPeriod (no zero row).
func cosineInputs(d, rows, qPeriod, vPeriod int) (q, v []float32) {
	q, v = make([]float32, d), make([]float32, rows*d)
	for i := range q {
		q[i] = float32(i%qPeriod) + 1
	}
	for i := range v {
		v[i] = float32(i%vPeriod) + 1
	}
	return q, v
}

// cosineRef64 is q·v/(‖q‖‖v‖) in float64.
func cosineRef64(q, v []float32) float64 {
	var ab, aa, bb float64
	for i := range q {
		ab += float64(q[i]) * float64(v[i])
		aa += float64(q[i]) * float64(q[i])
		bb += float64(v[i]) * float64(v[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// Concurrent CosineSingle calls (one thread and two each) share the pooled
// row scratch and the workers and still each get their own rows right.
func TestCosineSingleConcurrentCallers(t *testing.T) {
	const d = 64
	q, v := cosineInputs(d, 300, 3, 11)
	want := make([]float64, 300)
	for i := range want {
		want[i] = cosineRef64(q, v[i*d:(i+1)*d])
	}
	for _, f := range []int{0, 1, 2} {
		h := Host{ExactThreads: f}
		var wg sync.WaitGroup
		errs := make(chan string, 4)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out := make([]float32, 300)
				for c := range 200 {
					n := 1 + (c*37+g*101)%300
					if err := h.CosineSingle(q, v[:n*d], d, out[:n]); err != nil {
						errs <- err.Error()
						return
					}
					for i := range n {
						if diff := math.Abs(float64(out[i]) - want[i]); !(diff <= 1e-5) {
							errs <- fmt.Sprintf("forced %d, caller %d, n=%d: out[%d] = %v, want %v", f, g, n, i, out[i], want[i])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}
