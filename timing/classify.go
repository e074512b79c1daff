package timing

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/timing/load"
)

// Memory-versus-compute classification kinds (docs/METHOD.md,
// "Memory-vs-compute").
const (
	MemoryBound  = "memory-bound"
	ComputeBound = "compute-bound"
	NoOverlap    = "no-overlap"
	Mixed        = "mixed"
	Invalid      = "invalid"
)

// Classification is the verdict of the three-shader experiment and the
// numbers behind it.
type Classification struct {
	Kind        string `json:"kind"`
	Explanation string `json:"explanation"`
	// Roofline and Consistent are filled by RooflineCheck.
	Roofline   string `json:"roofline,omitempty"`
	Consistent bool   `json:"consistent,omitempty"`
	// Busy is the busiest load beside the three timings when any ran on a
	// busy host (load.Load.Busy): the kind is then not firm.
	Busy *load.Load `json:"busy,omitempty"`
}

// ClassifyMemCompute classifies a kernel from three timings over the same
// data: a (memory only: reads every input, minimal arithmetic), b (compute
// only: the arithmetic with no global reads) and c (the full kernel), with
// the relative tolerance tol = p.ClassifyTol (zero: 0.15).
//
// "x ≈ c" means |x − c| ≤ tol·c, or the 95% CIs of x and c overlap (so noisy
// data is not over-interpreted). For the sum a+b the median is a.Median +
// b.Median and the interval [a.Lo+b.Lo, a.Hi+b.Hi] (conservative). Rules, in
// order:
//
//   - a ≈ c and b ≈ c: both limits coincide, "mixed" (balanced);
//   - a ≈ c: "memory-bound" (the arithmetic hides behind the reads);
//   - b ≈ c: "compute-bound";
//   - a+b ≈ c: "no-overlap" (memory and arithmetic are serialized);
//   - otherwise "mixed": c lies between the limits and their sum (partial
//     overlap) or outside them (costs neither shader captures).
//
// Invalid summaries (N = 0), non-positive medians or a Policy field that is
// negative, NaN or infinite give Kind "invalid".
func ClassifyMemCompute(a, b, c Summary, p Policy) Classification {
	for _, s := range []struct {
		name string
		s    Summary
	}{{"A", a}, {"B", b}, {"C", c}} {
		if !s.s.Valid() || !(s.s.Median > 0) {
			return Classification{Kind: Invalid, Explanation: fmt.Sprintf("shader %s has no valid positive timing", s.name)}
		}
	}
	p, err := p.resolve()
	if err != nil {
		return Classification{Kind: Invalid, Explanation: "tolerance: " + err.Error()}
	}
	tol := p.ClassifyTol
	sum := Summary{N: 1, Median: a.Median + b.Median, Lo: a.Lo + b.Lo, Hi: a.Hi + b.Hi}
	aC, bC, sumC := approx(a, c, tol), approx(b, c, tol), approx(sum, c, tol)
	nums := fmt.Sprintf("A (memory only) %s, B (compute only) %s, A+B %s, C (full) %s",
		a, b, FormatSeconds(sum.Median), c)
	rel := func(x Summary) string {
		d := 100 * (x.Median/c.Median - 1)
		if d < 0 {
			return fmt.Sprintf("%.0f%% below C", -d)
		}
		return fmt.Sprintf("%.0f%% above C", d)
	}
	var k Classification
	switch {
	case aC && bC:
		k.Kind = Mixed
		k.Explanation = fmt.Sprintf("%s: both A (%s) and B (%s) are within %.0f%% of C; memory and arithmetic limits coincide (balanced)",
			nums, rel(a), rel(b), 100*tol)
	case aC:
		k.Kind = MemoryBound
		k.Explanation = fmt.Sprintf("%s: A is within %.0f%% of C (%s) while B is %s; the reads set the time",
			nums, 100*tol, rel(a), rel(b))
	case bC:
		k.Kind = ComputeBound
		k.Explanation = fmt.Sprintf("%s: B is within %.0f%% of C (%s) while A is %s; the arithmetic sets the time",
			nums, 100*tol, rel(b), rel(a))
	case sumC:
		k.Kind = NoOverlap
		k.Explanation = fmt.Sprintf("%s: A+B is within %.0f%% of C (%s); memory and arithmetic do not overlap",
			nums, 100*tol, rel(sum))
	default:
		k.Kind = Mixed
		lim := math.Max(a.Median, b.Median)
		if c.Median < lim {
			k.Explanation = fmt.Sprintf("%s: C is faster than max(A, B) by more than %.0f%%; the probe shaders do not isolate the costs", nums, 100*tol)
		} else if c.Median > sum.Median {
			k.Explanation = fmt.Sprintf("%s: C exceeds A+B by %.0f%%; costs neither probe captures dominate",
				nums, 100*(c.Median/sum.Median-1))
		} else {
			k.Explanation = fmt.Sprintf("%s: C lies between max(A, B) and A+B; memory and arithmetic partly overlap", nums)
		}
	}
	if l := load.Max(load.Max(a.Load, b.Load), c.Load); l.Busy() {
		k.Busy = l
		k.Explanation += fmt.Sprintf("; not firm: host busy (%s)", l)
	}
	return k
}

