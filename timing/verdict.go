package timing

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing/load"
)

// Verdicts of a break-even (Verdict.Kind): where side B is faster than
// side A over the measured range.
const (
	// VerdictCrossover: the faster side changes once (B faster above, or
	// below, a measured bracket) or twice with both changes confirmed (B
	// faster only inside a bounded range).
	VerdictCrossover = "crossover"
	// VerdictNever: A is faster (or indistinguishable) at every size
	// measured, and faster at one or more.
	VerdictNever = "never"
	// VerdictAlways: B is faster (or indistinguishable) at every size
	// measured, and faster at one or more.
	VerdictAlways = "always"
	// VerdictInconclusive: the evidence contradicts itself (two
	// measurements of one size disagree, a side's time falls as the batch
	// grows, the faster side changes back and forth) or decides nothing
	// (indistinguishable everywhere); Reason says which.
	VerdictInconclusive = "inconclusive"
)

// Verdict is the outcome of a break-even, judged on the measured points
// only (a fitted model never decides it).
type Verdict struct {
	Kind string `json:"verdict"`
	// Lo and Hi are the measured sizes it rests on: the bracket of the
	// first change of the faster side (crossover), or the range measured
	// (never, always, inconclusive).
	Lo int `json:"lo"`
	Hi int `json:"hi"`
	// BFrom and BTo bound the sizes where B is faster ([BFrom, BTo), each
	// a measured size; 0: unbounded on that side within what was measured,
	// i.e. from the smallest or up to the largest size). Set for
	// crossover and always.
	BFrom int `json:"b_from,omitempty"`
	BTo   int `json:"b_to,omitempty"`
	// Bounded is true when B is faster only inside [BFrom, BTo), with A
	// faster on both sides of it.
	Bounded bool `json:"bounded,omitempty"`
	// Reason says in words why this verdict (and, for inconclusive, what
	// contradicts).
	Reason string `json:"reason"`
	// UseFit is false when either side's model fits worse than
	// Policy.MinPredictR2; FitNote says which.
	UseFit  bool   `json:"use_fit"`
	FitNote string `json:"fit_note,omitempty"`
	// Noisy marks a verdict of one winner throughout that stands on
	// non-monotonic evidence (a side's time falls as the batch grows):
	// the winner is the same either way, but noise was at work.
	Noisy bool `json:"noisy,omitempty"`
}

// JudgeCrossover decides a break-even's verdict from the points measured
// (any order), the points measured again (the two sides interleaved, same
// size) at sizes the first pass disputed, and each side's fit quality.
//
// Rules, in order: two measurements of one size with opposite winners →
// inconclusive; a side whose time falls by p.FallFactor or more as the
// batch grows (CIs disjoint: a larger batch of the same work cannot take
// less time, so the load of the host changed) → inconclusive, unless one side wins at every size
// where they differ (then that verdict, Noisy); no size with a winner →
// inconclusive; one winner throughout → never or always; the winner
// changing once → crossover; changing twice, with the middle stretch
// holding two sizes or one confirmed by its second measurement →
// crossover over a bounded range; otherwise inconclusive. Last, a
// verdict resting on any side measured while the host was busy
// (Summary.Load, load.Load.Busy) is inconclusive, its reason naming the
// load and what was measured under it. A tie between a
// first and a second measurement makes that size a tie. A Policy with a
// negative, NaN or infinite field gives an inconclusive verdict whose Reason
// names the field.
func JudgeCrossover(points []SearchPoint, again map[int]SearchPoint, sideA, sideB string, r2a, r2b float64, p Policy) Verdict {
	v := Verdict{Kind: VerdictInconclusive, UseFit: true}
	p, err := p.resolve()
	if err != nil {
		v.UseFit, v.Reason = false, "timing: JudgeCrossover: "+err.Error()
		return v
	}
	v.UseFit, v.FitNote = fitUse(sideA, sideB, r2a, r2b, p.MinPredictR2)
	j := judge{sideA: sideA, sideB: sideB, pts: append([]SearchPoint(nil), points...)}
	sort.Slice(j.pts, func(a, b int) bool { return j.pts[a].N < j.pts[b].N })
	if len(j.pts) == 0 {
		v.Reason = "no size measured"
		return v
	}
	v.Lo, v.Hi = j.pts[0].N, j.pts[len(j.pts)-1].N
	if v.Reason = j.remeasured(again); v.Reason != "" {
		return v
	}
	fall := j.fall(p.FallFactor)
	runs, tieNote := j.runs()
	if fall != "" && len(runs) != 1 {
		v.Reason = fall
		return v
	}
	if fall != "" {
		tieNote += "; " + fall + ", but the same side is faster either side of it"
		v.Noisy = true
	}
	v = j.verdict(v, runs, tieNote)
	if why := busiest(j.pts, again, sideA, sideB); why != "" && v.Kind != VerdictInconclusive {
		// What was measured still says which side was faster under
		// that load; the reason keeps it, the verdict does not stand.
		v = Verdict{Kind: VerdictInconclusive, Lo: v.Lo, Hi: v.Hi, UseFit: v.UseFit, FitNote: v.FitNote,
			Reason: fmt.Sprintf("host busy: %s; as measured, %s: %s", why, v.Kind, v.Reason)}
	}
	return v
}

