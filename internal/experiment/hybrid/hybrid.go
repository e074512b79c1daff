package hybrid

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Fault is an injected fault: side Side (0 or 1) runs Slow times slower,
// or fails, for requests From ≤ i < To of the stream.
type Fault struct {
	Side     int
	Slow     float64 // > 1: slow-down factor
	Fail     bool
	From, To int
}

func (f Fault) String(sides [2]experiment.SideSpec) string {
	what := fmt.Sprintf("%.3g× slower", f.Slow)
	if f.Fail {
		what = "failing"
	}
	return fmt.Sprintf("%s %s for requests %d–%d", sides[f.Side].Label, what, f.From, f.To-1)
}

// ParseFault parses "SIDE:slow=F@FROM-TO" or "SIDE:fail@FROM-TO" where
// SIDE is a or b (the first or second of --sides).
func ParseFault(s string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, env.Invalid("fault", s, "%s (want a:slow=3@500-1000 or b:fail@700-900)", why)
	}
	side, rest, ok := strings.Cut(s, ":")
	if !ok {
		return bad("no side")
	}
	var f Fault
	switch side {
	case "a":
		f.Side = 0
	case "b":
		f.Side = 1
	default:
		return bad("side must be a or b")
	}
	what, win, ok := strings.Cut(rest, "@")
	if !ok {
		return bad("no @FROM-TO window")
	}
	switch {
	case what == "fail":
		f.Fail = true
	case strings.HasPrefix(what, "slow="):
		v, err := strconv.ParseFloat(strings.TrimPrefix(what, "slow="), 64)
		if err != nil || !(v > 1) || v > 1000 {
			return bad("slow= needs a factor in (1, 1000]")
		}
		f.Slow = v
	default:
		return bad("want slow=F or fail")
	}
	a, b, ok := strings.Cut(win, "-")
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || from < 0 || to <= from {
		return bad("window must be FROM-TO with 0 ≤ FROM < TO")
	}
	f.From, f.To = from, to
	return f, nil
}

// Config configures a replay.
type Config struct {
	Sides [2]experiment.SideSpec
	// Requests is the stream's length when generated (default 2000).
	Requests int
	// Min and Max bound the log-uniform sizes. Both 0 with a measured
	// crossover: the pilot's range (hybridPilot, balancedRange). Otherwise
	// 0 is the crossover's low end divided by 16 (Min) or its high end
	// times 16 (Max), within [1, the workload's size].
	Min, Max int
	// Sizes, when set, is the stream (e.g. read from a file).
	Sizes []int
	// Profile is a break-even report (JSON) to take the profiles from;
	// nil: measured at start-up.
	Profile *report.Report
	// SearchBudget bounds the start-up search (0: 60s).
	SearchBudget time.Duration
	Faults       []Fault
	Seed         uint64
	// Repeats is how many times the stream is replayed (default: 10, and
	// up to 30 while the replays take at most 3 s in all): each
	// strategy's total is the median over the repeats, with its CI.
	Repeats int
	// Grid is the number of distinct log-spaced sizes a generated stream
	// uses (each needs its side built in advance; default 48).
	Grid int
	// Rows keeps every request of every replay and strategy in the
	// report (report.Hybrid.Rows, for requests.csv).
	Rows bool
	// points, when set, are the sizes a generated stream draws from,
	// uniformly (log-spaced, so log-uniform): the pilot's range.
	points []int
}

// Run replays a stream of mixed sizes through each side alone, a
// static threshold at the measured crossover, the adaptive dispatcher and
// an oracle that routes by size with hindsight, with every request's
// output verified, and reports each strategy's total against the better
// single side, per-request times, shares and the dispatcher's switches.
func Run(e *env.Env, cfg experiment.RunConfig, hc Config, rep *report.Report) error {
	hs, be, err := hybridSetup(e, cfg, hc, rep)
	if err != nil {
		return err
	}
	defer hs.close()
	pri, err := gpuPriors(e, hc, be, rep)
	if err != nil {
		return err
	}
	stream, desc, err := hybridStreamOf(e, hs, hc, be)
	if err != nil {
		return err
	}
	r := &replay{e: e, hc: hc, built: hs.built, stream: stream}
	ad, err := r.addStrategies(be, pri.floor)
	if err != nil {
		return err
	}
	if err := r.run(); err != nil {
		return err
	}
	r.addRouting()
	h := hybridReport(hs.w.Name, hc, be, r, desc)
	h.FixedCosts = pri.costs
	h.SwitchCount = ad.d.SwitchCounts().Total
	for _, s := range ad.d.Switches() {
		h.Switches = append(h.Switches, report.HybridSwitch{Request: s.Call, Bucket: s.Bucket, From: s.From, To: s.To, Reason: s.Reason})
	}
	rep.Hybrid = h
	// The verdict first, then what came before it (the profile's lines).
	lines := append(hybridLines(h), faultResponse(hs.w.Name, hc, ad.d.Switches(), len(stream), r.repeats, r.alreadyOff)...)
	rep.Summary = append(lines, rep.Summary...)
	return nil
}