// approx reports whether x ≈ c: within tol relative to c, or overlapping
// confidence intervals.
func approx(x, c Summary, tol float64) bool {
	if math.Abs(x.Median-c.Median) <= tol*c.Median {
		return true
	}
	return x.Lo <= c.Hi && c.Lo <= x.Hi
}

// Comparison says whether the faster of two timings is significantly
// faster (METHOD.md, "Measurements and statistics").
type Comparison struct {
	// Margin is slower.Median/faster.Median − 1 (0.2: 20% slower).
	Margin float64 `json:"margin"`
	// Significant is true when the 95% CIs of the two medians do not
	// overlap; otherwise the two are a tie.
	Significant bool `json:"significant"`
	// Busy is the busier load beside the two timings when either was
	// measured on a busy host (load.Load.Busy): the comparison is then
	// not firm, whatever its CIs say; nil otherwise.
	Busy *load.Load `json:"busy,omitempty"`
}

// Compare compares the faster timing a with the slower b (a.Median ≤
// b.Median). Non-overlapping CIs of the medians are the significance test:
// for two independent 95% intervals it rejects "equal medians" at a level
// well below 5%, and it needs no distribution assumption.
func Compare(a, b Summary) Comparison {
	c := Comparison{Significant: a.Hi < b.Lo}
	if a.Median > 0 {
		c.Margin = b.Median/a.Median - 1
	}
	if l := load.Max(a.Load, b.Load); l.Busy() {
		c.Busy = l
	}
	return c
}

// String is "by 12.0%, significant (95% CIs disjoint)", "by 12.0%, 95% CIs
// disjoint, but not firm: host busy (…)" or "tie: …".
func (c Comparison) String() string {
	if c.Significant && c.Busy != nil {
		return fmt.Sprintf("by %.1f%%, 95%% CIs disjoint, but not firm: host busy (%s)", 100*c.Margin, c.Busy)
	}
	if c.Significant {
		return fmt.Sprintf("by %.1f%%, significant (95%% CIs disjoint)", 100*c.Margin)
	}
	return fmt.Sprintf("tie: %.1f%% apart, 95%% CIs overlap", 100*c.Margin)
}

// Subtract returns x − base: the medians subtracted, the interval widened
// to [x.Lo − base.Hi, x.Hi − base.Lo] (conservative), N the smaller of the
// two. The memory-vs-compute experiment subtracts its empty skeleton this
// way (METHOD.md, "Memory-vs-compute").
func Subtract(x, base Summary) Summary {
	return Summary{N: min(x.N, base.N), Median: x.Median - base.Median, Lo: x.Lo - base.Hi, Hi: x.Hi - base.Lo,
		Confidence: math.Min(x.Confidence, base.Confidence), Mean: x.Mean - base.Mean}
}

// RooflineCheck compares a classification with the roofline position the
// probes themselves measure: at the kernel's bytes and arithmetic, A (net
// of the skeleton) is the time of the bytes at the machine's streaming
// rate and B the time of the arithmetic at its FMA rate, so the roofline
// puts the kernel on the memory side when A > B. A memory-bound verdict
// with B significantly above A (or compute-bound with A above B) is
// inconsistent and said so. It fills Roofline and Consistent (a nil k:
// nothing to fill).
func RooflineCheck(k *Classification, a, b Summary) {
	if k == nil {
		return
	}
	side := "memory"
	if b.Median > a.Median {
		side = "compute"
	}
	k.Roofline = fmt.Sprintf("roofline position: %s side (A−E %s vs B−E %s)", side, FormatSeconds(a.Median), FormatSeconds(b.Median))
	k.Consistent = true
	switch k.Kind {
	case MemoryBound:
		k.Consistent = !(b.Lo > a.Hi)
	case ComputeBound:
		k.Consistent = !(a.Lo > b.Hi)
	}
	if !k.Consistent {
		k.Roofline += fmt.Sprintf(": INCONSISTENT with the %s verdict", k.Kind)
	}
}

// Ratio returns num/den as a Summary: the ratio of the medians, with the
// conservative interval [num.Lo/den.Hi, num.Hi/den.Lo] (each median inside
// its own 95% interval; METHOD.md, "Measurements and statistics"). Used
// for overheads such as timestamps on vs off.
func Ratio(num, den Summary) Summary {
	r := Summary{N: min(num.N, den.N), Confidence: math.Min(num.Confidence, den.Confidence)}
	if den.Median > 0 {
		r.Median = num.Median / den.Median
	}
	if den.Hi > 0 {
		r.Lo = num.Lo / den.Hi
	}
	if den.Lo > 0 {
		r.Hi = num.Hi / den.Lo
	} else {
		r.Hi = math.Inf(1)
	}
	return r
}
