package workload

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Quantized is what the quantization experiment needs of a workload with
// a stored precision (ParamPrecision) beyond measuring it: the recall
// that defines its accuracy and the f32 case that reads as many stored
// bytes. Every such workload's Workload implements it.
type Quantized interface {
	// CheckRecall refuses a k whose recall@k says nothing on c (a
	// *ParamError naming k), before any data is made.
	CheckRecall(c Config) error
	// Stored is f32's data (this workload's f32 Prepared) in precision p,
	// sharing its f32 rows, queries and candidates; only p's values and
	// references are new.
	Stored(f32 *Prepared, p string) (*Prepared, error)
	// Accuracy is what stored's precision costs against f32, both
	// prepared by this workload from the same Config but the precision:
	// recall@k of the stored values' results against the exact ones,
	// mean and worst over the queries, and the largest score error.
	Accuracy(f32, stored *Prepared, k int) (Accuracy, error)
	// SameBytes is the f32 data and batch size whose stored vectors move
	// as many bytes as batch does in precision p (f32 is this workload's
	// f32 Prepared; another workload's data is an error), and what was
	// scaled to get there.
	SameBytes(f32 *Prepared, batch int, p string) (*Prepared, int, string, error)
	// ScansRows says whether every call reads all n stored rows, so that
	// generated rows sized past the caches judge f32 at the DRAM level.
	ScansRows() bool
	// RecallOver says in words what the recall's mean and worst run over.
	RecallOver(c Config) string
}

// Quantized workloads: the single-query ones score all rows for one
// query (recall@k over the n rows; one query, so mean = worst).

func (cosineSingleWorkload) CheckRecall(c Config) error { return checkRecallRows(c) }
func (cosineTopKWorkload) CheckRecall(c Config) error   { return checkRecallRows(c) }
func (cosineBatchWorkload) CheckRecall(c Config) error  { return checkRecallRows(c) }

func checkRecallRows(c Config) error {
	if c.K >= c.N {
		return invalid(ParamK.Name, c.K, "must be < n %d: recall@k of the top k of n rows is 1 by construction at k ≥ n", c.N)
	}
	return nil
}

func (cosineSingleWorkload) Accuracy(_, stored *Prepared, k int) (Accuracy, error) {
	x, ok := stored.Cases.(cosineSingleCases)
	if !ok {
		return Accuracy{}, fmt.Errorf("workload: Accuracy: %T is not cosine-single's data", stored.Cases)
	}
	return singleAccuracy(x.data, x.st, k), nil
}

func (cosineTopKWorkload) Accuracy(_, stored *Prepared, k int) (Accuracy, error) {
	x, ok := stored.Cases.(cosineTopKCases)
	if !ok {
		return Accuracy{}, fmt.Errorf("workload: Accuracy: %T is not cosine-topk's data", stored.Cases)
	}
	return singleAccuracy(x.data, x.st, k), nil
}

// singleAccuracy is StoredAccuracy over prepared data: the stored values'
// cosines against the f32 data's over all its rows.
func singleAccuracy(data *cosineData, s *storedData, k int) Accuracy {
	n := len(data.ref.want)
	k = min(k, n)
	a := Accuracy{Precision: s.prec, K: k, Queries: 1}
	for i := 0; i < n; i++ {
		a.MaxScoreErr = max(a.MaxScoreErr, math.Abs(s.ref.want[i]-data.ref.want[i]))
		if s.prec != PrecisionF32 {
			a.Bound = max(a.Bound, s.bound[i]+data.ref.tol[i])
		}
	}
	a.Recall = RecallAtK(data.ref.want, s.ref.want, k, false)
	a.Worst = a.Recall
	return a
}

func (cosineSingleWorkload) SameBytes(f32 *Prepared, n int, p string) (*Prepared, int, string, error) {
	if x, ok := f32.Cases.(cosineSingleCases); !ok || (x.st != nil && x.st.prec != PrecisionF32) {
		return nil, 0, "", fmt.Errorf("workload: SameBytes: %T is not cosine-single's f32 data", f32.Cases)
	}
	return f32, sameBytesRows(n, p), "rows", nil
}

func (cosineTopKWorkload) SameBytes(f32 *Prepared, n int, p string) (*Prepared, int, string, error) {
	if x, ok := f32.Cases.(cosineTopKCases); !ok || (x.st != nil && x.st.prec != PrecisionF32) {
		return nil, 0, "", fmt.Errorf("workload: SameBytes: %T is not cosine-topk's f32 data", f32.Cases)
	}
	return f32, sameBytesRows(n, p), "rows", nil
}

// sameBytesRows is the f32 rows that move as many bytes as n rows of p.
func sameBytesRows(n int, p string) int { return max(1, n*BytesPerValue(p)/4) }

