package dispatch

import "time"

// sampler decides which of a side's calls are observed (enter the
// estimates and the shock window). While a side runs as estimated, one in
// sampleEvery of its calls is, one in twice and four times that once the
// routing held for ringSize and twice ringSize sampled calls; a probe, a
// wake-up and a call in a bucket whose ring is not full always are; and
// after offRun calls in a row off their estimate by ShockRatio the next
// one is, so a slow-down is observed from its third call
// (TestSwitchesOnSlowdownAndRecovers).
type sampler struct {
	skip []int // calls left before the side's next sampled one
	off  []int // the side's latest unobserved calls in a row off their estimate
	ok   []int // sampled calls since the routing last changed
}

const (
	sampleEvery = 16
	offRun      = 2
)

func newSampler(sides int) *sampler {
	return &sampler{skip: make([]int, sides), off: make([]int, sides), ok: make([]int, sides)}
}

// gap is the number of side s's calls per sampled one.
func (sp *sampler) gap(s int) int { return sampleEvery << min(sp.ok[s]/ringSize, 2) }

// observed resets side s's count after an observed call whose ratio to
// its estimate was r; full: the side's shock window is full. A call off
// its estimate, or a window not full, has the next call observed too.
func (sp *sampler) observed(s int, r, shock float64, full bool) {
	sp.skip[s], sp.off[s] = sp.gap(s)-1, 0
	if !full || r > shock || r < 1/shock {
		sp.skip[s] = 0
	}
}

// unobserved counts a call of side s that was not observed and ran in
// took against the bounds [lo, hi] of its estimate; slowed: the side is
// found slower, when one call off is enough (it may be recovering).
func (sp *sampler) unobserved(s int, took, lo, hi time.Duration, slowed bool) {
	if took < lo || took > hi {
		if sp.off[s]++; sp.off[s] >= offRun || slowed {
			sp.skip[s] = 0
		}
	} else {
		sp.off[s] = 0
	}
}

// steady counts a sampled call of side s that left the routing as it was.
func (sp *sampler) steady(s int) { sp.ok[s] = min(sp.ok[s]+1, 1<<20) }

// unsteady restarts sampling at the full rate.
func (sp *sampler) unsteady() { clear(sp.ok) }
