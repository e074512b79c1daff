package dispatch

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// route is Do's full path: failures, probes, sampled calls.
func (d *Dispatcher) route(n int, e *entry) (Outcome, error) {
	k := bucketOf(n)
	b := d.est.bucket(k)
	side := e.side
	out := Outcome{Failed: -1}
	if d.rt.avoid(side, d.calls) {
		if f := d.fallbacks(n, side); len(f) > 0 && !d.rt.avoid(f[0], d.calls) {
			side = f[0]
		}
	}
	probe, retry := d.chooseProbe(side, k, b, e.m)
	if probe >= 0 {
		side, out.Probe = probe, true
	}
	if d.pr.follow >= 0 && !(out.Probe && d.pr.follow == side && d.pr.last == d.calls) {
		d.pr.follow = -1
	}
	// A probe's call on an idle side pays its wake-up, which the side
	// would not pay if it took the bucket's calls: it answers the request
	// and can show the side recovered, but does not enter the estimates;
	// the probe's next call, right after it, does.
	wake := out.Probe && d.idle(side)
	var ownEst, otherEst float64
	recovery := out.Probe && d.watched(side)
	if out.Probe {
		ownEst, otherEst = d.est.est(b, side, e.m), d.est.est(b, e.side, e.m)
	}
	took, err := d.sides[side].Exec.Run(n)
	took = max(took, 0)
	out, err = d.finish(n, k, e, side, out, wake, took, err)
	if err == nil && out.Probe && out.Failed < 0 {
		d.pr.charge(side, took.Seconds(), ownEst, otherEst, wake, recovery || d.pr.recoveredAt[side] == d.calls-1)
	}
	d.schedule(retry)
	return out, err
}

// chooseProbe returns the side to probe instead of side with this call
// (-1: none) and, when a probe was due but not admitted, in how many
// calls to check again.
func (d *Dispatcher) chooseProbe(side, k int, b *bucket, m []float64) (probe, retry int) {
	// A failed side whose time-out is over is retried as a probe.
	for s := range d.sides {
		if s != side && d.rt.due(s, d.calls) {
			return s, 0
		}
	}
	if f := d.pr.follow; f >= 0 && f != side && !d.rt.avoid(f, d.calls) {
		// The second call of a probe of an idle side: part of the probe
		// the budget admitted, except a recovery probe's, which keeps to
		// the recovery budget.
		if !d.watched(f) || d.pr.recoveryFits(f, d.extra(b, f, side, m), d.spent) {
			return f, 0
		}
		return -1, 0
	}
	// A side found slower and given no calls is probed to see it recover,
	// whatever the probe budget, within its own.
	for s := range d.sides {
		if s == side || d.rt.avoid(s, d.calls) || !d.watched(s) || d.calls-d.pr.last < d.pr.recoveryGap(s, d.calls, d.suspect[s]) {
			continue
		}
		if d.pr.recoveryFits(s, d.extra(b, s, side, m), d.spent) {
			d.startProbe(s)
			return s, 0
		}
		return -1, 2
	}
	if d.calls-d.pr.last < d.pr.gap() {
		return -1, 0
	}
	return d.ordinaryProbe(side, k, b, m)
}

// ordinaryProbe decides a due ordinary probe of the next side in turn.
// Probes go to requests cheap on the probed side (at most the mean call so
// far), so the budget buys many; after 4 gaps without one any request
// will do. Buckets where the probed side has few calls and, against its
// profile, no sizes (needy) come first, whatever their requests cost: its
// first calls there may have run cold (TestColdStartCorrects); a due probe
// waits up to two gaps for a needy bucket's request.
func (d *Dispatcher) ordinaryProbe(side, k int, b *bucket, m []float64) (probe, retry int) {
	other := -1
	for i := range len(d.sides) {
		s := (d.pr.cursor + i) % len(d.sides)
		if s != side && !d.rt.avoid(s, d.calls) {
			other = s
			break
		}
	}
	if other < 0 {
		return -1, 0
	}
	mean := d.spent / float64(max(d.calls, 1))
	needy := d.est.filling[other] & d.est.against[other]
	here := needy>>k&1 == 1
	gap := d.pr.gap()
	wait := !here && needy != 0 && d.calls-d.pr.last < 2*gap
	cheap := d.calls == 0 || d.est.est(b, other, m) <= mean || here || d.calls-d.pr.last >= 4*gap
	deficit := d.pr.deficit(d.extra(b, other, side, m), d.spent)
	switch {
	case wait:
		return -1, 1
	case !cheap || d.watched(other):
		return -1, 2
	case deficit <= 0:
		d.pr.cursor = other + 1
		d.startProbe(other)
		return other, 0
	}
	// The budget grows by ProbeShare of each call: check again when the
	// calls so far, at their mean, would have paid the deficit.
	if rate := d.pr.share * mean; rate > 0 {
		return -1, max(1, int(min(math.Ceil(deficit/rate), float64(gap))))
	}
	return -1, gap
}

