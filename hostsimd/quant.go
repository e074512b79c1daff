package hostsimd

import (
	"fmt"
	"math"
)

//go:generate sh -c "cd _gen && go run ./quant -out ../quant_amd64.s -stubs ../quant_amd64.go -pkg hostsimd"

// Int8 quantization.
//
// The rule is symmetric per-vector (absmax) scaling, as usearch's i8 and
// pgvector-style int8 stores use: each vector x gets one scale
// s = max_k |x_k| / 127 and codes c_k = round(x_k / s) (ties to even),
// which lie in [−127, 127]; x_k ≈ s·c_k. A zero vector has s = 0 and
// zero codes. This is not FAISS's SQ8, which trains one [min, max] range
// per dimension over the whole set (asymmetric, per dimension); the
// per-vector rule needs no training and keeps a vector's direction
// independent of the others.
//
// A cosine does not depend on positive scales, so the cosine of two
// quantized vectors is computed from their codes alone: q·v in int32,
// rescaled by 1/(‖q_c‖·‖v_c‖) in float64. Against the cosine of the float
// vectors it errs by at most 2(‖q − q̂‖/‖q‖ + ‖v − v̂‖/‖v‖) (x̂ = s·c the
// dequantized vector; Int8CosBound), since normalising moves a vector by at
// most twice its relative error.

// MaxInt8Dim is the largest dimension the int8 kernels take: their int32
// sums are exact while d·255·128 < 2³¹.
const MaxInt8Dim = 65536

// QuantizeInt8 quantizes the len(v)/d rows of v (see the rule above):
// codes[i*d+k] and scales[i]. codes must have len(v) elements and scales
// len(v)/d. A value that is not finite is an error naming its index.
func QuantizeInt8(v []float32, d int, codes []int8, scales []float32) error {
	const fn = "QuantizeInt8"
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "codes", len(codes), len(v)); err != nil {
		return err
	}
	if err := checkLen(fn, "scales", len(scales), n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		s, err := quantizeRow(v[i*d:(i+1)*d], codes[i*d:(i+1)*d])
		if err != nil {
			return fmt.Errorf("hostsimd: %s: v[%d]: %w", fn, i*d+s.bad, err)
		}
		scales[i] = s.scale
	}
	return nil
}

type rowScale struct {
	scale float32
	bad   int // index of the value that was not finite
}

// quantizeRow quantizes one vector into c (len(x)).
func quantizeRow(x []float32, c []int8) (rowScale, error) {
	var m float64
	for k, e := range x {
		a := math.Abs(float64(e))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return rowScale{bad: k}, fmt.Errorf("%v is not finite", e)
		}
		m = max(m, a)
	}
	if m == 0 {
		clear(c)
		return rowScale{}, nil
	}
	inv := 127 / m
	for k, e := range x {
		c[k] = int8(max(-127, min(127, math.RoundToEven(float64(e)*inv))))
	}
	return rowScale{scale: float32(m / 127)}, nil
}

// Int8CosBound is the bound above for one pair: how far the cosine of the
// quantized vectors may lie from that of x and y, from their codes and
// scales (the relative errors are computed in float64).
func Int8CosBound(x []float32, xc []int8, xs float32, y []float32, yc []int8, ys float32) float64 {
	return 2 * (int8RelErr(x, xc, xs) + int8RelErr(y, yc, ys))
}

// Int8RelErr is ‖x − s·c‖/‖x‖ (0 for a zero vector, which quantizes
// exactly).
func Int8RelErr(x []float32, c []int8, s float32) float64 { return int8RelErr(x, c, s) }

func int8RelErr(x []float32, c []int8, s float32) float64 {
	var e2, x2 float64
	for k, e := range x {
		d := float64(e) - float64(s)*float64(c[k])
		e2 += d * d
		x2 += float64(e) * float64(e)
	}
	if x2 == 0 {
		return 0
	}
	return math.Sqrt(e2 / x2)
}

