package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// The stored precisions of the cosine workloads (ParamPrecision). Both
// sides read the same stored values: f16 rows are IEEE binary16 rounded
// to nearest even (widened to f32 in registers, f32 sums); int8 rows are
// the codes of hostsimd.QuantizeInt8 (symmetric, one scale max|x|/127 per
// vector), the query quantized by the same rule, q·v and v·v summed
// exactly in int32 and rescaled. Each side is verified against the float64
// cosine of the stored values (the query's codes for int8) with the f32
// kernels' tolerance, and those values against the f32 data's cosine
// within the precision's bound (StoredBound).
const (
	PrecisionF32  = "f32"
	PrecisionF16  = "f16"
	PrecisionInt8 = "int8"
)

// Precisions lists the stored precisions, widest first.
var Precisions = []string{PrecisionF32, PrecisionF16, PrecisionInt8}

// BytesPerValue is the size of one stored value in precision p.
func BytesPerValue(p string) int {
	switch p {
	case PrecisionF16:
		return 2
	case PrecisionInt8:
		return 1
	}
	return 4
}

// storedData is a cosineData's rows in one stored precision: the stored
// rows, the float64 reference of their cosines (ref) and, per row, the
// bound on how far that cosine may lie from the f32 data's (bound).
type storedData struct {
	prec  string
	f16   []uint16
	codes []int8
	ref   cosineRef
	bound []float64
}

// stored returns (and keeps) c's rows in precision p; f32 is c itself.
func (c *cosineData) stored(p string) (*storedData, error) {
	c.storedMu.Lock()
	defer c.storedMu.Unlock()
	if s, ok := c.storedBy[p]; ok {
		return s, nil
	}
	s, err := newStoredData(c, p)
	if err != nil {
		return nil, err
	}
	if c.storedBy == nil {
		c.storedBy = map[string]*storedData{}
	}
	c.storedBy[p] = s
	return s, nil
}

// storedLocks is cosineData's cache of stored precisions (kept out of
// verify.go's struct literal).
type storedLocks struct {
	storedMu sync.Mutex
	storedBy map[string]*storedData
}

func newStoredData(c *cosineData, p string) (*storedData, error) {
	dim, n := c.dim, len(c.v)/c.dim
	s := &storedData{prec: p, bound: make([]float64, n)}
	switch p {
	case PrecisionF32, "":
		s.prec, s.ref = PrecisionF32, c.ref
		return s, nil
	case PrecisionF16:
		h, err := compute.ToF16(c.v)
		if err != nil {
			return nil, invalid(ParamPrecision.Name, p, "the stored vectors do not fit binary16: %v", err)
		}
		w := make([]float32, len(h))
		for i, x := range h {
			w[i] = ops.F16ToF32(x)
		}
		s.f16, s.ref = h, newCosineRef(c.q, w, dim)
		for i := range s.bound {
			s.bound[i] = f16CosTol
		}
	case PrecisionInt8:
		if dim > hostsimd.MaxInt8Dim {
			return nil, invalid(ParamPrecision.Name, p, "dimension %d exceeds %d, the int32 sums' exact range", dim, hostsimd.MaxInt8Dim)
		}
		codes, scales := make([]int8, len(c.v)), make([]float32, n)
		if err := hostsimd.QuantizeInt8(c.v, dim, codes, scales); err != nil {
			return nil, err
		}
		qc, _, err := hostsimd.QuantizeQueryInt8(c.q)
		if err != nil {
			return nil, err
		}
		qs := make([]float32, 1)
		if err := hostsimd.QuantizeInt8(c.q, dim, make([]int8, dim), qs); err != nil {
			return nil, err
		}
		s.codes, s.ref = codes, newCosineRef(int8F32(qc), int8F32(codes), dim)
		eq := hostsimd.Int8RelErr(c.q, qc, qs[0])
		for i := range s.bound {
			s.bound[i] = 2 * (eq + hostsimd.Int8RelErr(c.v[i*dim:(i+1)*dim], codes[i*dim:(i+1)*dim], scales[i]))
		}
	default:
		return nil, invalid(ParamPrecision.Name, p, "want one of %v", Precisions)
	}
	// The stored values' cosines must lie within the bound of the f32
	// data's: a quantizer that breaks its rule fails here, before any
	// kernel runs.
	for i, w := range s.ref.want {
		if d := math.Abs(w - c.ref.want[i]); !(d <= s.bound[i]+c.ref.tol[i]) {
			return nil, fmt.Errorf("%s: row %d: stored cosine %v, f32 cosine %v: %.3g past the bound %.3g: %w", p, i, w, c.ref.want[i], d, s.bound[i], ErrMismatch)
		}
	}
	return s, nil
}

