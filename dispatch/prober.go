package dispatch

import "math"

// prober decides when a side not in use is probed and charges the probes'
// extra time to their budgets: the ordinary budget (ProbeShare of the time
// spent) and, per side found slower, its recovery budget (RecoveryShare of
// the time spent since). A probe is charged its time over the estimate of
// the side it replaced, counting the call at most tailClip times its own
// estimate (a wake-up call: at most the larger of that and the side's
// median wake-up), so one preempted call stops the probes for a bounded
// time while a side that often stalls pays for it (TestProbeChargeCapped).
type prober struct {
	every           int
	share, recShare float64
	last            int     // the latest probe's call (a probe pair's first)
	x               float64 // extra seconds charged to the ordinary probes
	// ok counts the probes since the last change of the routing that
	// confirmed it: the longer the routing holds, the fewer probes (gap).
	ok int
	// follow is the side the next call continues a probe on (-1: none):
	// a probe of an idle side is two calls, the first paying its wake-up.
	follow int
	cursor int // round-robin over the sides ordinary probes go to
	// Per side: the recovery probes' extra time since it was found
	// slower, the time spent then, the call then, the call that found it
	// recovered, and its probes' wake-up calls (time over estimate).
	recX, slowAt          []float64
	slowCall, recoveredAt []int
	wakeR                 []ring
}

func newProber(sides int, cfg Config) *prober {
	return &prober{every: cfg.ProbeEvery, share: cfg.ProbeShare, recShare: cfg.RecoveryShare, last: -cfg.ProbeEvery, follow: -1,
		recX: make([]float64, sides), slowAt: make([]float64, sides), slowCall: make([]int, sides), recoveredAt: make([]int, sides), wakeR: make([]ring, sides)}
}

// probeSteady is the number of probes in a row that confirm the routing
// after which probes come half as often; as many again halve it again
// (TestProbesBackOffWhileRoutingHolds).
const probeSteady = 4

// gap is the fewest calls between two ordinary probes.
func (p *prober) gap() int { return p.every << min(p.ok/probeSteady, 2) }

// recoveryPatience and maxRecoveryGap shape the recovery probes' gap: the
// longer a slow-down has lasted, the less likely it ends in the next
// calls (TestLastingSlowDownProbedLess).
const (
	recoveryPatience = 64
	maxRecoveryGap   = 256
)

// recoveryGap is the fewest calls between two probes of side s, found
// slower at slowCall: 2 at first and while a recovery is suspected, then
// one recoveryPatience-th of the calls since, at most maxRecoveryGap.
func (p *prober) recoveryGap(s, calls int, suspect bool) int {
	g := min(p.every, 2)
	if suspect {
		return g
	}
	return min(max(g, (calls-p.slowCall[s])/recoveryPatience), maxRecoveryGap)
}

// recoveryFits reports whether a recovery probe of side s predicted to
// cost extra seconds fits its budget, spent seconds having been spent.
func (p *prober) recoveryFits(s int, extra, spent float64) bool {
	return p.recX[s]+extra <= p.recShare*(spent-p.slowAt[s])
}

// deficit is how far an ordinary probe predicted to cost extra seconds is
// over the budget (≤ 0: within it).
func (p *prober) deficit(extra, spent float64) float64 { return p.x + extra - p.share*spent }

// foundSlower starts side s's recovery budget.
func (p *prober) foundSlower(s, calls int, spent float64) {
	p.slowAt[s], p.recX[s], p.slowCall[s] = spent, 0, calls
}

// charge charges a probe of side s that took took seconds, whose own
// estimate was ownEst and the replaced side's otherEst, counting the call
// at most tailClip times its estimate, as a call counts in the side's
// tail: a side whose calls often stall pays for them, and one preempted
// call spends the budget for a bounded time; recovery: charged to the
// side's recovery budget.
func (p *prober) charge(s int, took, ownEst, otherEst float64, wake, recovery bool) {
	limit := float64(tailClip)
	if wake {
		p.wakeR[s].add(took / ownEst)
		limit = math.Max(limit, p.wakeR[s].median())
	}
	x := math.Max(0, math.Min(took, limit*ownEst)-otherEst)
	if recovery {
		p.recX[s] += x
	} else {
		p.x += x
	}
}

// confirmed counts a probe that left the routing as it was.
func (p *prober) confirmed() { p.ok = min(p.ok+1, 1<<20) }
