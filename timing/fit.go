package timing

import (
	"fmt"
	"math"
	"sort"
)

// Constraint labels of a LinearFit fitted by FitConstrained.
const (
	// BoundOverhead: the unconstrained overhead was negative; the fit is
	// through the origin (a = 0).
	BoundOverhead = "overhead=0"
	// BoundPerItem: the unconstrained per-item cost was negative; the fit is
	// a constant (b = 0).
	BoundPerItem = "per_item=0"
)

// FitConstrained fits t = a + b·n with a ≥ 0 and b ≥ 0 by weighted least
// squares with weights 1/t² (as FitLinear). A negative overhead or per-item
// cost is a misfit, not a finding: when the unconstrained optimum breaks a
// bound, the best fit on the boundary is returned (the problem is convex, so
// the constrained optimum lies on the boundary) and Constrained names the
// active bound. The fixed coefficient's CI is [0, upper] where upper is the
// unconstrained fit's upper bound (clamped at 0); the free one's comes from
// the boundary fit with m − 1 degrees of freedom.
func FitConstrained(n, t []float64) (LinearFit, error) {
	w, err := relativeWeights(n, t)
	if err != nil {
		return LinearFit{}, fmt.Errorf("timing: FitConstrained: %w", err)
	}
	u, err := FitLinearWeighted(n, t, w)
	if err != nil {
		return LinearFit{}, err
	}
	if u.Overhead >= 0 && u.PerItem >= 0 {
		return u, nil
	}
	m := len(n)
	q := tQuantile(m - 1)
	// Candidate 1: a = 0, b = Σw·n·t / Σw·n² (clamped at 0).
	var swnt, swnn, swt, sw float64
	for i := range n {
		swnt += w[i] * n[i] * t[i]
		swnn += w[i] * n[i] * n[i]
		swt += w[i] * t[i]
		sw += w[i]
	}
	ssr := func(a, b float64) float64 {
		var s float64
		for i := range n {
			r := t[i] - a - b*n[i]
			s += w[i] * r * r
		}
		return s
	}
	b0 := math.Max(0, swnt/swnn)
	a1 := math.Max(0, swt/sw)
	s0, s1 := ssr(0, b0), ssr(a1, 0)
	f := LinearFit{DoF: m - 1}
	if s0 <= s1 {
		s2 := s0 / float64(m-1)
		se := math.Sqrt(s2 / swnn)
		f.Overhead, f.PerItem = 0, b0
		f.SEPerItem, f.SEOverhead = se, u.SEOverhead
		f.PerItemCI = [2]float64{math.Max(0, b0-q*se), b0 + q*se}
		f.OverheadCI = [2]float64{0, math.Max(0, u.OverheadCI[1])}
		f.Constrained = BoundOverhead
	} else {
		s2 := s1 / float64(m-1)
		se := math.Sqrt(s2 / sw)
		f.Overhead, f.PerItem = a1, 0
		f.SEOverhead, f.SEPerItem = se, u.SEPerItem
		f.OverheadCI = [2]float64{math.Max(0, a1-q*se), a1 + q*se}
		f.PerItemCI = [2]float64{0, math.Max(0, u.PerItemCI[1])}
		f.Constrained = BoundPerItem
	}
	f.R2 = weightedR2(n, t, w, f)
	return f, nil
}

// weightedR2 is 1 − SSR/SST of f on the weighted points.
func weightedR2(n, t, w []float64, f LinearFit) float64 {
	var sw, swy float64
	for i := range t {
		sw += w[i]
		swy += w[i] * t[i]
	}
	my := swy / sw
	var ssr, sst float64
	for i := range t {
		r := t[i] - f.At(n[i])
		d := t[i] - my
		ssr += w[i] * r * r
		sst += w[i] * d * d
	}
	if sst <= 0 {
		return 1
	}
	return 1 - ssr/sst
}

// Segment is one regime of a Model: t(n) = Fit.Overhead + Fit.PerItem·(n −
// Origin) for batch sizes in [From, To] (the measured points it was fitted
// on). Origin is 0 for the first segment and the knee for the second, so
// every coefficient is a time or a cost per item, never negative.
type Segment struct {
	From   float64   `json:"from"`
	To     float64   `json:"to"`
	Origin float64   `json:"origin"`
	Fit    LinearFit `json:"fit"`
	R2     float64   `json:"r2"` // R² over the segment's own points
}

// At evaluates the segment at n.
func (s Segment) At(n float64) float64 { return s.Fit.At(n - s.Origin) }

