package dispatch

import (
	"fmt"
	"math"
	"time"
)

// Dispatcher routes calls over its sides; not safe for concurrent use
// (one caller at a time: wrap it in a mutex to share it).
type Dispatcher struct {
	sides []Side
	names []string
	cfg   Config
	est   *estimator
	win   []window
	// winK is the bucket of each entry of a side's slow window.
	winK [][shockCalls]int8
	// suspect marks a side found slower whose latest observed call ran
	// ShockRatio× faster than its estimate: a recovery may have begun, so
	// it is probed for it even while it serves (watched).
	suspect []bool
	pr      *prober
	rt      *retrier
	smp     *sampler
	hist    *history

	calls, lost int
	spent       float64 // seconds of every call
	answeredBy  []int
	// lastUse is each side's latest call other than a probe, probed its
	// latest probe call (-1: none).
	lastUse, probed []int
	// nextCheck is the first call that takes Do's full path (schedule).
	nextCheck int
	cache     [1 << cacheBits]entry
	gen       uint32 // the cache entries' decisions hold while their gen is this
	dynamic   bool   // a side declares a queue: every call is decided anew
}

// entry is the sides' models at one size and, while gen is current, the
// routing's decision there.
type entry struct {
	n     int
	m     []float64 // the models
	fixed []float64 // the transfer time of the call's bytes (nil: none)
	gen   uint32
	side  int
	warm  bool // the side has ringSize calls in the bucket: its calls are sampled
	// lo and hi bound the side's calls that run as estimated (within
	// ShockRatio); a call outside has the side's next call observed.
	lo, hi time.Duration
	est    float64 // the side's estimate, seconds
}

const cacheBits = 8

// New returns a dispatcher over sides (at least one), each with a name,
// an executor and a model that gives a time at n = 1.
func New(sides []Side, prof Profile, cfg Config) (*Dispatcher, error) {
	d, err := newDispatcher(sides, prof, cfg)
	return d, prefixed("New", err)
}

func newDispatcher(sides []Side, prof Profile, cfg Config) (_ *Dispatcher, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(sides) < 1 || len(sides) > 64 {
		return nil, &ConfigError{"sides", len(sides), "1 to 64 sides"}
	}
	if c := prof.Crossover; math.IsNaN(c) || c < 0 || math.IsInf(c, 0) {
		return nil, &ConfigError{"Profile.Crossover", c, "a finite size ≥ 0 (0: unknown)"}
	}
	models := make([]Model, len(sides))
	names := make([]string, len(sides))
	for s, sd := range sides {
		field := func(f string) string { return fmt.Sprintf("sides[%d].%s", s, f) }
		if sd.Exec == nil {
			return nil, &ConfigError{field("Exec"), nil, "an executor"}
		}
		if sd.Model == nil {
			return nil, &ConfigError{field("Model"), nil, "a model"}
		}
		// A model that is not a time (NaN: a fit with no segments) would
		// route every call to one side and drop every observation.
		if v := sd.Model(1); !(v >= 0) || math.IsInf(v, 0) {
			return nil, &ConfigError{field("Model"), fmt.Sprintf("%v s at n=1", v), "a time"}
		}
		if sd.Bytes != nil && (!(sd.UploadRate > 0) || !(sd.ReadbackRate > 0) || math.IsInf(sd.UploadRate, 0) || math.IsInf(sd.ReadbackRate, 0)) {
			return nil, &ConfigError{field("UploadRate/ReadbackRate"), [2]float64{sd.UploadRate, sd.ReadbackRate}, "finite rates > 0 with Bytes"}
		}
		if f := sd.Floor; !(f >= 0) || f > 1e9 {
			return nil, &ConfigError{field("Floor"), f, "a time in [0, 1e9] s (0: none)"}
		}
		models[s], names[s] = sd.Model, sd.Name
		if names[s] == "" {
			names[s] = fmt.Sprintf("side %d", s)
		}
	}
	if c := prof.Crossover; c > 0 && len(sides) > 1 {
		m0, m1 := models[0](c), models[1](c)
		if k := m1 / m0; k > 0 && !math.IsInf(k, 0) && !math.IsNaN(k) {
			inner := models[1]
			models[1] = func(n float64) float64 { return inner(n) / k }
		}
	}
	// The floors apply to the models as the crossover left them: no
	// prior lies below its side's least call.
	for s, sd := range sides {
		if f := sd.Floor; f > 0 {
			inner := models[s]
			models[s] = func(n float64) float64 { return math.Max(inner(n), f) }
		}
	}
	n := len(sides)
	d := &Dispatcher{sides: sides, names: names, cfg: cfg, est: newEstimator(n, models, cfg), win: make([]window, n),
		winK: make([][shockCalls]int8, n), suspect: make([]bool, n), pr: newProber(n, cfg), rt: newRetrier(n, cfg.RetryAfter),
		smp: newSampler(n), hist: newHistory(cfg.History), answeredBy: make([]int, n), lastUse: make([]int, n), probed: make([]int, n), gen: 1}
	for s := range n {
		d.lastUse[s], d.probed[s] = -1, -1
		d.dynamic = d.dynamic || sides[s].Queue != nil
		d.est.local[s] = sides[s].ShapeUnknown
	}
	return d, nil
}