func (cosineSingleWorkload) ScansRows() bool { return true }
func (cosineTopKWorkload) ScansRows() bool   { return true }
func (cosineBatchWorkload) ScansRows() bool  { return true }
func (hnswWorkload) ScansRows() bool         { return false }

func (cosineSingleWorkload) RecallOver(Config) string { return "the one query over all n rows" }
func (cosineTopKWorkload) RecallOver(Config) string   { return "the one query over all n rows" }
func (cosineBatchWorkload) RecallOver(c Config) string {
	return fmt.Sprintf("each of the q = %d queries over all n rows", c.Q)
}
func (hnswWorkload) RecallOver(c Config) string {
	return fmt.Sprintf("each of the q = %d batches of c = %d candidates", c.Q, c.C)
}

func (cosineSingleWorkload) Stored(f32 *Prepared, p string) (*Prepared, error) {
	x, ok := f32.Cases.(cosineSingleCases)
	if !ok {
		return nil, fmt.Errorf("workload: Stored: %T is not cosine-single's data", f32.Cases)
	}
	st, err := newStoredData(x.data, p)
	if err != nil {
		return nil, err
	}
	return storedPrepared(f32, p, cosineSingleCases{x.data, st}), nil
}

func (cosineTopKWorkload) Stored(f32 *Prepared, p string) (*Prepared, error) {
	x, ok := f32.Cases.(cosineTopKCases)
	if !ok {
		return nil, fmt.Errorf("workload: Stored: %T is not cosine-topk's data", f32.Cases)
	}
	st, err := newStoredData(x.data, p)
	if err != nil {
		return nil, err
	}
	return storedPrepared(f32, p, cosineTopKCases{x.data, st, x.k}), nil
}

// storedPrepared is f32 with cases cs of precision p (named among the
// fixed parameters as Prepare names it).
func storedPrepared(f32 *Prepared, p string, cs CaseBuilder) *Prepared {
	out := *f32
	out.Cases = cs
	out.Fixed = append(slices.Clip(f32.Fixed), Config{Precision: p}.precisionFixed()...)
	return &out
}

// cosine-batch: per query, the top k rows by the stored values' cosines
// against the top k by the f32 data's exact cosines.

func (cosineBatchWorkload) Accuracy(f32, stored *Prepared, k int) (Accuracy, error) {
	f, ok1 := f32.Cases.(*batchData)
	s, ok2 := stored.Cases.(*batchData)
	if !ok1 || !ok2 || f.n != s.n || len(f.refs) != len(s.refs) {
		return Accuracy{}, fmt.Errorf("workload: Accuracy: %T and %T are not cosine-batch data of the same shape", f32.Cases, stored.Cases)
	}
	prec, _ := s.precision()
	exact, got := make([][]float64, len(f.refs)), make([][]float64, len(s.refs))
	for j := range f.refs {
		exact[j], got[j] = f.refs[j].want[:f.n], s.refs[j].want[:s.n]
	}
	a := queriesAccuracy(prec, exact, got, min(k, f.n), false)
	a.Bound = s.bound
	return a, nil
}

func (cosineBatchWorkload) Stored(f32 *Prepared, p string) (*Prepared, error) {
	b, ok := f32.Cases.(*batchData)
	if !ok {
		return nil, fmt.Errorf("workload: Stored: %T is not cosine-batch's data", f32.Cases)
	}
	s, err := newBatchDataIn(p, b.c, b.n, len(b.refs), 0, b.qs)
	if err != nil {
		return nil, err
	}
	return storedPrepared(f32, p, s), nil
}

// SameBytes of cosine-batch scales the stored rows: f32 over n·b/4 rows
// (a prefix of the same rows) with the same queries. The stored vectors
// then move as many bytes; the q×rows score matrix shrinks with them.
func (cosineBatchWorkload) SameBytes(f32 *Prepared, q int, p string) (*Prepared, int, string, error) {
	b, ok := f32.Cases.(*batchData)
	if !ok || b.f16 != nil || b.codes != nil {
		return nil, 0, "", fmt.Errorf("workload: SameBytes: %T is not cosine-batch's f32 data", f32.Cases)
	}
	n := sameBytesRows(b.n, p)
	sub, err := newBatchData(b.c, n, len(b.refs), 0, b.qs)
	if err != nil {
		return nil, 0, "", err
	}
	return &Prepared{Size: f32.Size, MinBatch: f32.MinBatch, Fixed: f32.Fixed, Cases: sub}, q, "rows", nil
}

// hnsw: per batch, the k nearest of its c candidates by the stored
// values' distances against the k nearest by the exact f32 distances
// (nearest: smallest L2², largest inner product or cosine).

