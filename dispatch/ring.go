package dispatch

import (
	"math"
	"slices"
)

// ring keeps the last ringSize values in arrival order and sorted, so
// its median costs no sort per call. Its median is robust to the
// outliers a shared machine produces (a preempted call). Values are
// ratios, kept as the upper half of their float32 (8 bits of mantissa),
// which orders positive values as the floats do (TestRingSortedCopy).
type ring struct {
	n, i uint8
	v, s [ringSize]uint16 // v: arrival order (v[:n] when not full); s[:n] sorted
}

const ringSize = 25

// enc and dec convert a ratio (≥ 0) to the ring's 16 bits and back.
func enc(x float64) uint16 {
	b := math.Float32bits(float32(x))
	if b < 0x7f7f8000 {
		b += 0x8000 // round to nearest (not into the infinities)
	}
	return uint16(b >> 16)
}

func dec(u uint16) float64 { return float64(math.Float32frombits(uint32(u) << 16)) }

func (r *ring) add(x64 float64) {
	x := enc(x64)
	old, full := r.v[r.i], r.n == ringSize
	r.v[r.i] = x
	r.i = (r.i + 1) % ringSize
	if !full {
		j := r.n
		for j > 0 && r.s[j-1] > x {
			r.s[j] = r.s[j-1]
			j--
		}
		r.s[j] = x
		r.n++
		return
	}
	// Replace the oldest value in the sorted copy: find it (binary
	// search), then slide it to x's place.
	s := r.s[:r.n]
	lo, hi := 0, len(s)
	for lo < hi {
		if h := (lo + hi) / 2; s[h] < old {
			lo = h + 1
		} else {
			hi = h
		}
	}
	p := min(lo, len(s)-1)
	if x >= old {
		for p+1 < len(s) && s[p+1] < x {
			s[p] = s[p+1]
			p++
		}
	} else {
		for p > 0 && s[p-1] > x {
			s[p] = s[p-1]
			p--
		}
	}
	s[p] = x
}

func (r *ring) median() float64 {
	if r.n%2 == 1 {
		return dec(r.s[r.n/2])
	}
	return (dec(r.s[r.n/2-1]) + dec(r.s[r.n/2])) / 2
}

// scale multiplies every value by f > 0 (the order is kept: enc is
// monotone).
func (r *ring) scale(f float64) {
	for j := range r.v {
		// Every slot: after dropNewest a ring's values need not be v[:n].
		r.v[j] = enc(dec(r.v[j]) * f)
	}
	for j := range r.n {
		r.s[j] = enc(dec(r.s[j]) * f)
	}
}

// dropNewest removes the value added last (none: no-op). The next add
// takes its slot, so the arrival order stays a circle from r.i.
func (r *ring) dropNewest() {
	if r.n == 0 {
		return
	}
	j := (int(r.i) + ringSize - 1) % ringSize
	x := r.v[j]
	s := r.s[:r.n]
	p := slices.Index(s, x)
	if p < 0 {
		return // not reached: every value of v in use is in s
	}
	copy(s[p:], s[p+1:])
	r.n--
	r.i = uint8(j)
}
