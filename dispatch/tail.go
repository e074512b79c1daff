package dispatch

import "math"

// tailWindow is a side's tail: its last observed calls' ratios to their
// estimates, each clipped at tailClip. The estimates are medians, which a
// shared machine's outliers cannot move, but a stream's total is a sum of
// means: a side whose calls often run several times their median (a
// worker waiting for a core) costs more per call than its median says.
// The window's mean over the median-based estimate is that extra. The
// routing applies each side's mean relative to the lowest of the sides'
// (TestHeavyTailedSideLoses), and follows it only when it moves by more
// than tailBand, so that the noise of a mean over outliers that all sides
// share does not flip buckets (TestOutliersDoNotFlap).
type tailWindow struct {
	v    [tailCalls]float64
	i, n int
	sum  float64
}

const (
	tailCalls = 256
	tailClip  = 20
	tailMin   = 128 // calls before the tail counts
	tailBand  = 1.6
	tailEvery = 16 // a side's calls between two checks of the applied tails
)

func (t *tailWindow) add(r float64) {
	if !(r > 0) {
		return // not a time (a zero estimate, an empty call)
	}
	r = min(r, tailClip)
	if t.n == tailCalls {
		t.sum -= t.v[t.i]
	} else {
		t.n++
	}
	t.v[t.i] = r
	t.i = (t.i + 1) % tailCalls
	t.sum += r
	if t.i == 0 { // renew the sum now and then: no drift
		t.sum = 0
		for _, x := range t.v[:t.n] {
			t.sum += x
		}
	}
}

// mean is the window's mean (ok false: fewer than tailMin calls).
func (t *tailWindow) mean() (float64, bool) {
	if t.n < tailMin {
		return 0, false
	}
	return max(1, t.sum/float64(t.n)), true
}

// updateTails moves each side's applied tail (its mean relative to the
// lowest mean among the sides, a side with fewer than tailMin calls
// counting as tail-free) when it leaves the band around the applied one;
// it returns the side whose applied tail moved (-1: none).
func (e *estimator) updateTails() int {
	low := math.Inf(1)
	for s := range e.tail {
		m, ok := e.tail[s].mean()
		if !ok {
			m = 1
		}
		low = min(low, m)
	}
	moved := -1
	for s := range e.tail {
		rel := 1.0
		if m, ok := e.tail[s].mean(); ok {
			rel = m / low
		}
		if a := e.tailApplied[s]; rel > a*tailBand || rel < a/tailBand {
			e.tailApplied[s] = rel
			moved = s
		}
	}
	return moved
}
