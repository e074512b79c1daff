// Package dispatch routes each call of an operation of size n to the
// faster of two executors (GPU and CPU, or any two sides a break-even can
// compare), from their measured profiles, and keeps routing well as the
// machine changes.
//
// It starts from a Profile (a time model per side, from a break-even run's
// fits or measured at start-up; where a measured crossover is given, the
// models are scaled to cross there) and keeps, per size bucket (powers of
// two) and per side, an online estimate of the time relative to the model:
// the median of the bucket's last calls on that side (in a bucket where
// the side has made too few calls, the profile, or the side's median over
// all buckets where that is off the profile by more than ShockRatio). It
// re-probes the side it is not using at a bounded rate: at most one probe
// per ProbeEvery calls (half and a quarter as often once probes in a row
// confirm the routing, back to the full rate when an estimate moves), and
// only while the probes' extra time stays within ProbeShare of the time
// spent so far, so probing a much slower side costs little. A side that
// was idle pays a wake-up on its next call (parked worker threads, an idle
// GPU queue) that it would not pay if it took the bucket's calls, so a
// probe of an idle side is two calls in a row and only the second enters
// the estimates. A bucket switches sides only when the estimates' ratio
// moves by more than the Hysteresis factor (no flapping).
//
// A change seen on one side in every bucket rescales that side's
// estimates everywhere, because contention, clocks or a lost device are
// not size-specific: a slow-down when all but two of its last 9 calls ran
// ShockRatio× slower than their estimates (a few preempted calls cannot
// fake one), a recovery when 3 of its last 4 calls ran ShockRatio×
// faster (a shared machine makes calls slower, not faster, so fewer calls
// prove it, and a probe's wake-up call counts here when it is fast); a
// recovery restores the side's estimates from before it was found slower.
// While a side is marked slower and the routing gives it no calls, it is
// probed on its own budget (RecoveryShare of the time since), every
// other call at first and less often the longer the slow-down lasts (a
// gap of 1/64 of the calls since, at most 256 calls), so the dispatcher
// moves quickly when a side slows down, moves back quickly when it
// recovers, and pays little for a side that stays slower; a side marked
// slower that still serves some sizes shows a recovery in its own calls
// and is probed on the ordinary budget. A probe is
// charged its time over the other side's estimate, counting the call at
// most twice its own estimate (a wake-up call: at most the larger of that
// and the side's median wake-up), so one preempted call cannot stop the
// probes for hundreds of calls.
//
// A call that fails on one side is run on the other (no request is lost);
// its Outcome names the failed side, LastError gives the error, and the
// switch list records it. The failed side is then avoided, and retried
// after RetryAfter calls (doubling while it keeps failing).
//
// Not every call is observed: while a side runs as estimated, one in
// sampleEvery of its calls enters the estimates and the shock tests (one
// in 2× and 4× that once the routing held for ringSize and 2×ringSize of
// them), and every call after offRun in a row that ran ShockRatio× off
// their estimate does, so a slow-down is observed from its third call on
// (see Dispatcher for why).
//
// The package measures nothing itself: executors report how long each call
// took, so simulated executors give deterministic tests.
package dispatch

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// Executor runs one call of size n and reports how long it took.
type Executor interface {
	Run(n int) (time.Duration, error)
}

// Func adapts a function to Executor.
type Func func(n int) (time.Duration, error)

// Run calls f.
func (f Func) Run(n int) (time.Duration, error) { return f(n) }

// Model predicts a side's time (seconds) for a call of size n.
type Model func(n float64) float64

// Linear is the model a + b·n.
func Linear(a, b float64) Model { return func(n float64) float64 { return a + b*n } }

// Profile is what the dispatcher knows before its first call.
type Profile struct {
	// Models predict each side's time; both required.
	Models [2]Model
	// Crossover is the measured crossover (0: unknown). When set, side 1's
	// model is scaled so the two models cross there: where the fits and
	// the measurement disagree, the measurement wins (a fit over the
	// whole range can miss the crossover by a third, and the routing
	// would send the sizes in between to the slower side until the
	// estimates corrected it).
	Crossover float64
}

// Config tunes the dispatcher; zero fields take the defaults.
type Config struct {
	// Hysteresis: a bucket switches when the other side's estimate is
	// below the current side's divided by this (default 1.15).
	Hysteresis float64
	// ProbeEvery is the fewest calls between two probes (default 32; a
	// side found slower and given no sizes is probed for its recovery on
	// its own budget: every min(ProbeEvery, 2) calls at first and while a
	// recovery is suspected, else every 1/64 of the calls since it was
	// found slower, at most every 256). Each probe takes Do's full path, which costs
	// 200–300 ns more than its short path in hybrid (the dispatcher's
	// state comes from L3 after a kernel): at 8, a probe every 11 calls
	// cost more than the probes' budget.
	ProbeEvery int
	// ProbeShare bounds the predicted extra time of probes to this share
	// of the time spent (default 0.015); the probes' measured extra time
	// (over the estimate of the side they replaced) is what is charged.
	// With two sides that do not change, probing is pure cost: at 0.03
	// it cost about 2% of hybrid's total (threads=1 against threads=2),
	// against 1% at 0.015, which still finds a side profiled 1.6× too
	// slow (TestWakeUpDoesNotHideTheFasterSide).
	ProbeShare float64
	// RecoveryShare bounds the extra time of the probes that watch a
	// side found slower for its recovery, as a share of the time spent
	// since (default 0.2: at 0.1, 9 of 39 replays with a side slowed 3×
	// took more than 50 calls to move back, at 0.2, 3 of 39); these do not
	// count against ProbeShare.
	RecoveryShare float64
	// ShockRatio: a side whose latest calls run this factor slower (all
	// but two of 9) or faster (3 of 4) than their estimates is rescaled
	// everywhere (default 1.6).
	ShockRatio float64
	// RetryAfter is the number of calls after a failure before the failed
	// side is tried again (default 50; doubles on each further failure,
	// up to 64× the default).
	RetryAfter int
}

func (c *Config) defaults() {
	if c.Hysteresis == 0 {
		c.Hysteresis = 1.15
	}
	if c.ProbeEvery == 0 {
		c.ProbeEvery = 32
	}
	if c.ProbeShare == 0 {
		c.ProbeShare = 0.015
	}
	if c.RecoveryShare == 0 {
		c.RecoveryShare = 0.2
	}
	if c.ShockRatio == 0 {
		c.ShockRatio = 1.6
	}
	if c.RetryAfter == 0 {
		c.RetryAfter = 50
	}
}

