package timing

import "errors"

// Errors of the package. Every error a function returns starts with
// "timing: " and the function's name and wraps one of these where the
// cause is the caller's input; test for them with errors.Is.
var (
	// ErrTooFewPoints: a fit needs at least 3 points with distinct batch sizes.
	ErrTooFewPoints = errors.New("need at least 3 points with distinct batch sizes")
	// ErrBadPoint: a data point of a fit is NaN, infinite or out of range,
	// or the slices differ in length.
	ErrBadPoint = errors.New("invalid data point")
	// ErrNoSamples: a summary of no samples.
	ErrNoSamples = errors.New("no samples")
	// ErrInvalidSample: a sample is NaN or infinite.
	ErrInvalidSample = errors.New("sample is NaN or infinite")
	// ErrNegativeSample: a measured host duration is negative.
	ErrNegativeSample = errors.New("negative sample duration")
	// ErrBadThreshold: a threshold argument or a Policy field is NaN,
	// infinite or out of range.
	ErrBadThreshold = errors.New("invalid threshold")
	// ErrBadOpts: inconsistent MeasureOpts, or a nil function to measure.
	ErrBadOpts = errors.New("invalid measure options")
	// ErrSearch: bad SearchOpts or a nil probe.
	ErrSearch = errors.New("invalid crossover search")
	// ErrCompare: bad CompareOpts or executors.
	ErrCompare = errors.New("invalid executor comparison")
	// ErrBadRoofline: a non-positive or non-finite roofline input.
	ErrBadRoofline = errors.New("invalid roofline input")
	// ErrBadAmdahl: an out-of-range Amdahl input.
	ErrBadAmdahl = errors.New("invalid Amdahl input")
)
