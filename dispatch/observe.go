package dispatch

import (
	"fmt"
	"math"
	"time"
)

// observe folds a successful call of side s in bucket b (number k), whose
// models evaluate to m, into the shock detector and the estimates, and
// updates the routing when they say so. A wake-up call is slow for its
// own reasons: it shows a recovery when it is fast, nothing when slow.
func (d *Dispatcher) observe(s, k int, b *bucket, m []float64, took time.Duration, wake, probe bool) {
	obs := took.Seconds() / m[s]
	if !(obs > 0) || math.IsInf(obs, 0) {
		return
	}
	shock := d.cfg.ShockRatio
	w := &d.win[s]
	r := obs / b.q[s]
	if faster := r < 1/shock; !wake || faster {
		w.addFast(r, faster)
	}
	if !wake {
		d.winK[s][w.is] = int8(k)
		w.addSlow(r, r > shock)
		d.addTail(s, r)
	}
	d.smp.observed(s, r, shock, int(w.ns) >= shockCalls)
	if d.est.slowed(s) && (r < 1/shock || !wake) {
		d.suspect[s] = r < 1/shock
	}
	f, recovered, gradual := d.shockOf(s, k, b, obs, wake)
	if f == 1 && !recovered && wake {
		return
	}
	if f != 1 || recovered {
		d.applyShock(s, f, recovered, gradual)
		return
	}
	known := d.est.trusted(b, s)
	moved := d.est.add(s, k, obs)
	if moved != 0 {
		why := fmt.Sprintf("%s's last %d calls in any bucket ran %.2f× its profile (median), taken where it has fewer than %d", d.names[s], d.est.sideR[s].n, d.est.prior(s), d.cfg.MinCalls)
		for kk := range 64 {
			if moved>>kk&1 == 1 {
				d.reconsider(kk, d.est.buckets[kk], why)
			}
		}
	}
	if b.cnt[s] == ringSize+1 {
		d.invalidate() // the bucket's calls on s are sampled from now on
	}
	if d.reconsider(k, b, "") {
		return
	}
	// The routing held: count a probe of a side known in the bucket, or a
	// call sampled from a warm bucket, towards the lower rates.
	switch {
	case probe && known:
		d.pr.confirmed()
	case !probe && b.cnt[s] > ringSize:
		d.smp.steady(s)
	}
}

// shockOf runs side s's shock tests after a call that ran obs× its
// profile: a slow-down (all but shockSpare of the last shockCalls calls
// ShockRatio× slower: f, their median), a recovery of a slowed side (3 of
// its last 4 faster: recovered, f their ratio) or a gradual recovery (all
// but one of the last backCalls within the hysteresis of its estimates
// from before it was found slower: recovered and gradual). A shared
// machine makes calls slower, not faster, so fewer calls prove a recovery
// than a slow-down (TestGradualRecovery, TestPartialRecoveryCorrects).
func (d *Dispatcher) shockOf(s, k int, b *bucket, obs float64, wake bool) (f float64, recovered, gradual bool) {
	w := &d.win[s]
	f = 1
	if !wake {
		if ok, med := w.slowDown(); ok {
			f = med
		}
	}
	slowed := d.est.slowed(s)
	if ok, med := w.recovery(); ok && slowed {
		return med, true, false
	}
	if pre := &b.pre[s]; f == 1 && slowed && int(pre.obs.n) >= d.cfg.MinCalls {
		if ok := obs <= pre.q*d.cfg.Hysteresis; ok || !wake {
			w.addBack(ok)
		}
		if w.back() {
			return f, true, true
		}
	}
	return f, false, false
}

// applyShock rescales side s everywhere by f (a slow-down) or restores its
// estimates from before it was found slower (a recovery), and reconsiders
// every bucket. A recovery restores those estimates, no more and no less:
// a partial recovery is taken as a full one, and the side's next calls,
// still slower, show a new slow-down (TestPartialRecoveryCorrects).
func (d *Dispatcher) applyShock(s int, f float64, recovered, gradual bool) {
	var why string
	switch {
	case gradual:
		d.restore(s)
		why = fmt.Sprintf("%s ran within %.2f× its estimates from before it was found slower (%d of its last %d calls): those restored in every bucket", d.names[s], d.cfg.Hysteresis, backCalls-1, backCalls)
	case recovered:
		d.restore(s)
		why = fmt.Sprintf("%s ran %.2f× its estimates (median of its last %d calls) (faster): its estimates from before it was found slower restored in every bucket", d.names[s], f, fastCalls)
	default:
		if !d.est.slowed(s) {
			d.pr.foundSlower(s, d.calls, d.spent)
			d.saveBeforeSlow(s)
		}
		d.est.sideR[s].scale(f)
		d.est.each(func(_ int, bb *bucket) {
			bb.q[s] *= f
			bb.obs[s].scale(f)
		})
		d.est.slowF[s] = math.Min(d.est.slowF[s]*f, 1e12)
		why = fmt.Sprintf("%s ran %.2f× its estimates (median of its last %d calls) (slower), rescaled in every bucket", d.names[s], f, shockCalls)
	}
	d.win[s] = window{}
	d.suspect[s] = false
	d.unsteady()
	d.invalidate()
	d.est.each(func(kk int, bb *bucket) { d.reconsider(kk, bb, why) })
}