// quantKernels are one level's int8 kernels. dots writes, for the n rows
// of v (stride len(q.c)), dot[i] = q·v_i and ss[i] = v_i·v_i exactly.
type quantKernels struct {
	name string
	dots func(q *int8Query, v []int8, n int, dot, ss []int32)
	// peak runs iters rounds of the level's integer dot-product
	// instructions on registers (quant_peak.go); each round does
	// peakProducts byte products. peakName names the instructions.
	peak         func(iters int) int32
	peakProducts int
	peakName     string
}

// int8Query is a query's codes in the forms the kernels read, built once
// per call: c (len d), c zero-padded to a multiple of 64 bytes, c widened
// to int16 and Σc.
type int8Query struct {
	c   []int8
	pad []int8
	w   []int16
	sum int64
}

func newInt8Query(c []int8) *int8Query {
	q := &int8Query{c: c, pad: make([]int8, (len(c)+63)&^63), w: make([]int16, len(c))}
	copy(q.pad, c)
	for k, x := range c {
		q.w[k] = int16(x)
		q.sum += int64(x)
	}
	return q
}

// quantTables holds the int8 kernels of each level this CPU and build
// run; a level without its own falls back to the best one below it.
var quantTables = map[Level]quantKernels{Generic: {name: "generic", dots: dotsI8Generic,
	peak: int8PeakGeneric, peakProducts: 8, peakName: "go-int32-madd"}}

// quantFor is the int8 kernels for level l.
func quantFor(l Level) quantKernels {
	for ; l > Generic; l-- {
		if k, ok := quantTables[l]; ok {
			return k
		}
	}
	return quantTables[Generic]
}

// dotsI8Generic is the reference loop of every int8 kernel:
//
//	for i < n: dot[i] = Σ_k q[k]·v[i*d+k], ss[i] = Σ_k v[i*d+k]² (int32)
func dotsI8Generic(qq *int8Query, v []int8, n int, dot, ss []int32) {
	q := qq.c
	d := len(q)
	for i := 0; i < n; i++ {
		row := v[i*d : (i+1)*d]
		var a, b int32
		for k, x := range row {
			a += int32(q[k]) * int32(x)
			b += int32(x) * int32(x)
		}
		dot[i], ss[i] = a, b
	}
}

// Int8Kernel names the int8 kernel h runs (which instructions compute
// the integer products), e.g. "avx512-vnni".
func (h Host) Int8Kernel() string { return quantFor(h.mustResolve().int8Level()).name }

func int8Args(fn string, lenQ, lenV, d, lenOut int) (int, error) {
	if d > MaxInt8Dim {
		return 0, fmt.Errorf("hostsimd: %s: d=%d exceeds %d (the int32 sums' exact range)", fn, d, MaxInt8Dim)
	}
	n, err := rowCount(fn, "v", lenV, d)
	if err != nil {
		return 0, err
	}
	if lenQ != d {
		return 0, fmt.Errorf("hostsimd: %s: len(q)=%d, want d=%d", fn, lenQ, d)
	}
	if err != nil {
		return 0, err
	}
	return n, checkLen(fn, "out", lenOut, n)
}

// DotsInt8 writes dot[i] = q·v_i and ss[i] = v_i·v_i, exactly in int32,
// for the len(v)/d rows v_i of v; d ≤ MaxInt8Dim. It is the integer core
// of CosineSingleInt8, exported so its result can be checked exactly.
func (h Host) DotsInt8(q, v []int8, d int, dot, ss []int32) error {
	const fn = "DotsInt8"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := int8Args(fn, len(q), len(v), d, len(dot))
	if err != nil {
		return err
	}
	if err := checkLen(fn, "ss", len(ss), n); err != nil {
		return err
	}
	k, qq := quantFor(r.int8Level()), newInt8Query(q)
	r.parallelRows(n, d, func(lo, hi int) {
		k.dots(qq, v[lo*d:hi*d], hi-lo, dot[lo:hi], ss[lo:hi])
	})
	return nil
}