// Outcome describes one call.
type Outcome struct {
	Side  int           // the side whose result the caller got (0 or 1)
	Took  time.Duration // time of the call, a failed attempt included
	Probe bool          // the call probed the side not in use
	// Failed names the side whose error the call fell back from (-1:
	// none); LastError gives the error. Outcome holds no error itself:
	// Do is on the path of every call, and in hybrid (calls of 0.3–2 µs)
	// returning the two words of an error in it cost 10–14 ns per call
	// (measured side by side with this layout in one run).
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

// ErrBothFailed is returned when both sides fail one call.
var ErrBothFailed = errors.New("dispatch: both sides failed")

// Dispatcher routes calls; not safe for concurrent use.
//
// Its layout is part of its cost. Do runs between a caller's calls, after
// a kernel has streamed its data through the caches, so each cache line it
// touches is likely a miss (15–20 ns from L3). In hybrid (calls of
// 0.3–10 µs), a dispatcher that touched a dozen lines on every call cost
// 140–170 ns per call, more than routing gained. Most calls now take Do's
// short path, which touches the first line below and the size's model
// cache entry (a line, holding the routing decision and the side's
// executor): about 20–40 ns. Probes, sampled calls and calls after offRun
// in a row that ran off their estimate take the full path (200–400 ns). A
// Dispatcher is larger than 32 KiB, so Go allocates it page-aligned and
// these offsets are cache-line offsets (TestLayout).
type Dispatcher struct {
	// Line 0: what Do's short path reads and writes (with the size's
	// model cache entry, its only other line).
	calls int
	// nextCheck is the first call that takes Do's full path (schedule).
	nextCheck int
	spent     float64 // seconds of every call
	// lastUse is the index of each side's latest call other than a probe
	// (-1: none yet).
	lastUse [2]int
	// answered1 counts the calls side 1 answered (side 0's are the rest
	// of those not lost: see Share).
	answered1 int
	// skip counts each side's calls left before the next one sampled
	// (observed): see observe.
	skip [2]int16
	// off counts each side's latest calls in a row that ran off their
	// estimate (outside the entry's bounds) unobserved: offRun of them
	// have the side's next call observed.
	off [2]uint8
	_   [2]byte
	// gen counts the changes of what the model cache entries hold of
	// the buckets: an entry's decision holds while its gen is current.
	gen    uint32
	follow int32 // the side the next call continues a probe on (-1: none)

	// Line 1: the full path's state.
	lost    int // calls both sides failed
	lastPrb int
	probeX  float64 // extra seconds charged to the probes made (see route)
	failed  [2]int  // call index before which the side is avoided (0: healthy)
	// slowF is the factor a side was rescaled by for slow-downs not yet
	// undone by a recovery (1: none).
	slowF [2]float64
	// probeOK counts the probes since the last change of the estimates'
	// ratios that confirmed the routing, sampleOK each side's sampled
	// calls since then: the longer the routing holds, the fewer calls it
	// probes and samples (probeGap, sampleGap).
	probeOK  uint16
	sampleOK [2]uint16
	// suspect marks a side found slower whose latest observed call ran
	// faster than its estimate by ShockRatio: a recovery may have begun,
	// so it is probed for it even while it serves (watched), at the
	// shortest gap (recoveryGap).
	suspect [2]bool

	cfg Config // line 2
	// probed is the index of each side's latest probe call (-1: none).
	probed [2]int

	// Lines 3 and 4: each side's last calls for the shock tests; the
	// fast half also takes the probes' wake-up calls that ran fast: a
	// wake-up can make a call slower, never faster, so these prove a
	// recovery.
	win     [2]window
	mcache  [1 << mcacheBits]modelEntry // the models and the decision at recent sizes
	buckets [64]bucket                  // by ⌊log₂ n⌋

	ex [2]Executor
	// slowAt is the time spent when a side was found slower, recX its
	// recovery probes' extra time since, and recoveredAt the call that
	// found it recovered.
	slowAt      [2]float64
	recX        [2]float64
	recoveredAt [2]int
	// slowCall is the call that found each side slower (recoveryGap).
	slowCall [2]int
	names    [2]string
	prof     Profile
	wakeR    [2]ring // each side's probe wake-up calls: time over estimate
	// sideR is each side's last observed calls in any bucket (time over
	// the profile), sidePre that from before the side was found slower;
	// young marks the buckets where a side has fewer than minObs calls,
	// whose estimate for it is sideR's median (see prior).
	sideR, sidePre [2]ring
	young          [2]uint64
	priorOn        [2]bool // the side's prior is sideR's median (prior)
	// serves marks the buckets where the routing gives a side some sizes
	// (mark).
	serves [2]uint64
	// filling marks the buckets where a side has made fewer than
	// ringSize observed calls (see route's probes).
	// against marks the buckets where the profile gives a side some
	// sizes and the routing none.
	filling, against [2]uint64
	failures         [2]int
	lastErr          [2]error // each side's latest error (LastError)
	switches         []Switch
	// winK is the bucket of each entry of a side's slow window (win).
	winK [2][shockCalls]int8
}

// bucket holds, per side, the median of its last calls' observed time
// over the profile's prediction (1 = as profiled), and the ratio rho =
// q[1]/q[0] the routing applies: a call of size n goes to side 1 when model₁(n)·rho <
// model₀(n). rho follows q[1]/q[0] only when that moves by more than the
// hysteresis factor, so noise never flips a decision back and forth.
// What every call reads comes first; the size is a multiple of a cache
// line (TestLayout), so that head is one line.
type bucket struct {
	rho  float64
	q    [2]float64
	cnt  [2]uint32 // the side's calls observed in the bucket
	seen bool
	_    [31]byte
	obs  [2]ring // two lines each
	// pre is each side's estimate from before it was found slower,
	// restored when it recovers.
	pre [2]estimate
	_   [48]byte
}

// estimate is a side's state in a bucket.
type estimate struct {
	q   float64
	obs ring
}

// ring keeps the last ringSize values in arrival order and sorted, so
// its median costs no sort per call (Do runs between a caller's calls,
// some of which take 300 ns: a sort of 25 values per call, and the
// branch mispredictions it leaves behind, cost more than the routing
// gains). Its median is robust to the outliers a shared machine produces
// (a preempted call can take 100× its time). Values are ratios, kept as
// the upper half of their float32 (8 bits of mantissa: within 0.4%),
// which orders positive values as the floats do, so a ring is two cache
// lines.
type ring struct {
	n, i uint8
	v, s [ringSize]uint16 // v: arrival order (v[:n] when not full); s[:n] sorted
	_    [26]byte
}

const ringSize = 25

// enc and dec convert a ratio (≥ 0) to the ring's 16 bits and back.
func enc(x float64) uint16 {
	b := math.Float32bits(float32(x))
	if b < 0x7f7f8000 {
		b += 0x8000 // round to nearest (not into the infinities)
	}
	return uint16(b >> 16)
}

func dec(u uint16) float64 { return float64(math.Float32frombits(uint32(u) << 16)) }

func (r *ring) add(x64 float64) {
	x := enc(x64)
	old, full := r.v[r.i], r.n == ringSize
	r.v[r.i] = x
	r.i = (r.i + 1) % ringSize
	if !full {
		j := r.n
		for j > 0 && r.s[j-1] > x {
			r.s[j] = r.s[j-1]
			j--
		}
		r.s[j] = x
		r.n++
		return
	}
	// Replace the oldest value in the sorted copy: find it (binary
	// search), then slide it to x's place.
	s := r.s[:r.n]
	lo, hi := 0, len(s)
	for lo < hi {
		if h := (lo + hi) / 2; s[h] < old {
			lo = h + 1
		} else {
			hi = h
		}
	}
	p := min(lo, len(s)-1)
	if x >= old {
		for p+1 < len(s) && s[p+1] < x {
			s[p] = s[p+1]
			p++
		}
	} else {
		for p > 0 && s[p-1] > x {
			s[p] = s[p-1]
			p--
		}
	}
	s[p] = x
}

func (r *ring) median() float64 {
	if r.n%2 == 1 {
		return dec(r.s[r.n/2])
	}
	return (dec(r.s[r.n/2-1]) + dec(r.s[r.n/2])) / 2
}

// scale multiplies every value by f > 0 (the order is kept: enc is
// monotone).
func (r *ring) scale(f float64) {
	for j := range r.v {
		// Every slot: after dropNewest a ring's values need not be v[:n].
		r.v[j] = enc(dec(r.v[j]) * f)
	}
	for j := range r.n {
		r.s[j] = enc(dec(r.s[j]) * f)
	}
}

// dropNewest removes the value added last (none: no-op). The next add
// takes its slot, so the arrival order stays a circle from r.i.
func (r *ring) dropNewest() {
	if r.n == 0 {
		return
	}
	j := (int(r.i) + ringSize - 1) % ringSize
	x := r.v[j]
	s := r.s[:r.n]
	p := slices.Index(s, x)
	if p < 0 {
		return // not reached: every value of v in use is in s
	}
	copy(s[p:], s[p+1:])
	r.n--
	r.i = uint8(j)
}

// New returns a dispatcher over two executors named names.
func New(a, b Executor, names [2]string, prof Profile, cfg Config) (*Dispatcher, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("dispatch: nil executor")
	}
	if prof.Models[0] == nil || prof.Models[1] == nil {
		return nil, fmt.Errorf("dispatch: the profile needs a model for both sides")
	}
	for s, m := range prof.Models {
		// A model that is not a time (NaN: a fit with no segments) would
		// route every call to side 0 and drop every observation.
		if v := m(1); !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("dispatch: the model of %s gives %v s at n=1; want a time", names[s], v)
		}
	}
	cfg.defaults()
	if c := prof.Crossover; c > 0 && !math.IsInf(c, 0) {
		m0, m1 := prof.Models[0](c), prof.Models[1](c)
		if k := m1 / m0; k > 0 && !math.IsInf(k, 0) && !math.IsNaN(k) {
			inner := prof.Models[1]
			prof.Models[1] = func(n float64) float64 { return inner(n) / k }
		}
	}
	if cfg.Hysteresis < 1 || cfg.ProbeEvery < 1 || cfg.ProbeShare < 0 || cfg.RecoveryShare < 0 || cfg.ShockRatio <= 1 || cfg.RetryAfter < 1 {
		return nil, fmt.Errorf("dispatch: invalid config %+v", cfg)
	}
	d := &Dispatcher{ex: [2]Executor{a, b}, names: names, prof: prof, cfg: cfg, lastPrb: -cfg.ProbeEvery,
		lastUse: [2]int{-1, -1}, probed: [2]int{-1, -1}, follow: -1, slowF: [2]float64{1, 1}, gen: 1}
	return d, nil
}