// busiest names the busiest side of any point measured while the host
// was busy (load.Load.Busy): "other work 1.9 of 2 CPUs while the CPU side
// ran at 4096"; "" when no side ran on a busy host.
func busiest(pts []SearchPoint, again map[int]SearchPoint, sideA, sideB string) string {
	var worst *load.Load
	why := ""
	check := func(p SearchPoint) {
		for _, x := range []struct {
			side string
			l    *load.Load
		}{{sideA, p.A.Load}, {sideB, p.B.Load}} {
			if x.l.Busy() && (worst == nil || load.Max(worst, x.l) == x.l && worst != x.l) {
				worst = x.l
				who := "the " + x.side + " side"
				if p.A.Load != nil && p.B.Load != nil && *p.A.Load == *p.B.Load {
					who = "both sides (interleaved)"
				}
				why = fmt.Sprintf("%s while %s ran at %d", x.l, who, p.N)
			}
		}
	}
	for _, p := range pts {
		check(p)
	}
	ns := make([]int, 0, len(again))
	for n := range again {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		check(again[n])
	}
	return why
}

// fitUse says whether both sides' fits are good enough (R² ≥ minR2) to
// predict a crossover, and if not, which is not.
func fitUse(sideA, sideB string, r2a, r2b, minR2 float64) (use bool, note string) {
	var bad []string
	if !(r2a >= minR2) {
		bad = append(bad, fmt.Sprintf("%s R² %.2f", sideA, r2a))
	}
	if !(r2b >= minR2) {
		bad = append(bad, fmt.Sprintf("%s R² %.2f", sideB, r2b))
	}
	if len(bad) == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("fit not used to predict: %s below %.2f", strings.Join(bad, ", "), minR2)
}

// judge holds the evidence of one JudgeCrossover: the points ascending,
// their winners adjusted by the second measurements.
type judge struct {
	sideA, sideB string
	pts          []SearchPoint
	confirmed    map[int]bool // sizes whose second measurement has the same winner
}

// winRun is a stretch of consecutive sizes with one winner (ties
// skipped): first and last index j.pts.
type winRun struct {
	w           int
	first, last int
	points      int
}

func (j *judge) name(w int) string {
	if w == FasterA {
		return j.sideA
	}
	return j.sideB
}

