package timing

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// LinearFit is t(n) = Overhead + PerItem·n fitted to a batch sweep, with 95%
// confidence intervals of both coefficients.
type LinearFit struct {
	Overhead   float64    `json:"overhead"`    // seconds (or the unit of t)
	PerItem    float64    `json:"per_item"`    // seconds per item
	OverheadCI [2]float64 `json:"overhead_ci"` // 95% CI of Overhead
	PerItemCI  [2]float64 `json:"per_item_ci"` // 95% CI of PerItem
	R2         float64    `json:"r2"`          // weighted coefficient of determination
	// Standard errors, covariance and residual degrees of freedom, kept so
	// that Crossover can propagate the uncertainty exactly (Fieller). A
	// LinearFit written by hand may leave them zero; Crossover then falls
	// back to the corners of the CIs.
	SEOverhead float64 `json:"se_overhead"`
	SEPerItem  float64 `json:"se_per_item"`
	Cov        float64 `json:"cov"` // covariance of Overhead and PerItem
	DoF        int     `json:"dof"`
	// Constrained names the bound FitConstrained held (BoundOverhead or
	// BoundPerItem); empty for an unconstrained optimum.
	Constrained string `json:"constrained,omitempty"`
}

// At returns the fitted time at batch size n.
func (f LinearFit) At(n float64) float64 { return f.Overhead + f.PerItem*n }

// FitLinear fits t = a + b·n by weighted least squares with weights 1/t².
//
// Why weighted: batch sweeps are log-spaced (1, 2, 4 … N) and the timing
// noise is roughly proportional to the time itself (heteroscedastic).
// Ordinary least squares would let the largest batches, whose absolute
// errors are largest, dictate the overhead; weighting by 1/t² minimizes the
// relative error instead, so every batch counts equally and the overhead is
// determined by the small batches that actually measure it.
//
// The residual variance is estimated from the data (weights are only
// relative), and the CIs use Student's t with n−2 degrees of freedom. It
// needs ≥ 3 points, at least two distinct n, and every t > 0 and finite.
func FitLinear(n, t []float64) (LinearFit, error) {
	w, err := relativeWeights(n, t)
	if err != nil {
		return LinearFit{}, fmt.Errorf("timing: FitLinear: %w", err)
	}
	return FitLinearWeighted(n, t, w)
}

// relativeWeights are FitLinear's weights 1/t², which fit relative
// error; every t must be positive and finite.
func relativeWeights(n, t []float64) ([]float64, error) {
	if len(n) != len(t) {
		return nil, fmt.Errorf("%w: %d batch sizes but %d times", ErrBadPoint, len(n), len(t))
	}
	w := make([]float64, len(t))
	for i, v := range t {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: t[%d] = %v (relative weighting needs t > 0)", ErrBadPoint, i, v)
		}
		w[i] = 1 / (v * v)
	}
	return w, nil
}