// global returns the segment's line in t = a + b·n form (a may be negative
// for a segment past a knee; only used to intersect lines).
func (s Segment) global() LinearFit {
	f := s.Fit
	if s.Origin == 0 {
		return f
	}
	k := s.Origin
	g := f
	g.Overhead = f.Overhead - f.PerItem*k
	g.SEOverhead = math.Sqrt(math.Max(0, f.SEOverhead*f.SEOverhead+k*k*f.SEPerItem*f.SEPerItem-2*k*f.Cov))
	g.Cov = f.Cov - k*f.SEPerItem*f.SEPerItem
	q := tQuantile(f.DoF)
	g.OverheadCI = [2]float64{g.Overhead - q*g.SEOverhead, g.Overhead + q*g.SEOverhead}
	return g
}

// Model is t(n) fitted per regime: one segment, or two meeting at a knee
// where the data has one (a working set leaving the cache changes the
// per-item cost).
type Model struct {
	Segments []Segment `json:"segments"`
	// Knee is the batch size where the regimes meet (0: one segment).
	Knee float64 `json:"knee,omitempty"`
	// Single is the one-line constrained fit over every point, kept for
	// comparison.
	Single LinearFit `json:"single"`
}

// At evaluates the model at n with the segment whose range holds n (the
// first below the range, the last above it).
// A model with no segments is NaN everywhere (dispatch.New rejects it).
func (m *Model) At(n float64) float64 {
	if len(m.Segments) == 0 {
		return math.NaN()
	}
	return m.segment(n).At(n)
}

// segment is the segment whose range holds n (the first below the range,
// the last above it), in place: a Segment is 15 floats, and copying each
// one the loop passes made Model.At cost twice BenchmarkDo/warm's whole
// call (whose executors evaluate models).
func (m *Model) segment(n float64) *Segment {
	for i := range m.Segments {
		if n <= m.Segments[i].To {
			return &m.Segments[i]
		}
	}
	return &m.Segments[len(m.Segments)-1]
}

// Range is the measured batch range the model was fitted on (0, 0 for a
// model with no segments).
func (m Model) Range() (lo, hi float64) {
	if len(m.Segments) == 0 {
		return 0, 0
	}
	return m.Segments[0].From, m.Segments[len(m.Segments)-1].To
}

// FitModel fits t(n) with FitConstrained and, where the data has a knee,
// with a continuous two-regime model
//
//	t(n) = a + b₁·n                     for n ≤ k
//	t(n) = a + b₁·k + b₂·(n − k)        for n > k
//
// with a, b₁, b₂ ≥ 0 (weights 1/t², the knee k at a measured point). The
// knee is kept only when the single line's R² is below p.KneeR2 and the
// two-regime model cuts its weighted SSR by p.KneeGain, with at least
// p.KneeMinPoints points either side (zero fields of p: the defaults).
func FitModel(n, t []float64, p Policy) (Model, error) {
	p, err := p.resolve()
	if err != nil {
		return Model{}, fmt.Errorf("timing: FitModel: %w", err)
	}
	single, err := FitConstrained(n, t)
	if err != nil {
		return Model{}, err
	}
	idx := make([]int, len(n))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return n[idx[i]] < n[idx[j]] })
	ns := make([]float64, len(n))
	ts := make([]float64, len(n))
	w := make([]float64, len(n))
	for k, i := range idx {
		ns[k], ts[k], w[k] = n[i], t[i], 1/(t[i]*t[i])
	}
	m := Model{Single: single, Segments: []Segment{{From: ns[0], To: ns[len(ns)-1], Fit: single, R2: single.R2}}}
	if single.R2 >= p.KneeR2 || len(ns) < 2*p.KneeMinPoints-1 {
		return m, nil
	}
	var best hinge
	found := false
	for k := p.KneeMinPoints - 1; k <= len(ns)-p.KneeMinPoints; k++ {
		if ns[k] == ns[0] || ns[k] == ns[len(ns)-1] {
			continue
		}
		h, ok := fitHinge(ns, ts, w, ns[k])
		if ok && (!found || h.ssr < best.ssr) {
			best, found = h, true
		}
	}
	if !found || best.ssr*p.KneeGain > wssr(ns, ts, w, single.At) {
		return m, nil
	}
	k := best.knee
	q := tQuantile(best.dof)
	mk := func(a, b, va, vb, cab float64) LinearFit {
		sa, sb := math.Sqrt(math.Max(0, va)), math.Sqrt(math.Max(0, vb))
		return LinearFit{Overhead: a, PerItem: b, SEOverhead: sa, SEPerItem: sb, Cov: cab, DoF: best.dof,
			OverheadCI: [2]float64{math.Max(0, a-q*sa), a + q*sa}, PerItemCI: [2]float64{math.Max(0, b-q*sb), b + q*sb}}
	}
	c := best.cov
	s1 := Segment{From: ns[0], To: k, Fit: mk(best.p[0], best.p[1], c[0][0], c[1][1], c[0][1])}
	s2 := Segment{From: k, To: ns[len(ns)-1], Origin: k,
		Fit: mk(best.p[0]+best.p[1]*k, best.p[2], c[0][0]+k*k*c[1][1]+2*k*c[0][1], c[2][2], c[0][2]+k*c[1][2])}
	for _, s := range []*Segment{&s1, &s2} {
		var sn, st, sw []float64
		for i := range ns {
			if ns[i] >= s.From && ns[i] <= s.To {
				sn, st, sw = append(sn, ns[i]), append(st, ts[i]), append(sw, w[i])
			}
		}
		s.R2 = weightedR2(sn, st, sw, LinearFit{Overhead: s.Fit.Overhead - s.Fit.PerItem*s.Origin, PerItem: s.Fit.PerItem})
		s.Fit.R2 = s.R2
	}
	m.Knee = k
	m.Segments = []Segment{s1, s2}
	return m, nil
}