// remeasured reads the second measurements: a size measured twice with
// opposite winners is a contradiction (returned in words); the same winner
// twice confirms the size; a tie in either makes the size a tie.
func (j *judge) remeasured(again map[int]SearchPoint) (contradiction string) {
	j.confirmed = map[int]bool{}
	for i, p := range j.pts {
		q, ok := again[p.N]
		if !ok {
			continue
		}
		w2 := Faster(q.A, q.B)
		switch {
		case p.Faster != Tie && w2 != Tie && w2 != p.Faster:
			return fmt.Sprintf("at %d, measured twice with the sides interleaved, first %s faster (%s), then %s faster (%s)",
				p.N, j.name(p.Faster), sideTimes(p, p.Faster, j.sideA, j.sideB), j.name(w2), sideTimes(q, w2, j.sideA, j.sideB))
		case p.Faster == w2 && w2 != Tie:
			j.confirmed[p.N] = true
		case p.Faster != w2:
			j.pts[i].Faster = Tie
		}
	}
	return ""
}

// fall is the first sign of non-monotonic evidence, in words: a side
// whose time falls by factor or more as the batch grows, CIs disjoint. It
// makes any change of the faster side inconclusive, and a verdict of one
// winner throughout tentative (Noisy).
func (j *judge) fall(factor float64) string {
	for _, side := range []struct {
		name string
		get  func(SearchPoint) Summary
	}{{j.sideA, func(p SearchPoint) Summary { return p.A }}, {j.sideB, func(p SearchPoint) Summary { return p.B }}} {
		for a := range j.pts {
			for b := a + 1; b < len(j.pts); b++ {
				small, big := side.get(j.pts[a]), side.get(j.pts[b])
				if small.Valid() && big.Valid() && big.Hi < small.Lo && small.Median >= factor*big.Median {
					return fmt.Sprintf("%s time falls from %s at %d to %s at %d although the batch grows: the load of the host changed during the measurement",
						side.name, FormatSecondsSpaced(small.Median), j.pts[a].N, FormatSecondsSpaced(big.Median), j.pts[b].N)
				}
			}
		}
	}
	return ""
}

// runs splits the points into stretches of one winner, ties skipped, and
// names the tied sizes ("; indistinguishable at …", empty without ties).
func (j *judge) runs() (runs []winRun, tieNote string) {
	var ties []string
	for i, p := range j.pts {
		if p.Faster == Tie {
			ties = append(ties, fmt.Sprint(p.N))
			continue
		}
		if len(runs) > 0 && runs[len(runs)-1].w == p.Faster {
			runs[len(runs)-1].last = i
			runs[len(runs)-1].points++
			continue
		}
		runs = append(runs, winRun{w: p.Faster, first: i, last: i, points: 1})
	}
	if len(ties) > 0 {
		tieNote = "; indistinguishable at " + strings.Join(ties, ", ")
	}
	return runs, tieNote
}

// verdict decides from the runs of winners: none → inconclusive; one →
// never or always; two → crossover; three → a bounded crossover (or
// inconclusive); more → inconclusive.
func (j *judge) verdict(v Verdict, runs []winRun, tieNote string) Verdict {
	pts := j.pts
	switch len(runs) {
	case 0:
		v.Reason = fmt.Sprintf("%s and %s are statistically indistinguishable at every size measured, %d to %d", j.sideA, j.sideB, v.Lo, v.Hi)
	case 1:
		v.Kind = VerdictNever
		if runs[0].w == FasterB {
			v.Kind, v.BFrom = VerdictAlways, v.Lo
		}
		v.Reason = fmt.Sprintf("%s faster at every size where the two differ, %d to %d%s", j.name(runs[0].w), v.Lo, v.Hi, tieNote)
	case 2:
		a, b := runs[0], runs[1]
		v.Kind = VerdictCrossover
		v.Lo, v.Hi = pts[a.last].N, pts[b.first].N
		if b.w == FasterB {
			v.BFrom = pts[b.first].N
			v.Reason = fmt.Sprintf("%s faster up to %d, %s faster from %d to the largest size measured, %d%s",
				j.sideA, pts[a.last].N, j.sideB, pts[b.first].N, pts[len(pts)-1].N, tieNote)
		} else {
			v.BFrom, v.BTo = pts[0].N, pts[b.first].N
			v.Reason = fmt.Sprintf("%s faster from the smallest size measured, %d, up to %d; %s faster from %d%s",
				j.sideB, pts[0].N, pts[a.last].N, j.sideA, pts[b.first].N, tieNote)
		}
	case 3:
		return j.bounded(v, runs, tieNote)
	default:
		var at []string
		for _, r := range runs {
			at = append(at, fmt.Sprintf("%s %d–%d", j.name(r.w), pts[r.first].N, pts[r.last].N))
		}
		v.Reason = fmt.Sprintf("the faster side changes %d times (%s): the measurements contradict each other", len(runs)-1, strings.Join(at, ", "))
	}
	return v
}

