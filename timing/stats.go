package timing

import (
	"github.com/wgpu-prof/wgpu-prof/timing/load"

	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// The confidence of the package's intervals.
const (
	// Confidence is the confidence level of every interval this package
	// reports.
	Confidence = 0.95
	// MinSamplesForCI is the smallest sample count for which the
	// order-statistic interval of the median reaches 95% confidence
	// (1 − 2·0.5⁶ ≈ 0.969).
	MinSamplesForCI = 6
)

// Thresholds for the warnings attached to a Summary (METHOD.md: warn, do not
// hide).
const (
	// defaultWarnCV is the coefficient of variation above which a summary
	// is flagged as noisy unless the caller passes another threshold
	// (MeasureOpts.WarnCV, SummarizeCV).
	defaultWarnCV = 0.05
	// warnMaxOverMedian is the max/median ratio above which a summary is
	// flagged as having outliers ("max > 2× median").
	warnMaxOverMedian = 2.0
)

// Summary describes a set of repeated measurements of one quantity.
//
// Median is the centre; Lo and Hi bound a distribution-free confidence
// interval of the median built from order statistics (see MedianCI). Values
// are in the caller's unit, seconds for everything produced by Measure.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"` // lower bound of the CI of the median
	Hi     float64 `json:"hi"` // upper bound of the CI of the median
	// Confidence is the actual coverage of [Lo, Hi]; it is ≥ 0.95 once
	// N ≥ MinSamplesForCI and lower (down to 0) for fewer samples.
	Confidence float64 `json:"confidence"`
	Mean       float64 `json:"mean"`
	Min        float64 `json:"min"`
	Max        float64 `json:"max"`
	// CV is the sample standard deviation over the mean (0 for N < 2).
	CV       float64  `json:"cv"`
	Warnings []string `json:"warnings,omitempty"`
	// Load is the work beside the measurement while it ran (Measure
	// records it; nil where unknown or not measured).
	Load *load.Load `json:"load,omitempty"`
}

// SummarizeErr summarizes samples. It returns ErrNoSamples for an empty
// slice and ErrInvalidSample (wrapped, naming the index) if any sample is
// NaN or ±Inf. The input slice is not modified. A CV above 5% is
// flagged.
func SummarizeErr(samples []float64) (Summary, error) {
	s, err := summarize(samples, defaultWarnCV)
	if err != nil {
		return Summary{}, fmt.Errorf("timing: SummarizeErr: %w", err)
	}
	return s, nil
}

// SummarizeCV is SummarizeErr flagging a CV above warnCV (0: 0.05, 5%);
// a negative, NaN or infinite warnCV is an error wrapping ErrBadThreshold.
func SummarizeCV(samples []float64, warnCV float64) (Summary, error) {
	s, err := summarize(samples, warnCV)
	if err != nil {
		return Summary{}, fmt.Errorf("timing: SummarizeCV: %w", err)
	}
	return s, nil
}

