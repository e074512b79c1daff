package dispatch

// retrier decides when a failed side is tried again: a side that fails is
// avoided for RetryAfter calls, doubling on each further failure in a row
// (up to 64 times the first), and its first call after the time-out is a retry
// (TestFailedSideRetriedAfterTimeOut, TestRetryBackOffDoubles).
type retrier struct {
	after int
	// until is the call index before which each side is avoided (0:
	// healthy); failures counts each side's failures in a row.
	until    []int
	failures []int
	lastErr  []error
}

func newRetrier(sides, after int) *retrier {
	return &retrier{after: after, until: make([]int, sides), failures: make([]int, sides), lastErr: make([]error, sides)}
}

// maxBackOff is the most doublings of RetryAfter.
const maxBackOff = 6

// fail records that side s failed at call with err and returns how many
// calls it is now avoided for.
func (r *retrier) fail(s, call int, err error) int {
	r.lastErr[s] = err
	r.failures[s] = min(r.failures[s]+1, maxBackOff+1)
	wait := r.after << (r.failures[s] - 1)
	r.until[s] = call + wait
	return wait
}

// answered records that side s answered; it reports whether the side had
// failed before (a return after failing).
func (r *retrier) answered(s int) bool {
	was := r.until[s] != 0
	r.until[s], r.failures[s] = 0, 0
	return was
}

// avoid reports whether side s is still in its time-out at call.
func (r *retrier) avoid(s, call int) bool { return r.until[s] > call }

// due reports whether side s failed and its time-out is over at call: its
// next call is a retry.
func (r *retrier) due(s, call int) bool { return r.until[s] != 0 && r.until[s] <= call }

// any reports whether some side has failed and not answered since.
func (r *retrier) any() bool {
	for _, u := range r.until {
		if u != 0 {
			return true
		}
	}
	return false
}