// startProbe starts a probe of side s: a pair of calls when it is idle.
func (d *Dispatcher) startProbe(s int) {
	d.pr.last = d.calls
	if d.idle(s) {
		d.pr.follow = s
	}
}

// extra is the predicted extra time of running a call on side s instead
// of on side instead.
func (d *Dispatcher) extra(b *bucket, s, instead int, m []float64) float64 {
	return math.Max(0, d.est.est(b, s, m)-d.est.est(b, instead, m))
}

// fallbacks are the sides other than side in the order a failed call
// tries them: those not in their time-out first, each group by the
// routing's score at n.
func (d *Dispatcher) fallbacks(n, side int) []int {
	e := d.entry(n)
	b := d.est.bucket(bucketOf(n))
	out := make([]int, 0, len(d.sides)-1)
	for s := range d.sides {
		if s != side {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(x, y int) int {
		ax, ay := d.rt.avoid(x, d.calls), d.rt.avoid(y, d.calls)
		if ax != ay {
			if ax {
				return 1
			}
			return -1
		}
		sx, sy := score(b, x, e.m), score(b, y, e.m)
		switch {
		case sx < sy:
			return -1
		case sx > sy:
			return 1
		}
		return 0
	})
	return out
}

// finish accounts for a call of side that returned (took, err): on an
// error it falls back to the other sides in turn; it observes the call
// when it is sampled (a probe, a wake-up, a bucket still filling its
// ring, or the side's turn) and counts it.
func (d *Dispatcher) finish(n, k int, e *entry, side int, out Outcome, wake bool, took time.Duration, err error) (Outcome, error) {
	b := d.est.bucket(k)
	if err != nil {
		out.Failed = side
		errs := []error{fmt.Errorf("%s: %w", d.names[side], err)}
		d.fail(side, k, err)
		answered := -1
		for _, s := range d.fallbacks(n, side) {
			t2, err2 := d.sides[s].Exec.Run(n)
			took += max(t2, 0)
			if err2 != nil {
				errs = append(errs, fmt.Errorf("%s: %w", d.names[s], err2))
				d.fail(s, k, err2)
				continue
			}
			answered = s
			d.observe(s, k, b, e.m, max(t2, 0), d.idle(s), false)
			break
		}
		if answered < 0 {
			d.lost = satInc(d.lost)
			d.calls = satInc(d.calls)
			d.spent += took.Seconds()
			return out, fmt.Errorf("dispatch: Dispatcher.Do: %w: %w", ErrBothFailed, errors.Join(errs...))
		}
		d.returned(answered, k, side)
		side = answered
	} else {
		d.returned(side, k, -1)
		if out.Probe || wake || !e.warm || side != e.side || d.smp.skip[side] == 0 {
			d.observe(side, k, b, e.m, took, wake, out.Probe)
		} else {
			d.smp.skip[side]--
			d.smp.unobserved(side, took, e.lo, e.hi, d.est.slowed(side))
			d.addTail(side, took.Seconds()/e.est)
		}
	}
	if out.Probe && out.Failed < 0 {
		d.probed[side] = d.calls
		d.count(side, took)
	} else {
		d.answered(side, took)
	}
	out.Side, out.Took = side, took
	return out, nil
}

// returned records that side answered; a side that had failed is healthy
// again (from: the side the call fell back from, -1: none).
func (d *Dispatcher) returned(side, k, from int) {
	if !d.rt.answered(side) {
		return
	}
	was := "the fallback"
	switch {
	case from >= 0:
		was = d.names[from]
	case len(d.sides) == 2:
		was = d.names[1-side]
	}
	d.hist.add(kindReturn, Switch{Call: d.calls, Bucket: bucketName(k), From: was, To: d.names[side],
		Reason: fmt.Sprintf("%s answered again after failing", d.names[side])})
}

// fail marks side s failed for its back-off (retrier) and records it.
func (d *Dispatcher) fail(s, k int, err error) {
	wait := d.rt.fail(s, d.calls, err)
	d.unsteady()
	d.nextCheck = 0 // every call takes the full path while a side is failed
	if d.pr.follow == s {
		d.pr.follow = -1 // no second call of a probe of a failed side
	}
	to := "the next side"
	if len(d.sides) == 2 {
		to = d.names[1-s]
	}
	d.hist.add(kindFailure, Switch{Call: d.calls, Bucket: bucketName(k), From: d.names[s], To: to,
		Reason: fmt.Sprintf("%s failed (%v): falling back to %s, retrying in %d calls", d.names[s], err, to, wait)})
}