// summarize is SummarizeCV with its errors not yet prefixed.
func summarize(samples []float64, warnCV float64) (Summary, error) {
	if warnCV == 0 {
		warnCV = defaultWarnCV
	}
	if !(warnCV > 0) || math.IsInf(warnCV, 0) {
		return Summary{}, fmt.Errorf("%w: warnCV %v (want a positive finite fraction; 0: %v)", ErrBadThreshold, warnCV, defaultWarnCV)
	}
	if len(samples) == 0 {
		return Summary{}, ErrNoSamples
	}
	for i, v := range samples {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Summary{}, fmt.Errorf("sample %d = %v: %w", i, v, ErrInvalidSample)
		}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	n := len(sorted)

	s := Summary{N: n, Min: sorted[0], Max: sorted[n-1]}
	s.Median = quantileSorted(sorted, 0.5)
	loIdx, hiIdx, conf, err := MedianCI(n, Confidence)
	if err != nil {
		return Summary{}, err
	}
	s.Lo, s.Hi, s.Confidence = sorted[loIdx], sorted[hiIdx], conf

	// Mean and CV of the samples divided by the largest magnitude m, so
	// that values near ±MaxFloat64 neither overflow the sum (a mean of
	// +Inf, a CV of NaN) nor lose the scale: CV is scale-free and the
	// mean is m times the scaled mean, both finite.
	m := math.Max(math.Abs(sorted[0]), math.Abs(sorted[n-1]))
	if m > 0 {
		var sum float64
		for _, v := range sorted {
			sum += v / m
		}
		mean := sum / float64(n)
		s.Mean = mean * m
		if n > 1 && mean != 0 {
			var ss float64
			for _, v := range sorted {
				d := v/m - mean
				ss += d * d
			}
			s.CV = math.Sqrt(ss/float64(n-1)) / math.Abs(mean)
			if math.IsInf(s.CV, 0) || math.IsNaN(s.CV) {
				s.CV = math.MaxFloat64
			}
		}
	}

	if n < MinSamplesForCI {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"too few samples for a 95%% CI: n=%d < %d (interval is min..max, %.1f%% confidence)",
			n, MinSamplesForCI, 100*conf))
	}
	if s.CV > warnCV {
		s.Warnings = append(s.Warnings, fmt.Sprintf("CV > %.0f%%: CV = %.1f%%", 100*warnCV, 100*s.CV))
	}
	if s.Median > 0 && s.Max > warnMaxOverMedian*s.Median {
		s.Warnings = append(s.Warnings, fmt.Sprintf("max > 2× median: max = %.2f× median", s.Max/s.Median))
	}
	return s, nil
}

// Summarize is SummarizeErr for callers that prefer warnings to errors: on
// invalid input it returns a Summary whose numeric fields, N included, are
// zero (never NaN, so it stays JSON-encodable) and whose only warning carries
// the error text. Check Valid before using the numbers.
func Summarize(samples []float64) Summary {
	s, err := SummarizeErr(samples)
	if err != nil {
		return Summary{Warnings: []string{"invalid summary: " + err.Error()}}
	}
	return s
}

// Valid reports whether s summarizes at least one valid sample.
func (s Summary) Valid() bool { return s.N > 0 }

// RelHalfWidth returns the larger distance from the median to either end of
// its confidence interval, relative to the median (0.02 means ±2%). It
// returns +Inf when the median is zero and the interval is not a point.
func (s Summary) RelHalfWidth() float64 {
	return relHalfWidth(s.Median, s.Lo, s.Hi)
}

// relHalfWidth returns max(hi−center, center−lo)/|center|; +Inf when center
// is zero and the interval has width, 0 when all three are equal.
func relHalfWidth(center, lo, hi float64) float64 {
	h := math.Max(hi-center, center-lo)
	if h <= 0 {
		return 0
	}
	if center == 0 {
		return math.Inf(1)
	}
	return h / math.Abs(center)
}

// String formats the summary as a duration in seconds with its relative CI
// half-width, e.g. "1.23ms ±2%". A summary whose median is zero prints "0s".
func (s Summary) String() string {
	if s.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s %s", FormatSeconds(s.Median), s.PctString())
}

// PctString formats the relative CI half-width as "±2%" ("±?" when it is
// undefined, "±∞" when the median is zero).
func (s Summary) PctString() string {
	r := s.RelHalfWidth()
	switch {
	case math.IsInf(r, 0):
		return "±∞"
	case math.IsNaN(r):
		return "±?"
	case r < 0.0095:
		return fmt.Sprintf("±%.1f%%", 100*r)
	}
	return fmt.Sprintf("±%.0f%%", 100*r)
}

// FormatSeconds prints a value in seconds with three significant digits and
// an SI prefix: 1.23ms, 45.6µs, 789ns, 2.00s.
func FormatSeconds(sec float64) string {
	a := math.Abs(sec)
	switch {
	case a == 0:
		return "0s"
	case math.IsNaN(sec) || math.IsInf(sec, 0):
		return fmt.Sprint(sec)
	case a >= 1e5 || a < 1e-9:
		// Far outside the units below: scientific, never a rounded 0 or
		// a 20-digit number.
		return fmt.Sprintf("%.3gs", sec)
	case a >= 1:
		return sig3(sec) + "s"
	case a >= 1e-3:
		return sig3(sec*1e3) + "ms"
	case a >= 1e-6:
		return sig3(sec*1e6) + "µs"
	}
	return sig3(sec*1e9) + "ns"
}

