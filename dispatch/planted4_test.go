package dispatch_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// A side's queue drain adds to its transfer time, never replaces it: B
// (20µs + 10ns/item, shipping 64 bytes an item at 1 GB/s: 74ns/item)
// with 40µs of queue finishes at n = 2000 after A (2µs + 100ns/item)
// only when both are counted (208µs against 202µs); either alone would
// leave B first.
func TestQueueDrainAddsToTransfer(t *testing.T) {
	a, b := pair(41)
	a.noise, b.noise = 0, 0
	drain := time.Duration(0)
	sides := []dispatch.Side{{Name: "A", Exec: a, Model: a.model()},
		{Name: "B", Exec: b, Model: b.model(), Queue: func() time.Duration { return drain },
			Bytes: func(n int) (float64, float64) { return 32 * float64(n), 32 * float64(n) }, UploadRate: 1e9, ReadbackRate: 1e9}}
	d, err := dispatch.New(sides, dispatch.Profile{}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Choose(2000); got != 1 {
		t.Fatalf("set-up: n=2000, transfer only (168µs vs 202µs) → %d, want B", got)
	}
	drain = 40 * time.Microsecond
	if got := d.Choose(2000); got != 0 {
		t.Errorf("n=2000, 40µs of queue on top of 148µs of transfer → %d, want A (B finishes at 208µs, A at 202µs)", got)
	}
	// The queue alone, with no transfer, leaves B first (80µs).
	sides[1].Bytes = nil
	if d, err = dispatch.New(sides, dispatch.Profile{}, dispatch.Config{}); err != nil {
		t.Fatal(err)
	}
	if got := d.Choose(2000); got != 1 {
		t.Errorf("n=2000, queue only → %d, want B", got)
	}
}

// A slow-down is declared once all but two of a side's last nine calls ran
// slower (TestWindowCountsNineCalls counts the window itself): from a
// steady state, B ten times slower keeps the routing for at least its
// first six slow calls, and loses it by the ninth.
func TestSlowDownDeclaredAfterSevenOfNine(t *testing.T) {
	a, b := pair(43)
	a.noise, b.noise = 0, 0
	d := newD(t, a, b)
	const n = 5000 // B: 70µs, A: 502µs; B slowed 10×: 700µs
	for range 200 {
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
	}
	if d.Choose(n) != 1 {
		t.Fatalf("set-up: n=%d → %d, want B", n, d.Choose(n))
	}
	b.factor = 10
	slowCalls := 0
	for i := range 40 {
		before := b.calls
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
		if b.calls > before {
			slowCalls++
		}
		if d.Choose(n) == 0 {
			if slowCalls < 7 || slowCalls > 9 {
				t.Errorf("routing moved to A after %d slow calls of B (call %d), want 7 to 9 (all but two of the last nine)", slowCalls, i)
			}
			return
		}
	}
	t.Errorf("B 10× slower for 40 calls: still routed to it after %d of them", slowCalls)
}

// A failed side is retried after its time-out whether or not it is the
// faster side: here A, slower at n = 5000, fails when it is probed; once
// its time-out is over it is probed again, and once it works again it
// takes the sizes where it is faster.
func TestFailedSlowerSideRetried(t *testing.T) {
	a, b := pair(47)
	a.fail = true
	d := newDC(t, a, b, dispatch.Config{RetryAfter: 50})
	var at []int
	for i := range 3000 {
		before := a.calls
		o, err := d.Do(5000)
		if err != nil {
			t.Fatalf("call %d lost: %v", i, err)
		}
		if o.Side != 1 {
			t.Fatalf("call %d answered by A, which fails", i)
		}
		if a.calls > before {
			at = append(at, i)
		}
	}
	// Retried as soon as each time-out is over: 50 calls, then 100 (the
	// back-off doubles), as the faster side is (TestRetryBackOffDoubles).
	if len(at) < 3 {
		t.Fatalf("A called at %v: a failed slower side is not tried again after its time-outs", at)
	}
	for i, want := range []int{50, 100} {
		if gap := at[i+1] - at[i]; gap < want || gap > want+2 {
			t.Errorf("A failed at call %d and was tried again at %d: want %d calls later (its time-out)", at[i], at[i+1], want)
		}
	}
	// A works again: small calls, where it is faster, go back to it.
	a.fail = false
	r := rand.New(rand.NewPCG(47, 3))
	for range 3000 {
		if _, err := d.Do(1 + r.IntN(50)); err != nil {
			t.Fatal(err)
		}
	}
	if d.Choose(20) != 0 {
		t.Errorf("A working again: n=20 → %d, want A", d.Choose(20))
	}
}
