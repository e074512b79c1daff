package hostsimd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// These tests call the cosTile8 kernels of the levels that have one
// directly, on every tail shape: n%3 (3-row blocks plus a 2- or 1-row
// rest), d below, at and past multiples of 16 and 32 (the two-step loop,
// the single step and the masked tail), ldo > n, with and without the
// fused row norms and the prefetch pointer. Every element of out outside
// the n×8 result and every iv element past n must stay untouched.

const ctEps = 1.0 / (1 << 23)

// ctRef returns q·v in float64 and Σ|q_k v_k|.
func ctRef(q, v []float32) (dot, abs float64) {
	for i := range q {
		p := float64(q[i]) * float64(v[i])
		dot += p
		abs += math.Abs(p)
	}
	return dot, abs
}

func ctInvNorm(v []float32) float32 {
	ss, _ := ctRef(v, v)
	return invNorm(float32(ss))
}

func ctClamp(c float64) float64 { return math.Max(-1, math.Min(1, c)) }

func ctVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

func TestCosTile8Shapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	sentinel := float32(-7.25)
	for _, l := range Available() {
		k := tables[l]
		if k.cosTile8 == nil {
			continue
		}
		for _, d := range []int{1, 3, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 129, 768, 769} {
			for n := 0; n <= 14; n++ {
				for _, norms := range []bool{false, true} {
					for _, prefetch := range []bool{false, true} {
						qs := ctVec(rng, 8*d)
						v := ctVec(rng, n*d)
						copy(qs[5*d:6*d], make([]float32, d)) // a zero query
						if n > 4 {
							copy(v[4*d:5*d], make([]float32, d)) // a zero row
						}
						iq := make([]float32, 8)
						for j := range iq {
							iq[j] = ctInvNorm(qs[j*d : (j+1)*d])
						}
						g := batchGroups(k, qs, d, iq)[0]
						if g.m != 8 {
							t.Fatalf("%v: group of %d for 8 queries", l, g.m)
						}
						ivBuf := make([]float32, n+2)
						for i := range ivBuf {
							ivBuf[i] = sentinel
						}
						iv := ivBuf[:n]
						want := make([]float32, n)
						for i := range want {
							want[i] = ctInvNorm(v[i*d : (i+1)*d])
						}
						if !norms {
							copy(iv, want)
						}
						ldo := n + 3
						out := make([]float32, 8*ldo+2)
						for i := range out {
							out[i] = sentinel
						}
						var pf []float32
						pfs := 0
						if prefetch {
							pf = make([]float32, 4096)
							pfs = 64
						}
						k.cosTile8(g.packed, v, d, n, out, ldo, g.iqs, iv, norms, pf, pfs)
						for i := n; i < len(ivBuf); i++ {
							if ivBuf[i] != sentinel {
								t.Fatalf("%v d=%d n=%d norms=%v: iv[%d] written", l, d, n, norms, i)
							}
						}
						for i := range n {
							if diff := math.Abs(float64(iv[i] - want[i])); diff > 4*float64(d)*ctEps*float64(want[i]) {
								t.Fatalf("%v d=%d n=%d norms=%v: iv[%d]=%v want %v", l, d, n, norms, i, iv[i], want[i])
							}
						}
						for p, got := range out {
							j, i := p/ldo, p%ldo
							if j >= 8 || i >= n {
								if got != sentinel {
									t.Fatalf("%v d=%d n=%d: out[%d] (outside the result) = %v", l, d, n, p, got)
								}
								continue
							}
							dot, abs := ctRef(qs[j*d:(j+1)*d], v[i*d:(i+1)*d])
							s := float64(iq[j]) * float64(want[i])
							w := ctClamp(dot * s)
							tol := (2*float64(d)*ctEps*abs+1e-30)*s + 8*ctEps
							if math.Abs(float64(got)-w) > tol || got > 1 || got < -1 {
								t.Fatalf("%v d=%d n=%d norms=%v pf=%v: [%d,%d]=%v want %v (tol %g)", l, d, n, norms, prefetch, j, i, got, w, tol)
							}
							if (j == 5 || (n > 4 && i == 4)) && got != 0 {
								t.Fatalf("%v d=%d n=%d: zero vector gave [%d,%d]=%v", l, d, n, j, i, got)
							}
						}
					}
				}
			}
		}
	}
}

// TestCosTile8Special checks NaN propagation (a NaN row or query gives
// NaN, nothing else does) and the clamp on parallel and anti-parallel
// vectors, whose float32 cosines can round past ±1.
func TestCosTile8Special(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	nan := float32(math.NaN())
	for _, l := range Available() {
		k := tables[l]
		if k.cosTile8 == nil {
			continue
		}
		for _, d := range []int{7, 16, 45, 768} {
			for _, n := range []int{1, 2, 3, 5, 7, 9} {
				for _, norms := range []bool{false, true} {
					v := ctVec(rng, n*d)
					qs := make([]float32, 8*d)
					// Queries 0-3 are ±3 × row 0, query 4 holds a NaN, the
					// rest are random.
					for e := 0; e < d; e++ {
						qs[e] = 3 * v[e]
						qs[d+e] = -3 * v[e]
						qs[2*d+e] = 0.5 * v[e]
						qs[3*d+e] = -7 * v[e]
					}
					copy(qs[5*d:], ctVec(rng, 3*d))
					copy(qs[4*d:5*d], ctVec(rng, d))
					qs[4*d+d/2] = nan
					nanRow := n - 1
					v[nanRow*d+d/3] = nan
					iq := make([]float32, 8)
					for j := range iq {
						iq[j] = ctInvNorm(qs[j*d : (j+1)*d])
					}
					iv := make([]float32, n)
					for i := range iv {
						iv[i] = ctInvNorm(v[i*d : (i+1)*d])
					}
					if norms {
						clear(iv)
					}
					g := batchGroups(k, qs, d, iq)[0]
					out := make([]float32, 8*n)
					k.cosTile8(g.packed, v, d, n, out, n, g.iqs, iv, norms, nil, 0)
					for j := 0; j < 8; j++ {
						for i := 0; i < n; i++ {
							got := out[j*n+i]
							isNaN := got != got
							if isNaN != (j == 4 || i == nanRow) {
								t.Fatalf("%v d=%d n=%d norms=%v: [%d,%d]=%v", l, d, n, norms, j, i, got)
							}
							if isNaN {
								continue
							}
							if got > 1 || got < -1 {
								t.Fatalf("%v d=%d n=%d: [%d,%d]=%v outside [-1,1]", l, d, n, j, i, got)
							}
							if i == 0 && j < 4 && nanRow != 0 {
								want := float32(1)
								if j%2 == 1 {
									want = -1
								}
								if math.Abs(float64(got-want)) > 1e-5 {
									t.Fatalf("%v d=%d n=%d: parallel [%d,0]=%v want %v", l, d, n, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}