// restore puts back side s's estimates from before it was found slower.
func (d *Dispatcher) restore(s int) {
	e := d.est
	e.each(func(kk int, bb *bucket) {
		bb.q[s], bb.obs[s] = bb.pre[s].q, bb.pre[s].obs
		if int(bb.obs[s].n) < e.minCalls {
			e.young[s] |= 1 << kk // filled while slower: young again
		}
	})
	e.sideR[s] = e.sidePre[s]
	e.slowF[s] = 1
	e.updatePrior(s)
	d.pr.recoveredAt[s] = d.calls
}

// saveBeforeSlow saves side s's estimates as they were before the calls
// that showed its slow-down: those calls (the window's, all but the
// latest already in their buckets' rings) are left out, or a bucket whose
// ring they made up half of would keep the slow-down after the recovery
// (TestRecoveryRestoresEstimates).
func (d *Dispatcher) saveBeforeSlow(s int) {
	e := d.est
	e.each(func(_ int, bb *bucket) { bb.pre[s] = estimate{q: bb.q[s], obs: bb.obs[s]} })
	e.sidePre[s] = e.sideR[s]
	w := &d.win[s]
	for j := 1; j < int(w.ns); j++ {
		kk := d.winK[s][(int(w.is)+shockCalls-1-j)%shockCalls]
		bb := e.buckets[kk]
		if bb == nil {
			continue
		}
		pre := &bb.pre[s]
		pre.obs.dropNewest()
		if int(pre.obs.n) >= e.minCalls {
			pre.q = pre.obs.median()
		}
		e.sidePre[s].dropNewest()
	}
}

// reconsider moves bucket k's applied ratios to the estimates' where they
// differ by more than the hysteresis factor, records a switch when that
// routes a size of the bucket elsewhere, and reports whether a ratio
// moved.
func (d *Dispatcher) reconsider(k int, b *bucket, why string) bool {
	h := d.cfg.Hysteresis
	moved := -1
	for s := 1; s < len(b.rho) && moved < 0; s++ {
		if r := d.est.ratio(b, s); r > b.rho[s]*h || r < b.rho[s]/h {
			moved = s
		}
	}
	if moved < 0 {
		return false
	}
	old := append([]float64(nil), b.rho...)
	for s := moved; s < len(b.rho); s++ {
		if r := d.est.ratio(b, s); r > b.rho[s]*h || r < b.rho[s]/h {
			b.rho[s] = r
		}
	}
	before, _ := d.pickedWith(k, b, old)
	after, _ := d.est.picks(k, b)
	d.est.mark(k)
	d.invalidate()
	for i := range before {
		if before[i] == after[i] {
			continue
		}
		d.unsteady()
		txt := fmt.Sprintf("%s/%s time relative to the profile moved from %.2f to %.2f (hysteresis %.2f): %s favoured",
			d.names[moved], d.names[0], old[moved], b.rho[moved], h, d.names[after[i]])
		if why != "" {
			txt = why + "; " + txt
		}
		d.hist.add(kindMove, Switch{Call: d.calls, Bucket: bucketName(k), From: d.names[before[i]], To: d.names[after[i]], Reason: txt})
		break
	}
	return true
}

// pickedWith is what bucket k's routing picked at its checked sizes with
// the applied ratios rho.
func (d *Dispatcher) pickedWith(k int, b *bucket, rho []float64) (picked, prof [3]int) {
	cur := b.rho
	b.rho = rho
	picked, prof = d.est.picks(k, b)
	b.rho = cur
	return picked, prof
}

// addTail adds a call of side s that ran r times its estimate to the
// side's tail and, when that moves a side's applied tail, reconsiders
// every bucket.
func (d *Dispatcher) addTail(s int, r float64) {
	t := &d.est.tail[s]
	t.add(r)
	if t.i%tailEvery != 0 {
		return // the tail moves slowly: checked every tailEvery calls
	}
	moved := d.est.updateTails()
	if moved < 0 {
		return
	}
	why := fmt.Sprintf("%s's calls ran %.2f× as long on the mean as on the median, relative to the other sides (its tail)", d.names[moved], d.est.tailApplied[moved])
	d.unsteady()
	d.invalidate()
	d.est.each(func(kk int, bb *bucket) { d.reconsider(kk, bb, why) })
}