// fixedCosts is each side's transfer time for a call of size n (nil: no
// side declares one).
func (d *Dispatcher) fixedCosts(n int) []float64 {
	var out []float64
	for s, sd := range d.sides {
		if sd.Bytes == nil {
			continue
		}
		if out == nil {
			out = make([]float64, len(d.sides))
		}
		up, down := sd.Bytes(n)
		if t := up/sd.UploadRate + down/sd.ReadbackRate; t > 0 && !math.IsInf(t, 0) {
			out[s] = t
		}
	}
	return out
}

// entry returns the cache entry of size n, its models evaluated and its
// decision current.
func (d *Dispatcher) entry(n int) *entry {
	e := &d.cache[(uint64(n)*0x9e3779b97f4a7c15)>>(64-cacheBits)]
	if e.gen == 0 || e.n != n {
		if e.m == nil {
			e.m = make([]float64, len(d.sides))
		}
		e.n, e.gen = n, 0
		d.est.model(n, e.m)
		e.fixed = d.fixedCosts(n)
	}
	if e.gen != d.gen || d.dynamic {
		b := d.est.bucket(bucketOf(n))
		s := pickBy(b, e.m, d.withQueues(e.fixed))
		e.gen, e.side, e.warm = d.gen, s, b.cnt[s] > ringSize
		e.est = d.est.est(b, s, e.m)
		est := e.est * 1e9 // ns
		e.lo, e.hi = time.Duration(est/d.cfg.ShockRatio), time.Duration(math.Min(est*d.cfg.ShockRatio, math.MaxInt64/2))
	}
	return e
}

// withQueues adds each side's queue drain time to fixed.
func (d *Dispatcher) withQueues(fixed []float64) []float64 {
	if !d.dynamic {
		return fixed
	}
	out := make([]float64, len(d.sides))
	copy(out, fixed)
	for s, sd := range d.sides {
		if sd.Queue != nil {
			if q := sd.Queue().Seconds(); q > 0 {
				out[s] += q
			}
		}
	}
	return out
}

// invalidate marks every cache entry's decision stale.
func (d *Dispatcher) invalidate() {
	if d.gen++; d.gen == 0 {
		d.gen = 1 // 0 marks an empty entry
	}
}

// Do routes one call of size n and runs it; the error is non-nil only when
// every side failed (ErrBothFailed wrapping their errors). Most calls take
// a short path: the size's cache entry holds the routing decision, no
// probe is due before nextCheck, and the side's call is not sampled.
func (d *Dispatcher) Do(n int) (Outcome, error) {
	if !d.ok() {
		return Outcome{Failed: -1}, fmt.Errorf("dispatch: Dispatcher.Do: %w", ErrNoExecutor)
	}
	e := d.entry(n)
	if side := e.side; d.calls < d.nextCheck && e.warm && d.smp.skip[side] > 0 {
		d.smp.skip[side]--
		took, err := d.sides[side].Exec.Run(n)
		took = max(took, 0)
		if err == nil {
			d.smp.unobserved(side, took, e.lo, e.hi, d.est.slowed(side))
			d.addTail(side, took.Seconds()/e.est)
			d.answered(side, took)
			return Outcome{Side: side, Took: took, Failed: -1}, nil
		}
		k := bucketOf(n)
		return d.finish(n, k, e, side, Outcome{Failed: -1}, false, took, err)
	}
	return d.route(n, e)
}

