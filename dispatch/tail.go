package dispatch

// tailWindow is a side's tail: its last observed calls' ratios to their
// estimates, each clipped at tailClip. The estimates are medians, which a
// shared machine's outliers cannot move, but a stream's total is a sum of
// means: a side whose calls often run a few times their median (a worker
// waiting for a core) costs more per call than its median says. The
// window's mean over its median-based estimate is that extra, which the
// routing applies (TestHeavyTailedSideLoses); clipped, so that a rare
// preempted call does not make it (TestOutliersDoNotFlap).
type tailWindow struct {
	v    [tailCalls]float64
	i, n int
	sum  float64
}

const (
	tailCalls = 128
	tailClip  = 4
	tailMin   = 32 // calls before the tail counts
	tailSlack = 0.1
)

func (t *tailWindow) add(r float64) {
	r = min(max(r, 0), tailClip)
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

// factor is the side's mean over median less tailSlack (at least 1; 1
// before tailMin calls): the slack keeps the noise of a symmetric spread
// and of the odd clipped outlier out of the routing.
func (t *tailWindow) factor() float64 {
	if t.n < tailMin {
		return 1
	}
	return max(1, t.sum/float64(t.n)-tailSlack)
}