// sampleEvery: while a side runs as estimated, one in sampleEvery of its
// calls is observed (enters its ring and its shock window; see observe),
// fewer once the routing holds (sampleGap); a probe, a wake-up and a call
// in a bucket whose ring is not full always are.
const sampleEvery = 16

// offRun is the number of a side's unobserved calls in a row off their
// estimate by ShockRatio that have its next call observed. On a shared
// machine one call in ten of a few hundred ns runs 1.6× off its size's
// median (hybrid, cosine-single): with one such call enough, the calls
// after them made half the sampled calls, each on Do's full path; two in
// a row are one call in a hundred, and a slow-down, every call off, is
// observed from its third call.
const offRun = 2

// bucketOf is ⌊log₂ n⌋.
func bucketOf(n int) int { return bits.Len(uint(max(n, 1))) - 1 }

func bucketName(k int) string { return fmt.Sprintf("[%d, %d]", 1<<k, 1<<(k+1)-1) }

func (d *Dispatcher) bucket(k int) *bucket {
	b := &d.buckets[k]
	if !b.seen {
		// A bucket first seen while a side is marked slower starts from
		// the profile scaled by the slow-down, and returns to the
		// profile when the side recovers.
		*b = bucket{q: [2]float64{d.prior(0), d.prior(1)}, seen: true, pre: [2]estimate{{q: 1}, {q: 1}}}
		b.rho = b.q[1] / b.q[0]
		// The models are evaluated here, not through the model cache:
		// entry, which calls bucket, holds a cache slot that another size
		// could take.
		var picked, prof [3]int
		for i, n := range checked(k) {
			m := [2]float64{d.prof.Models[0](float64(n)), d.prof.Models[1](float64(n))}
			picked[i], prof[i] = d.pick(b, m), profiled(m)
		}
		d.mark(k, picked, prof)
		d.young[0] |= 1 << k
		d.young[1] |= 1 << k
		d.filling[0] |= 1 << k
		d.filling[1] |= 1 << k
	}
	return b
}

// prior is side s's estimate in a bucket where it has fewer than minObs
// calls: the profile (scaled by any slow-down), unless the median of the
// side's last calls in any bucket (at least minObs of them) is off it by
// more than ShockRatio, then that median. A profile taken with the
// machine in another state is off the same way at every size, so the
// side's calls in one bucket say more about the next than the profile
// does: a side probed rarely (its probes pay a wake-up) would otherwise
// need minObs probes in each bucket before any of its speed was used.
// Within ShockRatio, the profile's shape across sizes is worth more than
// a median over sizes whose times are off the profile differently (and
// a side's first calls, cold, are off it by more).
//
// Once taken, the median stays the prior until it comes back within
// ShockRatio/Hysteresis of the profile: a median hovering at the
// threshold (threads=2's first calls at 0.61-0.62× its profile, the
// threshold 1/1.6) otherwise flipped every young bucket at each call,
// ten switches in the first 150 calls.
func (d *Dispatcher) prior(s int) float64 {
	if d.priorOn[s] {
		return d.sideR[s].median()
	}
	return d.slowF[s]
}

