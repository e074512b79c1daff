package crossover

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// BatchMix is the batch sizes an application calls an operation with:
// distinct sizes, ascending, and how many calls each.
type BatchMix struct {
	File   string
	Sizes  []int
	Counts []int64
}

// Calls is the number of calls in the mix.
func (m BatchMix) Calls() int64 {
	var n int64
	for _, c := range m.Counts {
		n += c
	}
	return n
}

// MaxBatchMixSizes bounds the distinct sizes of a mix.
const MaxBatchMixSizes = 100_000

// ParseBatchMix reads a batch mix file: one size per line (one call), or
// "size count" pairs; blank lines and '#' comments are skipped. Sizes must
// be positive integers, counts non-negative, and the mix must hold at
// least one call. Errors name the parameter ("batch-mix"), the file and
// the line.
func ParseBatchMix(path string) (BatchMix, error) {
	bad := func(line int, format string, args ...any) error {
		return &env.ParamError{Name: "batch-mix", Value: path, Limit: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
	}
	f, err := os.Open(path)
	if err != nil {
		return BatchMix{}, &env.ParamError{Name: "batch-mix", Value: path, Limit: err.Error()}
	}
	defer f.Close()
	counts := map[int]int64{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if i := strings.IndexByte(t, '#'); i >= 0 {
			t = t[:i]
		}
		fs := strings.Fields(t)
		if len(fs) == 0 {
			continue
		}
		if len(fs) > 2 {
			return BatchMix{}, bad(line, "%q: want 'size' or 'size count'", strings.TrimSpace(t))
		}
		n, err := strconv.Atoi(fs[0])
		if err != nil || n <= 0 {
			return BatchMix{}, bad(line, "size %q: want a positive integer", fs[0])
		}
		c := int64(1)
		if len(fs) == 2 {
			if c, err = strconv.ParseInt(fs[1], 10, 64); err != nil || c < 0 || c > 1<<50 {
				return BatchMix{}, bad(line, "count %q: want a non-negative integer", fs[1])
			}
		}
		counts[n] += c
		if len(counts) > MaxBatchMixSizes {
			return BatchMix{}, bad(line, "more than %d distinct sizes", MaxBatchMixSizes)
		}
	}
	if err := sc.Err(); err != nil {
		return BatchMix{}, bad(line+1, "%v", err)
	}
	m := BatchMix{File: filepath.Base(path)}
	for n, c := range counts {
		if c > 0 {
			m.Sizes = append(m.Sizes, n)
		}
	}
	sort.Ints(m.Sizes)
	for _, n := range m.Sizes {
		m.Counts = append(m.Counts, counts[n])
	}
	if len(m.Sizes) == 0 {
		return BatchMix{}, &env.ParamError{Name: "batch-mix", Value: path, Limit: "no calls (want one size per line, or 'size count' pairs)"}
	}
	return m, nil
}

// Max is the largest size of the mix.
func (m BatchMix) Max() int { return m.Sizes[len(m.Sizes)-1] }

// mixDraws is the number of draws of the fits' coefficients behind a
// mix's confidence intervals.
const mixDraws = 2000

// EvalMix prices mix with side A's and side B's fitted models (A the
// baseline, e.g. the CPU; B the candidate, e.g. the GPU), routing each
// call of size ≥ cross to B and the smaller ones to A (cross ≤ 0: every
// call to B; cross > the largest size: none). Times are per 1,000 calls
// of the mix; the saving is 1 − routed/A-only. Its 95% interval comes from
// drawing each segment's overhead and per-item cost from the fit's
// normal approximation (standard errors and covariance) mixDraws times.
// sizes outside a model's measured range are listed in Outside.
func EvalMix(mix BatchMix, a, b timing.Model, cross float64, labels [2]string) report.MixResult {
	r := report.MixResult{File: mix.File, Calls: mix.Calls(), Distinct: len(mix.Sizes), Sides: labels[:]}
	switch {
	case math.IsInf(cross, 1):
		r.Route = "no call to " + labels[1]
	case cross <= 0:
		r.Route = "every call to " + labels[1]
	default:
		r.Crossover = cross
		r.Route = fmt.Sprintf("calls of n ≥ %.0f to %s", cross, labels[1])
	}
	above := int64(0)
	for i, n := range mix.Sizes {
		if float64(n) >= cross {
			above += mix.Counts[i]
		}
	}
	r.ShareAbove = float64(above) / float64(r.Calls)
	eval := func(ma, mb *timing.Model) (ta, tb, tr float64) {
		for i, n := range mix.Sizes {
			x, c := float64(n), float64(mix.Counts[i])
			pa, pb := ma.At(x), mb.At(x)
			ta += c * pa
			tb += c * pb
			if x >= cross {
				tr += c * pb
			} else {
				tr += c * pa
			}
		}
		k := 1000 / float64(r.Calls)
		return ta * k, tb * k, tr * k
	}
	r.PerThousandA, r.PerThousandB, r.PerThousandRouted = eval(&a, &b)
	r.Saving = 1 - r.PerThousandRouted/r.PerThousandA
	if r.PerThousandRouted > 0 {
		r.Speedup = r.PerThousandA / r.PerThousandRouted
	}
	rng := rand.New(rand.NewPCG(1, 2))
	savings := make([]float64, 0, mixDraws)
	speedups := make([]float64, 0, mixDraws)
	for range mixDraws {
		da, db := DrawModel(rng, a), DrawModel(rng, b)
		ta, _, tr := eval(&da, &db)
		if ta > 0 && tr > 0 {
			savings = append(savings, 1-tr/ta)
			speedups = append(speedups, ta/tr)
		}
	}
	if len(savings) > mixDraws/2 {
		sort.Float64s(savings)
		sort.Float64s(speedups)
		q := func(s []float64, p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
		r.SavingLo, r.SavingHi = q(savings, 0.025), q(savings, 0.975)
		r.SpeedupLo, r.SpeedupHi = q(speedups, 0.025), q(speedups, 0.975)
	}
	for _, m := range []timing.Model{a, b} {
		lo, hi := m.Range()
		for _, n := range mix.Sizes {
			if float64(n) < lo || float64(n) > hi {
				r.Outside++
			}
		}
	}
	return r
}

// DrawModel returns m with each segment's coefficients drawn from their
// fit's normal approximation (clamped at 0: the fits are constrained).
func DrawModel(rng *rand.Rand, m timing.Model) timing.Model {
	out := m
	out.Segments = append([]timing.Segment(nil), m.Segments...)
	for i := range out.Segments {
		f := &out.Segments[i].Fit
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		so, sp := f.SEOverhead, f.SEPerItem
		o := f.Overhead + so*z1
		p := f.PerItem
		if so > 0 {
			rho := math.Max(-1, math.Min(1, f.Cov/(so*sp+1e-300)))
			p += sp * (rho*z1 + math.Sqrt(1-rho*rho)*z2)
		} else {
			p += sp * z2
		}
		f.Overhead, f.PerItem = math.Max(0, o), math.Max(0, p)
	}
	return out
}

// MixSummary is the one-line answer for a mix.
func MixSummary(workload string, r report.MixResult) string {
	s := fmt.Sprintf("%s on the batch mix %s (%d calls, %d sizes): %.0f%% of calls routed to %s (%s); per 1,000 calls %s-only %s, %s-only %s, routed %s: ",
		workload, r.File, r.Calls, r.Distinct, 100*r.ShareAbove, r.Sides[1], r.Route, r.Sides[0], FmtSeconds(r.PerThousandA), r.Sides[1], FmtSeconds(r.PerThousandB), FmtSeconds(r.PerThousandRouted))
	s += fmt.Sprintf("saves %.1f%% (95%% CI %.1f%% … %.1f%%) against %s-only", 100*r.Saving, 100*r.SavingLo, 100*r.SavingHi, r.Sides[0])
	if r.Outside > 0 {
		s += fmt.Sprintf("; %d size(s) lie outside a model's measured range (extrapolated)", r.Outside)
	}
	return s
}

// FmtSeconds formats t seconds with a unit.
func FmtSeconds(t float64) string {
	switch {
	case t >= 1:
		return fmt.Sprintf("%.3g s", t)
	case t >= 1e-3:
		return fmt.Sprintf("%.3g ms", t*1e3)
	case t >= 1e-6:
		return fmt.Sprintf("%.3g µs", t*1e6)
	}
	return fmt.Sprintf("%.3g ns", t*1e9)
}

// MixOf prices mix with the break-even's models, routed at its measured
// crossover: calls from the first size where side B was measured faster
// go to B (none when the search found the sides indistinguishable
// around the change, or when the verdict is inconclusive). Without a
// measured crossover every call goes to the side that was faster at every
// size where one was (A when neither ever was).
func MixOf(be report.BreakEven, mix BatchMix) report.MixResult {
	cross := math.Inf(1)
	// An inconclusive verdict knows no size where B is faster: route
	// nothing (report.MixAnswer says so).
	if s := be.Search; s != nil && be.Verdict != timing.VerdictInconclusive {
		switch {
		case s.Found && s.Status == timing.SearchIndistinguishable:
			// The sides could not be told apart around the change: no
			// size is known to be faster on B; keep every call on A.
		case s.Found && s.Before == timing.FasterA:
			cross = float64(s.Hi)
		case !s.Found:
			faster := 0
			for _, p := range s.Points {
				if p.Faster != timing.Tie {
					if faster != 0 && faster != p.Faster {
						faster = 0
						break
					}
					faster = p.Faster
				}
			}
			if faster == timing.FasterB {
				cross = 0
			}
		}
	}
	labels := [2]string{"cpu", "gpu"}
	if len(be.Sides) == 2 {
		labels = [2]string{be.Sides[0], be.Sides[1]}
	}
	return EvalMix(mix, *be.ModelA, *be.ModelB, cross, labels)
}

// reachMix returns cfg with w's batch size raised to the mix's largest
// size, so that the sweep measures the sizes the mix prices; refused when
// a data file fixes that size or the larger size fails the checks.
func reachMix(c experiment.RunConfig, w *workload.Descriptor, mix *BatchMix, e *env.Env) (experiment.RunConfig, error) {
	bp := w.BatchParam()
	if mix == nil || bp == nil || bp.Int(&c.Config) == nil || *bp.Int(&c.Config) >= mix.Max() {
		return c, nil
	}
	if file, ok := c.FileSized(w); ok {
		return c, env.Usage(&env.ParamError{Name: "batch-mix", Value: mix.File, Limit: fmt.Sprintf("size %d is past the %s %d of %s", mix.Max(), bp.Name, *bp.Int(&c.Config), file)})
	}
	*bp.Int(&c.Config) = mix.Max()
	if _, err := c.Validate(e.Device); err != nil {
		return c, env.Usage(&env.ParamError{Name: "batch-mix", Value: mix.File, Limit: fmt.Sprintf("the largest size %d: %v", mix.Max(), err)})
	}
	return c, nil
}

// PriceMix prices mix with every end-to-end break-even of rep that has
// both models (MixOf) and adds the one-line answer to the summary.
func PriceMix(rep *report.Report, mix BatchMix) {
	for i := range rep.BreakEvens {
		be := &rep.BreakEvens[i]
		if be.Clock != "end-to-end" || be.ModelA == nil || be.ModelB == nil || len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
			continue
		}
		m := MixOf(*be, mix)
		be.Mix = &m
		rep.Summary = append(rep.Summary, MixSummary(be.Workload, m))
	}
}
