package timing_test

import (
	"errors"
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/errconv"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Every error of the package reads "timing: Func: …" and wraps the
// sentinel of its cause.
func TestErrorConvention(t *testing.T) {
	ok := func() (timing.Sample, error) { return timing.Sample{Host: 1}, nil }
	probe := func(int) (timing.Summary, timing.Summary, error) { return timing.Summary{}, timing.Summary{}, nil }
	nan := math.NaN()
	for _, c := range []struct {
		name string
		err  func() error
		want error
	}{
		{"FitLinear", func() error { _, err := timing.FitLinear([]float64{1, 2}, []float64{1, 2}); return err }, timing.ErrTooFewPoints},
		{"FitLinearWeighted", func() error {
			_, err := timing.FitLinearWeighted([]float64{1, 2, 3}, []float64{1, nan, 3}, nil)
			return err
		}, timing.ErrBadPoint},
		{"FitConstrained", func() error { _, err := timing.FitConstrained([]float64{1, 2, 3}, []float64{1, -1, 3}); return err }, timing.ErrBadPoint},
		{"FitModel", func() error {
			_, err := timing.FitModel([]float64{1, 2, 3}, []float64{1, 2, 3}, timing.Policy{KneeGain: -1})
			return err
		}, timing.ErrBadThreshold},
		{"FitLocal", func() error { _, err := timing.FitLocal([]float64{1}, []float64{1}, 0); return err }, timing.ErrTooFewPoints},
		{"SummarizeErr", func() error { _, err := timing.SummarizeErr(nil); return err }, timing.ErrNoSamples},
		{"SummarizeCV", func() error { _, err := timing.SummarizeCV([]float64{1, nan}, 0); return err }, timing.ErrInvalidSample},
		{"MedianCI", func() error { _, _, _, err := timing.MedianCI(0, 0.95); return err }, timing.ErrBadThreshold},
		{"Measure", func() error { _, err := timing.Measure(timing.MeasureOpts{MinRuns: -1}, ok); return err }, timing.ErrBadOpts},
		{"Measure", func() error {
			_, err := timing.Measure(timing.MeasureOpts{}, func() (timing.Sample, error) { return timing.Sample{Host: -1}, nil })
			return err
		}, timing.ErrNegativeSample},
		{"MeasurePair", func() error { _, _, err := timing.MeasurePair(timing.MeasureOpts{}, ok, nil); return err }, timing.ErrBadOpts},
		{"SearchCrossover", func() error { _, err := timing.SearchCrossover(timing.SearchOpts{}, "a", "b", probe); return err }, timing.ErrSearch},
		{"CompareExecutors", func() error {
			_, err := timing.CompareExecutors(t.Context(), timing.Executor{}, timing.Executor{}, timing.CompareOpts{})
			return err
		}, timing.ErrCompare},
		{"Place", func() error { _, err := timing.Place(timing.Roof{}, timing.Point{}); return err }, timing.ErrBadRoofline},
		{"Amdahl", func() error { _, err := timing.Amdahl(2, 1); return err }, timing.ErrBadAmdahl},
	} {
		err := c.err()
		if !errconv.Prefixed(err, "timing") || !errors.Is(err, c.want) {
			t.Errorf("%s: %v; want \"timing: Func: …\" wrapping %v", c.name, err, c.want)
		}
	}
}