func (hnswWorkload) CheckRecall(c Config) error {
	if c.K >= c.C {
		return invalid(ParamK.Name, c.K, "must be < c %d: recall@k of the k nearest of a batch of c candidates is 1 by construction at k ≥ c", c.C)
	}
	return nil
}

func (hnswWorkload) Accuracy(f32, stored *Prepared, k int) (Accuracy, error) {
	f, ok1 := f32.Cases.(*hnswData)
	s, ok2 := stored.Cases.(*hnswData)
	if !ok1 || !ok2 || f.c != s.c || len(f.want) != len(s.want) || f.metric != s.metric {
		return Accuracy{}, fmt.Errorf("workload: Accuracy: %T and %T are not hnsw data of the same shape", f32.Cases, stored.Cases)
	}
	for i, id := range f.ids {
		if s.ids[i] != id {
			return Accuracy{}, fmt.Errorf("workload: Accuracy: candidate %d is row %d in f32 and %d stored: not the same batches", i, id, s.ids[i])
		}
	}
	prec, bound := PrecisionF32, 0.0
	if s.st != nil {
		prec, bound = s.st.prec, s.st.bound
	}
	nq := len(f.want) / f.c
	exact, got := make([][]float64, nq), make([][]float64, nq)
	for j := range exact {
		exact[j], got[j] = f.want[j*f.c:][:f.c], s.want[j*s.c:][:s.c]
	}
	a := queriesAccuracy(prec, exact, got, min(k, f.c), f.metric == ops.L2Sq)
	a.Bound = bound
	return a, nil
}

func (hnswWorkload) Stored(f32 *Prepared, p string) (*Prepared, error) {
	h, ok := f32.Cases.(*hnswData)
	if !ok || h.st != nil {
		return nil, fmt.Errorf("workload: Stored: %T is not hnsw's f32 data", f32.Cases)
	}
	s := *h
	s.want, s.tol = slices.Clone(h.want), slices.Clone(h.tol)
	if err := s.store(p); err != nil {
		return nil, err
	}
	return storedPrepared(f32, p, &s), nil
}

// SameBytes of hnsw scales the batches: f32 over q·r_p/r_f32 batches of c
// candidates, r the bytes of one gathered row (4d f32, 2d f16, d + 4
// int8 with its scale), so the gathered rows move as many bytes.
func (hnswWorkload) SameBytes(f32 *Prepared, q int, p string) (*Prepared, int, string, error) {
	h, ok := f32.Cases.(*hnswData)
	if !ok || h.st != nil {
		return nil, 0, "", fmt.Errorf("workload: SameBytes: %T is not hnsw's f32 data", f32.Cases)
	}
	var r int
	switch p {
	case PrecisionF16:
		r = 2 * h.dim
	case PrecisionInt8:
		r = h.dim + 4
	default:
		r = 4 * h.dim
	}
	return f32, max(1, int(math.Round(float64(q)*float64(r)/float64(4*h.dim)))), "batches", nil
}

// queriesAccuracy is recall@k of got against exact, query by query (mean
// and worst), and the largest score difference.
func queriesAccuracy(prec string, exact, got [][]float64, k int, smaller bool) Accuracy {
	a := Accuracy{Precision: prec, K: k, Queries: len(exact), Worst: 1}
	for j := range exact {
		r := RecallAtK(exact[j], got[j], k, smaller)
		a.Recall += r
		a.Worst = min(a.Worst, r)
		for i, w := range got[j] {
			a.MaxScoreErr = max(a.MaxScoreErr, math.Abs(w-exact[j][i]))
		}
	}
	if len(exact) > 0 {
		a.Recall /= float64(len(exact))
	} else {
		a.Worst = 0
	}
	return a
}

// RecallAtK is |top-k(got) ∩ top-k(exact)| / k over the same items:
// top by the largest scores, or the smallest when smaller (distances);
// ties go to the lower index. NaN in got ranks last, so it never counts
// as a hit it did not earn.
func RecallAtK(exact, got []float64, k int, smaller bool) float64 {
	k = min(k, len(exact), len(got))
	if k <= 0 {
		return 0
	}
	want := map[int]bool{}
	for _, i := range topK(exact, k, smaller) {
		want[i] = true
	}
	hit := 0
	for _, i := range topK(got, k, smaller) {
		if want[i] {
			hit++
		}
	}
	return float64(hit) / float64(k)
}

// topK is the indices of the k best scores (see RecallAtK), best first.
func topK(s []float64, k int, smaller bool) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	better := func(a, b float64) bool {
		switch {
		case math.IsNaN(a):
			return false
		case math.IsNaN(b):
			return true
		case smaller:
			return a < b
		}
		return a > b
	}
	sort.SliceStable(idx, func(a, b int) bool { return better(s[idx[a]], s[idx[b]]) })
	return idx[:k]
}