// hybridSides holds the workload and both sides built at each size of
// the stream, each verified once.
type hybridSides struct {
	e     *env.Env
	w     *workload.Descriptor
	pr    *workload.Prepared
	sk    [2]workload.Knobs
	sides [2]experiment.SideSpec
	built [2]map[int]workload.Side
}

func (hs *hybridSides) close() {
	for _, m := range hs.built {
		for _, s := range m {
			s.Close()
		}
	}
}

// hybridSetup validates the run, prepares the workload and takes the
// sides' profile (from hc.Profile or measured now).
func hybridSetup(e *env.Env, cfg experiment.RunConfig, hc Config, rep *report.Report) (*hybridSides, *report.BreakEven, error) {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return nil, nil, err
	}
	if len(ds) != 1 {
		return nil, nil, &env.ParamError{Name: "kernel", Limit: "hybrid runs one workload: name it"}
	}
	w := ds[0]
	pr, err := experiment.Prepare(e, w, cfg.Config)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	be, err := hybridProfile(e, w, cfg, hc, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.BreakEvens = append(rep.BreakEvens, *be)
	rep.Summary = append(rep.Summary, crossover.CrossoverLines(*be)...)
	// The same knobs the profile's search used: a GPU side runs the
	// variant selected on this adapter (cached, so not measured twice).
	sk, err := crossover.SideKnobs(e, w, pr, cfg, hc.Sides, nil)
	if err != nil {
		return nil, nil, err
	}
	return &hybridSides{e: e, w: w, pr: pr, sk: sk, sides: hc.Sides, built: [2]map[int]workload.Side{{}, {}}}, be, nil
}

// build builds both sides at every size of ns not built yet, each
// verified once.
func (hs *hybridSides) build(ns []int) error {
	distinct := map[int]bool{}
	for _, n := range ns {
		if _, ok := hs.built[0][n]; !ok {
			distinct[n] = true
		}
	}
	if len(distinct)+len(hs.built[0]) > MaxHybridSizes {
		return fmt.Errorf("hybrid: the stream has %d distinct sizes; at most %d (each needs its sides built in advance)", len(distinct)+len(hs.built[0]), MaxHybridSizes)
	}
	if len(distinct) == 0 {
		return nil
	}
	hs.e.Progressf("hybrid: building %s and %s at %d sizes", hs.sides[0].Label, hs.sides[1].Label, len(distinct))
	for _, n := range slices.Sorted(maps.Keys(distinct)) {
		for i, sp := range hs.sides {
			s, err := experiment.BuildSide(hs.e, sp, hs.pr.At(n, hs.sk[i]), nil)
			if err != nil {
				return fmt.Errorf("hybrid: %s n=%d: %w", sp.Label, n, err)
			}
			hs.built[i][n] = s
			if _, err := experiment.VerifiedRun(fmt.Sprintf("hybrid: %s n=%d", sp.Label, n), s); err != nil {
				return err
			}
		}
	}
	return nil
}

