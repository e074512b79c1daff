package dispatch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The ring's sorted copy always holds exactly its last values, sorted,
// each within the 16-bit encoding's rounding (8 bits of mantissa each time it is
// stored: when added, and again when scaled) of the value added.
func TestRingSortedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var w ring
	var all []float64
	for i := 0; i < 500; i++ {
		x := float64(r.IntN(7)) * (1 + r.Float64()/10) // repeats of the integer part on purpose
		if i%50 == 49 {
			w.scale(1.5)
			for j := range all {
				all[j] *= 1.5
			}
		}
		w.add(x)
		all = append(all, x)
		last := all[max(0, len(all)-ringSize):]
		sorted := slices.Clone(w.v[:w.n])
		slices.Sort(sorted)
		if !slices.Equal(sorted, w.s[:w.n]) {
			t.Fatalf("after %d adds: sorted copy %v, want %v", i+1, w.s[:w.n], sorted)
		}
		if int(w.n) != len(last) {
			t.Fatalf("after %d adds: %d values, want %d", i+1, w.n, len(last))
		}
		for j, want := range last {
			// v is a ring: the oldest of the last values is at w.i when full.
			got := dec(w.v[(int(w.i)+j)%ringSize])
			if w.n < ringSize {
				got = dec(w.v[j])
			}
			if math.Abs(got-want) > 0.008*want { // added, and scaled at most once since
				t.Fatalf("after %d adds: value %d is %v, want %v", i+1, j, got, want)
			}
		}
	}
	if m, want := w.median(), 0.0; m < want {
		t.Fatalf("median %v", m)
	}
}

// The shock windows' bit registers agree with their ratios.
func TestWindowTests(t *testing.T) {
	var w window
	for i, r := range []float64{1, 2, 2, 2, 2, 2, 2, 1, 2} { // 7 of 9 slower than 1.6
		w.addSlow(r, r > 1.6)
		if ok, _ := w.slowDown(); ok != (i == 8) {
			t.Fatalf("after %d calls: slow-down %v", i+1, ok)
		}
	}
	if _, med := w.slowDown(); med != 2 {
		t.Errorf("median %v, want 2", med)
	}
	w = window{}
	for i, r := range []float64{0.5, 1, 0.4, 0.3} { // 3 of 4 faster than 1/1.6
		w.addFast(r, r < 1/1.6)
		if ok, _ := w.recovery(); ok != (i == 3) {
			t.Fatalf("after %d calls: recovery %v", i+1, ok)
		}
	}
	if _, med := w.recovery(); med != 0.5 {
		t.Errorf("third smallest %v, want 0.5", med)
	}
}

// Old flags slide out of the windows: a slow-down needs 7 of the last 9
// calls slower, a recovery 3 of the last 4 faster.
func TestWindowSlides(t *testing.T) {
	cases := []struct {
		name       string
		size, need int
		seq        []bool
		add        func(w *window, flag bool)
		test       func(w *window) (bool, float64)
	}{
		{"slow-down", shockCalls, shockCalls - shockSpare,
			[]bool{true, true, true, true, true, true, false, false, false, true, true, true, true, true},
			func(w *window, f bool) { w.addSlow(map[bool]float64{true: 2, false: 1}[f], f) }, (*window).slowDown},
		{"recovery", fastCalls, fastCalls - 1,
			[]bool{true, true, true, false, false, true, true, false, true, true},
			func(w *window, f bool) { w.addFast(map[bool]float64{true: 0.3, false: 1}[f], f) }, (*window).recovery},
	}
	for _, c := range cases {
		var w window
		for i, flag := range c.seq {
			c.add(&w, flag)
			last := c.seq[max(0, i-c.size+1) : i+1]
			n := 0
			for _, x := range last {
				if x {
					n++
				}
			}
			want := len(last) == c.size && n >= c.need
			if ok, _ := c.test(&w); ok != want {
				t.Fatalf("%s after %d calls (%d of the last %d flagged): %v, want %v", c.name, i+1, n, len(last), ok, want)
			}
		}
	}
}

