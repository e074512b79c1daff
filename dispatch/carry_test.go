package dispatch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// request is a caller's call: its own input and output.
type request struct {
	id  int
	n   int
	in  []float64
	out *float64
}

func sum(r request) float64 {
	s := 0.0
	for _, x := range r.in {
		s += x
	}
	return s
}

// 8 goroutines share one route; each request's answer is computed from
// its own input and lands in its own output, small requests on the CPU
// side and large ones on the GPU side per the models, and a failing GPU
// call falls back to the CPU with the same request.
func TestRouteCarriesRequestsFrom8Goroutines(t *testing.T) {
	var onCPU, onGPU, failed atomic.Int64
	cpu := func(r request) error {
		onCPU.Add(1)
		*r.out = sum(r)
		spin(time.Duration(r.n) * 20 * time.Nanosecond)
		return nil
	}
	gpu := func(r request) error {
		if r.id%97 == 13 {
			failed.Add(1)
			return errors.New("device lost")
		}
		onGPU.Add(1)
		*r.out = sum(r)
		spin(20*time.Microsecond + time.Duration(r.n)*time.Nanosecond)
		return nil
	}
	r, err := dispatch.NewRoute([]dispatch.RouteSide[request]{
		{Name: "cpu", Serve: cpu, Model: dispatch.Linear(1e-6, 20e-9)},
		{Name: "gpu", Serve: gpu, Model: dispatch.Linear(20e-6, 1e-9)},
	}, func(r request) int { return r.n }, dispatch.Profile{}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 150
	var wg sync.WaitGroup
	bad := make(chan string, workers*each)
	sides := make([][2]int64, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := w*each + i
				n := 16
				if i%2 == 1 {
					n = 4096
				}
				in := make([]float64, 8)
				for k := range in {
					in[k] = float64(id*10 + k)
				}
				var out float64
				o, err := r.Do(request{id: id, n: n, in: in, out: &out})
				if err != nil {
					bad <- fmt.Sprintf("request %d: %v", id, err)
					continue
				}
				if want := float64(80*id + 28); out != want {
					bad <- fmt.Sprintf("request %d: answer %v, want %v (another caller's request?)", id, out, want)
				}
				sides[w][o.Side]++
			}
		}()
	}
	wg.Wait()
	close(bad)
	for s := range bad {
		t.Error(s)
	}
	share := r.Share()
	if share[0]+share[1] != workers*each {
		t.Errorf("answered %v, want %d calls", share, workers*each)
	}
	// Half the calls are small: the CPU takes them (and the GPU's failed
	// ones); the GPU most of the large ones. The split rests on timing
	// calls of a few to tens of microseconds: a clock that moves in
	// coarser steps (Go's Windows clock under an emulator) cannot tell the
	// sides apart, so there only the answers above are checked.
	if step := clockStep(); step > time.Microsecond {
		t.Logf("routing split not judged: this clock moves in steps of %v", step)
		return
	}
	if onGPU.Load() < workers*each/4 || onCPU.Load() < workers*each/2 || failed.Load() == 0 {
		t.Errorf("cpu %d gpu %d failed %d calls", onCPU.Load(), onGPU.Load(), failed.Load())
	}
}

func TestRouteFromReport(t *testing.T) {
	pl := report.Plan{Ops: []report.PlanOp{{Regex: `main\.sim$`, Workload: "cosine-single"}}}
	pl.Ops[0].Route = &report.PlanRoute{Sides: []string{"own", "gpu"}, CPU: line(1e-6, 20e-9), GPU: line(20e-6, 1e-9), Crossover: 1000}
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.json")
	b, _ := jsonMarshal(pl)
	os.WriteFile(path, b, 0o644)
	var got []string
	r, err := dispatch.RouteFromReport(path, `main\.sim$`,
		func(n int) error { got = append(got, "cpu"); return nil },
		func(n int) error { got = append(got, "gpu"); return nil },
		func(n int) int { return n })
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10, 100000} {
		if _, err := r.Do(n); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[0] != "cpu" || got[1] != "gpu" {
		t.Errorf("n = 10, 100000 went to %v, want cpu, gpu", got)
	}
	if _, err := dispatch.LoadRoute(path, "nosuch"); !errors.Is(err, dispatch.ErrNoRoute) {
		t.Errorf("unknown operation: %v", err)
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// spin busy-waits d (a sleep that short lasts the timer's resolution) on
// the clock the route times its calls with (timing/clock).
func spin(d time.Duration) {
	for t0 := clock.Now(); clock.Since(t0) < d; {
	}
}

// clockStep is the smallest non-zero step of the clock the route and spin
// use (timing/clock) seen in a short loop (0 when it never moved).
func clockStep() time.Duration {
	var step time.Duration
	prev := clock.Now()
	for range 100000 {
		now := clock.Now()
		if d := now.Sub(prev); d > 0 && (step == 0 || d < step) {
			step = d
		}
		prev = now
	}
	return step
}
