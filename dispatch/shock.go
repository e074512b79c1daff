package dispatch

import (
	"math/bits"
	"slices"
)

// shockCalls is the number of a side's latest calls that decide a shock:
// all but shockSpare of them must be off their estimates the same way, and
// the side is rescaled by their median.
const (
	shockCalls = 9
	shockSpare = 2
	fastCalls  = 4
	backCalls  = 5
)

// window is the shock detector of one side: its latest ratios of observed
// to estimated time, the last shockCalls and fastCalls of them, and bit
// registers of which ran ShockRatio× slower and faster, so a call costs a
// shift and a store and the ratios are sorted only when a test fires
// (TestWindowTests, TestWindowSlides).
type window struct {
	slow               [shockCalls]float32
	fast               [fastCalls]float32
	slowBits, fastBits uint16
	ns, nf, is, jf     uint8
	// backBits marks which of a slowed side's last nb calls (in buckets
	// with an estimate from before it was found slower) ran within the
	// hysteresis of that estimate: see back.
	backBits uint8
	nb       uint8
}

func b2u(b bool) uint16 {
	if b {
		return 1
	}
	return 0
}

func (w *window) addSlow(r float64, slower bool) {
	w.slow[w.is] = float32(r)
	w.is = (w.is + 1) % shockCalls
	w.ns = min(w.ns+1, shockCalls)
	w.slowBits = (w.slowBits<<1 | b2u(slower)) & (1<<shockCalls - 1)
}

func (w *window) addFast(r float64, faster bool) {
	w.fast[w.jf] = float32(r)
	w.jf = (w.jf + 1) % fastCalls
	w.nf = min(w.nf+1, fastCalls)
	w.fastBits = (w.fastBits<<1 | b2u(faster)) & (1<<fastCalls - 1)
}

// slowDown reports whether all but shockSpare of the last shockCalls
// calls ran slower, and their median.
func (w *window) slowDown() (bool, float64) {
	if int(w.ns) < shockCalls || bits.OnesCount16(w.slowBits) < shockCalls-shockSpare {
		return false, 1
	}
	v := w.slow
	slices.Sort(v[:])
	return true, float64(v[shockCalls/2])
}

// recovery reports whether all but one of the last fastCalls calls ran
// faster, and the third smallest of the last fastCalls ratios (the
// largest of the faster ones when exactly three are).
func (w *window) recovery() (bool, float64) {
	if int(w.nf) < fastCalls || bits.OnesCount16(w.fastBits) < fastCalls-1 {
		return false, 1
	}
	v := w.fast
	slices.Sort(v[:])
	return true, float64(v[fastCalls/2])
}

// addBack records whether a slowed side's call ran as fast as before the
// side was found slower.
func (w *window) addBack(ok bool) {
	w.backBits = w.backBits<<1 | uint8(b2u(ok))
	w.nb = min(w.nb+1, 8)
}

// back reports whether all but one of the last backCalls calls ran as
// fast as before the side was found slower.
func (w *window) back() bool {
	return int(w.nb) >= backCalls && bits.OnesCount8(w.backBits&(1<<backCalls-1)) >= backCalls-1
}
