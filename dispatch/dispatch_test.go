package dispatch_test

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// sim is a simulated executor: a + b·n seconds, times a factor, with
// relative noise; it fails while fail is set.
type sim struct {
	a, b   float64
	factor float64
	noise  float64
	r      *rand.Rand
	fail   bool
	calls  int
	spike  float64 // probability of a 100× call (a preempted call)
}

func (s *sim) Run(n int) (time.Duration, error) {
	s.calls++
	if s.fail {
		return 10 * time.Microsecond, errors.New("device lost")
	}
	f := s.factor
	if f == 0 {
		f = 1
	}
	t := (s.a + s.b*float64(n)) * f * (1 + s.noise*(2*s.r.Float64()-1))
	if s.spike > 0 && s.r.Float64() < s.spike {
		t *= 100
	}
	return time.Duration(t * 1e9), nil
}

func (s *sim) model() dispatch.Model { return dispatch.Linear(s.a, s.b) }

// pair: A has low overhead and high per-item cost, B the opposite;
// crossover at (20−2)/(0.1−0.01) µs = 200 items.
func pair(seed uint64) (*sim, *sim) {
	r := rand.New(rand.NewPCG(seed, 1))
	return &sim{a: 2e-6, b: 100e-9, noise: 0.05, r: r}, &sim{a: 20e-6, b: 10e-9, noise: 0.05, r: r}
}

func sizes(seed uint64, count int) []int {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]int, count)
	for i := range out {
		out[i] = int(math.Exp(r.Float64() * math.Log(20000)))
	}
	return out
}

// logSize draws a size log-uniform over [1, 300].
func logSize(r *rand.Rand) int { return int(math.Round(math.Exp(r.Float64() * math.Log(300)))) }

// modeled is a simulated side with the model it is profiled by.
type modeled interface {
	dispatch.Executor
	model() dispatch.Model
}

