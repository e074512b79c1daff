package hostsimd

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// GatherF16 is Gather with the rows stored as IEEE binary16 bits (see
// ops.F32ToF16); the queries stay float32. Each pair reads its row once
// through the level's f16 kernel (dotNormF16: a·v and v·v, halves widened
// in registers, float32 sums): the inner product is a·v, the cosine
// a·v/(‖a‖·‖v‖) and L2² ‖a‖² + v·v − 2a·v in float64 (‖a‖² in float64
// per query), never below 0.
func (h Host) GatherF16(q []float32, v []uint16, d int, ids []int32, metric ops.Metric, out []float32) error {
	const fn = "GatherF16"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	nq, c, err := gatherArgs(fn, len(q), n, d, ids, metric, len(out))
	if err != nil || nq == 0 {
		return err
	}
	k := r.f16Table()
	scaled, qq := make([][]float32, nq), make([]float32, nq)
	sq := make([]float64, nq)
	for j := range nq {
		row := q[j*d : (j+1)*d]
		scaled[j], qq[j] = scaleQuery(k, row)
		for _, x := range row {
			sq[j] += float64(x) * float64(x)
		}
	}
	r.parallelFor(len(ids), d, rowGrain(d), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			j, id := p/c, int(ids[p])
			row := v[id*d : (id+1)*d]
			if metric == ops.Cosine {
				ab, vv := k.dotNormF16(scaled[j], row)
				out[p] = cosineFinish(ab, qq[j], vv)
				if vv != 0 && vv < normLo {
					out[p] = cosineF16x64(scaled[j], row)
				}
				continue
			}
			ab, vv := k.dotNormF16(q[j*d:(j+1)*d], row)
			if metric == ops.InnerProduct {
				out[p] = ab
			} else {
				out[p] = float32(max(0, sq[j]+float64(vv)-2*float64(ab)))
			}
		}
	})
	return nil
}

// int8Pair is the exact integer sums of one (query, row) pair of int8
// codes: q·v, v·v and q·q.
type int8Pair struct{ dot, vv, qq int64 }

// Int8Metric is the metric of two int8-quantized vectors (codes qc, vc
// with scales sq, sv: x ≈ s·c) from the exact integer sums of their codes,
// in float64: sq·sv·q·v (inner product), sq²·q·q + sv²·v·v − 2·sq·sv·q·v
// (L2², never below 0) or q·v/√(q·q·v·v) (cosine; 0 when a norm is 0).
// It is the integer reference of GatherInt8: the kernel's result is this
// value rounded to float32.
func Int8Metric(metric ops.Metric, dot, vv, qq int64, sq, sv float32) float64 {
	a, b := float64(sq), float64(sv)
	switch metric {
	case ops.InnerProduct:
		return a * b * float64(dot)
	case ops.L2Sq:
		return max(0, a*a*float64(qq)+b*b*float64(vv)-2*a*b*float64(dot))
	}
	den := math.Sqrt(float64(qq)) * math.Sqrt(float64(vv))
	if den == 0 {
		return 0
	}
	return float64(dot) / den
}

// GatherInt8 is Gather with the rows stored as int8 codes with one scale
// per row (QuantizeInt8's rule; scales[i] for row i). Each query is
// quantized by the same rule; each pair's q·v and v·v are summed exactly in
// int32 by the level's int8 kernel, and out = float32(Int8Metric(...)).
// d ≤ MaxInt8Dim.
func (h Host) GatherInt8(q []float32, codes []int8, scales []float32, d int, ids []int32, metric ops.Metric, out []float32) error {
	const fn = "GatherInt8"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	if d > MaxInt8Dim {
		return fmt.Errorf("hostsimd: %s: d=%d exceeds %d (the int32 sums' exact range)", fn, d, MaxInt8Dim)
	}
	n, err := rowCount(fn, "codes", len(codes), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "scales", len(scales), n); err != nil {
		return err
	}
	nq, c, err := gatherArgs(fn, len(q), n, d, ids, metric, len(out))
	if err != nil || nq == 0 {
		return err
	}
	qs, err := quantizeQueries(fn, q, d, nq)
	if err != nil {
		return err
	}
	k := quantFor(r.int8Level())
	r.parallelFor(len(ids), d, rowGrain(d), func(lo, hi int) {
		var dot, ss [1]int32
		for p := lo; p < hi; p++ {
			j, id := p/c, int(ids[p])
			k.dots(qs[j].q, codes[id*d:(id+1)*d], 1, dot[:], ss[:])
			out[p] = float32(Int8Metric(metric, int64(dot[0]), int64(ss[0]), qs[j].qq, qs[j].scale, scales[id]))
		}
	})
	return nil
}

// int8Q is one query quantized for the int8 kernels: its codes, ‖codes‖²
// and scale.
type int8Q struct {
	q     *int8Query
	qq    int64
	scale float32
}

// quantizeQueries quantizes the nq queries of q (rows of d) by
// QuantizeInt8's rule.
func quantizeQueries(fn string, q []float32, d, nq int) ([]int8Q, error) {
	out := make([]int8Q, nq)
	for j := range out {
		c := make([]int8, d)
		s, err := quantizeRow(q[j*d:(j+1)*d], c)
		if err != nil {
			return nil, fmt.Errorf("hostsimd: %s: q[%d]: %w", fn, j*d+s.bad, err)
		}
		var qq int64
		for _, x := range c {
			qq += int64(x) * int64(x)
		}
		out[j] = int8Q{q: newInt8Query(c), qq: qq, scale: s.scale}
	}
	return out, nil
}

// CosineBatchF16 writes out[j*n+i] = cos(q_j, v_i) for the len(qs)/d
// float32 queries and the n = len(v)/d rows of binary16 bits, each as
// CosineSingleF16 computes it. Blocks of rows stay in cache while every
// query runs over them, so the rows stream from memory once.
func (h Host) CosineBatchF16(qs []float32, v []uint16, d int, out []float32) error {
	const fn = "CosineBatchF16"
	r, err := h.resolve()
	if err != nil {
		return err
	}
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
	k := r.f16Table()
	scaled, qq := make([][]float32, nq), make([]float32, nq)
	for j := range nq {
		scaled[j], qq[j] = scaleQuery(k, qs[j*d:(j+1)*d])
	}
	block := max(1, batchBlockBytes/(2*d))
	r.parallelRows(n, 2*d*max(nq, 1), func(lo, hi int) {
		for i0 := lo; i0 < hi; i0 += block {
			i1 := min(hi, i0+block)
			for j := range nq {
				for i := i0; i < i1; i++ {
					row := v[i*d : (i+1)*d]
					ab, vv := k.dotNormF16(scaled[j], row)
					out[j*n+i] = cosineFinish(ab, qq[j], vv)
					if vv != 0 && vv < normLo {
						out[j*n+i] = cosineF16x64(scaled[j], row)
					}
				}
			}
		}
	})
	return nil
}
