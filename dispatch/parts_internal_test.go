package dispatch

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func testEstimator(t *testing.T) *estimator {
	t.Helper()
	cfg, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return newEstimator(2, []Model{Linear(1e-6, 0), Linear(2e-6, 0)}, cfg)
}

// A bucket's own estimate replaces the side's prior only after MinCalls
// calls there (calls off the profile by less than ShockRatio, which leave
// the prior at the profile).
func TestBucketTrustedAfterMinCalls(t *testing.T) {
	e := testEstimator(t)
	b := e.bucket(3)
	for i := range e.minCalls {
		if b.q[0] != 1 {
			t.Fatalf("after %d calls faster than the profile: estimate %v, want the prior 1", i, b.q[0])
		}
		e.add(0, 3, 0.75)
	}
	if q := dec(enc(0.75)); b.q[0] != q || !e.trusted(b, 0) {
		t.Errorf("after %d calls: estimate %v (trusted %v), want %v", e.minCalls, b.q[0], e.trusted(b, 0), q)
	}
}

// Once trusted, a single call far outside the estimate does not enter it;
// two in a row the same way do.
func TestOutlierHeldOutOfTrustedEstimate(t *testing.T) {
	e := testEstimator(t)
	b := e.bucket(3)
	for range 12 {
		e.add(0, 3, 1)
	}
	n := b.obs[0].n
	e.add(0, 3, 5) // one preempted call
	if b.obs[0].n != n || b.q[0] != 1 {
		t.Fatalf("one call at 5×: %d values, estimate %v; want it held out", b.obs[0].n, b.q[0])
	}
	e.add(0, 3, 1)
	if b.obs[0].n != n+1 || b.obs[0].s[b.obs[0].n-1] != enc(1) {
		t.Fatalf("the call after the outlier: the held value entered the ring")
	}
	e.add(0, 3, 5)
	e.add(0, 3, 5) // a second one in a row: both enter
	if got := b.obs[0].s[b.obs[0].n-1]; dec(got) < 4.9 || b.obs[0].n != min(ringSize, n+3) {
		t.Errorf("two calls at 5× in a row: largest value %v, %d values; want both in", dec(got), b.obs[0].n)
	}
}

// The retrier's time-out starts at RetryAfter, doubles with each failure
// in a row up to 64 times the first, and resets when the side answers.
func TestRetrierBackOff(t *testing.T) {
	r := newRetrier(2, 10)
	call := 0
	for i, want := range []int{10, 20, 40, 80, 160, 320, 640, 640} {
		if w := r.fail(1, call, errors.New("x")); w != want {
			t.Fatalf("failure %d: wait %d, want %d", i+1, w, want)
		}
		if !r.avoid(1, call+want-1) || r.avoid(1, call+want) || !r.due(1, call+want) {
			t.Fatalf("failure %d: avoided/due wrong around call %d", i+1, call+want)
		}
		call += want
	}
	if !r.answered(1) || r.any() || r.avoid(1, call) {
		t.Error("answered: the side should be healthy again")
	}
	if w := r.fail(1, call, errors.New("x")); w != 10 {
		t.Errorf("first failure after answering: wait %d, want 10", w)
	}
}

// The history keeps the latest switches, oldest first, and counts all.
func TestHistoryBounded(t *testing.T) {
	h := newHistory(4)
	for i := range 10 {
		h.add(switchKind(i%3), Switch{Call: i, Reason: fmt.Sprint(i)})
	}
	l := h.list()
	if len(l) != 4 || l[0].Call != 6 || l[3].Call != 9 {
		t.Errorf("kept %+v, want calls 6-9", l)
	}
	if c := h.counts; c.Total != 10 || c.Moves != 4 || c.Failures != 3 || c.Returns != 3 {
		t.Errorf("counts %+v", c)
	}
}

// The ordinary probes' gap doubles after probeSteady confirmations and
// again after twice as many; the recovery gap grows with the slow-down's
// length up to maxRecoveryGap, and is short while a recovery is suspected.
func TestProberGaps(t *testing.T) {
	cfg, _ := Config{}.withDefaults()
	p := newProber(2, cfg)
	for i, want := range map[int]int{0: 32, probeSteady: 64, 2 * probeSteady: 128, 10 * probeSteady: 128} {
		p.ok = i
		if g := p.gap(); g != want {
			t.Errorf("%d confirmations: gap %d, want %d", i, g, want)
		}
	}
	p.foundSlower(1, 1000, 0)
	for _, c := range []struct{ calls, want int }{{1000, 2}, {1000 + 64*10, 10}, {1000 + 64*1000, maxRecoveryGap}} {
		if g := p.recoveryGap(1, c.calls, false); g != c.want {
			t.Errorf("%d calls into the slow-down: recovery gap %d, want %d", c.calls-1000, g, c.want)
		}
	}
	if g := p.recoveryGap(1, 1000+64*1000, true); g != 2 {
		t.Errorf("suspected recovery: gap %d, want 2", g)
	}
}

// A probe is charged its time over the replaced side's estimate, counting
// the call at most tailClip times its own estimate, and a wake-up up to
// the side's median wake-up.
func TestProbeChargeCapped(t *testing.T) {
	cfg, _ := Config{}.withDefaults()
	p := newProber(2, cfg)
	p.charge(1, 1e-3, 1e-6, 0.5e-6, false, false) // a long stall
	if want := tailClip*1e-6 - 0.5e-6; math.Abs(p.x-want) > 1e-12 {
		t.Errorf("charged %v, want %v (tailClip times the estimate, less the other side's)", p.x, want)
	}
	p.x = 0
	p.charge(1, 3e-6, 1e-6, 0.5e-6, false, false)
	if want := 2.5e-6; math.Abs(p.x-want) > 1e-12 {
		t.Errorf("charged %v, want %v (in full)", p.x, want)
	}
	p.x = 0
	p.charge(1, 1.5e-6, 1e-6, 0.5e-6, false, true) // a recovery probe
	if p.x != 0 || math.Abs(p.recX[1]-1e-6) > 1e-12 {
		t.Errorf("recovery probe: ordinary %v, recovery %v; want 0 and 1e-6", p.x, p.recX[1])
	}
	for range 5 {
		p.charge(0, 40e-6, 1e-6, 0, true, false) // wake-ups of 40 times the estimate
	}
	p.x = 0
	p.charge(0, 40e-6, 1e-6, 0, true, false)
	if math.Abs(p.x-40e-6) > 1e-9 {
		t.Errorf("a wake-up like the side's others: charged %v, want it in full (4e-5)", p.x)
	}
}
