package timing

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Which side is faster at one batch size, from the CIs of the medians.
const (
	FasterA = -1 // A's CI lies entirely below B's
	Tie     = 0  // the CIs overlap: statistically indistinguishable
	FasterB = 1  // B's CI lies entirely below A's
)

// Faster compares two summaries by their CIs: FasterA when a.Hi < b.Lo,
// FasterB when b.Hi < a.Lo, Tie otherwise (or when either is invalid).
func Faster(a, b Summary) int {
	switch {
	case !a.Valid() || !b.Valid():
		return Tie
	case a.Hi < b.Lo:
		return FasterA
	case b.Hi < a.Lo:
		return FasterB
	}
	return Tie
}

// SearchPoint is one batch size the search measured on both sides.
type SearchPoint struct {
	N      int     `json:"n"`
	A      Summary `json:"a"`
	B      Summary `json:"b"`
	Faster int     `json:"faster"` // FasterA, Tie or FasterB
}

// Statuses of a crossover search (SearchResult.Status).
const (
	// SearchLocated: the faster side changes inside [Lo, Hi] and Hi/Lo is
	// within SearchOpts.Ratio (±10% by default).
	SearchLocated = "located"
	// SearchResolution: the bracket is two adjacent batch sizes; it cannot
	// be narrowed further.
	SearchResolution = "resolution"
	// SearchIndistinguishable: the faster side changes inside [Lo, Hi], but
	// the sides are statistically indistinguishable across the part of it
	// left to narrow (or at every size measured, when Found is false).
	SearchIndistinguishable = "indistinguishable"
	// SearchNoCrossover: one side was faster at every size up to a limit.
	SearchNoCrossover = "no-crossover"
	// SearchBudget: the time budget or the probe limit ran out.
	SearchBudget = "budget"
)

// SearchOpts bounds a crossover search.
type SearchOpts struct {
	// Sizes is the coarse sweep (any order; at least one size).
	Sizes []int
	// Max is the largest batch size the search may measure (adapter
	// limits, host RAM); MaxReason says what sets it.
	Max       int
	MaxReason string
	// Grow is the geometric step of the extension past the sweep
	// (default 4).
	Grow int
	// Ratio: the search stops once Hi/Lo ≤ Ratio (default 1.2, ±10%
	// around the bracket's geometric centre).
	Ratio float64
	// MaxProbes caps the sizes measured in all (default 40).
	MaxProbes int
	// Deadline stops the search (zero: none); the coarse sweep's first
	// three sizes are always measured.
	Deadline time.Time
	// Now is the clock (nil: time.Now), for tests.
	Now func() time.Time
	// Refine, when set, measures both sides at n again with tighter CIs
	// (more samples; round 1, 2, … tighter each time). The search calls it
	// for every size whose probe came out a tie, round after round while
	// it stays a tie, up to Refines rounds, before it takes the sides for
	// indistinguishable there: near a crossover the two sides differ by a
	// few per cent, less than a probe's CIs resolve.
	Refine  func(n, round int) (a, b Summary, err error)
	Refines int // rounds of Refine (default 2)
	// RunsPerProbe is about how many calls of each side one probe makes
	// (default 12: 10 samples and 2 warm-ups); a size whose predicted cost
	// (the largest measured size's times scaled linearly) would overrun the
	// deadline is not measured.
	RunsPerProbe int
}

// Defaults of SearchOpts (documented with its fields).
const (
	defaultSearchGrow         = 4
	defaultSearchRatio        = 1.2
	defaultSearchMaxProbes    = 40
	defaultSearchRefines      = 2
	defaultSearchRunsPerProbe = 12
)

