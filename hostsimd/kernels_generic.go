package hostsimd

import "github.com/wgpu-prof/wgpu-prof/ops"

// Portable Go kernels, compiled on every architecture. They are the
// Generic level and the reference the SIMD levels are tested against.
// Each uses several accumulators so the loop is not one long dependency
// chain.

func genericKernels() *kernelTable {
	return &kernelTable{
		level:      Generic,
		dot:        dotGeneric,
		l2:         l2Generic,
		dotNorm:    dotNormGeneric,
		dot3:       dot3Generic,
		dotNormF16: dotNormF16Generic,
		dotTile4:   dotTile4Generic,
		tileW:      genericTileW,
		sum:        sumGeneric,
		fillNT:     fillGeneric,
		copyNT:     func(dst, src []float32) { copy(dst, src) },
		triadNT:    triadGeneric,
		scaleNT:    scaleGeneric,
		addNT:      addGeneric,
		fmaPeak:    fmaPeakGeneric,
		fmaLanes:   8,
		ntAlign:    1,
		ntBlock:    8,
	}
}

func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func l2Generic(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 := a[i] - b[i]
		d1 := a[i+1] - b[i+1]
		d2 := a[i+2] - b[i+2]
		d3 := a[i+3] - b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

func dotNormGeneric(a, b []float32) (ab, bb float32) {
	b = b[:len(a)]
	var p0, p1, n0, n1 float32
	i := 0
	for ; i+2 <= len(a); i += 2 {
		x0, x1 := b[i], b[i+1]
		p0 += a[i] * x0
		p1 += a[i+1] * x1
		n0 += x0 * x0
		n1 += x1 * x1
	}
	for ; i < len(a); i++ {
		x := b[i]
		p0 += a[i] * x
		n0 += x * x
	}
	return p0 + p1, n0 + n1
}

func dot3Generic(a, b []float32) (ab, aa, bb float32) {
	b = b[:len(a)]
	for i, x := range a {
		y := b[i]
		ab += x * y
		aa += x * x
		bb += y * y
	}
	return
}

func dotNormF16Generic(a []float32, b []uint16) (ab, bb float32) {
	b = b[:len(a)]
	var p0, p1, n0, n1 float32
	i := 0
	for ; i+2 <= len(a); i += 2 {
		x0, x1 := ops.F16ToF32(b[i]), ops.F16ToF32(b[i+1])
		p0 += a[i] * x0
		p1 += a[i+1] * x1
		n0 += x0 * x0
		n1 += x1 * x1
	}
	for ; i < len(a); i++ {
		x := ops.F16ToF32(b[i])
		p0 += a[i] * x
		n0 += x * x
	}
	return p0 + p1, n0 + n1
}

const genericTileW = 8

// packQueries4 packs 4 queries of length d (q, len 4*d) for dotTile4: for
// each chunk c of w elements the 4 queries' chunks follow each other,
// p[(c*4+j)*w+l] = q[j*d+c*w+l], and the last chunk is zero-padded.
func packQueries4(q []float32, d, w int) []float32 {
	nc := (d + w - 1) / w
	p := make([]float32, nc*4*w)
	for j := 0; j < 4; j++ {
		for e := 0; e < d; e++ {
			c, l := e/w, e%w
			p[(c*4+j)*w+l] = q[j*d+e]
		}
	}
	return p
}

// dotTile4Generic blocks 4 queries x 1 row so each row element is loaded
// once for four products; q is packed with width genericTileW.
func dotTile4Generic(q, v []float32, d, n int, out []float32) {
	const w = genericTileW
	for i := 0; i < n; i++ {
		row := v[i*d : (i+1)*d]
		var s0, s1, s2, s3 float32
		for c := 0; c*w < d; c++ {
			qc := q[c*4*w : (c+1)*4*w]
			seg := row[c*w : min((c+1)*w, d)]
			for l, x := range seg {
				s0 += qc[l] * x
				s1 += qc[w+l] * x
				s2 += qc[2*w+l] * x
				s3 += qc[3*w+l] * x
			}
		}
		o := out[i*4 : i*4+4]
		o[0], o[1], o[2], o[3] = s0, s1, s2, s3
	}
}

func sumGeneric(a []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i]
		s1 += a[i+1]
		s2 += a[i+2]
		s3 += a[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func fillGeneric(p []float32, v float32) {
	for i := range p {
		p[i] = v
	}
}

func triadGeneric(a, b, c []float32, s float32) {
	b = b[:len(a)]
	c = c[:len(a)]
	for i := range a {
		a[i] = b[i] + s*c[i]
	}
}

// fmaPeakGeneric runs 8 independent scalar multiply-add chains from c.
func fmaPeakGeneric(iters int, m, c float32) float32 { return madd8(iters, c, m, c) }

// madd8 runs 8 independent multiply-add chains x ← x·m + c for iters
// rounds and returns their sum, which is that of 8 chains started at x0.
// The chains start apart (x0 + k·c, k = ±1…±4): chains that start equal
// are one value to the compiler, which keeps a single chain. Each type
// gets its own instantiation (float32 and int32 differ in shape), so the
// loop holds the type's own 8 multiply-adds, as a loop written for it.
func madd8[T float32 | int32](iters int, x0, m, c T) T {
	x1, x2, x3, x4, x5, x6, x7, x8 := x0+c, x0-c, x0+2*c, x0-2*c, x0+3*c, x0-3*c, x0+4*c, x0-4*c
	for ; iters > 0; iters-- {
		x1 = x1*m + c
		x2 = x2*m + c
		x3 = x3*m + c
		x4 = x4*m + c
		x5 = x5*m + c
		x6 = x6*m + c
		x7 = x7*m + c
		x8 = x8*m + c
	}
	return ((x1 + x2) + (x3 + x4)) + ((x5 + x6) + (x7 + x8))
}

// scaleGeneric sets dst[i] = s*src[i] (BabelStream's Mul).
func scaleGeneric(dst, src []float32, s float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = s * src[i]
	}
}

// addGeneric sets c[i] = a[i] + b[i] (BabelStream's Add).
func addGeneric(c, a, b []float32) {
	a, b = a[:len(c)], b[:len(c)]
	for i := range c {
		c[i] = a[i] + b[i]
	}
}