func wssr(n, t, w []float64, f func(float64) float64) float64 {
	var s float64
	for i := range n {
		r := t[i] - f(n[i])
		s += w[i] * r * r
	}
	return s
}

// hinge is a fitted two-regime model: p = (a, b₁, b₂) with covariance cov.
type hinge struct {
	knee float64
	p    [3]float64
	cov  [3][3]float64
	ssr  float64
	dof  int
}

// fitHinge fits the two-regime model with its knee at k, the parameters
// constrained ≥ 0: every subset of free parameters is solved by weighted
// least squares and the best feasible one kept (the problem is convex and
// small, so the enumeration is exact).
func fitHinge(n, t, w []float64, k float64) (hinge, bool) {
	basis := func(x float64) [3]float64 { return [3]float64{1, math.Min(x, k), math.Max(0, x-k)} }
	var best hinge
	found := false
	for mask := 1; mask < 8; mask++ {
		var free []int
		for j := 0; j < 3; j++ {
			if mask&(1<<j) != 0 {
				free = append(free, j)
			}
		}
		f := len(free)
		if len(n)-f < 1 {
			continue
		}
		// Normal equations X'WX p = X'Wt over the free columns.
		var xtx [3][3]float64
		var xty [3]float64
		for i := range n {
			b := basis(n[i])
			for r, jr := range free {
				xty[r] += w[i] * b[jr] * t[i]
				for c, jc := range free {
					xtx[r][c] += w[i] * b[jr] * b[jc]
				}
			}
		}
		inv, ok := invert(xtx, f)
		if !ok {
			continue
		}
		var h hinge
		h.knee = k
		feasible := true
		for r, jr := range free {
			for c := 0; c < f; c++ {
				h.p[jr] += inv[r][c] * xty[c]
			}
			if h.p[jr] < 0 {
				feasible = false
			}
		}
		if !feasible {
			continue
		}
		h.ssr = wssr(n, t, w, func(x float64) float64 { b := basis(x); return h.p[0]*b[0] + h.p[1]*b[1] + h.p[2]*b[2] })
		h.dof = len(n) - f
		s2 := h.ssr / float64(h.dof)
		for r, jr := range free {
			for c, jc := range free {
				h.cov[jr][jc] = s2 * inv[r][c]
			}
		}
		if !found || h.ssr < best.ssr {
			best, found = h, true
		}
	}
	return best, found
}

// invert inverts the leading f×f block of a (f ≤ 3) by Gauss-Jordan with
// partial pivoting; ok is false when it is singular.
func invert(a [3][3]float64, f int) (inv [3][3]float64, ok bool) {
	for i := 0; i < f; i++ {
		inv[i][i] = 1
	}
	for c := 0; c < f; c++ {
		p := c
		for r := c + 1; r < f; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-300 {
			return inv, false
		}
		a[c], a[p] = a[p], a[c]
		inv[c], inv[p] = inv[p], inv[c]
		d := a[c][c]
		for j := 0; j < f; j++ {
			a[c][j] /= d
			inv[c][j] /= d
		}
		for r := 0; r < f; r++ {
			if r == c {
				continue
			}
			x := a[r][c]
			for j := 0; j < f; j++ {
				a[r][j] -= x * a[c][j]
				inv[r][j] -= x * inv[c][j]
			}
		}
	}
	return inv, true
}

