package dispatch

import (
	"fmt"
	"math"
	"math/bits"
)

// estimator predicts each side's time for a call: the side's profile (its
// Model) times its correction in the call's size bucket. A bucket holds,
// per side, the median of the side's last calls there relative to the
// profile (q, 1 = as profiled), trusted once the side has MinCalls calls
// in the bucket; before, the side's prior (see prior). The routing applies
// rho, each side's ratio to side 0's correction, which follows q only when
// q's ratio moves by more than the hysteresis factor, so noise never flips
// a decision back and forth.
type estimator struct {
	sides    int
	minCalls int
	shock    float64
	hyst     float64
	models   []Model
	buckets  [64]*bucket // by ⌊log₂ n⌋; nil until seen
	// sideR is each side's last calls in any bucket (time over the
	// profile), sidePre that from before the side was found slower.
	sideR, sidePre []ring
	priorOn        []bool // the side's prior is sideR's median
	// local marks the sides whose prior never follows sideR
	// (Side.ShapeUnknown).
	local       []bool
	tail        []tailWindow
	tailApplied []float64 // each side's tail as the routing applies it (updateTails)
	slowF       []float64 // rescaling for slow-downs not yet undone (1: none)
	// young marks the buckets where a side has fewer than MinCalls calls
	// (they take its prior); filling those with fewer than ringSize;
	// serves those where the routing gives it some sizes; against those
	// where the profile gives it some sizes and the routing none.
	young, filling, serves, against []uint64
}

// bucket is one size bucket's state.
type bucket struct {
	rho  []float64
	q    []float64
	cnt  []uint32 // the side's calls observed in the bucket
	obs  []ring
	pre  []estimate // each side's estimate from before it was found slower
	held []float64  // a call held out of a trusted estimate (0: none)
}

// estimate is a side's state in a bucket.
type estimate struct {
	q   float64
	obs ring
}

func newEstimator(sides int, models []Model, cfg Config) *estimator {
	e := &estimator{sides: sides, minCalls: cfg.MinCalls, shock: cfg.ShockRatio, hyst: cfg.Hysteresis, models: models,
		sideR: make([]ring, sides), sidePre: make([]ring, sides), priorOn: make([]bool, sides), local: make([]bool, sides), tail: make([]tailWindow, sides), tailApplied: make([]float64, sides), slowF: make([]float64, sides),
		young: make([]uint64, sides), filling: make([]uint64, sides), serves: make([]uint64, sides), against: make([]uint64, sides)}
	for s := range e.slowF {
		e.slowF[s], e.tailApplied[s] = 1, 1
	}
	return e
}

// bucketOf is ⌊log₂ n⌋ (n < 1 counts as 1).
func bucketOf(n int) int { return bits.Len(uint(max(n, 1))) - 1 }

func bucketName(k int) string {
	hi := uint64(1)<<(k+1) - 1
	return fmt.Sprintf("[%d, %d]", uint64(1)<<k, hi)
}

// model evaluates the profile of every side at n, each at least 1 ps (a
// model that gives no time is taken as that).
func (e *estimator) model(n int, m []float64) {
	for s, f := range e.models {
		v := f(float64(n))
		if !(v >= 1e-12) {
			v = 1e-12
		}
		m[s] = math.Min(v, 1e9)
	}
}

// bucket returns bucket k, creating it from the sides' priors: a bucket
// first seen while a side is marked slower starts from the profile scaled
// by the slow-down and returns to the profile when the side recovers.
func (e *estimator) bucket(k int) *bucket {
	if b := e.buckets[k]; b != nil {
		return b
	}
	n := e.sides
	b := &bucket{rho: make([]float64, n), q: make([]float64, n), cnt: make([]uint32, n), obs: make([]ring, n), pre: make([]estimate, n), held: make([]float64, n)}
	for s := range n {
		b.q[s] = e.prior(s)
		b.pre[s].q = 1
		e.young[s] |= 1 << k
		e.filling[s] |= 1 << k
	}
	for s := range n {
		b.rho[s] = e.ratio(b, s)
	}
	e.buckets[k] = b
	e.mark(k)
	return b
}

// each calls fn on every bucket seen so far.
func (e *estimator) each(fn func(k int, b *bucket)) {
	for k, b := range e.buckets {
		if b != nil {
			fn(k, b)
		}
	}
}

// ratio is the routing's target ratio of side s to side 0 in bucket b:
// their estimates times their tails.
func (e *estimator) ratio(b *bucket, s int) float64 {
	return b.q[s] * e.tailApplied[s] / (b.q[0] * e.tailApplied[0])
}

// est is side s's estimate (seconds) in bucket b for a call whose models
// evaluate to m.
func (e *estimator) est(b *bucket, s int, m []float64) float64 { return m[s] * b.q[s] }

// score is what the routing compares for side s: its model times the
// applied ratio, in units of side 0's correction.
func score(b *bucket, s int, m []float64) float64 { return m[s] * b.rho[s] }

// pickBy is the side with the lowest score plus fixed (seconds over side
// 0's correction: queue and transfer; nil: none); ties go to the lower
// index.
func pickBy(b *bucket, m, fixed []float64) int {
	best, bestV := 0, math.Inf(1)
	for s := range m {
		v := score(b, s, m)
		if fixed != nil {
			v += fixed[s] / b.q[0]
		}
		if v < bestV {
			best, bestV = s, v
		}
	}
	return best
}

