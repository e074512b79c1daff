package timing

import (
	"errors"
	"fmt"
	"math"
	"sort"
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
// across what is left of it, or the budget runs out. An error from probe is
// returned wrapped (the search has no answer then). A tie is measured
// again through o.Refine where that is set.
func SearchCrossover(o SearchOpts, sideA, sideB string, probe func(n int) (a, b Summary, err error)) (SearchResult, error) {
	if len(o.Sizes) == 0 {
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: no sizes", ErrSearch)
	}
	if probe == nil {
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: nil probe", ErrSearch)
	}
	if o.Max < 0 || o.RunsPerProbe < 0 || o.Refines < 0 || math.IsInf(o.Ratio, 0) {
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: max %d, runs per probe %d and refines %d must not be negative, ratio %v finite", ErrSearch, o.Max, o.RunsPerProbe, o.Refines, o.Ratio)
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
		return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: grow %d (≥ 2), ratio %v (> 1), max probes %d (≥ 1)", ErrSearch, o.Grow, o.Ratio, o.MaxProbes)
	}
	for _, n := range o.Sizes {
		if n <= 0 {
			return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: size %d is not positive", ErrSearch, n)
		}
		if o.Max > 0 && n > o.Max {
			return SearchResult{}, fmt.Errorf("timing: SearchCrossover: %w: size %d is past the limit %d (%s)", ErrSearch, n, o.Max, o.MaxReason)
		}
	}
	pts := map[int]SearchPoint{}
	stopWhy := ""
	// at probes both sides at n, refining a tie.
	at := func(n int) (a, b Summary, err error) {
		a, b, err = probe(n)
		if err != nil {
			return a, b, fmt.Errorf("timing: SearchCrossover: at n=%d: %w", n, err)
		}
		// A refinement round is not started past the deadline.
		for round := 1; Faster(a, b) == Tie && o.Refine != nil && round <= o.Refines && (o.Deadline.IsZero() || o.Now().Before(o.Deadline)); round++ {
			if a, b, err = o.Refine(n, round); err != nil {
				return a, b, fmt.Errorf("timing: SearchCrossover: at n=%d (refined, round %d): %w", n, round, err)
			}
		}
		return a, b, nil
	}
	measure := func(n int, force bool) error {
		if _, ok := pts[n]; ok {
			return nil
		}
		if len(pts) >= o.MaxProbes {
			stopWhy = fmt.Sprintf("probe limit: %d sizes measured", len(pts))
			return errStop
		}
		if !force && !o.Deadline.IsZero() && !o.Now().Before(o.Deadline) {
			stopWhy = fmt.Sprintf("time budget spent after %d sizes", len(pts))
			return errStop
		}
		if !force && !o.Deadline.IsZero() && len(pts) > 0 {
			ps := sortedPoints(pts)
			ref := ps[len(ps)-1]
			for _, p := range ps {
				if p.N >= n {
					ref = p
					break
				}
			}
			scale := math.Max(1, float64(n)/float64(ref.N))
			cost := time.Duration(float64(o.RunsPerProbe) * scale * (ref.A.Median + ref.B.Median) * float64(time.Second))
			if o.Now().Add(cost).After(o.Deadline) {
				stopWhy = fmt.Sprintf("time budget: measuring n=%d would take about %s, past the budget", n, cost.Round(time.Millisecond))
				return errStop
			}
		}
		a, b, err := at(n)
		if err != nil {
			return err
		}
		pts[n] = SearchPoint{N: n, A: a, B: b, Faster: Faster(a, b)}
		return nil
	}
	sizes := append([]int(nil), o.Sizes...)
	sort.Ints(sizes)
	res := SearchResult{}
	finish := func(status, reason string) (SearchResult, error) {
		res.Status, res.Reason = status, reason
		res.Points = sortedPoints(pts)
		return res, nil
	}
	for i, n := range sizes {
		if err := measure(n, i < 3); err != nil {
			if errors.Is(err, errStop) {
				break
			}
			return SearchResult{}, err
		}
	}
	name := func(w int) string {
		if w == FasterA {
			return sideA
		}
		return sideB
	}
	// Extend past the sweep while no change is seen.
	for stopWhy == "" {
		if _, _, ok := bracket(pts); ok {
			break
		}
		last := sortedPoints(pts)[len(pts)-1].N
		if o.Max > 0 && last >= o.Max {
			break
		}
		// Sizes saturate at the largest int (or Max): they never wrap.
		next := math.MaxInt
		if last <= math.MaxInt/o.Grow {
			next = last * o.Grow
		}
		if o.Max > 0 {
			next = min(next, o.Max)
		}
		if next <= last {
			break
		}
		if err := measure(next, false); err != nil {
			if errors.Is(err, errStop) {
				break
			}
			return SearchResult{}, err
		}
	}
	lo, hi, ok := bracket(pts)
	if !ok {
		ps := sortedPoints(pts)
		last := ps[len(ps)-1]
		w := Tie
		for _, p := range ps {
			if p.Faster != Tie {
				w = p.Faster
				break
			}
		}
		res.Before = w
		res.AtLo, res.AtHi = ps[0], last
		limit := stopWhy
		if limit == "" {
			limit = fmt.Sprintf("limit: %s", o.MaxReason)
			if o.MaxReason == "" {
				limit = "limit: the largest size allowed"
			}
		}
		if w == Tie {
			return finish(SearchIndistinguishable, fmt.Sprintf(
				"%s and %s are statistically indistinguishable at every size measured, %d to %d (%s)", sideA, sideB, ps[0].N, last.N, limit))
		}
		status := SearchNoCrossover
		if stopWhy != "" {
			status = SearchBudget
		}
		return finish(status, fmt.Sprintf("%s slower at every size up to %d (%s)", name(-w), last.N, limit))
	}
	res.Found = true
	confirms := 0
	// confirm measures both ends of a located bracket again, later than
	// they were first measured: on a shared machine a side can run slow
	// for a second or two (a vCPU taken away), enough to make one size's
	// winner wrong (TestSearchConfirmsEnds). An end whose winner changes
	// is a tie (two measurements disagree), and the search goes on from
	// the new bracket; ok is false when no bracket is left.
	confirm := func() (again, ok bool, err error) {
		if confirms >= maxConfirms || (!o.Deadline.IsZero() && !o.Now().Before(o.Deadline)) {
			return false, true, nil
		}
		confirms++
		for _, p := range []SearchPoint{lo, hi} {
			a, b, err := at(p.N)
			if err != nil {
				return false, false, err
			}
			if Faster(a, b) != p.Faster {
				pts[p.N] = SearchPoint{N: p.N, A: a, B: b, Faster: Tie}
				again = true
			}
		}
		if !again {
			return false, true, nil
		}
		lo, hi, ok = bracket(pts)
		return true, ok, nil
	}
	// Bisect.
	for {
		res.Lo, res.Hi = lo.N, hi.N
		res.AtLo, res.AtHi, res.Before = lo, hi, lo.Faster
		change := fmt.Sprintf("%s faster at %d, %s faster at %d", name(lo.Faster), lo.N, name(hi.Faster), hi.N)
		if float64(hi.N) <= o.Ratio*float64(lo.N) || hi.N-lo.N <= 1 {
			again, ok, err := confirm()
			if err != nil {
				return SearchResult{}, err
			}
			if !ok {
				res.Found, res.Lo, res.Hi = false, 0, 0
				return finish(SearchIndistinguishable, fmt.Sprintf(
					"%s and %s: measured again, the winners at %d and %d changed, and no change of the faster side is left", sideA, sideB, res.AtLo.N, res.AtHi.N))
			}
			if again {
				continue
			}
		}
		if float64(hi.N) <= o.Ratio*float64(lo.N) {
			ties := ""
			for _, p := range sortedPoints(pts) {
				if p.N > lo.N && p.N < hi.N {
					ties += fmt.Sprintf(" %d", p.N)
				}
			}
			if ties != "" {
				change += "; indistinguishable at" + ties
			}
			return finish(SearchLocated, fmt.Sprintf("located within ±%.0f%%: %s", 100*(o.Ratio-1)/2, change))
		}
		if hi.N-lo.N <= 1 {
			return finish(SearchResolution, "adjacent sizes: "+change)
		}
		// The gaps of lo, ties…, hi; narrow the widest.
		inner := []int{lo.N}
		for _, p := range sortedPoints(pts) {
			if p.N > lo.N && p.N < hi.N {
				inner = append(inner, p.N)
			}
		}
		inner = append(inner, hi.N)
		// With ties inside, each gap is narrowed to √Ratio so that the
		// winners either side of a single tie are within Ratio.
		gapMax := o.Ratio
		if len(inner) > 2 {
			gapMax = math.Sqrt(o.Ratio)
		}
		// Only the outer gaps (lo to the first tie, the last tie to hi)
		// are narrowed: ties between them are indistinguishable sizes.
		gaps := [][2]int{{inner[0], inner[1]}}
		if len(inner) > 2 {
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
			return finish(SearchIndistinguishable, fmt.Sprintf(
				"%s and %s are statistically indistinguishable from %d to %d; %s", sideA, sideB, inner[1], inner[len(inner)-2], change))
		}
		mid := int(math.Round(math.Sqrt(float64(gx) * float64(gy))))
		mid = min(max(mid, gx+1), gy-1)
		if err := measure(mid, false); err != nil {
			if errors.Is(err, errStop) {
				return finish(SearchBudget, stopWhy+"; "+change)
			}
			return SearchResult{}, err
		}
		lo, hi, _ = bracket(pts)
	}
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