// newBatchDataIn is cosine-batch's data in precision p: f32, f16 (V's
// first n rows rounded to binary16; the references are the cosines of the
// f32 queries against the rounded rows) or int8 (V's first n rows and the
// queries quantized; the references are the cosines of the codes). The
// stored data's cosines are checked against the f32 data's within the
// precision's bound (checkBatchBound).
func newBatchDataIn(p string, c *cosineData, n, maxQ int, seed uint64, qs []float32) (*batchData, error) {
	switch p {
	case PrecisionF32, "":
		return newBatchData(c, n, maxQ, seed, qs)
	case PrecisionF16, PrecisionInt8:
	default:
		return nil, invalid(ParamPrecision.Name, p, "want one of %v", Precisions)
	}
	dim := c.dim
	if qs == nil {
		r := rand.New(rand.NewPCG(seed, 0x62617463)) // newBatchData's queries
		qs = randVectors(r, maxQ*dim)
	}
	if p == PrecisionF16 {
		h, err := compute.ToF16(c.v[:n*dim])
		if err != nil {
			return nil, invalid(ParamPrecision.Name, p, "the stored vectors do not fit binary16: %v", err)
		}
		w := make([]float32, len(h))
		for i, x := range h {
			w[i] = ops.F16ToF32(x)
		}
		b, err := newBatchData(&cosineData{dim: dim, v: w, stop: c.stop}, n, maxQ, seed, qs)
		if err != nil {
			return nil, err
		}
		b.c, b.f16 = c, h
		f, err := newBatchData(c, n, maxQ, seed, qs)
		if err != nil {
			return nil, err
		}
		return checkBatchBound(p, f, b, func(int, int) float64 { return f16CosTol })
	}
	if dim > hostsimd.MaxInt8Dim {
		return nil, invalid(ParamPrecision.Name, p, "dimension %d exceeds %d, the int32 sums' exact range", dim, hostsimd.MaxInt8Dim)
	}
	codes, scales := make([]int8, n*dim), make([]float32, n)
	if err := hostsimd.QuantizeInt8(c.v[:n*dim], dim, codes, scales); err != nil {
		return nil, err
	}
	qf, eq := make([]float32, len(qs)), make([]float64, maxQ)
	for j := 0; j < maxQ; j++ {
		qc, _, err := hostsimd.QuantizeQueryInt8(qs[j*dim : (j+1)*dim])
		if err != nil {
			return nil, err
		}
		copy(qf[j*dim:], int8F32(qc))
		qsc := make([]float32, 1)
		if err := hostsimd.QuantizeInt8(qs[j*dim:(j+1)*dim], dim, make([]int8, dim), qsc); err != nil {
			return nil, err
		}
		eq[j] = hostsimd.Int8RelErr(qs[j*dim:(j+1)*dim], qc, qsc[0])
	}
	b, err := newBatchData(&cosineData{dim: dim, v: int8F32(codes), stop: c.stop}, n, maxQ, seed, qf)
	if err != nil {
		return nil, err
	}
	b.c, b.qs, b.codes = c, qs, codes
	ev := make([]float64, n)
	for i := range ev {
		ev[i] = hostsimd.Int8RelErr(c.v[i*dim:(i+1)*dim], codes[i*dim:(i+1)*dim], scales[i])
	}
	f, err := newBatchData(c, n, maxQ, seed, qs)
	if err != nil {
		return nil, err
	}
	return checkBatchBound(p, f, b, func(j, i int) float64 { return 2 * (eq[j] + ev[i]) })
}

