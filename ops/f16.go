package ops

import "math"

// F16ToF32 converts IEEE 754 binary16 bits to float32. The conversion is
// exact: subnormals become normal float32 values, infinities stay
// infinite and NaNs keep their sign and all 10 payload bits (no quieting),
// so F32ToF16(F16ToF32(h)) == h for every h.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch exp {
	case 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: man * 2^-24, exact in float32.
		f := float32(man) * (1.0 / (1 << 24))
		return math.Float32frombits(sign | math.Float32bits(f))
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// F32ToF16 converts f to IEEE 754 binary16 bits, rounding to nearest with
// ties to even (like VCVTPS2PH with imm8=0). Values too large for half
// become ±Inf, tiny ones become subnormals or ±0. NaNs stay NaN with their
// sign and the top 10 payload bits; if those are all zero the result gets
// payload 0x200 so it is still a NaN. Signalling NaNs are not quieted.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man == 0 {
			return sign | 0x7c00
		}
		m := uint16(man >> 13)
		if m == 0 {
			m = 0x200
		}
		return sign | 0x7c00 | m
	}
	e := exp - 127
	if e > 15 {
		return sign | 0x7c00
	}
	if e >= -14 {
		h := uint32(e+15)<<10 | man>>13
		r := man & 0x1fff
		if r > 0x1000 || (r == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to Inf: correct RNE
		}
		return sign | uint16(h)
	}
	// Result is subnormal or zero: value/2^-24 = full * 2^(e+1).
	full := man
	if exp != 0 {
		full |= 0x800000
	}
	s := uint(-(e + 1))
	if s > 24 {
		return sign
	}
	q := full >> s
	rem := full & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	return sign | uint16(q)
}
