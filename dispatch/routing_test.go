package dispatch_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

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
		// Large calls: B is ten times cheaper per item normally; slowed it
		// loses to A between 200·… and ~2,000 items; check at n = 500.
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
	// Two sides nearly equal: never switch back and forth.
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
	// B is twenty times slower everywhere: probes must cost little.
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
	// A shared machine: some calls on either side are preempted (spike).
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
	// B's fitted overhead too high: the fits cross at 400.
	prof := prof2{Models: [2]dispatch.Model{a.model(), dispatch.Linear(38e-6, b.b)}}
	d, err := newP(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Choose(300); got != 0 {
		t.Fatalf("fits alone: n=300 → side %d, want 0 (the fits cross at 400)", got)
	}
	prof.Crossover = 200
	if d, err = newP(a, b, [2]string{"A", "B"}, prof, dispatch.Config{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ n, want int }{{100, 0}, {180, 0}, {230, 1}, {300, 1}, {5000, 1}} {
		if got := d.Choose(c.n); got != c.want {
			t.Errorf("measured crossover 200: n=%d → side %d, want %d", c.n, got, c.want)
		}
	}
}

// A side whose probes find it idle pays a wake-up it would not pay if it
// took the calls: the dispatcher still learns it is faster (a probe's
// next call, right after it, is the one that counts) and moves to it.
func TestWakeUpDoesNotHideTheFasterSide(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	clock := 0
	a := &wakeSim{sim: &sim{a: 1e-6, b: 100e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	b := &wakeSim{sim: &sim{a: 1e-6, b: 50e-9, noise: 0.05, r: r}, clock: &clock, last: -100}
	// The profile says B is slower than A everywhere; warm, it is twice
	// as fast at these sizes.
	prof := prof2{Models: [2]dispatch.Model{dispatch.Linear(1e-6, 100e-9), dispatch.Linear(1.6e-6, 160e-9)}}
	d, err := newP(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
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
			d, err := new2(fa, fb, [2]string{"A", "B"}, ma.At, mb.At, 17, dispatch.Config{})
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
	d, err := new2(a, b, [2]string{"A", "B"}, a.model(), b.model(), 0, dispatch.Config{RetryAfter: 50})
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

// Two sides that do not change: once probes and sampled calls keep
// confirming the routing, the dispatcher probes less often than at the
// start (down to one in four times ProbeEvery calls), and a slow-down that leaves
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
	// next 18,000 would hold about 340; at one in four times ProbeEvery, 140.
	if first < 2000/64 || later > 200 {
		t.Errorf("probes: %d in the first 2000 calls, %d in the next 18000; want ≥ 31, then ≤ 200", first, later)
	}
	// Slowed thirty times, B is slower than A at every size up to 20,000.
	b.factor = 30
	if slowed := probes(ns[20000:]); slowed < 2*later*4000/18000+10 {
		t.Errorf("probes: %d in 4000 calls with B slowed 30×, %d in the 18000 before; want the full rate back", slowed, later)
	}
	if got := d.Choose(10000); got != 0 {
		t.Errorf("n=10000 goes to side %d with B slowed 30×, want A", got)
	}
}