// QuantizeQueryInt8 quantizes one query with the rule of QuantizeInt8
// and returns its codes and ‖codes‖² (an error names a value that is not
// finite).
func QuantizeQueryInt8(q []float32) ([]int8, int64, error) {
	c := make([]int8, len(q))
	if s, err := quantizeRow(q, c); err != nil {
		return nil, 0, fmt.Errorf("q[%d]: %w", s.bad, err)
	}
	var qq int64
	for _, x := range c {
		qq += int64(x) * int64(x)
	}
	return c, qq, nil
}

// int8Block is the number of rows one int8 kernel call scores.
const int8Block = 64

// CosineSingleInt8 writes out[i] = cos(q, v_i) for the len(codes)/d rows
// of int8 codes (QuantizeInt8): q is quantized by the same rule, q·v_i and
// v_i·v_i are summed exactly in int32, and out[i] = q·v_i/(‖q‖·‖v_i‖) in
// float64 rounded to float32 (0 when either norm is 0). d ≤ MaxInt8Dim.
func (h Host) CosineSingleInt8(q []float32, codes []int8, d int, out []float32) error {
	const fn = "CosineSingleInt8"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := int8Args(fn, len(q), len(codes), d, len(out))
	if err != nil {
		return err
	}
	qc, qq, err := QuantizeQueryInt8(q)
	if err != nil {
		return fmt.Errorf("hostsimd: %s: %w", fn, err)
	}
	k, qp := quantFor(r.int8Level()), newInt8Query(qc)
	qn := math.Sqrt(float64(qq))
	r.parallelRows(n, d, func(lo, hi int) {
		var dot, ss [int8Block]int32
		for i := lo; i < hi; i += int8Block {
			m := min(int8Block, hi-i)
			k.dots(qp, codes[i*d:(i+m)*d], m, dot[:m], ss[:m])
			for j := 0; j < m; j++ {
				out[i+j] = int8Cos(dot[j], qn, ss[j])
			}
		}
	})
	return nil
}

// int8Cos rescales an exact integer dot product to a cosine.
func int8Cos(dot int32, qn float64, ss int32) float32 {
	den := qn * math.Sqrt(float64(ss))
	if den == 0 {
		return 0
	}
	return float32(float64(dot) / den)
}

// CosineBatchInt8 writes out[j*n+i] = cos(q_j, v_i) for the len(qs)/d
// queries and the n = len(codes)/d rows of int8 codes, each as
// CosineSingleInt8 computes it. Blocks of rows stay in cache while every
// query runs over them, so the codes stream from memory once.
func (h Host) CosineBatchInt8(qs []float32, codes []int8, d int, out []float32) error {
	const fn = "CosineBatchInt8"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	nq, err := rowCount(fn, "qs", len(qs), d)
	if err != nil {
		return err
	}
	n, err := int8Args(fn, d, len(codes), d, math.MaxInt) // out is checked below
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), nq*n); err != nil {
		return err
	}
	k := quantFor(r.int8Level())
	type query struct {
		q  *int8Query
		qn float64
	}
	queries := make([]query, nq)
	for j := range queries {
		qc, qq, err := QuantizeQueryInt8(qs[j*d : (j+1)*d])
		if err != nil {
			return fmt.Errorf("hostsimd: %s: query %d: %w", fn, j, err)
		}
		queries[j] = query{newInt8Query(qc), math.Sqrt(float64(qq))}
	}
	r.parallelRows(n, d*max(nq, 1), func(lo, hi int) {
		var dot, ss [int8Block]int32
		for i := lo; i < hi; i += int8Block {
			m := min(int8Block, hi-i)
			for j, q := range queries {
				k.dots(q.q, codes[i*d:(i+m)*d], m, dot[:m], ss[:m])
				o := out[j*n+i : j*n+i+m]
				for t := range o {
					o[t] = int8Cos(dot[t], q.qn, ss[t])
				}
			}
		}
	})
	return nil
}
