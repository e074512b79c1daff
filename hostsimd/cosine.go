package hostsimd

import (
	"fmt"
	"math"
	"slices"
)

// rowCount checks that a length-n buffer holds whole rows of d elements.
func rowCount(fn, name string, n, d int) (int, error) {
	if d <= 0 {
		return 0, fmt.Errorf("hostsimd.%s: d must be positive, got d=%d", fn, d)
	}
	if n%d != 0 {
		return 0, fmt.Errorf("hostsimd.%s: len(%s)=%d is not a multiple of d=%d", fn, name, n, d)
	}
	return n / d, nil
}

func checkLen(fn, name string, got, want int) error {
	if got < want {
		return fmt.Errorf("hostsimd.%s: len(%s)=%d, need at least %d", fn, name, got, want)
	}
	return nil
}

func checkQuery(fn string, q []float32, d int) error {
	if d <= 0 {
		return fmt.Errorf("hostsimd.%s: d must be positive, got d=%d", fn, d)
	}
	if len(q) != d {
		return fmt.Errorf("hostsimd.%s: len(q)=%d, want d=%d", fn, len(q), d)
	}
	return nil
}

// rowGrain is the smallest number of rows of width d worth a task.
func rowGrain(d int) int { return max(1, 8192/d) }

// CosineSingle writes out[i] = cosine(q, v_i) for the N = len(v)/d rows
// v_i = v[i*d:(i+1)*d] (row-major, contiguous). ‖q‖ is computed once; each
// row is read once, fusing q·v_i and ‖v_i‖² in one pass. Zero vectors give
// 0 and NaN inputs NaN, as in Cosine. It returns an error for d <= 0,
// len(q) != d, len(v)%d != 0 or len(out) < N.
func CosineSingle(q, v []float32, d int, out []float32) error {
	const fn = "CosineSingle"
	if err := checkQuery(fn, q, d); err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := cur()
	qq := k.dot(q, q)
	parallelFor(n, d, rowGrain(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ab, vv := k.dotNorm(q, v[i*d:(i+1)*d])
			out[i] = cosineFinish(ab, qq, vv)
		}
	})
	return nil
}

// CosineSingleNorms is CosineSingle with precomputed row norms:
// norms[i] = ‖v_i‖ (not squared), e.g. from RowNorms. Each row then only
// needs q·v_i.
func CosineSingleNorms(q, v []float32, d int, norms, out []float32) error {
	const fn = "CosineSingleNorms"
	if err := checkQuery(fn, q, d); err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "norms", len(norms), n); err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := cur()
	qn := float32(math.Sqrt(float64(k.dot(q, q))))
	parallelFor(n, d, rowGrain(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = cosineNorms(k.dot(q, v[i*d:(i+1)*d]), qn, norms[i])
		}
	})
	return nil
}

// RowNorms writes out[i] = ‖v_i‖ for the len(v)/d rows of v.
func RowNorms(v []float32, d int, out []float32) error {
	const fn = "RowNorms"
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := cur()
	parallelFor(n, d, rowGrain(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := v[i*d : (i+1)*d]
			out[i] = float32(math.Sqrt(float64(k.dot(r, r))))
		}
	})
	return nil
}

// CosineSingleF16 is CosineSingle with rows stored as IEEE binary16 bits
// (see F32ToF16). Halves are widened in registers (F16C VCVTPH2PS on the
// AVX2 and AVX512 levels, F16ToF32 on Generic); products and sums are
// float32.
func CosineSingleF16(q []float32, v []uint16, d int, out []float32) error {
	const fn = "CosineSingleF16"
	if err := checkQuery(fn, q, d); err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := cur()
	qq := k.dot(q, q)
	parallelFor(n, d/2, rowGrain(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ab, vv := k.dotNormF16(q, v[i*d:(i+1)*d])
			out[i] = cosineFinish(ab, qq, vv)
		}
	})
	return nil
}