// updatePrior decides whether side s's prior is the median of its last
// calls (see prior).
func (d *Dispatcher) updatePrior(s int) {
	if d.sideR[s].n < minObs {
		d.priorOn[s] = false
		return
	}
	m := d.sideR[s].median()
	off := math.Max(m/d.slowF[s], d.slowF[s]/m)
	switch {
	case d.priorOn[s]:
		d.priorOn[s] = off > d.cfg.ShockRatio/d.cfg.Hysteresis
	case m > d.slowF[s] && d.sideR[s].n < shockCalls:
		// Slower than the profile: only on as many calls as a shock
		// needs. A run's first calls can be cold (threads=2's first
		// three in hybrid ran 3.12× its profile, which sent every
		// bucket to threads=1 for 1,300 requests), and a shared
		// machine makes calls slower, never faster, so a faster median
		// is taken on minObs calls (a side probed rarely would
		// otherwise need that many probes in each bucket).
		d.priorOn[s] = false
	default:
		d.priorOn[s] = off > d.cfg.ShockRatio
	}
}

// each calls fn on every bucket seen so far.
func (d *Dispatcher) each(fn func(k int, b *bucket)) {
	for k := range d.buckets {
		if b := &d.buckets[k]; b.seen {
			fn(k, b)
		}
	}
}

// modelEntry is both models at one size, and what Do's short path needs
// of its bucket while gen is the dispatcher's: the side the routing
// applies, and whether that side's ring there is full (warm).
type modelEntry struct {
	n    int
	m    [2]float64
	gen  uint32 // 0: empty
	side int8
	warm bool
	// lo and hi bound the side's calls that run as estimated (within
	// ShockRatio); a call outside has the side's next call observed.
	lo, hi time.Duration
	ex     Executor // the side's
}

// entry returns the model cache entry of size n, its models evaluated (at
// least 1 ps each) and its decision current. A fitted model is a closure
// over a slice of segments, three dependent loads that miss the cache
// after a kernel ran; the entry is one line.
func (d *Dispatcher) entry(n int) *modelEntry {
	e := &d.mcache[(uint64(n)*0x9e3779b97f4a7c15)>>(64-mcacheBits)]
	if e.gen == 0 || e.n != n {
		*e = modelEntry{n: n, m: [2]float64{math.Max(d.prof.Models[0](float64(n)), 1e-12), math.Max(d.prof.Models[1](float64(n)), 1e-12)}}
	}
	if e.gen != d.gen {
		b := d.bucket(bucketOf(n))
		s := d.pick(b, e.m)
		e.gen, e.side, e.warm, e.ex = d.gen, int8(s), b.cnt[s] > ringSize, d.ex[s]
		est := d.est(b, s, e.m) * 1e9 // ns
		e.lo, e.hi = time.Duration(est/d.cfg.ShockRatio), time.Duration(math.Min(est*d.cfg.ShockRatio, math.MaxInt64/2))
	}
	return e
}

// mcacheBits: the model cache has 1<<mcacheBits entries (a stream of a
// few dozen sizes rarely shares one).
const mcacheBits = 8

// models evaluates both sides' models at n, through the cache.
func (d *Dispatcher) models(n int) [2]float64 { return d.entry(n).m }

// invalidate marks every cache entry's decision stale.
func (d *Dispatcher) invalidate() {
	d.gen++
	if d.gen == 0 {
		d.gen = 1 // 0 marks an empty entry
	}
}

// window holds a side's latest ratios of observed to estimated time for
// the shock tests, in one cache line: the last shockCalls and fastCalls
// ratios, and bit registers of which ran ShockRatio× slower and faster,
// so a call costs a shift and a store and the ratios are sorted only
// when a test fires.
type window struct {
	slow               [shockCalls]float32
	fast               [fastCalls]float32
	slowBits, fastBits uint16
	ns, nf, is, jf     uint8
	// backBits marks which of a slowed side's last nb calls (in buckets
	// with an estimate from before it was found slower) ran within the
	// hysteresis of that estimate: see back.
	backBits uint8
	nb       uint8
	_        [2]byte
}

func b2u(b bool) uint16 {
	if b {
		return 1
	}
	return 0
}

func (w *window) addSlow(r float64, slower bool) {
	w.slow[w.is] = float32(r)
	w.is = (w.is + 1) % shockCalls
	w.ns = min(w.ns+1, shockCalls)
	w.slowBits = (w.slowBits<<1 | b2u(slower)) & (1<<shockCalls - 1)
}

func (w *window) addFast(r float64, faster bool) {
	w.fast[w.jf] = float32(r)
	w.jf = (w.jf + 1) % fastCalls
	w.nf = min(w.nf+1, fastCalls)
	w.fastBits = (w.fastBits<<1 | b2u(faster)) & (1<<fastCalls - 1)
}

// slowDown reports whether all but shockSpare of the last shockCalls
// calls ran slower, and their median.
func (w *window) slowDown() (bool, float64) {
	if int(w.ns) < shockCalls || bits.OnesCount16(w.slowBits) < shockCalls-shockSpare {
		return false, 1
	}
	v := w.slow
	slices.Sort(v[:])
	return true, float64(v[shockCalls/2])
}

// recovery reports whether all but one of the last fastCalls calls ran
// faster, and the third smallest of the last fastCalls ratios (the
// largest of the faster ones when exactly three are).
func (w *window) recovery() (bool, float64) {
	if int(w.nf) < fastCalls || bits.OnesCount16(w.fastBits) < fastCalls-1 {
		return false, 1
	}
	v := w.fast
	slices.Sort(v[:])
	return true, float64(v[fastCalls/2])
}

// addBack records whether a slowed side's call ran as fast as before the
// side was found slower.
func (w *window) addBack(ok bool) {
	w.backBits = w.backBits<<1 | uint8(b2u(ok))
	w.nb = min(w.nb+1, 8)
}

// back reports whether all but one of the last backCalls calls ran as
// fast as before the side was found slower.
func (w *window) back() bool {
	return int(w.nb) >= backCalls && bits.OnesCount8(w.backBits&(1<<backCalls-1)) >= backCalls-1
}

// est is the current estimate of side s's time (seconds) for a call whose
// models evaluate to m.
func (d *Dispatcher) est(b *bucket, s int, m [2]float64) float64 { return m[s] * b.q[s] }

// pick is the side the routing applies in bucket b to a call whose
// models evaluate to m.
func (d *Dispatcher) pick(b *bucket, m [2]float64) int {
	if m[1]*b.rho < m[0] {
		return 1
	}
	return 0
}

// Choose returns the side the next call of size n would go to without
// probing (for inspection and tests).
func (d *Dispatcher) Choose(n int) int {
	s := int(d.entry(n).side)
	if d.avoid(s) {
		return 1 - s
	}
	return s
}