// hybridStreamOf is the stream to replay, built on both sides, and its
// description. The default stream (no sizes, no range, a measured
// crossover) covers a range where neither side alone is the answer,
// found by a pilot in the replay's own context.
func hybridStreamOf(e *env.Env, hs *hybridSides, hc Config, be *report.BreakEven) ([]int, string, error) {
	var pilotNote string
	if len(hc.Sizes) == 0 && hc.Min == 0 && hc.Max == 0 && be.Search != nil && be.Search.Found {
		grid := hybridCandidates(be, hs.pr.Size)
		if err := hs.build(grid); err != nil {
			return nil, "", err
		}
		settleHeap()
		pl, err := hybridPilot(e, hc, hs.built, grid)
		if err != nil {
			return nil, "", err
		}
		bal := balancedRange(grid, pl.med, pl.mean)
		if bal.OK {
			hc.points = grid[:bal.Hi+1]
		}
		pilotNote = bal.describe(grid, hc.Sides, be)
	}
	stream, desc, err := hybridStream(hc, be, hs.pr.Size)
	if err != nil {
		return nil, "", err
	}
	if err := hs.build(stream); err != nil {
		return nil, "", err
	}
	return stream, desc + pilotNote, nil
}

// addStrategies sets the replay's strategies: each side alone, the
// static threshold, the adaptive dispatcher (returned) and the oracle by
// size. The dispatcher's priors are the profile's models, each floored
// at floor (dispatch.Side.Floor; 0: none). Its sides declare no bytes
// (dispatch.Side.Bytes): a GPU side's end-to-end model already holds its
// transfers when its data is shipped, and there are none per call when
// it is resident.
func (r *replay) addStrategies(be *report.BreakEven, floor [2]float64) (*adaptive, error) {
	names := [2]string{r.hc.Sides[0].Label, r.hc.Sides[1].Label}
	ex := []dispatch.Executor{r.exec(0), r.exec(1)}
	ma, mb := *be.ModelA, *be.ModelB
	var prof dispatch.Profile
	if be.Search != nil && be.Search.Found {
		prof.Crossover = math.Sqrt(float64(be.Search.Lo) * float64(be.Search.Hi))
	}
	sides := []dispatch.Side{{Name: names[0], Exec: ex[0], Model: ma.At, Floor: floor[0]}, {Name: names[1], Exec: ex[1], Model: mb.At, Floor: floor[1]}}
	// A replay is finite: its dispatcher keeps enough switches for the
	// fault response to read every move (hybridSwitchHistory).
	d, err := dispatch.New(sides, prof, dispatch.Config{History: hybridSwitchHistory})
	if err != nil {
		return nil, err
	}
	static, staticDesc := staticOf(be)
	a, b := newSingleSide(names[0], 0, ex[0]), newSingleSide(names[1], 1, ex[1])
	ad := &adaptive{d: d}
	r.strats = []strategy{a, b, &staticThreshold{label: "static threshold " + staticDesc, at: static, ex: ex}, ad,
		&oracleBySize{sides: []*singleSide{a, b}, static: static}}
	return ad, nil
}

// hybridReport is the replay's report.
func hybridReport(workload string, hc Config, be *report.BreakEven, r *replay, desc string) *report.Hybrid {
	static, staticDesc := staticOf(be)
	h := &report.Hybrid{
		Workload: workload, Sides: []string{hc.Sides[0].Label, hc.Sides[1].Label}, Requests: len(r.stream), Stream: desc, Threshold: static.At,
		Crossover: staticDesc, Repeats: r.repeats,
		Timed: "each request: the side's own host-clock time of one call (" + hc.Sides[0].Timed("end-to-end") + "; " + hc.Sides[1].Timed("end-to-end") + "), plus any injected delay, plus the strategy's own routing time (its wall time outside the sides' calls, less the lower of the two single sides' medians of the same, the clock reads: the dispatcher's bookkeeping runs between the caller's calls); outputs poisoned before and verified after every request, untimed",
	}
	if math.IsInf(h.Threshold, 0) {
		h.Threshold = 0
	}
	for _, f := range hc.Faults {
		h.Faults = append(h.Faults, f.String(hc.Sides))
	}
	r.strategies(h)
	return h
}

// settleHeap collects the garbage of what ran before (building the
// sides, the start-up search, the pilot) so that the timed calls that
// follow allocate from memory the process has already touched: a heap
// that grows into fresh pages during the replay makes a kernel call that
// allocates pay a page fault, which on streams of short calls weighs on
// every strategy's total (docs/HYBRID.md, "Totals and verdict").
func settleHeap() { runtime.GC() }

// A request's flags in the replay's record.
const (
	flagProbe uint8 = 1 << iota
	flagRecovered
)