// SearchResult is the measured crossover: where the faster side changes,
// as an interval of measured batch sizes, with the measurements at both
// ends and why the search stopped.
type SearchResult struct {
	Found  bool   `json:"found"`
	Status string `json:"status"` // one of the Search* statuses
	// Lo and Hi bracket the change (valid when Found): below (and at) Lo
	// the side Before is faster, at Hi the other one.
	Lo     int         `json:"lo,omitempty"`
	Hi     int         `json:"hi,omitempty"`
	AtLo   SearchPoint `json:"at_lo"`
	AtHi   SearchPoint `json:"at_hi"`
	Before int         `json:"before"` // FasterA or FasterB: the side faster at small sizes (Tie: none seen)
	Reason string      `json:"reason"`
	// Points are every measured size, ascending.
	Points []SearchPoint `json:"points"`
}

// errStop ends the search early (deadline or probe cap).
var errStop = errors.New("search stopped")

// SearchCrossover finds where the faster of two sides changes. probe
// measures both sides at batch size n. It measures the coarse sweep, then
// extends geometrically (×Grow, capped at Max) while the same side stays
// faster, then bisects the bracket (geometric midpoints) until Hi/Lo ≤
// Ratio, the bracket is two adjacent sizes, the sides are indistinguishable
// across what is left of it, or the budget runs out; the ends of a bracket
// that is small enough are measured again (confirmed) before the search
// ends on it. An error from probe is returned wrapped (the search has no
// answer then). A tie is measured again through o.Refine where that is set.
func SearchCrossover(o SearchOpts, sideA, sideB string, probe func(n int) (a, b Summary, err error)) (SearchResult, error) {
	o, err := o.resolve()
	if err != nil {
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w", err)
	}
	if probe == nil {
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: nil probe", ErrSearch)
	}
	s := &search{o: o, sideA: sideA, sideB: sideB, probe: probe, pts: map[int]SearchPoint{}}
	if err := s.sweep(); err != nil {
		return SearchResult{}, err
	}
	if err := s.extend(); err != nil {
		return SearchResult{}, err
	}
	lo, hi, ok := bracket(s.pts)
	if !ok {
		return s.noChange(), nil
	}
	return s.bisect(lo, hi)
}