// batchBlockBytes is the size of the block of rows CosineBatch keeps hot
// in cache while a group of queries runs over it.
const batchBlockBytes = 256 << 10

// batchQueryChunk is the number of queries one task runs over a row block.
const batchQueryChunk = 16

// CosineBatch writes the Q×N cosine scores of the Q = len(qs)/d queries
// against the N = len(v)/d rows: out[q*N+i] = cosine(qs_q, v_i). Rows are
// processed in blocks of about 256 KiB that stay in cache while the
// queries run over them; inside a block the kernel is register-blocked 4
// queries × 4 rows on AVX512, 4×2 on AVX2 and 4×1 on Generic, with the
// queries packed so one pointer walks all four. Norms are computed once per query and
// once per row. Zero vectors give 0, NaN inputs NaN, as in Cosine.
func CosineBatch(qs, v []float32, d int, out []float32) error {
	const fn = "CosineBatch"
	nq, err := rowCount(fn, "qs", len(qs), d)
	if err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), nq*n); err != nil {
		return err
	}
	if nq == 0 || n == 0 {
		return nil
	}
	k := cur()
	// Inverse norms (0 for zero vectors, NaN for NaN ones) so that the
	// finishing pass is two multiplies per score. Row norms are computed
	// per block, while the block is being brought into cache anyway.
	iq := make([]float32, nq)
	for j := range iq {
		r := qs[j*d : (j+1)*d]
		iq[j] = invNorm(k.dot(r, r))
	}
	// Queries in groups of 4, packed for the tile kernel; a last partial
	// group is padded with zero queries whose results are dropped.
	ng := (nq + 3) / 4
	packed := make([][]float32, ng)
	for g := range packed {
		grp := qs[4*g*d : min(4*g+4, nq)*d]
		if len(grp) < 4*d {
			grp = append(slices.Clone(grp), make([]float32, 4*d-len(grp))...)
		}
		packed[g] = packQueries4(grp, d, k.tileW)
	}

	rb := max(4, batchBlockBytes/(4*d)) &^ 3
	nb := (n + rb - 1) / rb
	// A task is one row block with a chunk of query groups: all groups
	// when there are enough blocks to keep every thread busy.
	gpc := ng
	if nb < 4*Threads() {
		gpc = min(ng, batchQueryChunk/4)
	}
	nqc := (ng + gpc - 1) / gpc
	parallelFor(nb*nqc, rb*gpc*4*d, 1, func(lo, hi int) {
		tile := make([]float32, 4*rb)
		iv := make([]float32, rb)
		for u := lo; u < hi; u++ {
			b, qc := u/nqc, u%nqc
			r0 := b * rb
			r1 := min(r0+rb, n)
			blk := v[r0*d : r1*d]
			for i := range r1 - r0 {
				r := blk[i*d : (i+1)*d]
				iv[i] = invNorm(k.dot(r, r))
			}
			for g := qc * gpc; g < min((qc+1)*gpc, ng); g++ {
				k.dotTile4(packed[g], blk, d, r1-r0, tile)
				for j := 4 * g; j < min(4*g+4, nq); j++ {
					scaleCosTile(out[j*n+r0:j*n+r1], tile[j-4*g:], iq[j], iv[:r1-r0])
				}
			}
		}
	})
	return nil
}

// invNorm returns 1/sqrt(ss), 0 for ss == 0 and NaN for NaN.
func invNorm(ss float32) float32 {
	if ss == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(float64(ss)))
}

// scaleCosTile turns dot products into cosines:
// o[i] = clamp(tile[4*i]*iq*iv[i]). Zero vectors (inverse norm 0) give 0
// for finite dots; NaN propagates.
func scaleCosTile(o, tile []float32, iq float32, iv []float32) {
	iv = iv[:len(o)]
	for i := range o {
		c := tile[4*i] * iq * iv[i]
		if c > 1 {
			c = 1
		} else if c < -1 {
			c = -1
		}
		o[i] = c
	}
}