// Replays of the stream: at least minReplays, more up to maxReplays while
// all of them would take at most replayBudget.
const (
	minReplays   = 10
	maxReplays   = 30
	replayBudget = 3 * time.Second
)

// delay waits d: sleeping for long waits, spinning for short ones (the
// scheduler's sleep granularity would distort them).
func delay(d time.Duration) {
	if d <= 0 {
		return
	}
	if d > 2*time.Millisecond {
		time.Sleep(d)
		return
	}
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}

func quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// hybridProfile takes the two sides' break-even from the given report, or
// measures it now.
func hybridProfile(e *env.Env, w *workload.Descriptor, cfg experiment.RunConfig, hc Config, rep *report.Report) (*report.BreakEven, error) {
	if hc.Profile != nil {
		return ProfileOf(hc.Profile, w.Name, hc.Sides)
	}
	budget := hc.SearchBudget
	if budget <= 0 {
		budget = time.Minute
	}
	bes, _, err := crossover.SearchOne(e, w, cfg, crossover.SearchConfig{Budget: budget}, hc.Sides, experiment.Roofs{}, map[string]crossover.SideRun{}, map[string]bool{}, rep)
	if err != nil {
		return nil, err
	}
	return &bes[0], nil
}

// ProfileOf returns the end-to-end break-even of workload between
// sides in a report (hybrid's --profile), or an error that says how to
// make one.
func ProfileOf(r *report.Report, workload string, sides [2]experiment.SideSpec) (*report.BreakEven, error) {
	for i := range r.BreakEvens {
		be := r.BreakEvens[i]
		if be.Workload == workload && be.Clock == "end-to-end" && len(be.Sides) == 2 &&
			be.Sides[0] == sides[0].Label && be.Sides[1] == sides[1].Label && be.ModelA != nil && be.ModelB != nil {
			if len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
				return nil, &env.ParamError{Name: "profile", Limit: fmt.Sprintf("the break-even of %s with sides %s,%s has a model with no segments", workload, sides[0].Label, sides[1].Label)}
			}
			return &be, nil
		}
	}
	return nil, fmt.Errorf("--profile: no end-to-end break-even of %s with sides %s,%s in the report (run wgpu-prof breakeven --kernel %s --sides %s,%s --format json)",
		workload, sides[0].Label, sides[1].Label, workload, sides[0].Label, sides[1].Label)
}

// hybridSwitchHistory is the number of switches the replay's dispatcher
// keeps; beyond it the report counts them (Hybrid.SwitchCount) and the
// fault response reads the latest.
const hybridSwitchHistory = 1 << 15

// MaxHybridSizes is the most distinct sizes a hybrid stream may have:
// each needs both sides built in advance.
const MaxHybridSizes = 512

// staticOf is the static threshold at the measured crossover: the side
// faster above it takes the calls from there on. Without a measured
// crossover it is the side faster at the largest size measured, always.
func staticOf(be *report.BreakEven) (dispatch.Static, string) {
	s := be.Search
	if s != nil && s.Found {
		at := math.Sqrt(float64(s.Lo) * float64(s.Hi))
		above := 0
		if s.AtHi.Faster == timing.FasterB {
			above = 1
		}
		return dispatch.Static{At: at, Above: above}, fmt.Sprintf("at n=%.0f (measured crossover [%d, %d]): %s from there", at, s.Lo, s.Hi, be.Sides[above])
	}
	above := 0
	if len(be.Batches) > 0 {
		last := len(be.Batches) - 1
		if be.GPU[last].Median < be.CPU[last].Median {
			above = 1
		}
	}
	return dispatch.Static{At: 0, Above: above}, fmt.Sprintf("none measured: %s always (faster at the largest size)", be.Sides[above])
}

// ParseSizes parses a file of sizes: integers separated by white space or
// commas; # starts a comment. At most MaxHybridSizes of them may differ.
func ParseSizes(text string) ([]int, error) {
	var out []int
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			v, err := strconv.Atoi(f)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("line %d: %q is not a positive integer", ln+1, f)
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no sizes")
	}
	if d := len(slices.Compact(slices.Sorted(slices.Values(out)))); d > MaxHybridSizes {
		return nil, fmt.Errorf("%d distinct sizes; at most %d (each needs both sides built in advance)", d, MaxHybridSizes)
	}
	return out, nil
}
