package hostsimd

// Portable Go kernels, compiled on every architecture. They are the
// Generic level and the reference the SIMD levels are tested against.
// Each uses several accumulators so the loop is not one long dependency
// chain.

func genericKernels() *kernels {
	return &kernels{
		level:      Generic,
		dot:        dotGeneric,
		l2:         l2Generic,
		dotNorm:    dotNormGeneric,
		dot3:       dot3Generic,
		dotNormF16: dotNormF16Generic,
		dotBatch4:  dotBatch4Generic,
		sum:        sumGeneric,
		fillNT:     fillGeneric,
		copyNT:     func(dst, src []float32) { copy(dst, src) },
		triadNT:    triadGeneric,
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
		x0, x1 := F16ToF32(b[i]), F16ToF32(b[i+1])
		p0 += a[i] * x0
		p1 += a[i+1] * x1
		n0 += x0 * x0
		n1 += x1 * x1
	}
	for ; i < len(a); i++ {
		x := F16ToF32(b[i])
		p0 += a[i] * x
		n0 += x * x
	}
	return p0 + p1, n0 + n1
}

// dotBatch4Generic blocks 4 queries x 1 row so each row element is loaded
// once for four products.
func dotBatch4Generic(q, v []float32, d, n int, out []float32, ldo int) {
	q0, q1, q2, q3 := q[:d], q[d:2*d], q[2*d:3*d], q[3*d:4*d]
	for i := 0; i < n; i++ {
		row := v[i*d : (i+1)*d]
		var s0, s1, s2, s3 float32
		for k, x := range row {
			s0 += q0[k] * x
			s1 += q1[k] * x
			s2 += q2[k] * x
			s3 += q3[k] * x
		}
		out[i] = s0
		out[ldo+i] = s1
		out[2*ldo+i] = s2
		out[3*ldo+i] = s3
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

// fmaPeakGeneric runs 8 independent scalar multiply-add chains.
func fmaPeakGeneric(iters int, m, c float32) float32 {
	x0, x1, x2, x3, x4, x5, x6, x7 := c, c, c, c, c, c, c, c
	for ; iters > 0; iters-- {
		x0 = x0*m + c
		x1 = x1*m + c
		x2 = x2*m + c
		x3 = x3*m + c
		x4 = x4*m + c
		x5 = x5*m + c
		x6 = x6*m + c
		x7 = x7*m + c
	}
	return ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
}
