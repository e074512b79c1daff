//go:build !noasm

package hostsimd

// NEON (ASIMD) kernelTable for arm64, written by hand in kernels_arm64.s:
// avo, which generates the amd64 assembly, only targets amd64. Each
// kernel handles any n (vector blocks, then a scalar tail) and unaligned
// pointers. The doc comment of each stub is its reference loop.

// sumNEON returns the sum of a[:n]:
//
//	for i := 0; i < n; i++ { s += a[i] }
//
//go:noescape
func sumNEON(a *float32, n int) float32

// dotNEON returns the dot product of a[:n] and b[:n]:
//
//	for i := 0; i < n; i++ { s += a[i] * b[i] }
//
//go:noescape
func dotNEON(a, b *float32, n int) float32

// l2NEON returns the squared Euclidean distance of a[:n] and b[:n]:
//
//	for i := 0; i < n; i++ { d := a[i] - b[i]; s += d * d }
//
//go:noescape
func l2NEON(a, b *float32, n int) float32

// dotNormNEON returns a·b and b·b over n elements:
//
//	for i := 0; i < n; i++ { ab += a[i] * b[i]; bb += b[i] * b[i] }
//
//go:noescape
func dotNormNEON(a, b *float32, n int) (ab, bb float32)

// dot3NEON returns a·b, a·a and b·b over n elements:
//
//	for i := 0; i < n; i++ { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i] }
//
//go:noescape
func dot3NEON(a, b *float32, n int) (ab, aa, bb float32)

// dotNormF16NEON is dotNormNEON with b holding IEEE half floats, widened
// with FCVTL/FCVTL2 (exact):
//
//	for i := 0; i < n; i++ { x := ops.F16ToF32(b[i]); ab += a[i] * x; bb += x * x }
//
//go:noescape
func dotNormF16NEON(a *float32, b *uint16, n int) (ab, bb float32)

// dotTile4NEON writes out[i*4+j] = q_j·v_i for the 4 queries in q, packed
// in chunks of width 4 (q[(c*4+j)*4+l] is element 4c+l of query j, the
// last chunk zero-padded), and the n rows v_i = v[i*d:(i+1)*d]:
//
//	for i := 0; i < n; i++ { for j := 0; j < 4; j++ {
//		for e := 0; e < d; e++ { out[i*4+j] += q[(e/4*4+j)*4+e%4] * v[i*d+e] } } }
//
// Rows go 4 at a time (16 accumulators: 4 queries × 4 rows), then one at
// a time; the last d%4 elements of each row are loaded lane by lane into
// a zeroed register, so nothing past v[n*d-1] is read.
//
//go:noescape
func dotTile4NEON(q, v *float32, d, n int, out *float32)

// fillNTNEON sets p[:n] to v with STNP (store pair, non-temporal hint).
// n must be a multiple of 16; p needs no alignment.
//
//	for i := 0; i < n; i++ { p[i] = v }
//
//go:noescape
func fillNTNEON(p *float32, n int, v float32)

// copyNTNEON copies src[:n] to dst[:n], storing with STNP. n must be a
// multiple of 16.
//
//	for i := 0; i < n; i++ { dst[i] = src[i] }
//
//go:noescape
func copyNTNEON(dst, src *float32, n int)

// triadNTNEON sets a[i] = b[i] + s*c[i] (one fused multiply-add) for
// i < n, storing with STNP. n must be a multiple of 16.
//
//	for i := 0; i < n; i++ { a[i] = b[i] + s*c[i] }
//
//go:noescape
func triadNTNEON(a, b, c *float32, n int, s float32)

// fmaPeakNEON runs iters rounds of 24 independent 4-lane FMLA chains and
// returns the sum of all 96 lanes (so the work cannot be discarded). FMLA
// accumulates into its destination, so each chain is x = x + m*c rather
// than the x = x*m + c of the AVX kernels: the same one dependent FMA
// per chain per round.
//
//	x := c (96 lanes); for r := 0; r < iters; r++ { x += m * c }
//
//go:noescape
func fmaPeakNEON(iters int, m, c float32) float32
