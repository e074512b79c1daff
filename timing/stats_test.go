package timing_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func near(a, b, tol float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func TestMedianCI(t *testing.T) {
	// Hand-checked: coverage of [x(k), x(n+1−k)] is 1 − 2·P(B ≤ k−1),
	// B ~ Binomial(n, ½).
	tests := []struct {
		n            int
		lo, hi       int
		coverage     float64
		reaches95pct bool
	}{
		{1, 0, 0, 0, false},
		{5, 0, 4, 1 - 2.0/32, false},             // 0.9375
		{6, 0, 5, 1 - 2.0/64, true},              // 0.96875
		{10, 1, 8, 1 - 2*11.0/1024, true},        // P(B≤1) = 11/1024
		{20, 5, 14, 1 - 2*21700.0/1048576, true}, // P(B≤5) = 21700/2^20
	}
	for _, tc := range tests {
		lo, hi, cov, _ := timing.MedianCI(tc.n, 0.95)
		if lo != tc.lo || hi != tc.hi || !near(cov, tc.coverage, 1e-9) {
			t.Errorf("MedianCI(%d) = %d, %d, %v; want %d, %d, %v", tc.n, lo, hi, cov, tc.lo, tc.hi, tc.coverage)
		}
		if (cov >= 0.95) != tc.reaches95pct {
			t.Errorf("MedianCI(%d) coverage %v: reaches 95%% = %v, want %v", tc.n, cov, cov >= 0.95, tc.reaches95pct)
		}
	}
	// Large n must not underflow and must stay near the normal approximation.
	lo, hi, cov, _ := timing.MedianCI(10000, 0.95)
	if cov < 0.95 || cov > 0.96 || lo < 4890 || hi > 5110 {
		t.Errorf("MedianCI(10000) = %d, %d, %v", lo, hi, cov)
	}
}

func TestSummarize(t *testing.T) {
	s, err := timing.SummarizeErr([]float64{6, 1, 5, 2, 4, 3})
	if err != nil {
		t.Fatal(err)
	}
	want := timing.Summary{N: 6, Median: 3.5, Lo: 1, Hi: 6, Confidence: 0.96875, Mean: 3.5, Min: 1, Max: 6,
		CV: math.Sqrt(3.5) / 3.5}
	if s.N != want.N || s.Median != want.Median || s.Lo != want.Lo || s.Hi != want.Hi ||
		!near(s.Confidence, want.Confidence, 1e-12) || s.Mean != want.Mean || s.Min != want.Min ||
		s.Max != want.Max || !near(s.CV, want.CV, 1e-12) {
		t.Errorf("Summarize = %+v\nwant        %+v", s, want)
	}
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "CV > 5%") {
		t.Errorf("warnings = %q, want one CV warning", s.Warnings)
	}
}

func TestSummarizeWarnings(t *testing.T) {
	tests := []struct {
		name    string
		samples []float64
		want    []string // prefixes, in order
	}{
		{"clean", []float64{1, 1.01, 0.99, 1, 1.02, 0.98}, nil},
		{"too few", []float64{1, 1, 1}, []string{"too few samples for a 95% CI"}},
		{"outlier", append(repeat(1, 30), 2.5), []string{"CV > 5%", "max > 2× median"}},
		{"outlier low CV", append(repeat(1, 1000), 2.1), []string{"max > 2× median"}},
	}
	for _, tc := range tests {
		s := timing.Summarize(tc.samples)
		if len(s.Warnings) != len(tc.want) {
			t.Errorf("%s: warnings %q, want prefixes %q", tc.name, s.Warnings, tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(s.Warnings[i], w) {
				t.Errorf("%s: warning %d = %q, want prefix %q", tc.name, i, s.Warnings[i], w)
			}
		}
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestSummarizeInvalid(t *testing.T) {
	if _, err := timing.SummarizeErr(nil); !errors.Is(err, timing.ErrNoSamples) {
		t.Errorf("empty: err = %v", err)
	}
	if _, err := timing.SummarizeErr([]float64{1, math.NaN()}); !errors.Is(err, timing.ErrInvalidSample) {
		t.Errorf("NaN: err = %v", err)
	}
	if _, err := timing.SummarizeErr([]float64{math.Inf(1)}); !errors.Is(err, timing.ErrInvalidSample) {
		t.Errorf("Inf: err = %v", err)
	}
	s := timing.Summarize([]float64{math.NaN()})
	if s.Valid() || len(s.Warnings) != 1 || s.Median != 0 {
		t.Errorf("Summarize(NaN) = %+v, want invalid zero summary with one warning", s)
	}
}

func TestSummaryString(t *testing.T) {
	tests := []struct {
		s    timing.Summary
		want string
	}{
		{timing.Summary{N: 10, Median: 1.23e-3, Lo: 1.2e-3, Hi: 1.25e-3}, "1.23ms ±2%"},
		{timing.Summary{N: 10, Median: 45.6e-6, Lo: 45.5e-6, Hi: 45.7e-6}, "45.6µs ±0.2%"},
		{timing.Summary{N: 10, Median: 2, Lo: 1, Hi: 2.5}, "2.00s ±50%"},
		{timing.Summary{N: 10, Median: 789e-9, Lo: 789e-9, Hi: 789e-9}, "789ns ±0.0%"},
		{timing.Summary{}, "n/a"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestRelHalfWidth(t *testing.T) {
	tests := []struct{ c, lo, hi, want float64 }{
		{100, 98, 101, 0.02},
		{100, 99, 103, 0.03},
		{5, 5, 5, 0},
		{0, -1, 1, math.Inf(1)},
	}
	for _, tc := range tests {
		if got := (timing.Summary{Median: tc.c, Lo: tc.lo, Hi: tc.hi}).RelHalfWidth(); !near(got, tc.want, 1e-12) {
			t.Errorf("RelHalfWidth(%v, %v, %v) = %v, want %v", tc.c, tc.lo, tc.hi, got, tc.want)
		}
	}
}
