package dispatch_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// trio: A has the lowest overhead and the highest cost per item, C the
// opposite, B in between: A is fastest below 100 items, B from 100 to
// 10,000, C above.
func trio(seed uint64) [3]*sim {
	r := rand.New(rand.NewPCG(seed, 7))
	return [3]*sim{
		{a: 1e-6, b: 100e-9, noise: 0.05, r: r},
		{a: 10e-6, b: 10e-9, noise: 0.05, r: r},
		{a: 100e-6, b: 1e-9, noise: 0.05, r: r},
	}
}

func newTrio(t *testing.T, s [3]*sim, cfg dispatch.Config) *dispatch.Dispatcher {
	t.Helper()
	var sides []dispatch.Side
	for i, x := range s {
		sides = append(sides, dispatch.Side{Name: string(rune('A' + i)), Exec: x, Model: x.model()})
	}
	d, err := dispatch.New(sides, dispatch.Profile{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// bestOf is the lowest time of the three sides (unslowed) at n.
func bestOf(s [3]*sim, n int) float64 {
	best := math.Inf(1)
	for _, x := range s {
		best = math.Min(best, x.a+x.b*float64(n))
	}
	return best
}

// Three sides: each size goes to the side fastest there, and the total
// stays near that of the fastest side per call.
func TestThreeSidesRoutesToTheFastest(t *testing.T) {
	s := trio(1)
	d := newTrio(t, s, dispatch.Config{})
	var total, best float64
	for _, n := range sizes(11, 5000) {
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		best += bestOf(s, n)
	}
	if total > 1.05*best {
		t.Errorf("total %.4gs, the fastest side per call %.4gs", total, best)
	}
	for _, c := range []struct{ n, want int }{{10, 0}, {50, 0}, {300, 1}, {5000, 1}, {15000, 2}, {19000, 2}} {
		if got := d.Choose(c.n); got != c.want {
			t.Errorf("n=%d → side %d, want %d", c.n, got, c.want)
		}
	}
	if sh := d.Share(); len(sh) != 3 || sh[0] == 0 || sh[1] == 0 || sh[2] == 0 {
		t.Errorf("shares %v: every side should answer some calls", sh)
	}
}

// Three sides, the middle one slowed five times: its sizes move to the other two
// within 50 calls and come back within 50 calls of its recovery; the
// other sides' sizes stay where they were.
func TestThreeSidesSlowdownAndRecovery(t *testing.T) {
	s := trio(2)
	d := newTrio(t, s, dispatch.Config{})
	moved, back := -1, -1
	for i, n := range sizes(12, 6000) {
		switch i {
		case 2000:
			s[1].factor = 5
		case 4000:
			s[1].factor = 1
		}
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
		if i >= 2000 && i < 4000 && moved < 0 && d.Choose(400) != 1 {
			moved = i - 2000
		}
		if i >= 4000 && back < 0 && d.Choose(400) == 1 {
			back = i - 4000
		}
		if i == 3999 && (d.Choose(10) != 0 || d.Choose(15000) != 2) {
			t.Errorf("B slowed: n=10 → %d, n=15000 → %d; want A and C as before", d.Choose(10), d.Choose(15000))
		}
	}
	if moved < 0 || moved > 50 || back < 0 || back > 50 {
		t.Errorf("B slowed 5×: n=400 moved off it %d calls after, back %d calls after its recovery (want ≤ 50 each)", moved, back)
	}
}

// Three sides, the one serving large sizes failing for a while: no
// request is lost, each falls back to the next best side, and the failed
// side is used again once it answers.
func TestThreeSidesFailureFallsBack(t *testing.T) {
	s := trio(3)
	d := newTrio(t, s, dispatch.Config{RetryAfter: 20})
	for i, n := range sizes(13, 3000) {
		s[2].fail = i >= 1000 && i < 1500
		o, err := d.Do(n)
		if err != nil {
			t.Fatalf("request %d lost: %v", i, err)
		}
		if o.Failed >= 0 && (o.Failed != 2 || o.Side == 2) {
			t.Errorf("request %d: failed %d, answered by %d", i, o.Failed, o.Side)
		}
	}
	if d.Choose(15000) != 2 {
		t.Error("C not used again after it came back")
	}
	if c := d.SwitchCounts(); c.Failures == 0 || c.Returns == 0 {
		t.Errorf("switch counts %+v: want failures and a return", c)
	}
	for _, x := range s {
		x.fail = true
	}
	if _, err := d.Do(100); err == nil {
		t.Error("every side failing: no error")
	}
}

// One side: every call goes to it, none is a probe.
func TestOneSide(t *testing.T) {
	a, _ := pair(1)
	d, err := dispatch.New([]dispatch.Side{{Name: "A", Exec: a, Model: a.model()}}, dispatch.Profile{Crossover: 50}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes(14, 500) {
		o, err := d.Do(n)
		if err != nil || o.Side != 0 || o.Probe {
			t.Fatalf("n=%d: %+v, %v", n, o, err)
		}
	}
}

// The earliest finish decides: a side whose queue needs time to drain, or
// whose data must be shipped, loses the sizes where its own time plus
// that is later than another side's finish.
func TestEarliestFinishCountsQueueAndTransfer(t *testing.T) {
	a, b := pair(5) // crossover at 200 items
	drain := time.Duration(0)
	sides := func() []dispatch.Side {
		return []dispatch.Side{{Name: "A", Exec: a, Model: a.model()}, {Name: "B", Exec: b, Model: b.model(), Queue: func() time.Duration { return drain }}}
	}
	d, err := dispatch.New(sides(), dispatch.Profile{}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Choose(400) != 1 {
		t.Fatalf("n=400 with B's queue empty → %d, want B", d.Choose(400))
	}
	drain = 50 * time.Microsecond // later than A's finish at n=400
	if d.Choose(400) != 0 || d.Choose(5000) != 1 {
		t.Errorf("B's queue draining: n=400 → %d (want A), n=5000 → %d (want B)", d.Choose(400), d.Choose(5000))
	}
	drain = 0
	// B must ship 32 bytes per item each way at 1 GB/s, which moves the
	// crossover from 200 to about 700 items.
	sh := sides()
	sh[1].Bytes = func(n int) (float64, float64) { return 32 * float64(n), 32 * float64(n) }
	sh[1].UploadRate, sh[1].ReadbackRate = 1e9, 1e9
	if d, err = dispatch.New(sh, dispatch.Profile{}, dispatch.Config{}); err != nil {
		t.Fatal(err)
	}
	if d.Choose(500) != 0 || d.Choose(1000) != 1 {
		t.Errorf("B shipping its data: n=500 → %d (want A), n=1000 → %d (want B)", d.Choose(500), d.Choose(1000))
	}
}

// tailSim runs like sim but a share p of its calls take f times as long
// (a worker that waits for a core).
type tailSim struct {
	*sim
	p, f float64
}

func (s *tailSim) Run(n int) (time.Duration, error) {
	t, err := s.sim.Run(n)
	if s.r.Float64() < s.p {
		t = time.Duration(float64(t) * s.f)
	}
	return t, err
}

// A side faster on its median call but with a heavy tail (three calls in
// ten take four times as long) is slower on the mean, which is what a
// stream's total adds up: the dispatcher learns the tail and keeps to the
// other side.
func TestHeavyTailedSideLoses(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 1))
	a := &sim{a: 1e-6, b: 10e-9, noise: 0.05, r: r}
	b := &tailSim{sim: &sim{a: 0.8e-6, b: 8e-9, noise: 0.05, r: r}, p: 0.3, f: 4}
	d, err := new2(a, b, [2]string{"A", "B"}, a.model(), b.model(), 0, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var total, aOnly float64
	for i, n := range sizes(31, 8000) {
		n = 1 + n%100
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		if i >= 1000 {
			total += o.Took.Seconds()
			aOnly += 1e-6 + 10e-9*float64(n)
		}
	}
	if total > 1.05*aOnly || d.Choose(50) != 0 {
		t.Errorf("total %.3f× A alone's after the first 1000 calls, n=50 → %d: B's tail not counted", total/aOnly, d.Choose(50))
	}
}
