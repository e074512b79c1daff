package dispatch_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// A dispatcher that runs for ten million calls with one side failing on
// every call, and then two hundred thousand more with both failing, holds a bounded
// switch history: the heap after is within a megabyte of the heap after
// the first hundred thousand calls.
func TestTenMillionCallsFlatMemory(t *testing.T) {
	calls := 10_000_000
	if testing.Short() {
		calls = 1_000_000
	}
	errDown := errors.New("device lost")
	failA, failB := false, true
	a := dispatch.Func(func(n int) (time.Duration, error) {
		if failA {
			return time.Microsecond, errDown
		}
		return time.Duration(300 + 40*n), nil
	})
	b := dispatch.Func(func(n int) (time.Duration, error) {
		if failB {
			return time.Microsecond, errDown
		}
		return time.Duration(600 + 22*n), nil
	})
	d, err := new2(a, b, [2]string{"A", "B"}, dispatch.Linear(300e-9, 40e-9), dispatch.Linear(600e-9, 22e-9), 17, dispatch.Config{History: 256})
	if err != nil {
		t.Fatal(err)
	}
	run := func(from, to int) {
		for i := from; i < to; i++ {
			d.Do(1 + i%300)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	run(0, 100_000)
	before := heap()
	run(100_000, calls)
	failA = true
	run(calls, calls+calls/50)
	after := heap()
	t.Logf("heap %d B after 100k calls, %d B after %d; %d switches counted, %d kept", before, after, calls+calls/50, d.SwitchCounts().Total, len(d.Switches()))
	if after > before+1<<20 {
		t.Errorf("heap grew from %d to %d bytes over %d calls", before, after, calls+calls/50)
	}
	if len(d.Switches()) > 256 || d.SwitchCounts().Total <= 256 {
		t.Errorf("%d switches kept, %d counted: want at most 256 kept of more", len(d.Switches()), d.SwitchCounts().Total)
	}
	if d.Lost() < calls/50 {
		t.Errorf("%d calls lost with both sides failing for %d, want all", d.Lost(), calls/50)
	}
}
