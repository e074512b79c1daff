package dispatch_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// Either side slowed three times and then back, on a stream like
// hybrid's (sizes log-uniform over [1, 300] around a crossover at 17,
// every call short, so probes of the slowed side soon spend the probe
// budget): the dispatcher moves off it and back within 50 calls each way.
func TestRecoveryWithinFiftyCalls(t *testing.T) {
	for slowed := 0; slowed < 2; slowed++ {
		for seed := uint64(20); seed < 36; seed++ {
			r := rand.New(rand.NewPCG(seed, 1))
			clock := 0
			// A parked side pays a wake-up after 30 calls of the other.
			sides := [2]*wakeSim{
				{sim: &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r, spike: 0.01}, clock: &clock, last: -100, after: 30, cool: 1.7},
				{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r, spike: 0.01}, clock: &clock, last: -100, after: 30, cool: 1.7},
			}
			prof := prof2{Models: [2]dispatch.Model{sides[0].model(), sides[1].model()}, Crossover: 17}
			d, err := newP(sides[0], sides[1], [2]string{"A", "B"}, prof, dispatch.Config{})
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

// A side slowed by a factor 3, then 9, that comes back only to 3 shows a
// recovery (its calls run faster than the estimates by the factor 9/3),
// which restores its estimates from before the slow-downs; its next
// calls, still slower by the factor 3,
// show a new slow-down, and the routing leaves it again within 50 calls.
func TestPartialRecoveryCorrects(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 1))
	clock := 0
	sides := [2]*wakeSim{
		{sim: &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r}, clock: &clock, last: -100, after: 30},
		{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r}, clock: &clock, last: -100, after: 30},
	}
	d, err := new2(sides[0], sides[1], [2]string{"A", "B"}, sides[0].model(), sides[1].model(), 17, dispatch.Config{})
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

// A side found slower that the routing still gives calls (B slowed by a
// factor 3 keeps the sizes above 829) is not probed at the recovery rate: a
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

// A side slowed by a factor 3 that the routing still gives its smallest
// sizes keeps serving (no recovery probes); its recovery must show in its
// own calls, which take Do's full path while it is found slower (a probe
// may be due) and are observed there even when not sampled once one runs
// off its estimate. After a long steady run (sampling at its lowest
// rate), the routing must be back within 50 calls, and soon on average.
func TestSlowedSideServingSmallSizesRecovers(t *testing.T) {
	// B's overhead: the first puts the crossover at n = 67 and leaves A
	// slowed the sizes below 6 (a call in 3); the second, at n = 56 and
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
	// A's calls are noisy, so some of its first fast calls after the
	// slow-down fall short of ShockRatio and restart the count: probing
	// it once one ran fast (suspect) brings it back sooner.
	if mean := float64(sum) / float64(count); mean > 12 {
		t.Errorf("back %.1f calls after the slow-down ended on average (want ≤ 12)", mean)
	}
}

// A recovery can be gradual (contention fading): B slowed by a factor 2
// for 300 calls, then back to its speed over 500. No call runs ShockRatio
// times faster than its estimates, which follow B in the buckets it is
// probed in; without comparing B's calls with its estimates from before
// the slow-down, it stays off n = 25 and 40 for long after, or for good.
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
// its profile in the buckets it has few calls in (the profile over
// ShockRatio, with noise around it) must not flip those buckets back and
// forth: the
// prior has its own hysteresis.
func TestPriorDoesNotFlap(t *testing.T) {
	for seed := uint64(80); seed < 88; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		a := &sim{a: 0.3e-6, b: 40e-9, noise: 0.03, r: r}
		b := &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r, factor: 0.625}
		prof := prof2{Models: [2]dispatch.Model{a.model(), dispatch.Linear(0.6e-6, 22e-9)}}
		d, err := newP(a, b, [2]string{"A", "B"}, prof, dispatch.Config{})
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

// A side whose first calls in a bucket of large sizes ran cold (three
// times its time) loses the bucket; probes, which go to requests cheap on
// the probed side, would never go there while its estimate holds the
// cold calls, and the bucket would stay on the slower side. A bucket
// where the probed side has made fewer than ringSize calls and, against
// its profile, is given no sizes comes first for probes.
func TestColdStartCorrects(t *testing.T) {
	losses := 0
	for seed := uint64(90); seed < 106; seed++ {
		a, b := coldPair(seed, 64, 8) // most of the bucket's first MinCalls calls
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

// A side's first calls of a run, cold (three times its time, at any
// size), must not become the prior of every bucket it has not been
// called in yet, which would send every bucket to the other side. A
// slower median becomes the prior only on as many calls as a shock needs.
func TestColdFirstCallsDoNotSetThePrior(t *testing.T) {
	for seed := uint64(100); seed < 108; seed++ {
		a, b := coldPair(seed, 1, 3)
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

// A side that stays slower for a whole run (threads=2 on a busy host) is
// probed for its recovery less and less often: every other call at
// first, then one in (calls since it was found slower)/64, at most one in
// 256 calls; at RecoveryShare of the time for as long as it lasted, such
// probes would take half of the calls. It still moves back once the side
// recovers, within the probe gap and a few calls.
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
