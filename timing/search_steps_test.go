package timing

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// tight is a summary of t with a ±1% CI.
func tight(t float64) Summary {
	return Summary{N: 20, Median: t, Lo: 0.99 * t, Hi: 1.01 * t, Confidence: 0.95}
}

// stepSearch is a search over two noiseless lines, A = 1µs + 100ns·n and
// B = 5µs + 50ns·n (B faster above n = 80), that records the sizes it
// probes.
func stepSearch(t *testing.T, o SearchOpts) (*search, *[]int) {
	t.Helper()
	var probed []int
	o, err := o.resolve()
	if err != nil {
		t.Fatal(err)
	}
	probe := func(n int) (Summary, Summary, error) {
		probed = append(probed, n)
		x := float64(n)
		return tight(1e-6 + 100e-9*x), tight(5e-6 + 50e-9*x), nil
	}
	return &search{o: o, sideA: "A", sideB: "B", probe: probe, pts: map[int]SearchPoint{}}, &probed
}

// sweep measures the coarse sizes in ascending order; past the deadline
// only the first three, and never more than MaxProbes.
func TestSearchSweep(t *testing.T) {
	s, probed := stepSearch(t, SearchOpts{Sizes: []int{64, 1, 16, 4, 256}})
	if err := s.sweep(); err != nil || !slices.Equal(*probed, []int{1, 4, 16, 64, 256}) || s.stopWhy != "" {
		t.Errorf("sweep probed %v (stop %q, err %v), want 1 4 16 64 256", *probed, s.stopWhy, err)
	}
	now := time.Unix(100, 0)
	s, probed = stepSearch(t, SearchOpts{Sizes: []int{1, 4, 16, 64, 256}, Deadline: now.Add(-time.Second), Now: func() time.Time { return now }})
	if err := s.sweep(); err != nil || !slices.Equal(*probed, []int{1, 4, 16}) || !strings.Contains(s.stopWhy, "time budget spent after 3 sizes") {
		t.Errorf("past the deadline: probed %v (stop %q, err %v), want the first three", *probed, s.stopWhy, err)
	}
	s, probed = stepSearch(t, SearchOpts{Sizes: []int{1, 4, 16, 64}, MaxProbes: 2})
	if err := s.sweep(); err != nil || len(*probed) != 2 || !strings.Contains(s.stopWhy, "probe limit") {
		t.Errorf("probe cap 2: probed %v (stop %q, err %v)", *probed, s.stopWhy, err)
	}
}

// extend grows ×Grow past the sweep until a change is bracketed, or up to
// Max.
func TestSearchExtend(t *testing.T) {
	s, probed := stepSearch(t, SearchOpts{Sizes: []int{1, 4, 16}})
	if err := s.sweep(); err != nil {
		t.Fatal(err)
	}
	if err := s.extend(); err != nil || !slices.Equal(*probed, []int{1, 4, 16, 64, 256}) {
		t.Errorf("extend probed %v (err %v), want the sweep then 64 and 256", *probed, err)
	}
	if lo, hi, ok := bracket(s.pts); !ok || lo.N != 64 || hi.N != 256 {
		t.Errorf("bracket after extend: %d–%d (%v), want 64–256", lo.N, hi.N, ok)
	}
	// Capped at Max, which lies before the change: the last size is Max.
	s, probed = stepSearch(t, SearchOpts{Sizes: []int{1, 4, 16}, Max: 50})
	if err := s.sweep(); err != nil {
		t.Fatal(err)
	}
	if err := s.extend(); err != nil || !slices.Equal(*probed, []int{1, 4, 16, 50}) {
		t.Errorf("extend to Max 50 probed %v (err %v)", *probed, err)
	}
	if r := s.noChange(); r.Status != SearchNoCrossover || r.Found || !strings.Contains(r.Reason, "B slower at every size up to 50") {
		t.Errorf("no change up to Max: %+v", r)
	}
}