// FormatSecondsSpaced is FormatSeconds with a space before the unit, as
// prose writes it: "2.02 ms", "585 µs".
func FormatSecondsSpaced(sec float64) string {
	s := FormatSeconds(sec)
	for _, u := range []string{"ms", "µs", "ns", "s"} {
		if strings.HasSuffix(s, u) && !strings.Contains(s, "e") {
			return strings.TrimSuffix(s, u) + " " + u
		}
	}
	return s
}

func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Seconds converts durations to seconds, the unit Summarize expects for
// times.
func Seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// quantileSorted returns the p-quantile of sorted data with linear
// interpolation between order statistics (the median of an even count is the
// mean of the middle two).
func quantileSorted(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 1 {
		return sorted[0]
	}
	pos := p * float64(n-1)
	i := int(math.Floor(pos))
	if i >= n-1 {
		return sorted[n-1]
	}
	f := pos - float64(i)
	if d := sorted[i+1] - sorted[i]; !math.IsInf(d, 0) {
		return sorted[i] + f*d
	}
	// Values near ±MaxFloat64 of opposite signs: the difference
	// overflows, the weighted sum does not.
	return (1-f)*sorted[i] + f*sorted[i+1]
}

// MedianCI returns the 0-based indices lo, hi into n sorted samples whose
// values bound a confidence interval of the median, and its exact coverage.
//
// The method is distribution-free: the number of samples below the true
// median is Binomial(n, ½), so [x(k), x(n+1−k)] (1-based order statistics)
// covers the median with probability 1 − 2·P(B ≤ k−1). MedianCI picks the
// largest k whose coverage is still ≥ conf, which is exact for small n (no
// normal approximation). When even k = 1 (min..max) falls short of conf —
// n < 6 for 95% — it returns min..max with its lower coverage.
//
// It returns an error wrapping ErrBadThreshold for n <= 0 or a conf
// outside (0, 1) (NaN included). Above medianCIExact samples it uses the
// normal approximation of the binomial (its error is far below the
// coverage steps there).
func MedianCI(n int, conf float64) (lo, hi int, coverage float64, err error) {
	if n <= 0 || !(conf > 0 && conf < 1) {
		return 0, 0, 0, fmt.Errorf("timing: MedianCI: %w: n=%d, conf=%v: want n ≥ 1 and conf in (0, 1)", ErrBadThreshold, n, conf)
	}
	if n > medianCIExact {
		// B ≈ Normal(n/2, √n/2): the largest k with
		// 1 − 2·P(B ≤ k−1) ≥ conf, with a continuity correction.
		z := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
		half := float64(n) / 2
		sd := math.Sqrt(float64(n)) / 2
		k := max(1, int(math.Floor(half-z*sd+0.5)))
		coverage = math.Max(0, 1-2*distuv.UnitNormal.CDF((float64(k-1)+0.5-half)/sd))
		return k - 1, n - k, coverage, nil
	}
	// tail is P(B ≤ k−1) for B ~ Binomial(n, ½); terms are computed in log
	// space so large n does not underflow.
	k := 1
	tail := binomHalfPMF(n, 0)
	for k+1 <= (n+1)/2 {
		next := tail + binomHalfPMF(n, k)
		if 1-2*next < conf {
			break
		}
		tail = next
		k++
	}
	coverage = math.Max(0, 1-2*tail)
	return k - 1, n - k, coverage, nil
}

// medianCIExact is the largest n for which MedianCI sums the binomial
// exactly (its loop is O(n)).
const medianCIExact = 1 << 16

// binomHalfPMF returns P(B = j) for B ~ Binomial(n, ½).
func binomHalfPMF(n, j int) float64 {
	return math.Exp(lchoose(n, j) - float64(n)*math.Ln2)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