func (d *Dispatcher) avoid(s int) bool { return d.failed[s] > d.calls }

// slowed reports whether side s was found slower and has not recovered.
func (d *Dispatcher) slowed(s int) bool { return d.slowF[s] > 1.0001 }

// recoveryFits reports whether probing side s (found slower) with a call
// of size n in bucket b fits its recovery budget: the predicted extra
// time of its recovery probes within RecoveryShare of the time spent
// since it was found slower.
func (d *Dispatcher) recoveryFits(s int, b *bucket, m [2]float64) bool {
	return d.recX[s]+d.extra(b, s, m) <= d.cfg.RecoveryShare*(d.spent-d.slowAt[s])
}

// extra is the predicted extra time of running on side s, in bucket b, a
// call whose models evaluate to m, instead of on the other side.
func (d *Dispatcher) extra(b *bucket, s int, m [2]float64) float64 {
	return math.Max(0, d.est(b, s, m)-d.est(b, 1-s, m))
}

// idle reports whether side s answered none of the last idleCalls calls.
func (d *Dispatcher) idle(s int) bool { return max(d.lastUse[s], d.probed[s]) < d.calls-idleCalls }

// serving reports whether the routing gives side s some sizes of a bucket
// seen so far and the side answered, other than as a probe, one of the
// last serveCalls calls. A side found slower that is serving needs no
// recovery probes: a recovery shows in its own calls, which then run
// faster than their estimates and are observed (see Do). Probing it at
// RecoveryShare would cost up to a fifth of the time for as long as the
// slow-down lasts (a side that stays slower is never found recovered:
// on a shared machine, a burst of contention can leave one side's
// estimates 2× off for good); it is probed on the ordinary budget
// instead. A side the routing gives nothing is probed for its recovery
// from the start, which also keeps it from parking (a probe of a parked
// side pays its wake-up).
func (d *Dispatcher) serving(s int) bool {
	return d.serves[s] != 0 && d.lastUse[s] >= d.calls-serveCalls
}

// serveCalls: a side that answered none of this many calls is not serving
// (the buckets the routing gives it are no longer called, or so rarely
// that its own calls would show a recovery hundreds of calls late: at
// 512, threads=1 slowed 3× and given a sliver of one bucket moved back
// 53-146 calls after the slow-down ended in 18 of 150 hybrid replays).
const serveCalls = 32

// checked are the sizes of bucket k at which the routing of the whole
// bucket is judged: its ends and middle.
func checked(k int) [3]int {
	lo, hi := 1<<k, 1<<(k+1)-1
	return [3]int{lo, (lo + hi) / 2, hi}
}

// mark records which sides bucket k's routing gives some sizes, from the
// sides it picks at checked(k).
func (d *Dispatcher) mark(k int, picked, profiled [3]int) {
	for s := range 2 {
		d.serves[s] &^= 1 << k
		d.against[s] &^= 1 << k
		if slices.Contains(picked[:], s) {
			d.serves[s] |= 1 << k
		} else if slices.Contains(profiled[:], s) {
			d.against[s] |= 1 << k
		}
	}
}

// profiled is the side the profile alone (a ratio of 1) picks for models m.
func profiled(m [2]float64) int {
	if m[1] < m[0] {
		return 1
	}
	return 0
}

// watched reports whether side s is found slower and either not serving
// or suspected recovered: it is probed for its recovery on its own
// budget. A side that serves a small share (threads=1 slowed 3× and
// still given 2-3 rows, a call in 5-7) shows its recovery in its own
// calls too slowly: 3 of its last 4 observed calls must run fast, and
// they came 20-80 calls after the slow-down ended; once one has run
// fast, probes of it between them confirm or refute the recovery within
// a few calls.
func (d *Dispatcher) watched(s int) bool {
	return d.slowed(s) && (!d.serving(s) || d.suspect[s])
}

// idleCalls is the number of calls without side s after which its next
// call counts as a wake-up.
const idleCalls = 2

// Do routes one call of size n and runs it; the error is non-nil only when
// both sides failed (ErrBothFailed wrapping both errors).
//
// Most calls take a short path: the size's cache entry holds the routing
// decision, no probe is due before nextCheck, and the side's call is not
// sampled (skip), so the call costs the entry's line and the hot fields.
func (d *Dispatcher) Do(n int) (Outcome, error) {
	e := d.entry(n)
	if side := int(e.side); d.calls < d.nextCheck && e.warm && d.skip[side] > 0 {
		d.skip[side]--
		took, err := e.ex.Run(n)
		if err == nil {
			d.offEstimate(side, e, took)
			d.answered(side, took)
			return Outcome{Side: side, Took: took, Failed: -1}, nil
		}
		k := bucketOf(n)
		return d.finish(n, k, d.bucket(k), e, side, Outcome{Failed: -1}, false, took, err)
	}
	return d.route(n, e)
}

// offEstimate counts an unobserved call of side that ran in took off the
// entry's bounds: after offRun in a row, the side's next call is
// observed. On the full path too: while a side is found slower, calls
// take it whenever a recovery probe may be due (every other call at
// first, see recoveryGap), and a side that kept some sizes
// showed its recovery only in its sampled calls, one in 16-64 (threads=1
// slowed 3× and still given 4-11 rows: back 64-100 calls after the
// slow-down ended, against 5-14 when it was given none).
func (d *Dispatcher) offEstimate(side int, e *modelEntry, took time.Duration) {
	if took < e.lo || took > e.hi {
		// While the side is found slower, one such call is enough (it
		// may be recovering; see watched).
		if d.off[side]++; d.off[side] >= offRun || d.slowed(side) {
			d.skip[side] = 0 // off its estimate: observe what follows
		}
	} else {
		d.off[side] = 0
	}
}