// resolve fills o's zero fields with their defaults and checks the rest.
func (o SearchOpts) resolve() (SearchOpts, error) {
	if len(o.Sizes) == 0 {
		return o, fmt.Errorf("%w: no sizes", ErrSearch)
	}
	if o.Max < 0 || o.RunsPerProbe < 0 || o.Refines < 0 || math.IsInf(o.Ratio, 0) {
		return o, fmt.Errorf("%w: max %d, runs per probe %d and refines %d must not be negative, ratio %v finite", ErrSearch, o.Max, o.RunsPerProbe, o.Refines, o.Ratio)
	}
	if o.Grow == 0 {
		o.Grow = defaultSearchGrow
	}
	if o.Ratio == 0 {
		o.Ratio = defaultSearchRatio
	}
	if o.MaxProbes == 0 {
		o.MaxProbes = defaultSearchMaxProbes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Refines == 0 {
		o.Refines = defaultSearchRefines
	}
	if o.RunsPerProbe == 0 {
		o.RunsPerProbe = defaultSearchRunsPerProbe
	}
	if o.Grow < 2 || !(o.Ratio > 1) || o.MaxProbes < 1 {
		return o, fmt.Errorf("%w: grow %d (≥ 2), ratio %v (> 1), max probes %d (≥ 1)", ErrSearch, o.Grow, o.Ratio, o.MaxProbes)
	}
	for _, n := range o.Sizes {
		if n <= 0 {
			return o, fmt.Errorf("%w: size %d is not positive", ErrSearch, n)
		}
		if o.Max > 0 && n > o.Max {
			return o, fmt.Errorf("%w: size %d is past the limit %d (%s)", ErrSearch, n, o.Max, o.MaxReason)
		}
	}
	return o, nil
}

// search is one crossover search in progress: its options (defaults
// filled), the points measured so far, and why it stopped early, if it did.
type search struct {
	o            SearchOpts
	sideA, sideB string
	probe        func(n int) (a, b Summary, err error)
	pts          map[int]SearchPoint
	stopWhy      string // set when the budget or the probe cap stopped a measurement
	confirms     int    // rounds of confirm spent
}

// name is the side that w (FasterA or FasterB) names.
func (s *search) name(w int) string {
	if w == FasterA {
		return s.sideA
	}
	return s.sideB
}

// pastDeadline reports whether the search's deadline has passed.
func (s *search) pastDeadline() bool {
	return !s.o.Deadline.IsZero() && !s.o.Now().Before(s.o.Deadline)
}

// at probes both sides at n, measuring a tie again through Refine (a
// refinement round is not started past the deadline).
func (s *search) at(n int) (a, b Summary, err error) {
	a, b, err = s.probe(n)
	if err != nil {
		return a, b, fmt.Errorf("timing: SearchCrossover: at n=%d: %w", n, err)
	}
	for round := 1; Faster(a, b) == Tie && s.o.Refine != nil && round <= s.o.Refines && !s.pastDeadline(); round++ {
		if a, b, err = s.o.Refine(n, round); err != nil {
			return a, b, fmt.Errorf("timing: SearchCrossover: at n=%d (refined, round %d): %w", n, round, err)
		}
	}
	return a, b, nil
}

// measure adds the point at n (nothing when it is measured already). It
// returns errStop, with stopWhy set, when the probe cap is reached or,
// unless force, when the deadline has passed or measuring n is predicted
// to overrun it (the nearest larger measured size's times, scaled linearly
// to n, RunsPerProbe times).
func (s *search) measure(n int, force bool) error {
	if _, ok := s.pts[n]; ok {
		return nil
	}
	if len(s.pts) >= s.o.MaxProbes {
		s.stopWhy = fmt.Sprintf("probe limit: %d sizes measured", len(s.pts))
		return errStop
	}
	if !force && s.pastDeadline() {
		s.stopWhy = fmt.Sprintf("time budget spent after %d sizes", len(s.pts))
		return errStop
	}
	if !force && !s.o.Deadline.IsZero() && len(s.pts) > 0 {
		ps := sortedPoints(s.pts)
		ref := ps[len(ps)-1]
		for _, p := range ps {
			if p.N >= n {
				ref = p
				break
			}
		}
		scale := math.Max(1, float64(n)/float64(ref.N))
		cost := time.Duration(float64(s.o.RunsPerProbe) * scale * (ref.A.Median + ref.B.Median) * float64(time.Second))
		if s.o.Now().Add(cost).After(s.o.Deadline) {
			s.stopWhy = fmt.Sprintf("time budget: measuring n=%d would take about %s, past the budget", n, cost.Round(time.Millisecond))
			return errStop
		}
	}
	a, b, err := s.at(n)
	if err != nil {
		return err
	}
	s.pts[n] = SearchPoint{N: n, A: a, B: b, Faster: Faster(a, b)}
	return nil
}

// sweep measures the coarse sweep in ascending order; its first three
// sizes are measured whatever the budget says, the rest until the budget
// or the probe cap stops it.
func (s *search) sweep() error {
	sizes := append([]int(nil), s.o.Sizes...)
	sort.Ints(sizes)
	for i, n := range sizes {
		if err := s.measure(n, i < 3); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// extend measures past the largest size, ×Grow at a time (saturating at
// Max or the largest int, never wrapping), while no change of the faster
// side is bracketed and the budget lasts.
func (s *search) extend() error {
	for s.stopWhy == "" {
		if _, _, ok := bracket(s.pts); ok {
			return nil
		}
		last := sortedPoints(s.pts)[len(s.pts)-1].N
		if s.o.Max > 0 && last >= s.o.Max {
			return nil
		}
		next := math.MaxInt
		if last <= math.MaxInt/s.o.Grow {
			next = last * s.o.Grow
		}
		if s.o.Max > 0 {
			next = min(next, s.o.Max)
		}
		if next <= last {
			return nil
		}
		if err := s.measure(next, false); err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	return nil
}

// noChange is the result of a search that bracketed no change: one side
// faster wherever the two differ (no crossover up to the limit, or the
// budget), or no difference at all.
func (s *search) noChange() SearchResult {
	ps := sortedPoints(s.pts)
	last := ps[len(ps)-1]
	w := Tie
	for _, p := range ps {
		if p.Faster != Tie {
			w = p.Faster
			break
		}
	}
	res := SearchResult{Before: w, AtLo: ps[0], AtHi: last, Points: ps}
	limit := s.stopWhy
	if limit == "" {
		limit = fmt.Sprintf("limit: %s", s.o.MaxReason)
		if s.o.MaxReason == "" {
			limit = "limit: the largest size allowed"
		}
	}
	switch {
	case w == Tie:
		res.Status = SearchIndistinguishable
		res.Reason = fmt.Sprintf("%s and %s are statistically indistinguishable at every size measured, %d to %d (%s)",
			s.sideA, s.sideB, ps[0].N, last.N, limit)
	case s.stopWhy != "":
		res.Status = SearchBudget
	default:
		res.Status = SearchNoCrossover
	}
	if w != Tie {
		res.Reason = fmt.Sprintf("%s slower at every size up to %d (%s)", s.name(-w), last.N, limit)
	}
	return res
}

// confirm measures both ends of a located bracket again, later than they
// were first measured: on a shared machine a side can run slow for a
// second or two (a vCPU taken away), enough to make one size's winner
// wrong (TestSearchConfirmsEnds). An end whose winner changes becomes a
// tie (two measurements disagree) and the bracket is found again: again
// is true then, and ok false when no bracket is left. After maxConfirms
// rounds, or past the deadline, it confirms nothing and returns lo, hi.
func (s *search) confirm(lo, hi SearchPoint) (nlo, nhi SearchPoint, again, ok bool, err error) {
	if s.confirms >= maxConfirms || s.pastDeadline() {
		return lo, hi, false, true, nil
	}
	s.confirms++
	for _, p := range []SearchPoint{lo, hi} {
		a, b, err := s.at(p.N)
		if err != nil {
			return lo, hi, false, false, err
		}
		if Faster(a, b) != p.Faster {
			s.pts[p.N] = SearchPoint{N: p.N, A: a, B: b, Faster: Tie}
			again = true
		}
	}
	if !again {
		return lo, hi, false, true, nil
	}
	nlo, nhi, ok = bracket(s.pts)
	return nlo, nhi, true, ok, nil
}

// bisect narrows the bracket [lo, hi] by geometric midpoints until Hi/Lo ≤
// Ratio (located) or the ends are adjacent (resolution), both confirmed
// first; until the sides are indistinguishable across what is left of it;
// or until the budget runs out.
func (s *search) bisect(lo, hi SearchPoint) (SearchResult, error) {
	for {
		res := SearchResult{Found: true, Lo: lo.N, Hi: hi.N, AtLo: lo, AtHi: hi, Before: lo.Faster}
		done := func(status, reason string) (SearchResult, error) {
			res.Status, res.Reason, res.Points = status, reason, sortedPoints(s.pts)
			return res, nil
		}
		change := fmt.Sprintf("%s faster at %d, %s faster at %d", s.name(lo.Faster), lo.N, s.name(hi.Faster), hi.N)
		located := float64(hi.N) <= s.o.Ratio*float64(lo.N)
		if located || hi.N-lo.N <= 1 {
			nlo, nhi, again, ok, err := s.confirm(lo, hi)
			if err != nil {
				return SearchResult{}, err
			}
			if !ok {
				res = SearchResult{AtLo: lo, AtHi: hi, Before: lo.Faster}
				return done(SearchIndistinguishable, fmt.Sprintf(
					"%s and %s: measured again, the winners at %d and %d changed, and no change of the faster side is left", s.sideA, s.sideB, lo.N, hi.N))
			}
			if again {
				lo, hi = nlo, nhi
				continue
			}
		}
		inner := s.inside(lo, hi)
		switch {
		case located:
			if len(inner) > 2 {
				change += "; indistinguishable at " + strings.Trim(fmt.Sprint(inner[1:len(inner)-1]), "[]")
			}
			return done(SearchLocated, fmt.Sprintf("located within ±%.0f%%: %s", 100*(s.o.Ratio-1)/2, change))
		case hi.N-lo.N <= 1:
			return done(SearchResolution, "adjacent sizes: "+change)
		}
		mid, ok := s.midpoint(inner)
		if !ok {
			return done(SearchIndistinguishable, fmt.Sprintf(
				"%s and %s are statistically indistinguishable from %d to %d; %s", s.sideA, s.sideB, inner[1], inner[len(inner)-2], change))
		}
		if err := s.measure(mid, false); err != nil {
			if errors.Is(err, errStop) {
				return done(SearchBudget, s.stopWhy+"; "+change)
			}
			return SearchResult{}, err
		}
		lo, hi, _ = bracket(s.pts)
	}
}

// inside lists lo, the sizes measured between lo and hi (ties), and hi,
// ascending.
func (s *search) inside(lo, hi SearchPoint) []int {
	inner := []int{lo.N}
	for _, p := range sortedPoints(s.pts) {
		if p.N > lo.N && p.N < hi.N {
			inner = append(inner, p.N)
		}
	}
	return append(inner, hi.N)
}

// midpoint is the next size to measure inside a bracket whose ends and
// ties are inner (ascending): the geometric midpoint of the widest outer
// gap (lo to the first tie, the last tie to hi; ties between them are
// indistinguishable sizes) wider than Ratio, or √Ratio with ties inside so
// that the winners either side of a single tie end within Ratio. ok is
// false when no gap is left to narrow.
func (s *search) midpoint(inner []int) (mid int, ok bool) {
	gapMax := s.o.Ratio
	gaps := [][2]int{{inner[0], inner[1]}}
	if len(inner) > 2 {
		gapMax = math.Sqrt(s.o.Ratio)
		gaps = append(gaps, [2]int{inner[len(inner)-2], inner[len(inner)-1]})
	}
	gx, gy := 0, 0
	for _, g := range gaps {
		x, y := g[0], g[1]
		if y-x > 1 && float64(y) > gapMax*float64(x) && (gx == 0 || float64(y)/float64(x) > float64(gy)/float64(gx)) {
			gx, gy = x, y
		}
	}
	if gx == 0 {
		return 0, false
	}
	mid = int(math.Round(math.Sqrt(float64(gx) * float64(gy))))
	return min(max(mid, gx+1), gy-1), true
}

// maxConfirms is how many times a located bracket's ends are measured
// again (each time one of them changes winner, the search goes on).
const maxConfirms = 3

// bracket finds, in ascending order, the first change of the faster side:
// lo is the last distinguishable point won by the side that wins first, hi
// the first point won by the other (ties may lie between).
func bracket(pts map[int]SearchPoint) (lo, hi SearchPoint, ok bool) {
	first := Tie
	for _, p := range sortedPoints(pts) {
		switch {
		case p.Faster == Tie:
		case first == Tie || p.Faster == first:
			first, lo = p.Faster, p
		default:
			return lo, p, true
		}
	}
	return lo, hi, false
}

func sortedPoints(pts map[int]SearchPoint) []SearchPoint {
	out := make([]SearchPoint, 0, len(pts))
	for _, p := range pts {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

// Bracket returns the first change of the faster side among measured
// points (any order), as SearchCrossover brackets it: lo the last point
// won by the side that wins first, hi the first won by the other.
func Bracket(points []SearchPoint) (lo, hi SearchPoint, ok bool) {
	m := make(map[int]SearchPoint, len(points))
	for _, p := range points {
		m[p.N] = p
	}
	return bracket(m)
}
