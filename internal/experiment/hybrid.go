package experiment

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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

func (f Fault) String(sides [2]SideSpec) string {
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
		return Fault{}, fmt.Errorf("--fault %q: %s (want a:slow=3@500-1000 or b:fail@700-900)", s, why)
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

// HybridConfig configures a replay.
type HybridConfig struct {
	Sides [2]SideSpec
	// Requests is the stream's length when generated (default 2000).
	Requests int
	// Min and Max bound the log-uniform sizes. Both 0 with a measured
	// crossover: the pilot's range (hybridPilot, balancedRange). Otherwise
	// 0 is 1/16 of the crossover's low end (Min) or 16× its high end
	// (Max), within [1, the workload's size].
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

// Hybrid replays a stream of mixed sizes through side A only, side B only,
// a static threshold at the measured crossover, and the adaptive
// dispatcher, with every request's output verified, and reports each
// strategy's total and per-request times, shares and the dispatcher's
// switches.
func (e *Env) Hybrid(cfg RunConfig, hc HybridConfig, rep *report.Report) error {
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	if len(ds) != 1 {
		return fmt.Errorf("hybrid: name one workload with --kernel")
	}
	w := ds[0]
	pr, err := w.Prepare(cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	be, err := e.hybridProfile(w, cfg, hc, rep)
	if err != nil {
		return err
	}
	rep.BreakEvens = append(rep.BreakEvens, *be)
	rep.Summary = append(rep.Summary, crossoverLines(*be)...)
	// The same knobs the profile's search used: a GPU side runs the
	// variant selected on this adapter (cached, so not measured twice).
	sk, err := e.sideKnobs(w, pr, cfg, hc.Sides, nil)
	if err != nil {
		return err
	}
	built := [2]map[int]workload.Side{{}, {}}
	defer func() {
		for _, m := range built {
			for _, s := range m {
				s.Close()
			}
		}
	}()
	// build builds both sides at every size of ns not built yet, each
	// verified once.
	build := func(ns []int) error {
		distinct := map[int]bool{}
		for _, n := range ns {
			if _, ok := built[0][n]; !ok {
				distinct[n] = true
			}
		}
		if len(distinct)+len(built[0]) > MaxHybridSizes {
			return fmt.Errorf("hybrid: the stream has %d distinct sizes; at most %d (each needs its sides built in advance)", len(distinct)+len(built[0]), MaxHybridSizes)
		}
		if len(distinct) == 0 {
			return nil
		}
		e.progress("hybrid: building %s and %s at %d sizes", hc.Sides[0].Label, hc.Sides[1].Label, len(distinct))
		for _, n := range slices.Sorted(maps.Keys(distinct)) {
			for i, sp := range hc.Sides {
				s, err := e.buildSide(sp, pr.At(n, sk[i]), nil)
				if err != nil {
					return fmt.Errorf("hybrid: %s n=%d: %w", sp.Label, n, err)
				}
				built[i][n] = s
				if _, err := verifiedRun(fmt.Sprintf("hybrid: %s n=%d", sp.Label, n), s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var pilotNote string
	if len(hc.Sizes) == 0 && hc.Min == 0 && hc.Max == 0 && be.Search != nil && be.Search.Found {
		// The default stream: a range where neither side alone is the
		// answer, found by a pilot in the replay's own context.
		grid := hybridCandidates(be, pr.Size)
		if err := build(grid); err != nil {
			return err
		}
		settleHeap()
		pl, err := e.hybridPilot(hc, built, grid)
		if err != nil {
			return err
		}
		bal := balancedRange(grid, pl.med, pl.mean)
		if bal.OK {
			hc.points = grid[:bal.Hi+1]
		}
		pilotNote = bal.describe(grid, hc.Sides, be)
	}
	stream, desc, err := hybridStream(hc, be, pr.Size)
	if err != nil {
		return err
	}
	desc += pilotNote
	if err := build(stream); err != nil {
		return err
	}
	req := 0 // index of the request being replayed (for the faults)
	// inSides is the wall time spent inside the sides' calls (poisoning,
	// the call, any injected delay, verification): a strategy's routing
	// time is its wall time per request less this.
	var inSides time.Duration
	exec := func(i int) dispatch.Func {
		return func(n int) (took time.Duration, err error) {
			entered := time.Now()
			defer func() { inSides += time.Since(entered) }()
			for _, f := range hc.Faults {
				if f.Side == i && f.Fail && req >= f.From && req < f.To {
					return 0, fmt.Errorf("injected failure of %s at request %d", hc.Sides[i].Label, req)
				}
			}
			s := built[i][n]
			s.Poison()
			start := time.Now()
			smp, err := s.Run()
			if err != nil {
				return time.Since(start), err
			}
			took = smp.Host
			for _, f := range hc.Faults {
				if f.Side == i && !f.Fail && req >= f.From && req < f.To {
					extra := time.Duration(float64(took) * (f.Slow - 1))
					delay(extra)
					took += extra
				}
			}
			if err := s.Verify(); err != nil {
				return took, fmt.Errorf("%s n=%d: %w: %v", hc.Sides[i].Label, n, ErrWrongResult, err)
			}
			return took, nil
		}
	}
	ex := [2]dispatch.Func{exec(0), exec(1)}
	ma, mb := *be.ModelA, *be.ModelB
	prof := dispatch.Profile{Models: [2]dispatch.Model{ma.At, mb.At}}
	if be.Search != nil && be.Search.Found {
		prof.Crossover = math.Sqrt(float64(be.Search.Lo) * float64(be.Search.Hi))
	}
	names := [2]string{hc.Sides[0].Label, hc.Sides[1].Label}
	d, err := dispatch.New(ex[0], ex[1], names, prof, dispatch.Config{})
	if err != nil {
		return err
	}
	static, staticDesc := staticOf(be)
	type strat struct {
		name  string
		times []float64
		share [2]int
		lost  int
		rec   int
		probe int
		// routing is the strategy's own time, per request: its wall time
		// outside the sides' calls (the dispatcher's bookkeeping).
		routing []float64
		// side and flag, per request as times: the side that answered
		// (-1: lost), and flagProbe, flagRecovered.
		side []int8
		flag []uint8
		do   func(n int) (int, time.Duration, bool, bool, error) // side, took, recovered, probe, err
	}
	single := func(i int) func(n int) (int, time.Duration, bool, bool, error) {
		return func(n int) (int, time.Duration, bool, bool, error) {
			t, err := ex[i].Run(n)
			return i, t, false, false, err
		}
	}
	strats := []*strat{
		{name: names[0] + " only", do: single(0)},
		{name: names[1] + " only", do: single(1)},
		{name: "static threshold " + staticDesc, do: func(n int) (int, time.Duration, bool, bool, error) {
			i := static.Side(n)
			t, err := ex[i].Run(n)
			return i, t, false, false, err
		}},
		{name: "adaptive", do: func(n int) (int, time.Duration, bool, bool, error) {
			o, err := d.Do(n)
			return o.Side, o.Took, o.Failed >= 0, o.Probe, err
		}},
	}
	// Replay the stream Repeats times, in chunks, every strategy over the
	// same chunk in a balanced order (williams), so a load that comes and goes falls
	// on all of them alike; each strategy's total is summarized over the
	// repeats (median and CI: one pass's total on a shared machine swings
	// with a few preempted calls). Each chunk starts warm: one untimed call,
	// at the chunk's first size, of the side the strategy sends that
	// request to (the dispatcher's choice without probing), so a strategy
	// does not pay for the state the previous one left (host workers
	// parked while another strategy ran on one thread, a GPU queue left
	// idle) — in a program that runs one strategy, that state is its own.
	// Only that side: a call of the other would leave its own wake behind
	// (lavapipe's threads on the cores the CPU side needs).
	warm := func(k int, n int) error {
		i := k // the single-side strategies
		switch k {
		case 2:
			i = static.Side(n)
		case 3:
			i = d.Choose(n)
		}
		if _, err := built[i][n].Run(); err != nil {
			return fmt.Errorf("hybrid: warm-up of %s n=%d: %w", names[i], n, err)
		}
		return nil
	}
	// alreadyOff[f][j] records, at the j-th start of slow-down f in the
	// adaptive replays, whether the dispatcher gave the side no size of
	// the stream (found slower from the host's own noise, say): there it
	// has nothing to move off.
	alreadyOff := make([][]bool, len(hc.Faults))
	sizes := slices.Compact(slices.Sorted(slices.Values(stream)))
	serves := func(side int) bool {
		for _, n := range sizes {
			if d.Choose(n) == side {
				return true
			}
		}
		return false
	}
	const chunk = 25
	// At least minReplays replays, and more, up to maxReplays, while they
	// fit in replayBudget: where the calls are cheap (host sides: 30
	// replays in a 3-4.5 s run) the medians of the totals then move less
	// with a burst on the host (CIs of ±1-9% over 30 replays against
	// ±1-21% over 10), and a GPU stream on lavapipe, whose replays take
	// seconds, keeps its 10.
	minRep, maxRep := hc.Repeats, hc.Repeats
	if hc.Repeats <= 0 {
		minRep, maxRep = minReplays, maxReplays
	}
	repeats := 0
	settleHeap()
	replayStart := time.Now()
	totals := make([][]float64, len(strats))
	for rp := 0; rp < maxRep; rp++ {
		if rp >= minRep && time.Since(replayStart)/time.Duration(rp)*time.Duration(rp+1) > replayBudget {
			break
		}
		repeats = rp + 1
		for k := range totals {
			totals[k] = append(totals[k], 0)
		}
		for c0, round := 0, rp; c0 < len(stream); c0, round = c0+chunk, round+1 {
			for j := range strats {
				k := williams(len(strats), round, j)
				st := strats[k]
				if e.interrupted.Load() {
					return fmt.Errorf("hybrid: replay %d, request %d: %w", rp+1, c0, ErrInterrupted)
				}
				if err := warm(k, stream[c0]); err != nil {
					return err
				}
				for i := c0; i < min(c0+chunk, len(stream)); i++ {
					req = i
					if k == 3 {
						for fi, f := range hc.Faults {
							if i == f.From && !f.Fail {
								alreadyOff[fi] = append(alreadyOff[fi], !serves(f.Side))
							}
						}
					}
					inSides = 0
					t0 := time.Now()
					side, took, recovered, probe, err := st.do(stream[i])
					st.routing = append(st.routing, (time.Since(t0) - inSides).Seconds())
					st.times = append(st.times, took.Seconds())
					totals[k][rp] += took.Seconds()
					if err != nil {
						st.lost++
						st.side, st.flag = append(st.side, -1), append(st.flag, 0)
						continue
					}
					st.share[side]++
					var fl uint8
					if recovered {
						st.rec++
						fl |= flagRecovered
					}
					if probe {
						st.probe++
						fl |= flagProbe
					}
					st.side, st.flag = append(st.side, int8(side)), append(st.flag, fl)
				}
			}
		}
	}
	// The routing's own time is part of each request's: the dispatcher
	// runs between the caller's calls. What a single side measures there
	// (the clock reads around the call, ~80 ns) is the measurement's
	// floor, taken off every strategy's (clamped at zero, so each keeps
	// the upper half of the clock reads' noise, alike for all).
	floor := math.Inf(1)
	for k := range 2 {
		floor = min(floor, median(strats[k].routing))
	}
	for k, st := range strats {
		for j, r := range st.routing {
			st.routing[j] = max(0, r-floor)
			st.times[j] += st.routing[j]
			totals[k][j/len(stream)] += st.routing[j]
		}
	}
	h := &report.Hybrid{
		Workload: w.Name, Sides: names[:], Requests: len(stream), Stream: desc, Threshold: static.At,
		Crossover: staticDesc, Timed: "each request: the side's own host-clock time of one call (" + hc.Sides[0].Timed("end-to-end") + "; " + hc.Sides[1].Timed("end-to-end") + "), plus any injected delay, plus the strategy's own routing time (its wall time outside the sides' calls, less the lower of the two single sides' medians of the same, the clock reads: the dispatcher's bookkeeping runs between the caller's calls); outputs poisoned before and verified after every request, untimed",
	}
	if math.IsInf(h.Threshold, 0) {
		h.Threshold = 0
	}
	for _, f := range hc.Faults {
		h.Faults = append(h.Faults, f.String(hc.Sides))
	}
	h.Repeats = repeats
	for k, st := range strats {
		sorted := append([]float64(nil), st.times...)
		sort.Float64s(sorted)
		tot := timing.Summarize(totals[k])
		h.Strategies = append(h.Strategies, report.HybridStrategy{
			Name: st.name, Total: tot.Median, TotalSummary: tot, P50: quantile(sorted, 0.5), P99: quantile(sorted, 0.99),
			Share: []int{st.share[0], st.share[1]}, Lost: st.lost, Recovered: st.rec, Probes: st.probe, Routing: median(st.routing),
		})
	}
	times := make([][]float64, len(strats))
	for k, st := range strats {
		times[k] = st.times
	}
	h.PerRequest = perRequest(len(stream), repeats, times)
	if hc.Rows {
		for k, st := range strats {
			for j, t := range st.times {
				h.Rows = append(h.Rows, report.HybridRequest{Strategy: k, Replay: j / len(stream), Index: j % len(stream), N: stream[j%len(stream)],
					Side: int(st.side[j]), Seconds: t, Routing: st.routing[j], Probe: st.flag[j]&flagProbe != 0, Recovered: st.flag[j]&flagRecovered != 0})
			}
		}
	}
	for _, s := range d.Switches() {
		h.Switches = append(h.Switches, report.HybridSwitch{Request: s.Call, Bucket: s.Bucket, From: s.From, To: s.To, Reason: s.Reason})
	}
	rep.Hybrid = h
	rep.Summary = append(rep.Summary, hybridLines(h)...)
	rep.Summary = append(rep.Summary, faultResponse(w.Name, hc, d.Switches(), len(stream), repeats, alreadyOff)...)
	return nil
}

// settleHeap collects the garbage of what ran before (building the
// sides, the start-up search, the pilot) so that the timed calls that
// follow allocate from memory the process has already touched. Without
// it, in about half of the processes the heap grew into fresh pages
// during the replay: a kernel call that allocated (CosineSingle's
// closure and row scratch) then paid a page fault, 6-7% of
// cosine-single's calls at every size took about 5 µs more, 9,700 page
// faults in 60,000 calls against 100-300 after a collection, and on
// streams of sub-microsecond calls those stalls were a third to a half
// of every strategy's total (docs/METHOD.md, "Totals").
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

// perRequest sums each strategy's per-request medians over the replays
// (times[k] holds strategy k's times, replay after replay, in stream
// order) and the oracle's: request by request, the lower of the two
// single sides' (strategies 0 and 1) medians.
func perRequest(length, repeats int, times [][]float64) *report.HybridPerRequest {
	if length == 0 || repeats == 0 || len(times) < 2 {
		return nil
	}
	pr := &report.HybridPerRequest{Sums: make([]float64, len(times))}
	med := make([]float64, len(times))
	buf := make([]float64, 0, repeats)
	for i := 0; i < length; i++ {
		for k, t := range times {
			buf = buf[:0]
			for rp := 0; rp < repeats; rp++ {
				if j := rp*length + i; j < len(t) {
					buf = append(buf, t[j])
				}
			}
			if len(buf) == 0 {
				return nil
			}
			sort.Float64s(buf)
			med[k] = quantile(buf, 0.5)
			pr.Sums[k] += med[k]
		}
		pr.Oracle += math.Min(med[0], med[1])
	}
	return pr
}

// williams is the j-th strategy of chunk round r in a Williams design of
// n strategies (n even): over n rounds each runs once in each position and
// right after each other strategy once. A plain rotation (j + r) mod n
// runs every strategy after the same one: on lavapipe the static threshold
// always followed the GPU-only chunk, whose driver threads were still
// winding down, and measured 1.08× CPU-only while routing every call to
// the CPU.
func williams(n, r, j int) int {
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
func (e *Env) hybridProfile(w *workload.Descriptor, cfg RunConfig, hc HybridConfig, rep *report.Report) (*report.BreakEven, error) {
	if hc.Profile != nil {
		return HybridProfile(hc.Profile, w.Name, hc.Sides)
	}
	budget := hc.SearchBudget
	if budget <= 0 {
		budget = time.Minute
	}
	bes, _, err := e.searchOne(w, cfg, SearchConfig{Budget: budget}, hc.Sides, Roofs{}, map[string]sideRun{}, map[string]bool{}, rep)
	if err != nil {
		return nil, err
	}
	return &bes[0], nil
}

// HybridProfile returns the end-to-end break-even of workload between
// sides in a report (hybrid's --profile), or an error that says how to
// make one.
func HybridProfile(r *report.Report, workload string, sides [2]SideSpec) (*report.BreakEven, error) {
	for i := range r.BreakEvens {
		be := r.BreakEvens[i]
		if be.Workload == workload && be.Clock == "end-to-end" && len(be.Sides) == 2 &&
			be.Sides[0] == sides[0].Label && be.Sides[1] == sides[1].Label && be.ModelA != nil && be.ModelB != nil {
			if len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
				return nil, fmt.Errorf("--profile: the break-even of %s with sides %s,%s has a model with no segments", workload, sides[0].Label, sides[1].Label)
			}
			return &be, nil
		}
	}
	return nil, fmt.Errorf("--profile: no end-to-end break-even of %s with sides %s,%s in the report (run wgpu-prof breakeven --kernel %s --sides %s,%s --format json)",
		workload, sides[0].Label, sides[1].Label, workload, sides[0].Label, sides[1].Label)
}

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

// hybridStream is the stream to replay and its description.
func hybridStream(hc HybridConfig, be *report.BreakEven, size int) ([]int, string, error) {
	if len(hc.Sizes) > 0 {
		for i, n := range hc.Sizes {
			if n < 1 || n > size {
				return nil, "", fmt.Errorf("--sizes-file: size %d (line %d) outside [1, %d] (the workload's size; raise it with --n/--q/--nodes)", n, i+1, size)
			}
		}
		return hc.Sizes, fmt.Sprintf("%d sizes from a file", len(hc.Sizes)), nil
	}
	points := hc.points
	if len(points) == 0 {
		lo, hi := hc.Min, hc.Max
		if lo == 0 || hi == 0 {
			clo, chi := 1, size
			if be.Search != nil && be.Search.Found {
				clo, chi = max(1, be.Search.Lo/16), min(size, be.Search.Hi*16)
			}
			if lo == 0 {
				lo = clo
			}
			if hi == 0 {
				hi = chi
			}
		}
		if lo < 1 || hi > size || lo > hi {
			return nil, "", fmt.Errorf("--min %d --max %d: want 1 ≤ min ≤ max ≤ %d (the workload's size)", lo, hi, size)
		}
		grid := hc.Grid
		if grid <= 0 {
			grid = 48
		}
		points = logGrid(lo, hi, grid)
	}
	count := hc.Requests
	if count <= 0 {
		count = 2000
	}
	r := rand.New(rand.NewPCG(hc.Seed, 0x9e3779b97f4a7c15))
	out := make([]int, count)
	for i := range out {
		out[i] = points[int(r.Float64()*float64(len(points)))]
	}
	return out, fmt.Sprintf("%d requests, log-uniform over [%d, %d] on %d log-spaced sizes, seed %d", count, points[0], points[len(points)-1], len(points), hc.Seed), nil
}

// logGrid is k sizes log-spaced over [lo, hi], rounded (small sizes
// repeat, so each keeps its share of the log scale).
func logGrid(lo, hi, k int) []int {
	out := make([]int, k)
	steps := math.Max(float64(k-1), 1)
	for i := range out {
		out[i] = int(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), float64(i)/steps)))
	}
	return out
}

// pilotCalls is how many calls of each size each side makes in the pilot.
// The pilot's means decide the stream's range, and a side's mean is its
// median plus its tail. In a hybrid run's single-side replays (Zen 4, 2
// vCPUs) threads=2's mean was 1.16× its median and threads=1's 1.09×:
// mostly calls 1.2-3× their median, and 0.4-0.6% of calls over 3×, half
// of those 13-20× (threads=2 waiting on its worker's core). Those few
// weigh in its mean, and need this many calls per size to show in the
// sum over a range's 30-50 sizes.
const pilotCalls = 25

// pilotClip is the most a pilot call counts for in its size's mean, as a
// multiple of the size's median: a side's tail (above) reaches 20×, a
// call preempted for 100 µs is the machine's, not the side's, and one
// among a size's calls would weigh as much as all the rest.
const pilotClip = 20

// hybridCandidates are the sizes the pilot measures: 64 log-spaced from
// 1 to 64× the measured crossover's high end (within the workload's
// size). The range is wider above the crossover than the ×16 of a stream
// without a pilot: in the replay's context a side can lose far more of
// its advantage than the profile says (threads=2 paying a microsecond per
// call for data its worker last saw in the caller's cache). It starts at
// 1, not at 1/16 of the crossover: the pilot finds the crossover itself,
// and where break-even had put it at [64, 76] rows (the pilot: about 20)
// the stream began at 4 rows, without the sizes where the side faster
// below the crossover gains most (the oracle 0.92-0.93× the better side,
// against 0.84-0.89× on streams from 1 that hour).
func hybridCandidates(be *report.BreakEven, size int) []int {
	hi := min(size, be.Search.Hi*64)
	return logGrid(1, max(hi, 1), 64)
}

// pilot is each side's median and mean at each grid point (means with
// each call clipped at pilotClip× its size's median).
type pilot struct {
	med, mean [2][]float64
}

// hybridPilot measures both sides at every size of grid in the replay's
// context: each request poisoned before and verified after its call, one
// side's calls in a row (a round of every size, in a shuffled order, then
// the other side's), pilotCalls rounds, the sides' order alternating.
func (e *Env) hybridPilot(hc HybridConfig, built [2]map[int]workload.Side, grid []int) (pilot, error) {
	sizes := slices.Compact(slices.Clone(grid))
	times := [2]map[int][]float64{{}, {}}
	r := rand.New(rand.NewPCG(hc.Seed, 0x5851f42d4c957f2d))
	e.progress("hybrid: pilot of %s and %s at %d sizes", hc.Sides[0].Label, hc.Sides[1].Label, len(sizes))
	call := func(i, n int) (time.Duration, error) {
		smp, err := verifiedRun(fmt.Sprintf("hybrid: pilot: %s n=%d", hc.Sides[i].Label, n), built[i][n])
		return smp.Host, err
	}
	for round := range pilotCalls {
		for j := range 2 {
			i := (round + j) % 2
			if e.interrupted.Load() {
				return pilot{}, fmt.Errorf("hybrid: pilot: %w", ErrInterrupted)
			}
			r.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
			if _, err := call(i, sizes[0]); err != nil { // warm, untimed
				return pilot{}, err
			}
			for _, n := range sizes {
				t, err := call(i, n)
				if err != nil {
					return pilot{}, err
				}
				times[i][n] = append(times[i][n], t.Seconds())
			}
		}
	}
	var p pilot
	for i := range 2 {
		p.med[i] = make([]float64, len(grid))
		p.mean[i] = make([]float64, len(grid))
		for j, n := range grid {
			p.med[i][j], p.mean[i][j] = clippedMean(times[i][n], pilotClip)
		}
	}
	return p, nil
}

// clippedMean returns the median of xs and their mean with each value
// counted at most clip× the median.
func clippedMean(xs []float64, clip float64) (med, mean float64) {
	med = median(xs)
	for _, x := range xs {
		mean += math.Min(x, clip*med)
	}
	return med, mean / float64(max(len(xs), 1))
}

// balance is the pilot's range for the stream: grid points 0..Hi.
type balance struct {
	OK bool // the sides cross within the grid
	Hi int  // the range's last grid point
	// Small is the side faster below the crossover, which lies between
	// grid points Cross−1 and Cross; Wrong counts the grid points on the
	// wrong side of it (noise near the crossover).
	Small, Cross, Wrong int
	// Totals are each side's sum of means over the range's points (its
	// expected total on a log-uniform stream over them, per request),
	// Oracle the sum of the lower of the two.
	Totals [2]float64
	Oracle float64
}

// balancedRange finds where the sides cross in the pilot's medians (the
// split of the grid that leaves the fewest points on the wrong side) and,
// among the ranges from the first grid point to a point at or past the
// crossover, the one over which the two sides' totals of means are
// closest (ties: the widest). On such a stream neither side alone is the
// answer: each is faster for about half of the time. Past it the side
// faster at large sizes takes a growing share of the time, before it the
// other; either way routing has less to gain (for linear costs the
// balanced range is the one whose mean size is the crossover).
//
// The crossover is the medians' (the typical call's), the balance the
// means': a stream's total is the sum of its calls, tails included, and
// a side with the heavier tail (threads=2, which needs both cores) costs
// more per call on the total than its median says. Balanced on medians,
// the range came out anywhere from [1, 38] to [1, 67] from run to run;
// on the means of one run's replays, an oracle gained 6% over the
// better side on [1, 38] and 13% on [1, 60], where the means balance.
func balancedRange(grid []int, med, mean [2][]float64) balance {
	m := len(grid)
	best := balance{Wrong: m + 1}
	for small := range 2 {
		for cut := 1; cut < m; cut++ {
			wrong := 0
			for j := range m {
				faster := med[small][j] < med[1-small][j]
				if faster != (j < cut) {
					wrong++
				}
			}
			if wrong < best.Wrong {
				best = balance{Small: small, Cross: cut, Wrong: wrong}
			}
		}
	}
	// A side faster at every point (or at all but a few near an end) is
	// no crossover: the split must beat calling every point one side's.
	for s := range 2 {
		n := 0
		for j := range m {
			if med[s][j] < med[1-s][j] {
				n++
			}
		}
		if m-n <= best.Wrong {
			return balance{Small: s}
		}
	}
	bestImb := math.Inf(1)
	var t [2]float64
	oracle := 0.0
	for j := range m {
		t[0] += mean[0][j]
		t[1] += mean[1][j]
		oracle += math.Min(mean[0][j], mean[1][j])
		if j < best.Cross {
			continue
		}
		if imb := math.Abs(t[0]-t[1]) / math.Min(t[0], t[1]); imb <= bestImb {
			bestImb = imb
			best.OK, best.Hi, best.Totals, best.Oracle = true, j, t, oracle
		}
	}
	return best
}

// describe says how the pilot chose the stream's range.
func (b balance) describe(grid []int, sides [2]SideSpec, be *report.BreakEven) string {
	calls := fmt.Sprintf("a pilot (%d calls per size and side over %d log-spaced sizes in [%d, %d], in the replay's context: poisoned and verified around each call, one side's calls in a row)",
		pilotCalls, len(grid), grid[0], grid[len(grid)-1])
	if !b.OK {
		return fmt.Sprintf("; %s found no crossover: %s was faster at every size but a few, so the range is break-even's crossover [%d, %d] /16 to ×16",
			calls, sides[b.Small].Label, be.Search.Lo, be.Search.Hi)
	}
	bs := math.Min(b.Totals[0], b.Totals[1])
	return fmt.Sprintf("; the range is where neither side alone is the answer: %s put the crossover in that context between n=%d and n=%d (%s faster below, %d of %d sizes on the other side of it; break-even's, calls back to back: [%d, %d]), "+
		"and over [%d, %d] the two sides' totals come closest, %s %s and %s %s per request (means, each call counted at most %d× its size's median), an oracle %.3f× the better",
		calls, grid[b.Cross-1], grid[b.Cross], sides[b.Small].Label, b.Wrong, len(grid), be.Search.Lo, be.Search.Hi,
		grid[0], grid[b.Hi], sides[0].Label, timing.FormatSeconds(b.Totals[0]/float64(b.Hi+1)), sides[1].Label, timing.FormatSeconds(b.Totals[1]/float64(b.Hi+1)), pilotClip, b.Oracle/bs)
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

// faultResponse says, for each injected slow-down or failure, how many
// requests after its start the dispatcher moved off the side and how many
// after its end it moved back.
func faultResponse(name string, hc HybridConfig, sw []dispatch.Switch, length, repeats int, alreadyOff [][]bool) []string {
	var out []string
	for fi, f := range hc.Faults {
		side := hc.Sides[f.Side].Label
		var offs, backs []int // per replay, where a move happened
		off0 := 0             // replays where the side had no size when the slow-down began
		for rp := 0; rp < repeats; rp++ {
			base := rp * length
			wasOff := fi < len(alreadyOff) && rp < len(alreadyOff[fi]) && alreadyOff[fi][rp]
			if wasOff {
				off0++
			}
			// off: the first move off the side once the fault began;
			// back: the first move to it after the last move off that
			// came before the fault ended (negative when the dispatcher
			// was back before the end: probes showed the side fast
			// again on a noisy machine, and nothing moved it off since).
			off, lastOff, back := -1, -1, math.MinInt
			for _, s := range sw {
				if s.Call >= base+length {
					break
				}
				if s.Call < base+f.From {
					continue
				}
				if s.From == side && s.Call < base+f.To {
					if off < 0 {
						off = s.Call - base - f.From
					}
					lastOff, back = s.Call, math.MinInt
				}
				if back == math.MinInt && lastOff >= 0 && s.Call > lastOff && s.To == side {
					back = s.Call - base - f.To
				}
			}
			if off >= 0 && !wasOff {
				offs = append(offs, off)
			}
			if back != math.MinInt {
				backs = append(backs, back)
			}
		}
		worst := func(v []int) int {
			if len(v) == 0 {
				return -1
			}
			return slices.Max(v)
		}
		worstOff, worstBack := worst(offs), worst(backs)
		never, stuck := repeats-off0-len(offs), repeats-len(backs)
		txt := fmt.Sprintf("hybrid %s: fault %s, in each of %d replays: ", name, f.String(hc.Sides), repeats)
		txt += fmt.Sprintf("the dispatcher moved calls off %s at most %d requests after it began (each replay: %v; %d replays without a move", side, worstOff, offs, never)
		if off0 > 0 {
			txt += fmt.Sprintf("; %d replays where it had given %s no size before it began, nothing to move", off0, side)
		}
		txt += ")"
		txt += fmt.Sprintf(", and back at most %d requests after it ended (each: %v, negative: back before it ended; %d replays without a move back)", worstBack, backs, stuck)
		out = append(out, txt)
	}
	return out
}

// hybridLines says in words how the strategies compare.
func hybridLines(h *report.Hybrid) []string {
	var out []string
	byName := map[string]report.HybridStrategy{}
	for _, s := range h.Strategies {
		byName[s.Name] = s
		line := fmt.Sprintf("hybrid %s: %s: total %s (median of %d replays), per request p50 %s p99 %s, %s %d / %s %d",
			h.Workload, s.Name, s.TotalSummary.String(), h.Repeats, timing.FormatSeconds(s.P50), timing.FormatSeconds(s.P99),
			h.Sides[0], s.Share[0], h.Sides[1], s.Share[1])
		if s.Lost > 0 {
			line += fmt.Sprintf(", %d requests LOST", s.Lost)
		}
		if s.Recovered > 0 {
			line += fmt.Sprintf(", %d answered by the other side after an error", s.Recovered)
		}
		if s.Probes > 0 {
			line += fmt.Sprintf(", %d probes", s.Probes)
		}
		line += fmt.Sprintf(", routing %s per request (median, included)", timing.FormatSeconds(s.Routing))
		out = append(out, line)
	}
	ad := h.Strategies[3]
	a, b, st := h.Strategies[0], h.Strategies[1], h.Strategies[2]
	best := a
	if b.Lost < a.Lost || (b.Lost == a.Lost && b.Total < a.Total) {
		best = b
	}
	out = append(out, fmt.Sprintf("hybrid %s: adaptive total = %.3f× the better single side (%s), %.3f× the static threshold", h.Workload,
		ad.Total/best.Total, best.Name, ad.Total/st.Total))
	if p := h.PerRequest; p != nil && len(p.Sums) == 4 {
		bs := math.Min(p.Sums[0], p.Sums[1])
		out = append(out, fmt.Sprintf("hybrid %s: on per-request medians (each request's median over the replays, summed): adaptive %s = %.3f× the better single side, %.3f× the static threshold; "+
			"an oracle that knew each request's faster side: %s = %.3f× the better single side, the most any routing can gain on this stream",
			h.Workload, timing.FormatSeconds(p.Sums[3]), p.Sums[3]/bs, p.Sums[3]/p.Sums[2], timing.FormatSeconds(p.Oracle), p.Oracle/bs))
	}
	for _, s := range h.Switches {
		out = append(out, fmt.Sprintf("hybrid %s: switch at request %d, bucket %s, %s → %s: %s", h.Workload, s.Request, s.Bucket, s.From, s.To, s.Reason))
	}
	out = append(out, "hybrid "+h.Workload+": stream: "+h.Stream+"; timed: "+h.Timed)
	for _, f := range h.Faults {
		out = append(out, "hybrid "+h.Workload+": fault injected: "+f)
	}
	return out
}
