package dispatch

import (
	"errors"
	"fmt"
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
		return 0, fmt.Errorf("dispatch: Func.Run: %w", ErrNoExecutor)
	}
	return f(n)
}

// ErrNoExecutor is returned by a nil Func and by the methods of a
// Dispatcher not made by New.
var ErrNoExecutor = errors.New("no executor (a nil Func, or a Dispatcher not made by New)")

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
	// Floor, when > 0, is the least time (seconds) a call on the side
	// can take: for a GPU, the measured round trip of the tiny call (one
	// write, one dispatch, one readback, one submit and one wait), which
	// no call of a kernel avoids. The side's prior at size n is then
	// max(Model(n), Floor), after the Profile's crossover scaling, so a
	// fit whose fixed cost lies below the round trip does not win small
	// calls it cannot win (TestFloorRoutesSmallCallsToCPU). The side's
	// observed calls are not floored: once a bucket trusts them, they
	// decide there.
	Floor float64
	// ShapeUnknown marks a model whose shape across sizes was not
	// measured (a plan that knows the own code only at its mean): the
	// side's calls in one bucket then say nothing of another, so its
	// prior in a bucket stays its model (rescaled only by a shock) until
	// its own calls there are trusted, instead of following the median
	// of its calls in any bucket (TestRouteFromMeanPlanLearnsPerBucket).
	ShapeUnknown bool
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
var ErrBothFailed = errors.New("every side failed")

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
