package compute_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// TestRunnersConcurrentCallers runs one CosineSingle from 8 goroutines,
// each with its own queries, and checks every result against the float64
// reference: the runner's query and score buffers are shared, so its calls
// must be serialised (before they were, a goroutine read another's
// scores). A CosineBatch and a TopKSingle over the same CosineSingle run
// beside them.
func TestRunnersConcurrentCallers(t *testing.T) {
	d := openDevice(t)
	const dim, n, goroutines, calls = 32, 300, 8, 12
	r := rand.New(rand.NewPCG(8, 8))
	v := randFloats(r, n*dim)
	cs, err := compute.NewCosineSingle(d, v, dim, compute.CosineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Release()
	cb, err := compute.NewCosineBatch(d, v, dim, compute.CosineBatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	tk, err := compute.NewTopKSingle(cs, 5, compute.TopKOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Release()
	queries := make([][]float32, goroutines*calls)
	for i := range queries {
		queries[i] = randFloats(r, dim)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+2)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				q := queries[g*calls+c]
				out := poisoned(n)
				if _, err := cs.Run(q, out, nil); err != nil {
					errs <- err
					return
				}
				for i := range out {
					want, scale := cosineRef(q, v[i*dim:(i+1)*dim])
					if diff := float64(out[i]) - want; !(diff <= 4*dim*scale/(1<<23)+1e-6 && -diff <= 4*dim*scale/(1<<23)+1e-6) {
						errs <- fmt.Errorf("goroutine %d call %d: s[%d] = %v, want %v (another call's scores?)", g, c, i, out[i], want)
						return
					}
				}
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for c := range calls {
			qs := append(append([]float32(nil), queries[c]...), queries[calls+c]...)
			out := poisoned(2 * n)
			if _, err := cb.Run(qs, out, nil); err != nil {
				errs <- err
				return
			}
			for j := range 2 {
				for i := 0; i < n; i += 7 {
					want, _ := cosineRef(qs[j*dim:(j+1)*dim], v[i*dim:(i+1)*dim])
					if diff := float64(out[j*n+i]) - want; diff > 1e-4 || diff < -1e-4 {
						errs <- fmt.Errorf("batch call %d: S[%d][%d] = %v, want %v", c, j, i, out[j*n+i], want)
						return
					}
				}
			}
		}
	}()
	go func() {
		defer wg.Done()
		for c := range calls {
			q := queries[c]
			out := make([]ops.Pair, 5)
			if _, err := tk.Run(q, out, nil); err != nil {
				errs <- err
				return
			}
			best, bi := -2.0, -1
			for i := range n {
				if w, _ := cosineRef(q, v[i*dim:(i+1)*dim]); w > best {
					best, bi = w, i
				}
			}
			if int(out[0].Index) != bi {
				errs <- fmt.Errorf("top-k call %d: best row %d (%v), want %d (%v)", c, out[0].Index, out[0].Score, bi, best)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
