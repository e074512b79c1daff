package hybrid

import (
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// strategy is one way of routing the replay's requests to the sides.
// Every strategy of a replay runs the same stream through the same
// executors; the replay records what each answered.
type strategy interface {
	// name is the strategy's name in the report.
	name() string
	// kind is the report's kind of the strategy: "single", "static",
	// "adaptive" or "oracle".
	kind() string
	// choose is the side the strategy sends a request of size n to now,
	// without probing: a chunk's untimed warm-up call runs there.
	choose(n int) int
	// run routes and runs one request of size n.
	run(n int) (routed, error)
}

// routed is one request's outcome under a strategy.
type routed struct {
	side int           // the side that answered
	took time.Duration // its time, a failed attempt included
	// recovered: answered by another side after an error; probe: the
	// dispatcher's call of a side not in use.
	recovered, probe bool
}

// singleSide sends every request to one side and keeps each size's mean
// time there, which the oracle reads.
type singleSide struct {
	label string
	side  int
	ex    dispatch.Executor
	sum   map[int]float64
	count map[int]int
}

func newSingleSide(label string, side int, ex dispatch.Executor) *singleSide {
	return &singleSide{label: label + " only", side: side, ex: ex, sum: map[int]float64{}, count: map[int]int{}}
}

func (s *singleSide) name() string   { return s.label }
func (s *singleSide) kind() string   { return "single" }
func (s *singleSide) choose(int) int { return s.side }

func (s *singleSide) run(n int) (routed, error) {
	t, err := s.ex.Run(n)
	if err == nil {
		s.sum[n] += t.Seconds()
		s.count[n]++
	}
	return routed{side: s.side, took: t}, err
}

// mean is the mean time of the side's calls of size n so far (ok false:
// none yet).
func (s *singleSide) mean(n int) (float64, bool) {
	c := s.count[n]
	if c == 0 {
		return 0, false
	}
	return s.sum[n] / float64(c), true
}

// staticThreshold routes by a fixed threshold at the measured crossover.
type staticThreshold struct {
	label string
	at    dispatch.Static
	ex    []dispatch.Executor
}

func (s *staticThreshold) name() string     { return s.label }
func (s *staticThreshold) kind() string     { return "static" }
func (s *staticThreshold) choose(n int) int { return s.at.Side(n) }

func (s *staticThreshold) run(n int) (routed, error) {
	i := s.at.Side(n)
	t, err := s.ex[i].Run(n)
	return routed{side: i, took: t}, err
}

// adaptive is the dispatcher of package dispatch.
type adaptive struct{ d *dispatch.Dispatcher }

func (a *adaptive) name() string     { return "adaptive" }
func (a *adaptive) kind() string     { return "adaptive" }
func (a *adaptive) choose(n int) int { return a.d.Choose(n) }

func (a *adaptive) run(n int) (routed, error) {
	o, err := a.d.Do(n)
	return routed{side: o.Side, took: o.Took, recovered: o.Failed >= 0, probe: o.Probe}, err
}

// serves reports whether the dispatcher sends any size of sizes to side.
func (a *adaptive) serves(side int, sizes []int) bool {
	for _, n := range sizes {
		if a.d.Choose(n) == side {
			return true
		}
	}
	return false
}

// oracleBySize routes each size to the side whose single-side strategy
// has the lower mean time at that size so far in the replay (routing by
// size with hindsight; before both sides have a call of the size, the
// static threshold's side). It is the best a router that sees only the
// size can do on this stream, where the report's per-request oracle
// (request by request the lower of the two sides' medians) is the best
// any routing can do.
type oracleBySize struct {
	sides  []*singleSide
	static dispatch.Static
}

func (o *oracleBySize) name() string { return "oracle by size" }
func (o *oracleBySize) kind() string { return "oracle" }

func (o *oracleBySize) choose(n int) int {
	best, bestT := -1, 0.0
	for i, s := range o.sides {
		t, ok := s.mean(n)
		if !ok {
			return o.static.Side(n)
		}
		if best < 0 || t < bestT {
			best, bestT = i, t
		}
	}
	return best
}

func (o *oracleBySize) run(n int) (routed, error) {
	i := o.choose(n)
	t, err := o.sides[i].ex.Run(n)
	return routed{side: i, took: t}, err
}

// williams is the j-th strategy of chunk round r in a Williams design of
// n strategies: over n rounds (2n when n is odd, the second n mirrored)
// each runs once in each position and, for even n, right after each
// other strategy once. A plain rotation (j + r) mod n runs every
// strategy after the same one, so one strategy always pays for the state
// the same other left behind (a GPU driver's threads still winding down).
func williams(n, r, j int) int {
	if n%2 == 1 && (r/n)%2 == 1 {
		j = n - 1 - j
	}
	// Row 0: 0, 1, n−1, 2, n−2, …; row r adds r.
	var k int
	switch {
	case j == 0:
		k = 0
	case j%2 == 1:
		k = (j + 1) / 2
	default:
		k = n - j/2
	}
	return (k + r) % n
}
