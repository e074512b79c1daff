// Package dispatch routes each call of an operation of size n to the side
// (executor) expected to finish it first, from the sides' measured
// profiles, and keeps routing well as the machine changes. It routes over
// any number of sides (one or more): a CPU on one thread, a CPU on all
// threads, a GPU.
//
// The parts, each its own type and file:
//
//   - estimator (estimator.go): a side's prediction for a call of size n
//     is its profile (Side.Model, per regime) times a correction kept per
//     size bucket (powers of two) from the median of the side's last calls
//     there. A bucket's correction is trusted only after Config.MinCalls
//     calls; before, the side's prior stands (its profile, or the median
//     of its last calls in any bucket when that is off the profile by
//     more than ShockRatio). Once trusted, a single call far outside the
//     estimate (beyond ShockRatio) does not enter it unless the next call
//     there agrees; it still counts toward shock detection. The estimates
//     are medians, while a stream's total is a sum of means: each side's
//     tail (tail.go: the mean of its last calls' ratios to their
//     estimates, clipped), relative to the lowest among the sides, scales
//     its estimates in the routing, so a side fast on its median call but
//     often several times slower loses.
//   - shock detector (shock.go): a side whose last calls run ShockRatio×
//     slower (all but two of 9) or faster (3 of 4) than their estimates
//     has changed everywhere (contention, clocks, a lost device are not
//     size-specific): its estimates are rescaled in every bucket, and a
//     recovery restores them from before the slow-down. A gradual
//     recovery shows as calls back within the hysteresis of those saved
//     estimates.
//   - prober (prober.go): sides not in use are re-probed at a bounded
//     rate (one probe per ProbeEvery calls, fewer while probes confirm the
//     routing) and within ProbeShare of the time spent; a side found
//     slower and given no sizes is watched on its own budget
//     (RecoveryShare). A probe of an idle side is two calls in a row and
//     only the second enters the estimates (the first pays a wake-up).
//   - retrier (retry.go): a call that fails on one side runs on the next
//     (no request is lost); the failed side is avoided for RetryAfter
//     calls, doubling while it keeps failing, then retried as a probe.
//   - router (router.go, route.go, observe.go): combines them. A call goes to the side with the
//     earliest predicted finish: its estimate, plus the time its queue
//     needs to drain (Side.Queue), plus the transfer of the call's bytes
//     at the side's upload and readback rates when the data is not
//     resident (Side.Bytes), as task runtimes' earliest-finish schedulers
//     do. A bucket moves a size to another side only when the estimates'
//     ratio moves by more than Config.Hysteresis (no flapping).
//   - history (history.go): the latest switches with their reasons, in a
//     ring, and counters of all of them, so memory stays bounded in
//     long-running use.
//
// The package measures nothing itself: executors report how long each
// call took, so simulated executors give deterministic tests. The package
// example (example_test.go) routes two simulated sides.
package dispatch

import (
	"errors"
	"time"
)

// Executor runs one call of size n and reports how long it took.
type Executor interface {
	Run(n int) (time.Duration, error)
}

// Func adapts a function to Executor.
type Func func(n int) (time.Duration, error)

// Run calls f (a nil f: ErrNoExecutor).
func (f Func) Run(n int) (time.Duration, error) {
	if f == nil {
		return 0, ErrNoExecutor
	}
	return f(n)
}

// ErrNoExecutor is returned by a nil Func and by the methods of a
// Dispatcher not made by New.
var ErrNoExecutor = errors.New("dispatch: no executor (a nil Func, or a Dispatcher not made by New)")

// Model predicts a side's time (seconds) for a call of size n.
type Model func(n float64) float64

// Linear is the model a + b·n.
func Linear(a, b float64) Model { return func(n float64) float64 { return a + b*n } }

// Side is one executor and what the dispatcher knows of it before its
// first call.
type Side struct {
	Name string
	Exec Executor
	// Model predicts the side's time for a call (its fitted profile).
	Model Model
	// Queue, when set, is the time the side's queue needs to drain before
	// a call submitted now would start (a GPU's pending work); it is
	// added to the side's prediction at every call.
	Queue func() time.Duration
	// Bytes, when set, gives the bytes a call of size n must upload and
	// read back when its data is not resident on the side; they are
	// charged at UploadRate and ReadbackRate (bytes per second, both > 0
	// when Bytes is set).
	Bytes                    func(n int) (up, down float64)
	UploadRate, ReadbackRate float64
}

// Profile is how the sides' models are reconciled with a measured
// crossover.
type Profile struct {
	// Crossover is the measured crossover between sides 0 and 1 (0:
	// unknown). When set, side 1's model is scaled so the two models cross
	// there: where fits and measurement disagree, the measurement wins
	// (TestMeasuredCrossoverOutranksFits).
	Crossover float64
}

// Outcome describes one call.
type Outcome struct {
	Side  int           // the side whose result the caller got
	Took  time.Duration // time of the call, failed attempts included
	Probe bool          // the call probed a side not in use
	// Failed is the first side whose error the call fell back from (-1:
	// none); LastError gives the error.
	Failed int
}

// Switch is one change of side in a bucket (or a fallback), with its
// reason.
type Switch struct {
	Call   int    `json:"call"`   // 0-based index of the call that caused it
	Bucket string `json:"bucket"` // size range, e.g. "[256, 511]"
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// ErrBothFailed is returned when every side failed one call (the name is
// from the two-sided dispatcher; it holds for any number of sides).
var ErrBothFailed = errors.New("dispatch: every side failed")

// ErrAllFailed is ErrBothFailed.
var ErrAllFailed = ErrBothFailed

// Static routes by a fixed threshold between two sides: side Above for
// n ≥ At, the other below (the usual design, for comparison).
type Static struct {
	At    float64
	Above int
}

// Side returns the side (0 or 1) for n.
func (s Static) Side(n int) int {
	above := 0
	if s.Above != 0 {
		above = 1
	}
	if float64(n) >= s.At {
		return above
	}
	return 1 - above
}