// FitLocal fits one regime: t(n) = t₀ + b·(n − origin) with t₀, b ≥ 0
// (FitConstrained on n − origin), for the points of a regime that starts
// at origin (e.g. the sizes around a measured crossover, past a knee).
func FitLocal(n, t []float64, origin float64) (Model, error) {
	x := make([]float64, len(n))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range n {
		x[i] = v - origin
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	f, err := FitConstrained(x, t)
	if err != nil {
		return Model{}, err
	}
	return Model{Single: f, Segments: []Segment{{From: lo, To: hi, Origin: origin, Fit: f, R2: f.R2}}}, nil
}

// Prediction is a fitted crossover between two models with its range of
// validity: it is Extrapolated when N lies outside the batch range both
// models were fitted on.
type Prediction struct {
	Crossover
	// ValidFrom and ValidTo bound the batch sizes both models were fitted
	// on; a prediction outside it is an extrapolation.
	ValidFrom    float64 `json:"valid_from"`
	ValidTo      float64 `json:"valid_to"`
	Extrapolated bool    `json:"extrapolated"`
}

// PredictCrossover returns where side b becomes faster than side a (b's
// model below a's) from the models' segments: it walks the batch range in
// the order of the segment boundaries, solves each pair of segments
// (CrossoverOf with a in the role of the CPU) and returns the first
// crossover that falls inside the pair's own range, or, failing that, the
// one of the last pair (beyond the data: extrapolated) or of the first
// (below it). "below" kinds (b faster only for small n) are reported as
// never/always from the comparison at the ends of the range, never as a
// crossover from a negative intercept: the fits are constrained.
//
// A model with no segments (the zero Model) gives Kind CrossUnknown.
func PredictCrossover(a, b Model) Prediction {
	if len(a.Segments) == 0 || len(b.Segments) == 0 {
		return Prediction{Crossover: Crossover{Kind: CrossUnknown}}
	}
	alo, ahi := a.Range()
	blo, bhi := b.Range()
	p := Prediction{ValidFrom: math.Max(alo, blo), ValidTo: math.Min(ahi, bhi)}
	// Boundaries of the segment pairs.
	cuts := []float64{math.Inf(-1), math.Inf(1)}
	for _, m := range []Model{a, b} {
		if m.Knee > 0 {
			cuts = append(cuts, m.Knee)
		}
	}
	sort.Float64s(cuts)
	type pair struct {
		lo, hi float64
		c      Crossover
	}
	var pairs []pair
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]
		if lo == hi {
			continue
		}
		mid := midOf(lo, hi, p.ValidFrom, p.ValidTo)
		sa, sb := a.segment(mid), b.segment(mid)
		pairs = append(pairs, pair{lo, hi, CrossoverOf(sa.global(), sb.global())})
	}
	for _, pr := range pairs {
		c := pr.c
		if (c.Kind == CrossAt || c.Kind == CrossBelow) && c.N >= pr.lo && c.N <= pr.hi {
			p.Crossover = c
			p.Extrapolated = c.N < p.ValidFrom || c.N > p.ValidTo
			return p
		}
	}
	// No crossover inside any pair's range (the outer pairs reach to
	// ±∞, so extrapolated ones were found above): the same side is faster
	// everywhere.
	mid := midOf(math.Inf(-1), math.Inf(1), p.ValidFrom, p.ValidTo)
	if b.At(mid) < a.At(mid) {
		p.Crossover = Crossover{Kind: CrossAlways}
	} else {
		p.Crossover = Crossover{Kind: CrossNever}
	}
	return p
}

// midOf picks a point inside (lo, hi) (either may be infinite) to choose
// the segments of that interval.
func midOf(lo, hi, vlo, vhi float64) float64 {
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return (vlo + vhi) / 2
	case math.IsInf(lo, -1):
		return hi - 1e-9*math.Max(1, math.Abs(hi))
	case math.IsInf(hi, 1):
		return lo + 1e-9*math.Max(1, math.Abs(lo))
	}
	return (lo + hi) / 2
}

// IntervalError is the error of a predicted value against a measured
// interval [lo, hi]: 0 inside it, else the relative distance to the nearer
// end ((p − hi)/hi above, (p − lo)/lo below).
func IntervalError(p, lo, hi float64) float64 {
	switch {
	case p < lo:
		return RelError(p, lo)
	case p > hi:
		return RelError(p, hi)
	}
	return 0
}
