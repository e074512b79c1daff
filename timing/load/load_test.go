package load

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestBetween: other work is the busy ticks less this process's own, in
// CPUs over the span; steal is its share of all ticks.
func TestBetween(t *testing.T) {
	a := counters{busy: 1000, steal: 10, total: 5000}
	// 2 CPUs, 100 ticks each over the span: 200 ticks in all, of which
	// 150 busy (60 ours) and 20 stolen.
	b := counters{busy: 1150, steal: 30, total: 5200}
	l := between(a, b, 60, 2, time.Second)
	if l == nil || l.Other != 0.9 || l.Steal != 0.1 || l.CPUs != 2 {
		t.Fatalf("load %+v, want other 0.9 CPUs, steal 0.1", l)
	}
	if !l.Busy() {
		t.Errorf("%v: not busy (steal 10%%)", l)
	}
	if l := between(a, counters{busy: 1080, total: 5200, steal: 10}, 60, 2, time.Second); l.Busy() {
		t.Errorf("%v busy: other 0.2 of 2 CPUs", l)
	}
	if l := between(a, a, 0, 2, time.Second); l != nil {
		t.Errorf("no ticks elapsed: %+v, want unknown", l)
	}
	if l := between(b, a, 0, 2, time.Second); l != nil {
		t.Errorf("counters backwards: %+v, want unknown", l)
	}
}

// TestBusyRule: half a CPU and a quarter of the host, or 10% steal.
func TestBusyRule(t *testing.T) {
	for _, c := range []struct {
		l    Load
		busy bool
	}{
		{Load{Other: 0.49, CPUs: 2}, false},
		{Load{Other: 0.5, CPUs: 2}, true},
		{Load{Other: 1.9, CPUs: 16}, false},
		{Load{Other: 4, CPUs: 16}, true},
		{Load{Other: 0, Steal: 0.1, CPUs: 2}, true},
	} {
		if got := c.l.Busy(); got != c.busy {
			t.Errorf("%v: busy %v, want %v", c.l.String(), got, c.busy)
		}
	}
	var unknown *Load
	if unknown.Busy() || unknown.String() != "load unknown" {
		t.Errorf("nil load: busy %v, %q", unknown.Busy(), unknown.String())
	}
}

// TestSinceSeesAnotherProcess: a busy loop in another process shows as
// other work; this process's own spinning does not count as other.
func TestSinceSeesAnotherProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the load is read from /proc (Linux only)")
	}
	if l := Start().Since(); l != nil {
		t.Errorf("a span shorter than MinSpan: %+v, want unknown", l)
	}
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no shell to run a busy loop: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(50 * time.Millisecond)
	m := Start()
	time.Sleep(400 * time.Millisecond)
	l := m.Since()
	if l == nil {
		t.Fatal("load unknown on Linux over 400 ms")
	}
	// The loop runs on a CPU of its own or shares one with other work:
	// either way at least half a CPU is busy with something else.
	if l.Other < 0.5 {
		t.Errorf("a busy loop beside: %v, want other ≥ 0.5 CPUs", l)
	}
}
