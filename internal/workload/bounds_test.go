package workload

import (
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// boundsData is a query and two rows whose largest magnitude is 127, so
// that every int8 scale is exactly 1 and each code is its value rounded:
// the relative errors below are worked out by hand from the values.
//
//	q    = (1.5, 127, −0.25, 0)       codes (2, 127, 0, 0): errors 0.5, 0.25
//	v[0] = (127, 0.25, 0, 0)          codes (127, 0, 0, 0): error 0.25
//	v[1] = (−127, 63.75, 10, 0.75)    codes (−127, 64, 10, 1): errors 0.25, 0.25
func boundsData() *cosineData {
	c := &cosineData{dim: 4,
		q: []float32{1.5, 127, -0.25, 0},
		v: []float32{127, 0.25, 0, 0, -127, 63.75, 10, 0.75},
	}
	c.ref = newCosineRef(c.q, c.v, c.dim)
	return c
}

// The int8 bounds of boundsData, 2(‖q − q̂‖/‖q‖ + ‖v − v̂‖/‖v‖), from the
// hand-worked errors: ‖q − q̂‖² = 0.5² + 0.25², ‖q‖² = 1.5² + 127² + 0.25²;
// ‖v₀ − v̂₀‖² = 0.25², ‖v₀‖² = 127² + 0.25²; ‖v₁ − v̂₁‖² = 2·0.25²,
// ‖v₁‖² = 127² + 63.75² + 10² + 0.75². About 0.012740 and 0.013766.
var (
	int8RelQ    = math.Sqrt(0.3125 / 16131.3125)
	int8Bounds  = []float64{2 * (int8RelQ + math.Sqrt(0.0625/16129.0625)), 2 * (int8RelQ + math.Sqrt(0.125/20293.625))}
	f16CosBound = 0x1p-9 // 4u, u = 2⁻¹¹: 2u/(1−u) with room for subnormals
)

// The bound each stored precision is checked against, and that users see
// (Accuracy.Bound, the quantization report's score_err_bound), has the
// value its derivation gives for these inputs: the f16 bound 4·2⁻¹¹ per
// row, the int8 bound twice the sum of the relative errors, each plus the
// f32 reference's rounding tolerance. A bound made looser (f16 by 10×,
// int8 by 2×) still covers every error, so only its value catches it.
func TestStoredBoundsPinned(t *testing.T) {
	if math.Abs(int8Bounds[0]-0.012740) > 1e-6 || math.Abs(int8Bounds[1]-0.013766) > 1e-6 {
		t.Fatalf("the hand-worked bounds moved: %v", int8Bounds)
	}
	c := boundsData()
	// cosine-single and cosine-topk: the bound of every row, and the
	// largest with the f32 tolerance as Accuracy reports it.
	for _, tc := range []struct {
		prec string
		want []float64
	}{
		{PrecisionF16, []float64{f16CosBound, f16CosBound}},
		{PrecisionInt8, int8Bounds},
	} {
		s, err := newStoredData(c, tc.prec)
		if err != nil {
			t.Fatalf("%s: %v", tc.prec, err)
		}
		var want float64
		for i, b := range s.bound {
			if b != tc.want[i] {
				t.Errorf("%s row %d: bound %v, want %v", tc.prec, i, b, tc.want[i])
			}
			want = max(want, tc.want[i]+c.ref.tol[i])
		}
		if a := singleAccuracy(c, s, 1); a.Bound != want {
			t.Errorf("%s: Accuracy.Bound %v, want %v", tc.prec, a.Bound, want)
		}
	}
	// cosine-batch, the same query and rows: the largest per-pair bound
	// with the f32 tolerance.
	for _, tc := range []struct {
		prec string
		want []float64
	}{
		{PrecisionF16, []float64{f16CosBound, f16CosBound}},
		{PrecisionInt8, int8Bounds},
	} {
		b, err := newBatchDataIn(tc.prec, c, 2, 1, 1, c.q)
		if err != nil {
			t.Fatalf("batch %s: %v", tc.prec, err)
		}
		f, err := newBatchData(c, 2, 1, 1, c.q)
		if err != nil {
			t.Fatal(err)
		}
		want := max(tc.want[0]+f.refs[0].tol[0], tc.want[1]+f.refs[0].tol[1])
		if b.bound != want {
			t.Errorf("batch %s: bound %v, want %v", tc.prec, b.bound, want)
		}
	}
}

// hnsw's bound of a stored distance, per metric, for hand-picked errors
// and norms: e_q = 1, e_v = 2, ‖q‖ = 4, ‖v̂‖ = 6, ‖v‖ = 8, ‖q̂ − v̂‖ + ‖q − v‖
// = 10. Inner product e_q‖v̂‖ + ‖q‖e_v = 6 + 8; L2² (e_q + e_v)·10;
// cosine 2(1/4 + 2/8).
func TestHNSWBoundPinned(t *testing.T) {
	for _, c := range []struct {
		m    ops.Metric
		want float64
	}{{ops.InnerProduct, 14}, {ops.L2Sq, 30}, {ops.Cosine, 1}} {
		if got := hnswBound(c.m, 1, 2, 4, 6, 8, 10); got != c.want {
			t.Errorf("%v: bound %v, want %v", c.m, got, c.want)
		}
	}
	// A zero norm contributes nothing to the cosine's relative errors.
	if got := hnswBound(ops.Cosine, 1, 2, 0, 6, 8, 10); got != 0.5 {
		t.Errorf("cosine with ‖q‖ = 0: bound %v, want 0.5", got)
	}
}
