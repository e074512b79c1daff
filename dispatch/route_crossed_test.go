package dispatch_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// caller is a request whose answer names its caller: a side writes the
// caller's id into the caller's own slot.
type caller struct {
	id  int
	ans *int
}

// No side serves another caller's request, however the callers overlap.
// The route sizes a request (its size function) before it serves it; here
// sizing holds each caller until all of them are sizing or a wait runs
// out, so that, were two requests in a route at once, every caller would
// have handed over its request before any is served, and all but one
// would be served someone else's. With Route's lock one caller at a time
// is in the route: each waits out its turn and gets its own answer. The
// test also runs under -race, which reports the unguarded request itself.
func TestRouteNeverCrossesRequests(t *testing.T) {
	const callers, rounds = 8, 3
	const wait = 30 * time.Millisecond
	var sizing atomic.Int32
	size := func(c caller) int {
		sizing.Add(1)
		defer sizing.Add(-1)
		for deadline := time.Now().Add(wait); sizing.Load() < callers && time.Now().Before(deadline); {
			runtime.Gosched()
		}
		return 64
	}
	var served sync.Map   // id → times served
	var none atomic.Int32 // calls served the zero request (one cleared after another caller's call)
	serve := func(c caller) error {
		if c.ans == nil {
			none.Add(1)
			return nil
		}
		n, _ := served.LoadOrStore(c.id, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		*c.ans = c.id
		return nil
	}
	r, err := dispatch.NewRoute([]dispatch.RouteSide[caller]{
		{Name: "cpu", Serve: serve, Model: dispatch.Linear(1e-6, 1e-9)},
		{Name: "gpu", Serve: serve, Model: dispatch.Linear(2e-6, 1e-9)},
	}, size, dispatch.Profile{}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		var wg sync.WaitGroup
		bad := make(chan string, callers)
		for w := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, ans := round*callers+w, -1
				if _, err := r.Do(caller{id: id, ans: &ans}); err != nil {
					bad <- fmt.Sprintf("caller %d: %v", id, err)
				} else if ans != id {
					bad <- fmt.Sprintf("caller %d: answer %d, want its own (another caller's request served)", id, ans)
				}
			}()
		}
		wg.Wait()
		close(bad)
		for s := range bad {
			t.Error(s)
		}
	}
	if n := none.Load(); n > 0 {
		t.Errorf("%d calls served no request at all (one another caller's call had cleared)", n)
	}
	for id := range callers * rounds {
		n, ok := served.Load(id)
		if !ok || n.(*atomic.Int32).Load() != 1 {
			got := 0
			if ok {
				got = int(n.(*atomic.Int32).Load())
			}
			t.Errorf("request %d served %d times, want once", id, got)
		}
	}
}