// bounded judges three runs of winners: B faster only in the middle, held
// by two sizes or one confirmed, is a crossover over a bounded range; A
// faster in the middle is no single crossover; one unconfirmed size in the
// middle decides nothing.
func (j *judge) bounded(v Verdict, runs []winRun, tieNote string) Verdict {
	pts, mid := j.pts, runs[1]
	held := mid.points >= 2 || j.confirmed[pts[mid.first].N]
	switch {
	case held && runs[0].w == FasterA:
		v.Kind = VerdictCrossover
		v.Lo, v.Hi = pts[runs[0].last].N, pts[mid.first].N
		v.BFrom, v.BTo, v.Bounded = pts[mid.first].N, pts[runs[2].first].N, true
		v.Reason = fmt.Sprintf("%s faster only in [%d, %d): %s faster up to %d and from %d%s",
			j.sideB, v.BFrom, v.BTo, j.sideA, pts[runs[0].last].N, v.BTo, tieNote)
	case held:
		v.Reason = fmt.Sprintf("%s faster at the smallest and the largest sizes, %s faster from %d to %d: no single crossover",
			j.sideB, j.sideA, pts[mid.first].N, pts[mid.last].N)
	default:
		v.Reason = fmt.Sprintf("%s faster at %d alone, between sizes where %s is faster (%d and %d): one unconfirmed size decides nothing",
			j.name(mid.w), pts[mid.first].N, j.name(runs[0].w), pts[runs[0].last].N, pts[runs[2].first].N)
	}
	return v
}

// Disputed lists the sizes of points (ascending) that a break-even
// should measure again: both ends of every change of the faster side
// (ties skipped), where one noisy measurement could make a crossover
// that is not there.
func Disputed(points []SearchPoint) []int {
	pts := append([]SearchPoint(nil), points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].N < pts[j].N })
	seen := map[int]bool{}
	var out []int
	prev := -1
	for i, p := range pts {
		if p.Faster == Tie {
			continue
		}
		if prev >= 0 && pts[prev].Faster != p.Faster {
			for _, n := range []int{pts[prev].N, p.N} {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
		prev = i
	}
	sort.Ints(out)
	return out
}

// MinR2 is the lowest R² of a model's segments (its single fit's when it
// has none); NaN for a nil model.
func (m *Model) MinR2() float64 {
	if m == nil {
		return math.NaN()
	}
	if len(m.Segments) == 0 {
		return m.Single.R2
	}
	r := math.Inf(1)
	for _, s := range m.Segments {
		r = math.Min(r, s.R2)
	}
	return r
}

// sideTimes writes a point's two medians, each named by its side, the
// faster side w first: "GPU 585 µs ±2% vs CPU 2.02 ms ±3%".
func sideTimes(p SearchPoint, w int, sideA, sideB string) string {
	one := func(name string, s Summary) string {
		if s.N == 0 {
			return name + " n/a"
		}
		return name + " " + FormatSecondsSpaced(s.Median) + " " + s.PctString()
	}
	a, b := one(sideA, p.A), one(sideB, p.B)
	if w == FasterB {
		return b + " vs " + a
	}
	return a + " vs " + b
}