// newD returns a dispatcher over a and b profiled by their models, with
// the default configuration.
func newD(t *testing.T, a, b modeled) *dispatch.Dispatcher {
	t.Helper()
	d, err := dispatch.New(a, b, [2]string{"A", "B"}, dispatch.Profile{Models: [2]dispatch.Model{a.model(), b.model()}}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRoutesByProfile(t *testing.T) {
	a, b := pair(1)
	d := newD(t, a, b)
	var total, best float64
	for _, n := range sizes(1, 3000) {
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		best += math.Min(2e-6+100e-9*float64(n), 20e-6+10e-9*float64(n))
	}
	if total > 1.05*best {
		t.Errorf("total %.4gs, the better side per call would take %.4gs", total, best)
	}
	if d.Choose(10) != 0 || d.Choose(5000) != 1 {
		t.Errorf("n=10 → %d, n=5000 → %d", d.Choose(10), d.Choose(5000))
	}
	// Hysteresis: noise alone never flaps a bucket.
	if sw := d.Switches(); len(sw) > 0 {
		t.Errorf("switches without a cause: %+v", sw)
	}
}

func TestSwitchesOnSlowdownAndRecovers(t *testing.T) {
	a, b := pair(2)
	d := newD(t, a, b)
	ns := sizes(2, 3000)
	slowFrom, slowTo := 1000, 2000
	moved, back := -1, -1
	for i, n := range ns {
		if i == slowFrom {
			b.factor = 3
		}
		if i == slowTo {
			b.factor = 1
		}
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
		// Large calls: B is 10× cheaper per item normally; slowed 3× it
		// loses to A between 200·… and ~2,000 items; check at n = 1000.
		if i >= slowFrom && i < slowTo && moved < 0 && d.Choose(500) == 0 {
			moved = i - slowFrom
		}
		if i >= slowTo && back < 0 && d.Choose(500) == 1 {
			back = i - slowTo
		}
	}
	t.Logf("moved after %d requests, back after %d", moved, back)
	if moved < 0 || moved > 50 {
		t.Errorf("moved %d requests after the slowdown (want ≤ 50)", moved)
	}
	if back < 0 || back > 50 {
		t.Errorf("moved back %d requests after the recovery (want ≤ 50)", back)
	}
	if len(d.Switches()) == 0 {
		t.Error("no switch recorded")
	}
}

func TestHysteresisNoFlapping(t *testing.T) {
	// Two sides equal within 5%: never switch back and forth.
	r := rand.New(rand.NewPCG(3, 3))
	a := &sim{a: 1e-6, b: 10e-9, noise: 0.1, r: r}
	b := &sim{a: 1e-6, b: 10.4e-9, noise: 0.1, r: r}
	d := newD(t, a, b)
	for _, n := range sizes(3, 5000) {
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
	}
	if sw := d.Switches(); len(sw) > 4 {
		t.Errorf("%d switches between sides within 5%% of each other: flapping", len(sw))
	}
}

func TestFallbackLosesNoRequest(t *testing.T) {
	a, b := pair(4)
	d := newD(t, a, b)
	answered, errs := 0, 0
	for i, n := range sizes(4, 2000) {
		b.fail = i >= 500 && i < 1200
		o, err := d.Do(n)
		if err != nil {
			t.Fatalf("request %d lost: %v", i, err)
		}
		answered++
		if o.Failed >= 0 {
			errs++
			if o.Side != 0 || o.Failed != 1 {
				t.Errorf("request %d: fell back to side %d, failed %d", i, o.Side, o.Failed)
			}
			if err := d.LastError(o.Failed); err == nil || err.Error() != "device lost" {
				t.Errorf("request %d: LastError(%d) = %v, want the executor's error", i, o.Failed, err)
			}
		}
	}
	if answered != 2000 || errs == 0 {
		t.Errorf("answered %d, reported errors %d", answered, errs)
	}
	// B was retried and came back after the failure window.
	if d.Choose(10000) != 1 {
		t.Error("B not used again after it recovered")
	}
	// Both failing: the error is returned, not hidden.
	a.fail, b.fail = true, true
	if _, err := d.Do(100); !errors.Is(err, dispatch.ErrBothFailed) {
		t.Errorf("both failing: %v", err)
	}
}

func TestProbesBounded(t *testing.T) {
	// B is 20× slower everywhere: probes must cost ≤ ~3% of the time.
	r := rand.New(rand.NewPCG(5, 5))
	a := &sim{a: 1e-6, b: 10e-9, r: r}
	b := &sim{a: 20e-6, b: 200e-9, r: r}
	d := newD(t, a, b)
	var total, aOnly float64
	for _, n := range sizes(5, 5000) {
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		aOnly += 1e-6 + 10e-9*float64(n)
	}
	if total > 1.05*aOnly {
		t.Errorf("total %.4g vs A only %.4g: probing costs %.1f%%", total, aOnly, 100*(total/aOnly-1))
	}
	if sh := d.Share(); sh[1] == 0 {
		t.Error("B never probed")
	}
}

func TestOutliersDoNotFlap(t *testing.T) {
	// A shared machine: 5% of calls on either side take 100× (preempted).
	a, b := pair(6)
	a.spike, b.spike = 0.05, 0.05
	d := newD(t, a, b)
	wrong := 0
	for _, n := range sizes(6, 4000) {
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n < 20000; n = n*5/4 + 1 {
		want := 0
		if 20e-6+10e-9*float64(n) < 2e-6+100e-9*float64(n) {
			want = 1
		}
		if d.Choose(n) != want && (n < 150 || n > 270) {
			wrong++
		}
	}
	for _, s := range d.Switches()[:min(8, len(d.Switches()))] {
		t.Log(s)
	}
	if sw := len(d.Switches()); sw > 20 || wrong > 0 {
		t.Errorf("%d switches, %d sizes routed to the slower side", sw, wrong)
	}
}

// A measured crossover outranks fits that cross elsewhere: the routing
// follows the measurement from the first call.
func TestMeasuredCrossoverOutranksFits(t *testing.T) {
	a, b := pair(7) // the sides cross at 200
	// B's fitted overhead 38 µs instead of 20: the fits cross at 400.
	prof := dispatch.Profile{Models: [2]dispatch.Model{a.model(), dispatch.Linear(38e-6, b.b)}}
	d, err := dispatch.New(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Choose(300); got != 0 {
		t.Fatalf("fits alone: n=300 → side %d, want 0 (the fits cross at 400)", got)
	}
	prof.Crossover = 200
	if d, err = dispatch.New(a, b, [2]string{"A", "B"}, prof, dispatch.Config{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ n, want int }{{100, 0}, {180, 0}, {230, 1}, {300, 1}, {5000, 1}} {
		if got := d.Choose(c.n); got != c.want {
			t.Errorf("measured crossover 200: n=%d → side %d, want %d", c.n, got, c.want)
		}
	}
}

// wakeSim pays a wake-up on a call that follows more than after (default
// 2) calls of the other side (a parked worker thread, an idle GPU): 20×
// its time.
type wakeSim struct {
	*sim
	clock *int // calls of both sides so far
	last  int  // clock at this side's latest call
	after int
	// cool > 0: a call after a gap of 9 to after calls is this factor
	// slower (a worker that yielded its core, caches the other side used).
	cool float64
}

func (w *wakeSim) Run(n int) (time.Duration, error) {
	*w.clock++
	gap := *w.clock - w.last
	w.last = *w.clock
	t, err := w.sim.Run(n)
	switch {
	case gap > max(w.after, 2):
		t *= 20
	case w.cool > 0 && gap > 8:
		t = time.Duration(float64(t) * w.cool)
	}
	return t, err
}

// A side whose probes find it idle pays a wake-up it would not pay if it
// took the calls: the dispatcher still learns it is faster (a probe's
// next call, right after it, is the one that counts) and moves to it.
func TestWakeUpDoesNotHideTheFasterSide(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	clock := 0
	a := &wakeSim{sim: &sim{a: 1e-6, b: 100e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	b := &wakeSim{sim: &sim{a: 1e-6, b: 50e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	// The profile says B is 1.6× slower than A everywhere; warm, it is
	// 2× faster at these sizes.
	prof := dispatch.Profile{Models: [2]dispatch.Model{dispatch.Linear(1e-6, 100e-9), dispatch.Linear(1.6e-6, 160e-9)}}
	d, err := dispatch.New(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r2 := rand.New(rand.NewPCG(8, 9))
	var total, aOnly float64
	for i := 0; i < 4000; i++ {
		n := 400 + r2.IntN(400)
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		aOnly += 1e-6 + 100e-9*float64(n)
	}
	if d.Choose(600) != 1 {
		t.Errorf("still on A after 4000 calls; switches %+v", d.Switches())
	}
	if total > 0.7*aOnly {
		t.Errorf("total %.4gs, A alone %.4gs: B's speed not used", total, aOnly)
	}
}

// Either side slowed 3× and then back, on a stream like hybrid's (sizes
// log-uniform over [1, 300] around a crossover at 17, every call a few
// hundred ns to µs, so probes of the slowed side soon spend the probe
// budget): the dispatcher moves off it and back within 50 calls each way.
func TestRecoveryWithinFiftyCalls(t *testing.T) {
	for slowed := 0; slowed < 2; slowed++ {
		for seed := uint64(20); seed < 36; seed++ {
			r := rand.New(rand.NewPCG(seed, 1))
			clock := 0
			// A parked side wakes (20×) after 30 calls of the other.
			sides := [2]*wakeSim{
				{sim: &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r, spike: 0.01}, clock: &clock, last: -100, after: 30, cool: 1.7},
				{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r, spike: 0.01}, clock: &clock, last: -100, after: 30, cool: 1.7},
			}
			prof := dispatch.Profile{Models: [2]dispatch.Model{sides[0].model(), sides[1].model()}, Crossover: 17}
			d, err := dispatch.New(sides[0], sides[1], [2]string{"A", "B"}, prof, dispatch.Config{})
			if err != nil {
				t.Fatal(err)
			}
			// The size whose side the slowed one is: A below 17, B above.
			probe := map[int]int{0: 4, 1: 150}[slowed]
			rs := rand.New(rand.NewPCG(seed, 2))
			moved, back := -1, -1
			for i := 0; i < 3000; i++ {
				switch i {
				case 1000:
					sides[slowed].factor = 3
				case 2000:
					sides[slowed].factor = 1
				}
				n := logSize(rs)
				if _, err := d.Do(n); err != nil {
					t.Fatal(err)
				}
				if i == 999 && d.Choose(probe) != slowed {
					t.Fatalf("slowed %d seed %d: before the slow-down n=%d goes to %d: %v", slowed, seed, probe, d.Choose(probe), d.Switches())
				}
				if i >= 1000 && i < 2000 && moved < 0 && d.Choose(probe) != slowed {
					moved = i - 1000
				}
				if i >= 2000 && back < 0 && d.Choose(probe) == slowed {
					back = i - 2000
				}
			}
			if moved < 0 || moved > 50 || back < 0 || back > 50 {
				t.Errorf("side %d slowed, seed %d: moved off %d calls after the slow-down began, back %d calls after it ended (want ≤ 50 each)", slowed, seed, moved, back)
			}
		}
	}
}

// BenchmarkDo is the dispatcher's own time per call, with two-segment
// fitted models as hybrid uses and executors that cost nothing (their
// times looked up, not evaluated); /evicted-768KB and /evicted stream
// 768 KB and 4 MB between calls, as a kernel does, so the dispatcher's
// state comes from L2, L3 or memory (ns-do/op: its time alone).
func BenchmarkDo(b *testing.B) {
	seg := func(a0, b0, a1, b1 float64) timing.Model {
		return timing.Model{Knee: 4096, Segments: []timing.Segment{
			{From: 1, To: 4096, Fit: timing.LinearFit{Overhead: a0, PerItem: b0}},
			{From: 4096, To: 65536, Origin: 4096, Fit: timing.LinearFit{Overhead: a1, PerItem: b1}}}}
	}
	ma, mb := seg(249e-9, 42e-9, 173e-6, 128e-9), seg(415e-9, 23.6e-9, 97e-6, 85.7e-9)
	r := rand.New(rand.NewPCG(1, 2))
	ns := make([]int, 4096)
	for i := range ns {
		ns[i] = int(math.Exp(r.Float64() * math.Log(300)))
	}
	for _, evict := range []int{0, 192 << 10, 1 << 20} {
		name := map[int]string{0: "warm", 192 << 10: "evicted-768KB", 1 << 20: "evicted"}[evict]
		b.Run(name, func(b *testing.B) {
			var ta, tb [300]time.Duration // ns are below 300
			for n := range ta {
				ta[n], tb[n] = time.Duration(ma.At(float64(n))*1e9), time.Duration(mb.At(float64(n))*1e9)
			}
			fa := dispatch.Func(func(n int) (time.Duration, error) { return ta[n], nil })
			fb := dispatch.Func(func(n int) (time.Duration, error) { return tb[n], nil })
			d, err := dispatch.New(fa, fb, [2]string{"A", "B"}, dispatch.Profile{Models: [2]dispatch.Model{ma.At, mb.At}, Crossover: 17}, dispatch.Config{})
			if err != nil {
				b.Fatal(err)
			}
			junk := make([]float32, evict)
			var sink float32
			var outside time.Duration
			for i := 0; b.Loop(); i++ {
				if evict > 0 {
					t0 := time.Now()
					for j := 0; j < len(junk); j += 16 {
						sink += junk[j]
					}
					outside += time.Since(t0)
				}
				if _, err := d.Do(ns[i%len(ns)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((b.Elapsed()-outside).Nanoseconds())/float64(b.N), "ns-do/op")
			_ = sink
		})
	}
}

// A side that fails is left alone for RetryAfter calls, even when it
// failed on the first call of a probe pair (whose second call would
// otherwise go to it at once).
func TestFailedSideNotCalledBeforeRetry(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	clock := 0
	// B idle (the profile sends every call to A), so its probes are pairs.
	a := &wakeSim{sim: &sim{a: 1e-6, b: 10e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	b := &wakeSim{sim: &sim{a: 2e-6, b: 20e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	d, err := dispatch.New(a, b, [2]string{"A", "B"}, dispatch.Profile{Models: [2]dispatch.Model{a.model(), b.model()}}, dispatch.Config{RetryAfter: 50})
	if err != nil {
		t.Fatal(err)
	}
	b.fail = true
	firstFail, callsAfter := -1, 0
	for i := 0; i < 400; i++ {
		before := b.calls
		o, err := d.Do(100)
		if err != nil {
			t.Fatal(err)
		}
		if b.calls > before && firstFail >= 0 && i < firstFail+50 {
			callsAfter++
		}
		if o.Failed == 1 && firstFail < 0 {
			firstFail = i
		}
	}
	if firstFail < 0 {
		t.Fatal("B never probed")
	}
	if callsAfter > 0 {
		t.Errorf("B failed at call %d and was called %d times in the next 50", firstFail, callsAfter)
	}
}

// A side slowed 3×, then 9×, that comes back only to 3× shows a recovery
// (its calls run 3× faster than the 9× estimates), which restores its
// estimates from before the slow-downs; its next calls, still 3× slower,
// show a new slow-down, and the routing leaves it again within 50 calls.
func TestPartialRecoveryCorrects(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 1))
	clock := 0
	sides := [2]*wakeSim{
		{sim: &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r}, clock: &clock, last: -100, after: 30},
		{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r}, clock: &clock, last: -100, after: 30},
	}
	d, err := dispatch.New(sides[0], sides[1], [2]string{"A", "B"}, dispatch.Profile{Models: [2]dispatch.Model{sides[0].model(), sides[1].model()}, Crossover: 17}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rs := rand.New(rand.NewPCG(10, 2))
	wrong := 0 // calls after the partial recovery's first 50 with n=4 routed to A
	for i := 0; i < 4000; i++ {
		switch i {
		case 1000:
			sides[0].factor = 3
		case 1500:
			sides[0].factor = 9
		case 2500:
			sides[0].factor = 3 // back from 9×, not to 1×: A still loses at n=4
		}
		n := logSize(rs)
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
		if i >= 2550 && d.Choose(4) == 0 {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("A at 3× its profile (B faster at n=4): n=4 routed to A at %d of the 1450 calls from 50 after it came back from 9×", wrong)
	}
}

// Two sides that do not change: once probes and sampled calls keep
// confirming the routing, the dispatcher probes less often than at the
// start (down to one in 4×ProbeEvery calls), and a slow-down that leaves
// the slowed side no calls brings the full rate back (the side is probed
// for its recovery).
func TestProbesBackOffWhileRoutingHolds(t *testing.T) {
	a, b := pair(5)
	d := newD(t, a, b)
	probes := func(ns []int) int {
		p := 0
		for _, n := range ns {
			o, err := d.Do(n)
			if err != nil {
				t.Fatal(err)
			}
			if o.Probe {
				p++
			}
		}
		return p
	}
	ns := sizes(5, 24000)
	first := probes(ns[:2000])
	later := probes(ns[2000:20000])
	// At the first 2000 calls' rate (one probe in about 50 calls), the
	// next 18,000 would hold about 340; at one in 4×ProbeEvery calls, 140.
	if first < 2000/64 || later > 200 {
		t.Errorf("probes: %d in the first 2000 calls, %d in the next 18000; want ≥ 31, then ≤ 200", first, later)
	}
	// Slowed 30×, B is slower than A at every size up to 20,000.
	b.factor = 30
	if slowed := probes(ns[20000:]); slowed < 2*later*4000/18000+10 {
		t.Errorf("probes: %d in 4000 calls with B slowed 30×, %d in the 18000 before; want the full rate back", slowed, later)
	}
	if got := d.Choose(10000); got != 0 {
		t.Errorf("n=10000 goes to side %d with B slowed 30×, want A", got)
	}
}

// A side found slower that the routing still gives calls (B slowed 3×
// keeps the sizes above 829) is not probed at the recovery rate: a
// recovery would show in its own calls, and a slow-down that lasts would
// otherwise cost up to RecoveryShare of the time for as long as it lasts.
// Its probes' extra time stays near ProbeShare's, and when it recovers its
// own calls bring the sizes between 200 and 829 back within 50 calls.
func TestSlowedSideThatServesIsNotWatched(t *testing.T) {
	a, b := pair(6)
	d := newD(t, a, b)
	ns := sizes(6, 22000)
	var total, extra float64
	for i, n := range ns {
		if i == 2000 {
			b.factor = 3
		}
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		if i >= 2000 {
			total += o.Took.Seconds()
			if o.Probe {
				extra += math.Max(0, o.Took.Seconds()-(2e-6+100e-9*float64(n)))
			}
		}
	}
	share := extra / total
	t.Logf("probes' extra time: %.2f%% of the time while B was slowed", 100*share)
	if share > 2*0.015 {
		t.Errorf("B slowed 3× for 20000 calls, still given the sizes above 829: its probes cost %.1f%% of the time (want ≤ 3%%: ProbeShare, not RecoveryShare)", 100*share)
	}
	b.factor = 1
	back := -1
	for i, n := range sizes(7, 200) {
		if _, err := d.Do(n); err != nil {
			t.Fatal(err)
		}
		if back < 0 && d.Choose(500) == 1 {
			back = i
		}
	}
	if back < 0 || back > 50 {
		t.Errorf("B back to its profile: n=500 routed to B after %d calls (want ≤ 50)", back)
	}
}

// A side slowed 3× that the routing still gives its smallest sizes keeps
// serving (no recovery probes); its recovery must show in its own calls,
// which take Do's full path while it is found slower (a probe may be
// due) and were observed there only when sampled, one in 16-64: back
// 64-100 calls after the slow-down ended in hybrid. After a long steady
// run (sampling at its lowest rate), the routing must be back within 50
// calls, and soon on average.
func TestSlowedSideServingSmallSizesRecovers(t *testing.T) {
	// B's overhead: 1.5 µs puts the crossover at n = 67 and leaves A
	// slowed 3× the sizes below 6 (a call in 3); 1.3 µs, at n = 56 and
	// n ≤ 4 (a call in 4).
	sum, count := 0, 0
	for _, ob := range []float64{1.5e-6, 1.3e-6} {
		for seed := uint64(40); seed < 56; seed++ {
			r := rand.New(rand.NewPCG(seed, 1))
			a := &sim{a: 0.3e-6, b: 40e-9, noise: 0.3, r: r, spike: 0.005}
			b := &sim{a: ob, b: 22e-9, noise: 0.05, r: r, spike: 0.005}
			d := newD(t, a, b)
			rs := rand.New(rand.NewPCG(seed, 2))
			const probe = 20 // A's, B's while A is slowed
			moved, back := -1, -1
			for i := 0; i < 9000; i++ {
				switch i {
				case 5000:
					a.factor = 3
				case 8000:
					a.factor = 1
				}
				n := logSize(rs)
				if _, err := d.Do(n); err != nil {
					t.Fatal(err)
				}
				if i == 4999 && (d.Choose(probe) != 0 || d.Choose(2) != 0) {
					t.Fatalf("B's overhead %v, seed %d: before the slow-down n=%d goes to %d, n=2 to %d", ob, seed, probe, d.Choose(probe), d.Choose(2))
				}
				if i >= 5000 && i < 8000 && moved < 0 && d.Choose(probe) != 0 {
					moved = i - 5000
				}
				if i == 7999 && d.Choose(2) != 0 {
					t.Fatalf("B's overhead %v, seed %d: A slowed 3× lost n=2 too (the test needs it serving)", ob, seed)
				}
				if i >= 8000 && back < 0 && d.Choose(probe) == 0 {
					back = i - 8000
				}
			}
			sum, count = sum+back, count+1
			if moved < 0 || moved > 50 || back < 0 || back > 50 {
				t.Errorf("B's overhead %v, seed %d: moved off %d calls after the slow-down began, back %d calls after it ended (want ≤ 50 each)", ob, seed, moved, back)
			}
		}
	}
	// A's calls vary by ±30%, so some of its first fast calls after the
	// slow-down fall short of ShockRatio and restart the count: probing
	// it once one ran fast (suspect) brought it back after 9 calls on
	// average, against 13 without.
	if mean := float64(sum) / float64(count); mean > 12 {
		t.Errorf("back %.1f calls after the slow-down ended on average (want ≤ 12)", mean)
	}
}

// A recovery can be gradual (contention fading): B slowed 2× for 300
// calls, then back to its speed over 500. No call runs 1.6× faster than
// its estimates, which follow B in the buckets it is probed in; without
// comparing B's calls with its estimates from before the slow-down, it
// stayed off n = 25 and 40 for hundreds of calls after, or for good (10
// of 16 seeds over 50 calls, 3 never within 2,200).
func TestGradualRecovery(t *testing.T) {
	for seed := uint64(60); seed < 76; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		a := &sim{a: 0.3e-6, b: 40e-9, noise: 0.1, r: r, spike: 0.005}
		b := &sim{a: 0.6e-6, b: 22e-9, noise: 0.1, r: r, spike: 0.005}
		d := newD(t, a, b)
		rs := rand.New(rand.NewPCG(seed, 2))
		moved, back := -1, -1
		for i := 0; i < 4400; i++ {
			switch {
			case i >= 3000 && i < 3300:
				b.factor = 2
			case i >= 3300 && i < 3800:
				b.factor = 2 - float64(i-3300)/500
			case i >= 3800:
				b.factor = 1
			}
			n := logSize(rs)
			if _, err := d.Do(n); err != nil {
				t.Fatal(err)
			}
			if i >= 3000 && moved < 0 && d.Choose(40) == 0 {
				moved = i - 3000
			}
			if i >= 3800 && back < 0 && d.Choose(40) == 1 && d.Choose(25) == 1 {
				back = i - 3800
			}
		}
		if moved < 0 || moved > 50 || back < 0 || back > 50 {
			t.Errorf("seed %d: B slowed 2× moved off n=40 %d calls after, back on n=25 and 40 %d calls after it was at its speed again (want ≤ 50 each)", seed, moved, back)
		}
	}
}

// A side running at the threshold where its last calls' median replaces
// its profile in the buckets it has few calls in (1/1.6 of the profile,
// here 0.625× it ±5%) must not flip those buckets back and forth: the
// prior has its own hysteresis.
func TestPriorDoesNotFlap(t *testing.T) {
	for seed := uint64(80); seed < 88; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		a := &sim{a: 0.3e-6, b: 40e-9, noise: 0.03, r: r}
		b := &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r, factor: 0.625}
		prof := dispatch.Profile{Models: [2]dispatch.Model{a.model(), dispatch.Linear(0.6e-6, 22e-9)}}
		d, err := dispatch.New(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
		if err != nil {
			t.Fatal(err)
		}
		rs := rand.New(rand.NewPCG(seed, 2))
		for range 500 {
			if _, err := d.Do(logSize(rs)); err != nil {
				t.Fatal(err)
			}
		}
		per := map[string]int{}
		for _, s := range d.Switches() {
			per[s.Bucket]++
		}
		for k, c := range per {
			if c > 2 {
				t.Errorf("seed %d: bucket %s switched %d times in 500 calls: %v", seed, k, c, d.Switches())
				break
			}
		}
	}
}

// coldSim runs its first cold calls of sizes ≥ from at factor× their time
// (data not yet in the caches), then as sim.
type coldSim struct {
	*sim
	from, cold int
	factor     float64
}

func (c *coldSim) Run(n int) (time.Duration, error) {
	t, err := c.sim.Run(n)
	if n >= c.from && c.cold > 0 {
		c.cold--
		t = time.Duration(float64(t) * c.factor)
	}
	return t, err
}

// coldPair: A threads=1-like, B threads=2-like (crossover near 17
// items), B's first 3 calls at sizes from `from` up 3× their time.
func coldPair(seed uint64, from int) (*sim, *coldSim) {
	r := rand.New(rand.NewPCG(seed, 1))
	return &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r}, &coldSim{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r}, from: from, cold: 3, factor: 3}
}

// A side whose first calls in a bucket of large sizes ran cold (3× its
// time) loses the bucket; probes, which go to requests cheap on the
// probed side, never went there while its estimate held the cold calls,
// and the bucket stayed on the slower side for the whole of a hybrid run
// (adaptive 1.24× the static threshold on per-request medians). A
// bucket where the probed side has made fewer than ringSize calls and,
// against its profile, is given no sizes comes first for probes (seed
// 93: back after 3,700 calls without, 500 with).
func TestColdStartCorrects(t *testing.T) {
	losses := 0
	for seed := uint64(90); seed < 106; seed++ {
		a, b := coldPair(seed, 64)
		d := newD(t, a, b)
		rs := rand.New(rand.NewPCG(seed, 2))
		lost, back := -1, -1
		for i := 0; i < 4000 && back < 0; i++ {
			if _, err := d.Do(logSize(rs)); err != nil {
				t.Fatal(err)
			}
			if lost < 0 && d.Choose(100) == 0 {
				lost = i
			}
			if lost >= 0 && d.Choose(100) == 1 {
				back = i
			}
		}
		if lost < 0 {
			continue // the cold calls did not lose it n=100
		}
		losses++
		if back < 0 || back-lost > 1500 {
			t.Errorf("seed %d: n=100 lost to A at call %d, back to B at %d (want within 1500 calls)", seed, lost, back)
		}
	}
	if losses < 4 {
		t.Errorf("B's cold calls lost it n=100 in %d of 16 seeds; the test needs at least 4", losses)
	}
}

// A side's first calls of a run, cold (3× its time, at any size), must
// not become the prior of every bucket it has not been called in yet:
// threads=2's first three in one hybrid run did, and every bucket went to
// threads=1 for 1,300 requests. A slower median becomes the prior only
// on as many calls as a shock needs.
func TestColdFirstCallsDoNotSetThePrior(t *testing.T) {
	for seed := uint64(100); seed < 108; seed++ {
		a, b := coldPair(seed, 1)
		d := newD(t, a, b)
		rs := rand.New(rand.NewPCG(seed, 2))
		for range 300 {
			if _, err := d.Do(logSize(rs)); err != nil {
				t.Fatal(err)
			}
		}
		for _, sw := range d.Switches() {
			if sw.From == "B" && strings.Contains(sw.Reason, "in any bucket ran") {
				t.Errorf("seed %d: B's first three calls, cold, became its prior: %+v", seed, sw)
			}
		}
	}
}

// A side that stays slower for a whole run (threads=2 on a busy host,
// 2-3× its estimates) is probed for its recovery less and less often:
// every other call at first, then one in (calls since it was found
// slower)/64, at most one in 256 calls. At RecoveryShare of the time for
// as long as it lasted, such probes took half of the calls and the
// adaptive total ran 1.86× the faster side's. It still moves back once
// the side recovers, within the probe gap and a few calls.
func TestLastingSlowDownProbedLess(t *testing.T) {
	for seed := uint64(40); seed < 44; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		a := &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r}
		b := &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r}
		d := newD(t, a, b)
		rs := rand.New(rand.NewPCG(seed, 2))
		const from, to, end = 1000, 29000, 30000
		var total, best float64
		onB, back := 0, -1
		for i := range end {
			switch i {
			case from:
				b.factor = 2.5
			case to:
				b.factor = 1
			}
			n := logSize(rs)
			o, err := d.Do(n)
			if err != nil {
				t.Fatal(err)
			}
			if i >= from+4000 && i < to {
				total += o.Took.Seconds()
				best += 0.3e-6 + 40e-9*float64(n)
				onB += o.Side
			}
			if i >= to && back < 0 && d.Choose(150) == 1 {
				back = i - to
			}
		}
		if share := float64(onB) / (to - from - 4000); share > 0.02 || total > 1.03*best {
			t.Errorf("seed %d: from 4000 calls into the slow-down on, %.1f%% of the calls on the slowed side, total %.3f× the other side's", seed, 100*share, total/best)
		}
		if back < 0 || back > 256+50 {
			t.Errorf("seed %d: back %d calls after the slow-down ended (want ≤ 306: the longest probe gap and a few calls)", seed, back)
		}
	}
}

// recorded reads a recorded hybrid stream (testdata): each request's size
// and both sides' own times of it, replay after replay.
func recorded(t *testing.T, name string) (ns []int, times [][2]time.Duration) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var n int
		var a, b int64
		if _, err := fmt.Sscan(line, &n, &a, &b); err != nil || n < 1 || a <= 0 || b <= 0 {
			t.Fatalf("%s: bad line %q (%v)", name, line, err)
		}
		ns = append(ns, n)
		times = append(times, [2]time.Duration{time.Duration(a), time.Duration(b)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ns, times
}

// Real times, replayed: both sides' own time of every request of 10
// replays of a hybrid run on a busy hour (testdata), each side answering
// the dispatcher with its recorded time of the request. threads=2 ran
// about as fast as threads=1 alone for 6 replays, then 2× slower for the
// last 4 (8,000 requests). Routing by size with hindsight (each size to
// the side with the lower mean there) would take 0.989× threads=1's
// time. The dispatcher must end within 2% of threads=1 alone, with at
// most 5% of its calls probes. Probing a side found slower every other
// call for as long as the slow-down lasted, it took 1.053× threads=1's
// time on this record, 12.9% of its calls probes.
func TestRecordedBusyHost(t *testing.T) {
	ns, times := recorded(t, "busy-threads2.txt.gz")
	if len(ns) != 20000 {
		t.Fatalf("%d requests recorded, want 20000", len(ns))
	}
	cur := 0
	side := func(s int) dispatch.Func {
		return func(int) (time.Duration, error) { return times[cur][s], nil }
	}
	prof := dispatch.Profile{Models: [2]dispatch.Model{dispatch.Linear(272e-9, 39.7e-9), dispatch.Linear(439e-9, 23.5e-9)}, Crossover: math.Sqrt(15 * 16)}
	d, err := dispatch.New(side(0), side(1), [2]string{"threads=1", "threads=2"}, prof, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	var single [2]float64
	probes := 0
	for cur = range ns {
		o, err := d.Do(ns[cur])
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		if o.Probe {
			probes++
		}
		single[0] += times[cur][0].Seconds()
		single[1] += times[cur][1].Seconds()
	}
	best := math.Min(single[0], single[1])
	t.Logf("adaptive %.3f ms, threads=1 %.3f ms, threads=2 %.3f ms: %.3f× the better; %d probes of %d calls", total*1e3, single[0]*1e3, single[1]*1e3, total/best, probes, len(ns))
	if total > 1.02*best || probes > len(ns)*5/100 {
		t.Errorf("adaptive %.3f× the better side, %d probes in %d calls; want ≤ 1.02× and ≤ 5%%", total/best, probes, len(ns))
	}
}