// profiled is the side the profile alone (every ratio 1) picks.
func profiled(m []float64) int {
	best := 0
	for s := range m {
		if m[s] < m[best] {
			best = s
		}
	}
	return best
}

// checked are the sizes of bucket k at which its routing is judged: its
// ends and middle.
func checked(k int) [3]int {
	lo, hi := 1<<k, 1<<(k+1)-1
	if k >= bits.UintSize-2 {
		lo, hi = math.MaxInt/2+1, math.MaxInt
	}
	return [3]int{lo, lo + (hi-lo)/2, hi}
}

// picks returns the sides the routing and the profile pick at checked(k).
func (e *estimator) picks(k int, b *bucket) (picked, prof [3]int) {
	m := make([]float64, e.sides)
	for i, n := range checked(k) {
		e.model(n, m)
		picked[i], prof[i] = pickBy(b, m, nil), profiled(m)
	}
	return picked, prof
}

// mark records which sides bucket k's routing gives some sizes, and
// where the profile gives a side sizes and the routing none.
func (e *estimator) mark(k int) {
	picked, prof := e.picks(k, e.buckets[k])
	for s := range e.sides {
		e.serves[s] &^= 1 << k
		e.against[s] &^= 1 << k
		if picked[0] == s || picked[1] == s || picked[2] == s {
			e.serves[s] |= 1 << k
		} else if prof[0] == s || prof[1] == s || prof[2] == s {
			e.against[s] |= 1 << k
		}
	}
}

// prior is side s's estimate in a bucket where it has fewer than MinCalls
// calls: the profile (scaled by any slow-down), unless the median of the
// side's last calls in any bucket is off it by more than ShockRatio, then
// that median. A profile taken with the machine in another state is off
// the same way at every size, so the side's calls in one bucket say more
// about the next than the profile does; within ShockRatio the profile's
// shape across sizes is worth more. Once taken, the median stays the
// prior until it comes back within ShockRatio/Hysteresis of the profile
// (TestPriorDoesNotFlap).
func (e *estimator) prior(s int) float64 {
	if e.priorOn[s] {
		return e.sideR[s].median()
	}
	return e.slowF[s]
}

// priorCalls is the number of a side's calls in any bucket before their
// median can become its prior.
const priorCalls = 3

// updatePrior decides whether side s's prior is the median of its last
// calls. A slower median is taken only on as many calls as a shock needs:
// a run's first calls can be cold, and a shared machine makes calls
// slower, never faster (TestColdFirstCallsDoNotSetThePrior). A side
// whose model's shape is unknown (local) keeps its model.
func (e *estimator) updatePrior(s int) {
	if e.sideR[s].n < priorCalls || e.local[s] {
		e.priorOn[s] = false
		return
	}
	m := e.sideR[s].median()
	off := math.Max(m/e.slowF[s], e.slowF[s]/m)
	switch {
	case e.priorOn[s]:
		e.priorOn[s] = off > e.shock/e.hyst
	case m > e.slowF[s] && e.sideR[s].n < shockCalls:
		e.priorOn[s] = false
	default:
		e.priorOn[s] = off > e.shock
	}
}

// add folds a call of side s in bucket k that ran obs× its profile into
// the bucket's estimate and the side's prior; it returns the buckets
// whose estimate for s moved with the prior. Once the bucket's estimate
// is trusted, a single call beyond ShockRatio of it is held out: it
// enters with the next call there only if that one is off the same way
// (TestOutlierHeldOutOfTrustedEstimate).
func (e *estimator) add(s, k int, obs float64) (priorMoved uint64) {
	b := e.buckets[k]
	if int(b.cnt[s]) >= e.minCalls {
		r := obs / b.q[s]
		far := 0
		if r > e.shock {
			far = 1
		} else if r < 1/e.shock {
			far = -1
		}
		held := b.held[s]
		b.held[s] = 0
		if far != 0 {
			hr := held / b.q[s]
			if held == 0 || (far > 0) != (hr > 1) {
				b.held[s] = obs
				b.cnt[s]++
				return 0
			}
			b.obs[s].add(held)
		}
	}
	b.obs[s].add(obs)
	if int(b.obs[s].n) >= e.minCalls {
		b.q[s] = b.obs[s].median()
		e.young[s] &^= 1 << k
	}
	old := e.prior(s)
	e.sideR[s].add(obs)
	e.updatePrior(s)
	if p := e.prior(s); e.young[s] != 0 && p != old {
		for y := e.young[s]; y != 0; y &= y - 1 {
			kk := bits.TrailingZeros64(y)
			if bb := e.buckets[kk]; bb != nil && int(bb.obs[s].n) < e.minCalls {
				bb.q[s] = p
				priorMoved |= 1 << kk
			}
		}
	}
	if b.cnt[s] >= ringSize {
		e.filling[s] &^= 1 << k
	}
	b.cnt[s]++
	return priorMoved
}

// trusted reports whether side s has MinCalls calls in bucket b.
func (e *estimator) trusted(b *bucket, s int) bool { return int(b.cnt[s]) >= e.minCalls }

// slowed reports whether side s was found slower and has not recovered.
func (e *estimator) slowed(s int) bool { return e.slowF[s] > 1.0001 }