// checkBatchBound checks that every cosine of the stored data (b) lies
// within bound(query, row) of the f32 data's (f), before any kernel runs:
// a quantizer that breaks its rule fails here. b keeps the largest
// per-pair bound checked (the precision's bound plus the f32 reference's
// tolerance), which Accuracy reports beside the largest score error.
func checkBatchBound(p string, f, b *batchData, bound func(j, i int) float64) (*batchData, error) {
	b.bound = 0
	for j := range b.refs {
		for i, w := range b.refs[j].want {
			lim := bound(j, i) + f.refs[j].tol[i]
			if d := math.Abs(w - f.refs[j].want[i]); !(d <= lim) {
				return nil, fmt.Errorf("%s: query %d row %d: stored cosine %v, f32 cosine %v: %.3g past the bound %.3g: %w", p, j, i, w, f.refs[j].want[i], d, bound(j, i), ErrMismatch)
			}
			b.bound = max(b.bound, lim)
		}
	}
	return b, nil
}

func int8F32(c []int8) []float32 {
	out := make([]float32, len(c))
	for i, x := range c {
		out[i] = float32(x)
	}
	return out
}

// precisionFixed is the precision as a fixed parameter of a workload's
// sizes (a break-even names what it measured) when it is not f32.
func (c Config) precisionFixed() []report.Param {
	if c.Precision == "" || c.Precision == PrecisionF32 {
		return nil
	}
	return []report.Param{p("precision", c.Precision)}
}

// params appends the precision to a case's parameters when it is not
// f32, so every row names what it read.
func (s *storedData) params(ps []report.Param) []report.Param {
	if s.prec == PrecisionF32 {
		return ps
	}
	return append(ps, p("precision", s.prec))
}

// newCosineRunner builds the GPU cosine-single runner of precision p.
func (s *storedData) newCosineRunner(d *wgpu.Device, v []float32, dim int, opts compute.CosineOptions) (*compute.CosineSingle, error) {
	switch s.prec {
	case PrecisionF16:
		return compute.NewCosineSingleF16(d, v, dim, opts)
	case PrecisionInt8:
		return compute.NewCosineSingleInt8(d, v, dim, opts)
	}
	return compute.NewCosineSingle(d, v, dim, opts)
}

// hostCosine runs the host's cosine-single of precision p over the first
// n rows.
func (s *storedData) hostCosine(h hostsimd.Host, q, v []float32, dim, n int, out []float32) error {
	switch s.prec {
	case PrecisionF16:
		return h.CosineSingleF16(q, s.f16[:n*dim], dim, out)
	case PrecisionInt8:
		return h.CosineSingleInt8(q, s.codes[:n*dim], dim, out)
	}
	return h.CosineSingle(q, v[:n*dim], dim, out)
}

// Accuracy is what a stored precision costs in results on a data set:
// the recall of its top-k against the f32 data's exact top-k and the
// largest difference of its scores from the f32 data's (both from the
// float64 scores of the stored values, which every verified side
// reproduces within its tolerance), with the largest per-pair bound the
// stored data was checked against when it was made (Quantized.Accuracy).
type Accuracy struct {
	Precision string
	K         int
	// Recall is |top-k(stored) ∩ top-k(f32)| / k, the mean over Queries
	// queries (Quantized.RecallOver) with Worst the lowest.
	Recall, Worst float64
	Queries       int
	// MaxScoreErr is max |score_stored − score_f32| over every scored
	// pair (query and row, or query and candidate); Bound the largest
	// per-pair bound of the stored data's check (the precision's bound
	// plus the f32 reference's rounding tolerance; 0 for f32), so
	// MaxScoreErr ≤ Bound holds for data that passed it (CheckBound).
	MaxScoreErr, Bound float64
}

// CheckBound refuses an accuracy whose largest score error lies past its
// bound (or is NaN): stored scores that moved after their check, or a
// bound that does not cover them. f32 against itself has no bound and
// must have no error.
func (a Accuracy) CheckBound() error {
	if !(a.MaxScoreErr <= a.Bound) {
		return fmt.Errorf("workload: %s: largest score error %.3g past its bound %.3g: %w", a.Precision, a.MaxScoreErr, a.Bound, ErrMismatch)
	}
	return nil
}