// route is Do's full path: failures, probes, sampled calls.
func (d *Dispatcher) route(n int, e *modelEntry) (Outcome, error) {
	k := bucketOf(n)
	b := d.bucket(k)
	m, side := e.m, int(e.side)
	other := 1 - side
	out := Outcome{Failed: -1}
	retry := 0 // a probe was due but not admitted: check again this many calls on
	switch {
	case d.avoid(side):
		side = other
	case d.failed[other] != 0 && !d.avoid(other):
		// The failed side's time-out is over: retry it as a probe.
		side, out.Probe = other, true
	case d.avoid(other):
		// A failed side is not called before its time-out is over, not
		// even as a probe (they went on at the probe rate, each failure
		// doubling the time-out).
	case int(d.follow) == other:
		// The second call of a probe of a side that was idle: part of
		// the probe the budget admitted, so not checked again (the
		// first call's wake-up alone may have spent the budget), except
		// a recovery probe's, which keeps to the recovery budget.
		if !d.watched(other) || d.recoveryFits(other, b, m) {
			side, out.Probe = other, true
		}
	case d.watched(other) && d.calls-d.lastPrb >= d.recoveryGap(other):
		// A side found slower and given no calls is probed to see it
		// recover, whatever the probe budget, within its own:
		// RecoveryShare of the time spent since it was found slower.
		if d.recoveryFits(other, b, m) {
			side, out.Probe = other, true
			d.lastPrb = d.calls
			if d.idle(other) {
				d.follow = int32(other)
			}
		} else {
			retry = 2
		}
	case d.calls-d.lastPrb >= d.probeGap():
		// Probes go to requests that are cheap on the probed side (at
		// most the mean call so far), so the budget buys many of them;
		// after 4 gaps without one, any request will do, so buckets of
		// large requests are probed too.
		//
		// Buckets where the probed side has few calls and, against its
		// profile, no sizes (needy) come first, whatever their requests cost: its first
		// calls there may have run cold (threads=2's first calls at
		// 64-127 rows ran 2.6× its profile in one hybrid run), and
		// while its estimate held them, probes went to cheaper requests
		// and the bucket stayed on the slower side for the whole run. A
		// probe due waits up to two gaps for a needy bucket's request.
		mean := d.spent / float64(max(d.calls, 1))
		needy := d.filling[other] & d.against[other]
		here := needy>>k&1 == 1
		wait := !here && needy != 0 && d.calls-d.lastPrb < 2*d.probeGap()
		cheap := d.calls == 0 || d.est(b, other, m) <= mean || here || d.calls-d.lastPrb >= 4*d.probeGap()
		switch deficit := d.probeX + d.extra(b, other, m) - d.cfg.ProbeShare*d.spent; {
		case wait:
			retry = 1
		case !cheap || d.watched(other):
			retry = 2
		case deficit <= 0:
			side, out.Probe = other, true
			d.lastPrb = d.calls
			if d.idle(other) {
				d.follow = int32(other)
			}
		default:
			// The budget grows by ProbeShare of each call: check again
			// when the calls so far, at their mean, would have paid the
			// deficit (at most probeGap calls on).
			retry = int(min(math.Ceil(deficit/(d.cfg.ProbeShare*mean)), float64(d.probeGap())))
		}
	}
	if d.follow >= 0 && !(out.Probe && int(d.follow) == side && d.lastPrb == d.calls) {
		d.follow = -1
	}
	// A probe's call on a side that was idle pays that side's wake-up
	// (parked host workers, an idle GPU queue), which the side would not
	// pay if it took the bucket's calls: it answers the request and can
	// show the side recovered (a wake-up makes a call slower, not
	// faster), but does not enter the estimates; the probe's next call,
	// right after it, does.
	wake := out.Probe && d.idle(side)
	// A probe is charged its extra time over the other side's estimate,
	// counting the call at most twice its own estimate, or for a wake-up
	// call the larger of that and the side's median wake-up's ratio to
	// its estimate: a longer call is an outlier (a preempted call), and
	// one outlier charged in full would silence the probes for hundreds
	// of calls, while wake-ups are paid on every probe of an idle side
	// and charged as they run.
	var ownEst, otherEst float64
	recovery := out.Probe && d.watched(side) // charged to the recovery budget
	if out.Probe {
		ownEst, otherEst = d.est(b, side, m), d.est(b, 1-side, m)
	}
	took, err := d.ex[side].Run(n)
	out, err = d.finish(n, k, b, e, side, out, wake, took, err)
	if err == nil && out.Probe && out.Failed < 0 {
		limit := 2.0
		if wake {
			d.wakeR[side].add(took.Seconds() / ownEst)
			limit = math.Max(limit, d.wakeR[side].median())
		}
		x := math.Max(0, math.Min(took.Seconds(), limit*ownEst)-otherEst)
		if recovery || d.recoveredAt[side] == d.calls-1 {
			d.recX[side] += x
		} else {
			d.probeX += x
		}
	}
	d.schedule(retry)
	return out, err
}

// finish accounts for a call of side s that returned (took, err): on an
// error it falls back to the other side; it observes the call when it is
// sampled (a probe, a wake-up, a bucket still filling its ring, or the
// side's turn) and counts it.
func (d *Dispatcher) finish(n, k int, b *bucket, e *modelEntry, side int, out Outcome, wake bool, took time.Duration, err error) (Outcome, error) {
	m := e.m
	if err != nil {
		out.Failed = side
		d.fail(side, k, err)
		took2, err2 := d.ex[1-side].Run(n)
		took += took2
		if err2 != nil {
			d.fail(1-side, k, err2)
			d.lost++
			d.calls++
			d.spent += took.Seconds()
			return out, fmt.Errorf("%w: %s: %v; %s: %v", ErrBothFailed, d.names[side], err, d.names[1-side], err2)
		}
		side = 1 - side
		d.observe(side, k, b, m, took2, d.idle(side), false)
	} else {
		if d.failed[side] != 0 {
			d.failed[side], d.failures[side] = 0, 0
			d.switches = append(d.switches, Switch{Call: d.calls, Bucket: bucketName(k), From: d.names[1-side], To: d.names[side],
				Reason: fmt.Sprintf("%s answered again after failing", d.names[side])})
		}
		if out.Probe || wake || !e.warm || side != int(e.side) || d.skip[side] == 0 {
			d.observe(side, k, b, m, took, wake, out.Probe)
		} else {
			d.skip[side]--
			d.offEstimate(side, e, took)
		}
	}
	if out.Probe && out.Failed < 0 {
		d.probed[side] = d.calls
		d.count(side, took)
	} else {
		d.answered(side, took)
	}
	out.Side, out.Took = side, took
	return out, nil
}

// answered counts a call that side answered in took, not as a probe.
func (d *Dispatcher) answered(side int, took time.Duration) {
	d.lastUse[side] = d.calls
	d.count(side, took)
}

// count counts a call that side answered in took.
func (d *Dispatcher) count(side int, took time.Duration) {
	d.answered1 += side
	d.calls++
	d.spent += took.Seconds()
}

// recoveryGap is the fewest calls between two probes of side s, found
// slower: 2 at first and while a recovery is suspected, then one
// recoveryPatience-th of the calls since it was found slower, at most
// maxRecoveryGap. The longer a slow-down has lasted, the less likely it
// ends in the next calls: probed every other call for as long as it
// lasted, a side that stayed slower took the whole recovery budget
// (threads=2 on a busy host, 2-3× its estimates for a whole run, took
// half of the calls as probes and the adaptive total ran 1.86×
// threads=1's). A side that recovers is caught by its first probe
// after, then confirmed at gap 2 (suspect).
func (d *Dispatcher) recoveryGap(s int) int {
	g := min(d.cfg.ProbeEvery, 2)
	if d.suspect[s] {
		return g
	}
	return min(max(g, (d.calls-d.slowCall[s])/recoveryPatience), maxRecoveryGap)
}