// answered counts a call that side answered in took, not as a probe.
func (d *Dispatcher) answered(side int, took time.Duration) {
	d.lastUse[side] = d.calls
	d.count(side, took)
}

// count counts a call that side answered in took.
func (d *Dispatcher) count(side int, took time.Duration) {
	d.answeredBy[side] = satInc(d.answeredBy[side])
	d.calls = satInc(d.calls)
	d.spent += took.Seconds()
}

// Choose returns the side the next call of size n would go to without
// probing (for inspection and tests).
func (d *Dispatcher) Choose(n int) int {
	if !d.ok() {
		return 0
	}
	s := d.entry(n).side
	if d.rt.avoid(s, d.calls) {
		if f := d.fallbacks(n, s); len(f) > 0 && !d.rt.avoid(f[0], d.calls) {
			return f[0]
		}
	}
	return s
}

// Sides returns the number of sides.
func (d *Dispatcher) Sides() int {
	if !d.ok() {
		return 0
	}
	return len(d.sides)
}

// ok reports whether d was made by New.
func (d *Dispatcher) ok() bool { return d != nil && d.est != nil }

// LastError returns the latest error side s failed with: the error behind
// an Outcome's Failed (nil: none yet, or s out of range).
func (d *Dispatcher) LastError(s int) error {
	if !d.ok() || s < 0 || s >= len(d.sides) {
		return nil
	}
	return d.rt.lastErr[s]
}

// Switches returns the latest switches (at most Config.History), oldest
// first.
func (d *Dispatcher) Switches() []Switch {
	if !d.ok() {
		return nil
	}
	return d.hist.list()
}

// SwitchCounts counts every switch since the start, by kind.
func (d *Dispatcher) SwitchCounts() SwitchCounts {
	if !d.ok() {
		return SwitchCounts{}
	}
	return d.hist.counts
}

// Share returns how many calls each side answered.
func (d *Dispatcher) Share() []int {
	if !d.ok() {
		return nil
	}
	return append([]int(nil), d.answeredBy...)
}

// Lost returns how many calls no side answered.
func (d *Dispatcher) Lost() int {
	if !d.ok() {
		return 0
	}
	return d.lost
}

// idleCalls is the number of calls without side s after which its next
// call counts as a wake-up.
const idleCalls = 2

// idle reports whether side s answered none of the last idleCalls calls.
func (d *Dispatcher) idle(s int) bool { return max(d.lastUse[s], d.probed[s]) < d.calls-idleCalls }

// serveCalls: a side that answered none of this many calls is not
// serving (TestSlowedSideServingSmallSizesRecovers).
const serveCalls = 32

// serving reports whether the routing gives side s some sizes of a bucket
// seen so far and the side answered one of the last serveCalls calls. A
// slowed side that serves shows a recovery in its own calls; it is probed
// on the ordinary budget (TestSlowedSideThatServesIsNotWatched).
func (d *Dispatcher) serving(s int) bool {
	return d.est.serves[s] != 0 && d.lastUse[s] >= d.calls-serveCalls
}

// watched reports whether side s is found slower and either not serving
// or suspected recovered: it is probed for its recovery on its own budget.
func (d *Dispatcher) watched(s int) bool {
	return d.est.slowed(s) && (!d.serving(s) || d.suspect[s])
}

// unsteady restarts the probing and sampling at their full rates: a
// bucket moved a size, a side was found slower or recovered, or failed.
func (d *Dispatcher) unsteady() {
	d.pr.ok = 0
	d.smp.unsteady()
}

// schedule sets nextCheck, the first call that must take Do's full path:
// the next one while a probe continues or a side is failed, retry calls
// on when a due probe was not admitted, else the next probe's.
func (d *Dispatcher) schedule(retry int) {
	switch {
	case d.pr.follow >= 0 || d.rt.any():
		d.nextCheck = d.calls
	case retry > 0:
		d.nextCheck = d.calls - 1 + retry
	default:
		gap := d.pr.gap()
		for s := range d.sides {
			if d.est.slowed(s) {
				gap = min(gap, d.pr.recoveryGap(s, d.calls, d.suspect[s]))
			}
		}
		d.nextCheck = d.pr.last + gap
	}
}