// FitLinearWeighted fits t = a + b·n minimizing Σ wᵢ(tᵢ − a − b·nᵢ)². A nil w
// means ordinary least squares. Weights are relative: the residual scale is
// estimated from the data.
func FitLinearWeighted(n, t, w []float64) (LinearFit, error) {
	if len(n) != len(t) || (w != nil && len(w) != len(n)) {
		return LinearFit{}, fmt.Errorf("timing: FitLinearWeighted: %w: mismatched lengths %d, %d, %d", ErrBadPoint, len(n), len(t), len(w))
	}
	m := len(n)
	if m < 3 {
		return LinearFit{}, fmt.Errorf("timing: FitLinearWeighted: %w: got %d", ErrTooFewPoints, m)
	}
	weight := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var sw, swx, swy float64
	for i := range n {
		wi := weight(i)
		if bad(n[i]) || bad(t[i]) || bad(wi) || wi <= 0 {
			return LinearFit{}, fmt.Errorf("timing: FitLinearWeighted: %w: point %d (n=%v, t=%v, w=%v)", ErrBadPoint, i, n[i], t[i], wi)
		}
		sw += wi
		swx += wi * n[i]
		swy += wi * t[i]
	}
	// Centre on the weighted means for numerical stability.
	mx, my := swx/sw, swy/sw
	var sxx, sxy, syy float64
	for i := range n {
		wi := weight(i)
		dx, dy := n[i]-mx, t[i]-my
		sxx += wi * dx * dx
		sxy += wi * dx * dy
		syy += wi * dy * dy
	}
	if sxx <= 0 || sxx <= 1e-12*sw*mx*mx {
		return LinearFit{}, fmt.Errorf("timing: FitLinearWeighted: %w: all batch sizes equal", ErrTooFewPoints)
	}
	b := sxy / sxx
	a := my - b*mx
	var ssr float64
	for i := range n {
		r := t[i] - a - b*n[i]
		ssr += weight(i) * r * r
	}
	dof := m - 2
	s2 := ssr / float64(dof)
	seB := math.Sqrt(s2 / sxx)
	seA := math.Sqrt(s2 * (1/sw + mx*mx/sxx))
	cov := -s2 * mx / sxx
	q := tQuantile(dof)
	fit := LinearFit{
		Overhead: a, PerItem: b,
		OverheadCI: [2]float64{a - q*seA, a + q*seA},
		PerItemCI:  [2]float64{b - q*seB, b + q*seB},
		SEOverhead: seA, SEPerItem: seB, Cov: cov, DoF: dof,
		R2: 1,
	}
	if syy > 0 {
		fit.R2 = 1 - ssr/syy
	}
	return fit, nil
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// tQuantile returns the two-sided 95% Student t quantile for dof degrees of
// freedom.
func tQuantile(dof int) float64 {
	if dof < 1 {
		return math.Inf(1)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(1 - (1-Confidence)/2)
}

// Crossover kinds.
const (
	CrossAt     = "at"     // GPU is faster for batches above N
	CrossNever  = "never"  // GPU is never faster
	CrossAlways = "always" // GPU is faster at every batch size
	// CrossBelow: GPU is faster only for batches below N (it has the lower
	// overhead but the higher per-item cost). Physically unusual; it
	// usually means a mis-measured sweep, and it is reported as such rather
	// than folded into "never".
	CrossBelow = "below"
	// CrossUnknown: no crossover can be computed (PredictCrossover of a
	// model with no segments).
	CrossUnknown = "unknown"
)

// Crossover is the batch size at which the GPU becomes faster than the CPU.
type Crossover struct {
	Kind string  `json:"kind"` // CrossAt, CrossNever, CrossAlways or CrossBelow
	N    float64 `json:"n"`    // crossover batch size (0 for never/always)
	// Lo and Hi bound a 95% interval of N. Hi is +Inf when the data cannot
	// rule out parallel lines (the per-item difference is not significant);
	// Lo is clamped at 0.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Crossover solves cpu.At(n) = gpu.At(n):
//
//	N = (Overhead_gpu − Overhead_cpu) / (PerItem_cpu − PerItem_gpu)
//
// When both differences are positive the GPU wins above N (CrossAt). When
// the GPU is cheaper per item and has no larger overhead it always wins;
// when it is no cheaper per item and has no smaller overhead it never wins.
//
// The interval propagates the coefficients' uncertainty. When both fits
// carry standard errors (DoF > 0) it is Fieller's interval for the ratio of
// the two differences (the fits are independent; within a fit the
// covariance of overhead and per-item cost is used), with Student's t at
// the smaller of the two DoF; this is exact for normal errors and correctly
// asymmetric. Otherwise it evaluates N at the corners of the coefficient CIs.
// Either way, when the per-item difference is not significantly positive the
// interval is unbounded above.
//
// (The function is not called Crossover because Go forbids a function and a
// type of the same name in one package.)
func CrossoverOf(cpu, gpu LinearFit) Crossover {
	a := gpu.Overhead - cpu.Overhead // numerator
	b := cpu.PerItem - gpu.PerItem   // denominator
	var c Crossover
	switch {
	case b > 0 && a > 0:
		c.Kind, c.N = CrossAt, a/b
	case b > 0:
		c.Kind = CrossAlways
		return c
	case a < 0 && b < 0:
		c.Kind, c.N = CrossBelow, a/b
	default:
		c.Kind = CrossNever
		return c
	}
	if cpu.DoF > 0 && gpu.DoF > 0 {
		c.Lo, c.Hi = fieller(a, b,
			cpu.SEOverhead*cpu.SEOverhead+gpu.SEOverhead*gpu.SEOverhead,
			cpu.SEPerItem*cpu.SEPerItem+gpu.SEPerItem*gpu.SEPerItem,
			// Cov(a, b) = Cov(aG − aC, bC − bG) = −Cov(aG,bG) − Cov(aC,bC)
			-gpu.Cov-cpu.Cov,
			tQuantile(min(cpu.DoF, gpu.DoF)), c.N)
	} else {
		c.Lo, c.Hi = corners(cpu, gpu, c.N)
	}
	c.Lo = math.Max(c.Lo, 0)
	return c
}

// fieller returns the 95% Fieller interval of a/b given Var(a)=va,
// Var(b)=vb, Cov(a,b)=cab and the t quantile q; the set of r with
// (a − r·b)² ≤ q²(va − 2r·cab + r²vb).
func fieller(a, b, va, vb, cab, q, est float64) (lo, hi float64) {
	qa := b*b - q*q*vb
	qb := a*b - q*q*cab
	qc := a*a - q*q*va
	disc := qb*qb - qa*qc
	if qa <= 0 || disc < 0 {
		// Denominator not significantly away from zero: unbounded.
		return math.Min(0, est), math.Inf(1)
	}
	sq := math.Sqrt(disc)
	return (qb - sq) / qa, (qb + sq) / qa
}

// corners evaluates N over the corners of the coefficient CIs.
func corners(cpu, gpu LinearFit, est float64) (lo, hi float64) {
	aLo := gpu.OverheadCI[0] - cpu.OverheadCI[1]
	aHi := gpu.OverheadCI[1] - cpu.OverheadCI[0]
	bLo := cpu.PerItemCI[0] - gpu.PerItemCI[1]
	bHi := cpu.PerItemCI[1] - gpu.PerItemCI[0]
	if bLo <= 0 && bHi >= 0 {
		return math.Min(0, est), math.Inf(1)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range []float64{aLo / bLo, aLo / bHi, aHi / bLo, aHi / bHi} {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return math.Min(lo, est), math.Max(hi, est)
}

// MeasuredCrossover returns the first batch size from which the GPU is
// faster with confidence: the GPU's CI upper bound lies below the CPU's CI
// lower bound at that batch and at every larger batch of the sweep (a single
// lucky point followed by a loss does not count). Batches are considered in
// ascending order whatever their order in the slice. found is false when no
// such batch exists, when the slices' lengths differ, or when a summary is
// invalid (N = 0) at or after the candidate.
//
// On a log-spaced sweep the true crossover lies between the previous batch
// and the returned one, so compare it with the fitted crossover knowing it is
// an upper bound at the sweep's resolution.
func MeasuredCrossover(batches []int, cpu, gpu []Summary) (n int, found bool) {
	if len(batches) != len(cpu) || len(batches) != len(gpu) || len(batches) == 0 {
		return 0, false
	}
	idx := make([]int, len(batches))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return batches[idx[i]] < batches[idx[j]] })
	first := -1
	for _, i := range idx {
		win := cpu[i].Valid() && gpu[i].Valid() && gpu[i].Hi < cpu[i].Lo
		if win && first < 0 {
			first = i
		} else if !win {
			first = -1
		}
	}
	if first < 0 {
		return 0, false
	}
	return batches[first], true
}

// RelError returns (fitted − measured)/measured, the relative error of a
// fitted value against a measured one; NaN-free: it returns +Inf when
// measured is zero and fitted is not, 0 when both are zero.
func RelError(fitted, measured float64) float64 {
	if measured == 0 {
		if fitted == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (fitted - measured) / measured
}