const (
	recoveryPatience = 64
	maxRecoveryGap   = 256
)

// probeGap is the fewest calls between two probes: ProbeEvery, doubled
// after probeSteady probes in a row confirmed the routing and doubled
// again after twice as many (back to ProbeEvery: unsteady).
func (d *Dispatcher) probeGap() int { return d.cfg.ProbeEvery << min(d.probeOK/probeSteady, 2) }

// sampleGap is the number of side s's calls per sampled one while it
// runs as estimated: sampleEvery, doubled after ringSize sampled calls
// in a row left the routing as it was and doubled again after twice as
// many.
func (d *Dispatcher) sampleGap(s int) int16 { return sampleEvery << min(d.sampleOK[s]/ringSize, 2) }

// unsteady restarts the probing and sampling at their full rates: a
// bucket switched a size to the other side, a side was found slower or
// recovered, or a side failed. A bucket's ratio that moved without
// changing any size's side does not (on a shared machine it moved every
// few hundred calls, and the sampling stayed at its full rate).
func (d *Dispatcher) unsteady() { d.probeOK, d.sampleOK = 0, [2]uint16{} }

// probeSteady is the number of probes in a row that confirm the routing
// (leave the estimates' ratio as it was, in a bucket whose probed side
// had its minObs calls) after which probes come half as often; as many
// again halve it again.
const probeSteady = 4

// schedule sets nextCheck, the first call that must take Do's full path:
// the next one while a probe continues or a side is failed, retry calls
// on when a due probe was not admitted (the call's size not cheap, or the
// budget short), else the next probe's.
func (d *Dispatcher) schedule(retry int) {
	switch {
	case d.follow >= 0 || d.failed[0] != 0 || d.failed[1] != 0:
		d.nextCheck = d.calls
	case retry > 0:
		d.nextCheck = d.calls - 1 + retry
	case d.slowed(0) || d.slowed(1):
		// The sooner of the ordinary probes' gap (a slowed side that
		// still serves is probed on that) and the slowed sides' recovery
		// gaps.
		gap := d.probeGap()
		for s := range 2 {
			if d.slowed(s) {
				gap = min(gap, d.recoveryGap(s))
			}
		}
		d.nextCheck = d.lastPrb + gap
	default:
		d.nextCheck = d.lastPrb + d.probeGap()
	}
}

// LastError returns the latest error side s (0 or 1) failed with: the
// error behind an Outcome's Failed (nil: none yet, or s out of range).
func (d *Dispatcher) LastError(s int) error {
	if s < 0 || s > 1 {
		return nil
	}
	return d.lastErr[s]
}

// fail marks side s failed for RetryAfter calls (doubling).
func (d *Dispatcher) fail(s, k int, err error) {
	d.lastErr[s] = err
	d.unsteady()
	d.failures[s]++
	wait := d.cfg.RetryAfter << min(d.failures[s]-1, 6)
	d.failed[s] = d.calls + wait
	d.nextCheck = 0 // every call takes the full path while a side is failed
	if int(d.follow) == s {
		d.follow = -1 // no second call of a probe of a failed side
	}
	d.switches = append(d.switches, Switch{Call: d.calls, Bucket: bucketName(k), From: d.names[s], To: d.names[1-s],
		Reason: fmt.Sprintf("%s failed (%v): falling back to %s, retrying in %d calls", d.names[s], err, d.names[1-s], wait)})
}