// confirm measures both ends again: a winner that changes makes its end a
// tie and the bracket is found again; it stops after maxConfirms rounds.
func TestSearchConfirm(t *testing.T) {
	s, probed := stepSearch(t, SearchOpts{Sizes: []int{64, 100}})
	if err := s.sweep(); err != nil {
		t.Fatal(err)
	}
	lo, hi := s.pts[64], s.pts[100]
	if _, _, again, ok, err := s.confirm(lo, hi); again || !ok || err != nil || !slices.Equal(*probed, []int{64, 100, 64, 100}) {
		t.Errorf("steady ends: again %v ok %v err %v, probed %v", again, ok, err, *probed)
	}
	// The second measurement at 100 has A faster: 100 becomes a tie and
	// no change is left.
	s.probe = func(n int) (Summary, Summary, error) { return tight(1), tight(2), nil }
	if _, _, again, ok, err := s.confirm(lo, hi); !again || ok || err != nil || s.pts[100].Faster != Tie {
		t.Errorf("flipped end: again %v ok %v err %v, point %+v", again, ok, err, s.pts[100])
	}
	*probed = nil
	s.confirms = maxConfirms
	if nlo, nhi, again, ok, err := s.confirm(lo, hi); again || !ok || err != nil || nlo.N != lo.N || nhi.N != hi.N || len(*probed) != 0 {
		t.Errorf("after %d rounds: again %v ok %v err %v", maxConfirms, again, ok, err)
	}
	s.probe = func(int) (Summary, Summary, error) { return Summary{}, Summary{}, errors.New("device lost") }
	s.confirms = 0
	if _, _, _, _, err := s.confirm(lo, hi); err == nil || !strings.Contains(err.Error(), "at n=64: device lost") {
		t.Errorf("probe error: %v", err)
	}
}

// bisect narrows a bracket by geometric midpoints to within Ratio of the
// true change, measuring only inside it.
func TestSearchBisect(t *testing.T) {
	s, probed := stepSearch(t, SearchOpts{Sizes: []int{16, 256}})
	if err := s.sweep(); err != nil {
		t.Fatal(err)
	}
	res, err := s.bisect(s.pts[16], s.pts[256])
	if err != nil || res.Status != SearchLocated || !res.Found || res.Lo > 80 || res.Hi < 80 || float64(res.Hi) > 1.2*float64(res.Lo) {
		t.Fatalf("bisect: %+v (err %v), want located around 80", res, err)
	}
	for _, n := range *probed {
		if n < 16 || n > 256 {
			t.Errorf("measured %d outside the bracket 16–256", n)
		}
	}
	if (*probed)[2] != 64 { // √(16·256)
		t.Errorf("first midpoint %d, want 64", (*probed)[2])
	}
	// Adjacent sizes cannot be narrowed further.
	s, _ = stepSearch(t, SearchOpts{Sizes: []int{79, 80}, Ratio: 1.001})
	s.probe = func(n int) (Summary, Summary, error) {
		if n < 80 {
			return tight(1), tight(2), nil
		}
		return tight(2), tight(1), nil
	}
	if err := s.sweep(); err != nil {
		t.Fatal(err)
	}
	if res, err := s.bisect(s.pts[79], s.pts[80]); err != nil || res.Status != SearchResolution || res.Lo != 79 || res.Hi != 80 {
		t.Errorf("79–80 at ratio 1.001: %+v (err %v), want resolution", res, err)
	}
}

// midpoint halves the widest outer gap geometrically; with ties inside
// each gap must reach √Ratio.
func TestSearchMidpoint(t *testing.T) {
	s := &search{o: SearchOpts{Ratio: 1.2}}
	for _, c := range []struct {
		inner []int
		mid   int
		ok    bool
	}{
		{[]int{16, 256}, 64, true},
		{[]int{100, 110}, 0, false},            // within Ratio
		{[]int{10, 11}, 0, false},              // adjacent
		{[]int{10, 100, 110}, 32, true},        // the outer gap 10–100
		{[]int{100, 104, 200, 400}, 283, true}, // 100–104 is within √1.2; 200–400 is not
		{[]int{100, 105, 200, 209}, 0, false},  // both outer gaps within √1.2 ≈ 1.095
		{[]int{1, 3}, 2, true},                 // clamped inside (1, 3)
	} {
		mid, ok := s.midpoint(c.inner)
		if mid != c.mid || ok != c.ok {
			t.Errorf("midpoint(%v) = %d, %v; want %d, %v", c.inner, mid, ok, c.mid, c.ok)
		}
	}
}