// slowableA is a dispatcher of side A (Linear(300e-9, 40e-9), times
// *factor) and side B (Linear(600e-9, 22e-9)), with those profiles.
func slowableA(t *testing.T, factor *float64) *Dispatcher {
	t.Helper()
	a := Func(func(n int) (time.Duration, error) {
		return time.Duration(*factor * (300 + 40*float64(n))), nil
	})
	b := Func(func(n int) (time.Duration, error) { return time.Duration(600 + 22*float64(n)), nil })
	d, err := New([]Side{{Name: "A", Exec: a, Model: Linear(300e-9, 40e-9)}, {Name: "B", Exec: b, Model: Linear(600e-9, 22e-9)}}, Profile{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A slow-down rescales every bucket of the side and saves its estimates;
// a bucket first seen while the side is slower starts slowed; a recovery
// restores the saved estimates exactly, and the new bucket's profile.
func TestRecoveryRestoresEstimates(t *testing.T) {
	factor := 1.0
	d := slowableA(t, &factor)
	for i := 0; i < 300; i++ {
		d.Do(2 + i%6) // buckets [2,3] and [4,7]: A's
	}
	before := *d.est.buckets[2]
	before.q = append([]float64(nil), before.q...)
	factor = 3
	for i := 0; i < 40 && !d.est.slowed(0); i++ {
		d.Do(2 + i%6)
	}
	if !d.est.slowed(0) {
		t.Fatal("A slowed 3× was not found slower")
	}
	if got := d.est.buckets[2].q[0] / before.q[0]; got < 2 || got > 4 {
		t.Errorf("bucket [4,7]: A's estimate moved %.2f×, want about 3×", got)
	}
	d.Do(1000) // a new bucket while A is slower
	nb := d.est.buckets[bucketOf(1000)]
	if nb.q[0] != d.est.slowF[0] {
		t.Errorf("new bucket: A's estimate %.3g, want the slow-down %.3g", nb.q[0], d.est.slowF[0])
	}
	factor = 1
	for i := 0; i < 400 && d.est.slowed(0); i++ {
		d.Do(2 + i%6)
	}
	if d.est.slowed(0) {
		t.Fatal("A back to its speed was not found recovered within 400 calls")
	}
	// The estimate, not the ring: the estimates are saved when the
	// slow-down is found, and the ring then holds the few slower calls
	// that showed it, which its median outvotes.
	if got := d.est.buckets[2]; got.q[0] != before.q[0] {
		t.Errorf("bucket [4,7] after the recovery: q %.4g, want %.4g as before the slow-down", got.q[0], before.q[0])
	}
	if nb.q[0] != 1 || nb.obs[0].n != 0 {
		t.Errorf("new bucket after the recovery: q %.3g with %d observations, want the profile (1, none)", nb.q[0], nb.obs[0].n)
	}
}

// young marks exactly the buckets where a side has fewer than d.cfg.MinCalls
// calls, also after a recovery restored a bucket that filled while the
// side was slower (it is young again and takes the side's prior).
func TestRecoveryKeepsYoungBits(t *testing.T) {
	factor := 1.0
	d := slowableA(t, &factor)
	check := func(when string) {
		t.Helper()
		d.est.each(func(k int, bb *bucket) {
			for s := range 2 {
				if young := d.est.young[s]&(1<<k) != 0; young != (int(bb.obs[s].n) < d.cfg.MinCalls) {
					t.Errorf("%s: bucket %s side %d: young bit %v with %d observations", when, bucketName(k), s, young, bb.obs[s].n)
				}
			}
		})
	}
	for i := 0; i < 300; i++ {
		d.Do(2 + i%6)
	}
	check("warm")
	factor = 1.8 // slower than ShockRatio, still faster than B at n = 1
	for i := 0; i < 40 && !d.est.slowed(0); i++ {
		d.Do(2 + i%6)
	}
	if !d.est.slowed(0) {
		t.Fatal("A slowed 1.8× was not found slower")
	}
	for range 10 {
		d.Do(1) // a new bucket, A's even slowed: it fills there
	}
	if n := d.est.buckets[0].obs[0].n; int(n) < d.cfg.MinCalls {
		t.Fatalf("bucket [1, 1]: A has %d observations while slower, want at least %d", n, d.cfg.MinCalls)
	}
	check("slower")
	factor = 1
	for i := 0; i < 400 && d.est.slowed(0); i++ {
		d.Do(2 + i%6)
	}
	if d.est.slowed(0) {
		t.Fatal("A back to its speed was not found recovered within 400 calls")
	}
	if n := d.est.buckets[0].obs[0].n; n != 0 {
		t.Fatalf("bucket [1, 1]: %d observations of A after the recovery, want none (restored)", n)
	}
	check("recovered")
}

// dropNewest undoes the last add, and the ring stays consistent through
// any mix of adds, drops and scalings: the same values (as encoded) as a
// plain list of the last ringSize adds less the drops, sorted in s.
func TestRingDropNewest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var w ring
	var ref []uint16 // arrival order
	for i := 0; i < 5000; i++ {
		switch op := r.IntN(20); {
		case op < 3:
			w.dropNewest()
			if len(ref) > 0 {
				ref = ref[:len(ref)-1]
			}
		case op < 4:
			f := 0.5 + r.Float64()
			w.scale(f)
			for j := range ref {
				ref[j] = enc(dec(ref[j]) * f)
			}
		default:
			x := 0.1 + 3*r.Float64()
			w.add(x)
			ref = append(ref, enc(x))
			if len(ref) > ringSize {
				ref = ref[1:]
			}
		}
		want := slices.Sorted(slices.Values(ref))
		if !slices.Equal(w.s[:w.n], want) {
			t.Fatalf("after %d operations: sorted %v, want %v", i+1, w.s[:w.n], want)
		}
		for j := range ref {
			if got := w.v[(int(w.i)+ringSize-len(ref)+j)%ringSize]; got != ref[j] {
				t.Fatalf("after %d operations: value %d in arrival order is %v, want %v", i+1, j, got, ref[j])
			}
		}
	}
}