// observe folds a successful call of side s in bucket b (number k), whose
// models evaluate to m, into the estimates, detects a shock, and updates
// the routing when the estimates say so.
func (d *Dispatcher) observe(s, k int, b *bucket, m [2]float64, took time.Duration, wake, probe bool) {
	obs := took.Seconds() / m[s]
	if !(obs > 0) || math.IsInf(obs, 0) {
		return
	}
	// Shock: the median of the side's last shockCalls calls, anywhere,
	// off its estimates by ShockRatio. Contention, clocks or a lost device
	// are not size-specific: rescale the side in every bucket.
	w := &d.win[s]
	// A wake-up call is slow for its own reasons: it shows a recovery
	// when it is fast, nothing when it is slow.
	r := obs / b.q[s]
	if faster := r < 1/d.cfg.ShockRatio; !wake || faster {
		w.addFast(r, faster)
	}
	if !wake {
		d.winK[s][w.is] = int8(k)
		w.addSlow(r, r > d.cfg.ShockRatio)
	}
	// The side's next sampleGap-1 calls go unobserved unless this one
	// ran off its estimate by ShockRatio or the side's window is not
	// full: then the next call is observed too (and Do's short path
	// has the call after offRun such calls in a row observed). A call is chosen on
	// the calls before it, not on its own time, so outliers are not
	// over-sampled; a slow-down has every call observed from its first.
	d.skip[s], d.off[s] = d.sampleGap(s)-1, 0
	if int(w.ns) < shockCalls || r > d.cfg.ShockRatio || r < 1/d.cfg.ShockRatio {
		d.skip[s] = 0
	}
	if d.slowed(s) && (r < 1/d.cfg.ShockRatio || !wake) {
		d.suspect[s] = r < 1/d.cfg.ShockRatio
	}
	f, recovered := 1.0, false
	if !wake {
		// All but shockSpare of the calls slower by ShockRatio: a few
		// preempted calls cannot fake a slow-down.
		if ok, med := w.slowDown(); ok {
			f = med
		}
	}
	// All but one of the last fastCalls calls faster by ShockRatio:
	// a shared machine makes calls slower, not faster, so fewer calls
	// prove a recovery than a slow-down (the side taking few calls
	// once it was found slow, its recovery is seen through probes).
	// A recovery restores the estimates from before the side was
	// found slower, no more and no less: the calls that show it are
	// the cheapest (probes), whose ratio need not hold for all, and
	// the buckets the side kept serving while slower had learnt the
	// slow-down on top of the rescaling (restoring only the rescaling
	// left it looking 1.6× slower than it was, below what a shock
	// shows, for hundreds of calls). A partial recovery (slowed 9×,
	// back to 3×) is taken as a full one: the side's next calls, still
	// slower than the restored estimates, show a new slow-down within
	// shockCalls of them (TestPartialRecoveryCorrects).
	if ok, med := w.recovery(); ok && d.slowed(s) {
		f, recovered = med, true
	}
	// A recovery can also be gradual (contention fading): then no call
	// runs ShockRatio faster than the estimates, which follow it in the
	// buckets the side is called in, while the others keep the rescaling
	// (a side slowed 2×, back over 500 calls, stayed off the sizes it had
	// lost for hundreds to thousands of calls). So a slowed side's calls
	// are also compared with its estimates from before it was found
	// slower, which do not move: all but one of the last backCalls
	// within the hysteresis of those is a recovery.
	again := false
	if pre := &b.pre[s]; !recovered && f == 1 && d.slowed(s) && pre.obs.n >= minObs {
		if ok := obs <= pre.q*d.cfg.Hysteresis; ok || !wake {
			w.addBack(ok)
		}
		if w.back() {
			recovered, again = true, true
		}
	}
	if f == 1 && !recovered && wake {
		return
	}
	if f != 1 || recovered {
		var why string
		if recovered {
			d.each(func(kk int, bb *bucket) {
				bb.q[s], bb.obs[s] = bb.pre[s].q, bb.pre[s].obs
				if bb.obs[s].n < minObs {
					d.young[s] |= 1 << kk // filled while slower: young again
				}
			})
			d.sideR[s] = d.sidePre[s]
			d.slowF[s] = 1
			d.updatePrior(s)
			d.recoveredAt[s] = d.calls
			why = fmt.Sprintf("%s ran %.2f× its estimates (median of its last %d calls) (faster): its estimates from before it was found slower restored in every bucket", d.names[s], f, fastCalls)
			if again {
				why = fmt.Sprintf("%s ran within %.2f× its estimates from before it was found slower (%d of its last %d calls): those restored in every bucket", d.names[s], d.cfg.Hysteresis, backCalls-1, backCalls)
			}
		} else {
			if !d.slowed(s) {
				d.slowAt[s], d.recX[s], d.slowCall[s] = d.spent, 0, d.calls
				d.each(func(_ int, bb *bucket) { bb.pre[s] = estimate{q: bb.q[s], obs: bb.obs[s]} })
				d.sidePre[s] = d.sideR[s]
				// The estimates from before the slow-down leave out the
				// calls that showed it (the window's, all but this one
				// already in their buckets' rings, newest last): restored
				// with them, a bucket whose ring they made up half of kept
				// the slow-down after the recovery (threads=2's 32-63 rows
				// stayed on threads=1 for two replays in hybrid).
				for j := 1; j < int(w.ns); j++ {
					kk := d.winK[s][(int(w.is)+shockCalls-1-j)%shockCalls]
					pre := &d.buckets[kk].pre[s]
					pre.obs.dropNewest()
					if pre.obs.n >= minObs {
						pre.q = pre.obs.median()
					}
					d.sidePre[s].dropNewest()
				}
			}
			d.sideR[s].scale(f)
			d.each(func(_ int, bb *bucket) {
				bb.q[s] *= f
				bb.obs[s].scale(f)
			})
			d.slowF[s] *= f
			why = fmt.Sprintf("%s ran %.2f× its estimates (median of its last %d calls) (slower), rescaled in every bucket", d.names[s], f, shockCalls)
		}
		*w = window{}
		d.suspect[s] = false
		d.unsteady()
		d.invalidate() // the cache entries' bounds
		d.each(func(kk int, bb *bucket) { d.reconsider(kk, bb, why) })
		return
	}
	known := b.cnt[s] >= minObs
	b.obs[s].add(obs)
	if b.obs[s].n >= minObs {
		b.q[s] = b.obs[s].median()
		d.young[s] &^= 1 << k
	}
	old := d.prior(s)
	d.sideR[s].add(obs)
	d.updatePrior(s)
	if p := d.prior(s); d.young[s] != 0 && p != old {
		// The buckets where the side is young take its new prior.
		why := fmt.Sprintf("%s's last %d calls in any bucket ran %.2f× its profile (median), taken where it has fewer than %d", d.names[s], d.sideR[s].n, p, minObs)
		for y := d.young[s]; y != 0; y &= y - 1 {
			kk := bits.TrailingZeros64(y)
			if bb := &d.buckets[kk]; bb.obs[s].n < minObs {
				bb.q[s] = p
				d.reconsider(kk, bb, why)
			}
		}
	}
	if b.cnt[s] >= ringSize {
		d.filling[s] &^= 1 << k
	}
	if b.cnt[s]++; b.cnt[s] == ringSize+1 {
		d.invalidate() // the bucket's calls on s are sampled from now on
	}
	if d.reconsider(k, b, "") {
		return
	}
	// The routing held: count a probe of a side known in the bucket, or a
	// call sampled from a warm bucket, towards the lower rates.
	switch {
	case probe && known:
		d.probeOK = min(d.probeOK+1, math.MaxUint16)
	case !probe && b.cnt[s] > ringSize:
		d.sampleOK[s] = min(d.sampleOK[s]+1, math.MaxUint16)
	}
}

// minObs is the number of a side's calls in a bucket before their median
// replaces the profile there.
const minObs = 3

// shockCalls is the number of a side's latest calls that decide a shock:
// all but shockSpare of them must be off their estimates the same way, and
// the side is rescaled by their median.
const (
	shockCalls = 9
	shockSpare = 2
	fastCalls  = 4
	backCalls  = 5
)

// reconsider moves bucket k's applied ratio to the estimates' when they
// differ by more than the hysteresis factor, records the switch, and
// reports whether the ratio moved.
func (d *Dispatcher) reconsider(k int, b *bucket, why string) bool {
	r := b.q[1] / b.q[0]
	if r <= b.rho*d.cfg.Hysteresis && r >= b.rho/d.cfg.Hysteresis {
		return false
	}
	old := b.rho
	// Does the new ratio route any size of the bucket differently?
	changed := false
	var picked, prof [3]int
	for i, n := range checked(k) {
		mn := d.models(n)
		p0 := d.pick(b, mn)
		b.rho = r
		picked[i], prof[i] = d.pick(b, mn), profiled(mn)
		b.rho = old
		changed = changed || p0 != picked[i]
	}
	b.rho = r
	d.mark(k, picked, prof)
	d.invalidate()
	if !changed {
		return true
	}
	d.unsteady()
	to, from := 1, 0
	if r > old {
		to, from = 0, 1
	}
	txt := fmt.Sprintf("%s/%s time relative to the profile moved from %.2f to %.2f (hysteresis %.2f): %s favoured",
		d.names[1], d.names[0], old, r, d.cfg.Hysteresis, d.names[to])
	if why != "" {
		txt = why + "; " + txt
	}
	d.switches = append(d.switches, Switch{Call: d.calls, Bucket: bucketName(k), From: d.names[from], To: d.names[to], Reason: txt})
	return true
}

// Switches returns every switch so far, in order.
func (d *Dispatcher) Switches() []Switch { return append([]Switch(nil), d.switches...) }

// Share returns how many calls each side answered.
func (d *Dispatcher) Share() [2]int { return [2]int{d.calls - d.lost - d.answered1, d.answered1} }

// Static routes by a fixed threshold: side above for n ≥ at, the other
// below (the usual design, for comparison).
type Static struct {
	At    float64
	Above int
}

// Side returns the side for n.
func (s Static) Side(n int) int {
	if float64(n) >= s.At {
		return s.Above
	}
	return 1 - s.Above
}
