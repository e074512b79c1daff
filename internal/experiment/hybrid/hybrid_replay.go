package hybrid

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// replay runs a stream through a list of strategies and records, per
// strategy, every request's time, side and flags.
type replay struct {
	e      *env.Env
	hc     Config
	built  [2]map[int]workload.Side
	stream []int
	strats []strategy
	recs   []*strategyRecord
	// req is the index of the request being replayed (for the faults);
	// inSides the wall time spent inside the sides' calls (poisoning, the
	// call, any injected delay, verification) during the current one.
	req     int
	inSides time.Duration
	repeats int
	// totals[k][rp] is strategy k's total of replay rp.
	totals [][]float64
	// alreadyOff[f][j] records, at the j-th start of slow-down f in the
	// adaptive replays, whether the dispatcher gave the side no size of
	// the stream (found slower from the host's own noise, say): there it
	// has nothing to move off.
	alreadyOff [][]bool
}

// strategyRecord is what the replay saw of one strategy.
type strategyRecord struct {
	times []float64
	share [2]int
	lost  int
	rec   int
	probe int
	// routing is the strategy's own time, per request: its wall time
	// outside the sides' calls (the dispatcher's bookkeeping).
	routing []float64
	// side (-1: lost) and flag (flagProbe, flagRecovered) per request.
	side []int8
	flag []uint8
}

// exec is side i's executor in the replay: the request's injected fault,
// then the call, poisoned before and verified after.
func (r *replay) exec(i int) dispatch.Func {
	return func(n int) (took time.Duration, err error) {
		entered := clock.Now()
		defer func() { r.inSides += clock.Since(entered) }()
		for _, f := range r.hc.Faults {
			if f.Side == i && f.Fail && r.req >= f.From && r.req < f.To {
				return 0, fmt.Errorf("injected failure of %s at request %d", r.hc.Sides[i].Label, r.req)
			}
		}
		s := r.built[i][n]
		s.Poison()
		start := clock.Now()
		smp, err := s.Run()
		if err != nil {
			return clock.Since(start), err
		}
		took = smp.Host
		for _, f := range r.hc.Faults {
			if f.Side == i && !f.Fail && r.req >= f.From && r.req < f.To {
				extra := time.Duration(float64(took) * (f.Slow - 1))
				delay(extra)
				took += extra
			}
		}
		if err := s.Verify(); err != nil {
			return took, fmt.Errorf("%s n=%d: %w: %v", r.hc.Sides[i].Label, n, experiment.ErrWrongResult, err)
		}
		return took, nil
	}
}

// replayChunk is how many requests a strategy runs before the next takes
// its turn.
const replayChunk = 25

// run replays the stream at least minReplays times and more, up to
// maxReplays, while they fit in replayBudget (or exactly hc.Repeats
// times), in chunks, every strategy over the same chunk in a balanced
// order (williams), so a load that comes and goes falls on all of them
// alike; each strategy's total is summarized over the replays (one
// pass's total on a shared machine swings with a few preempted calls).
// Each chunk starts warm: one untimed call, at the chunk's first size,
// of the side the strategy sends that request to, so a strategy does not
// pay for the state the previous one left (host workers parked, a GPU
// queue left idle). Only that side: a call of another would leave its
// own wake behind.
func (r *replay) run() error {
	r.recs = make([]*strategyRecord, len(r.strats))
	for k := range r.recs {
		r.recs[k] = &strategyRecord{}
	}
	r.totals = make([][]float64, len(r.strats))
	r.alreadyOff = make([][]bool, len(r.hc.Faults))
	minRep, maxRep := r.hc.Repeats, r.hc.Repeats
	if r.hc.Repeats <= 0 {
		minRep, maxRep = minReplays, maxReplays
	}
	settleHeap()
	start := clock.Now()
	for rp := 0; rp < maxRep; rp++ {
		if rp >= minRep && clock.Since(start)/time.Duration(rp)*time.Duration(rp+1) > replayBudget {
			break
		}
		r.repeats = rp + 1
		for k := range r.totals {
			r.totals[k] = append(r.totals[k], 0)
		}
		for c0, round := 0, rp; c0 < len(r.stream); c0, round = c0+replayChunk, round+1 {
			for j := range r.strats {
				k := williams(len(r.strats), round, j)
				if r.e.Stopped() {
					return fmt.Errorf("hybrid: replay %d, request %d: %w", rp+1, c0, env.ErrInterrupted)
				}
				if err := r.chunk(k, rp, c0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// chunk runs strategy k over the requests from c0 of replay rp, after
// its warm-up call.
func (r *replay) chunk(k, rp, c0 int) error {
	st, rec := r.strats[k], r.recs[k]
	n0 := r.stream[c0]
	i := st.choose(n0)
	if _, err := r.built[i][n0].Run(); err != nil {
		return fmt.Errorf("hybrid: warm-up of %s n=%d: %w", r.hc.Sides[i].Label, n0, err)
	}
	ad, isAdaptive := st.(*adaptive)
	for i := c0; i < min(c0+replayChunk, len(r.stream)); i++ {
		r.req = i
		if isAdaptive {
			r.noteFaultStart(ad, i)
		}
		r.inSides = 0
		t0 := clock.Now()
		o, err := st.run(r.stream[i])
		rec.routing = append(rec.routing, (clock.Since(t0) - r.inSides).Seconds())
		rec.times = append(rec.times, o.took.Seconds())
		r.totals[k][rp] += o.took.Seconds()
		if err != nil {
			rec.lost++
			rec.side, rec.flag = append(rec.side, -1), append(rec.flag, 0)
			continue
		}
		rec.share[o.side]++
		var fl uint8
		if o.recovered {
			rec.rec++
			fl |= flagRecovered
		}
		if o.probe {
			rec.probe++
			fl |= flagProbe
		}
		rec.side, rec.flag = append(rec.side, int8(o.side)), append(rec.flag, fl)
	}
	return nil
}

// noteFaultStart records, at the first request of an injected slow-down,
// whether the dispatcher had left the side no size of the stream.
func (r *replay) noteFaultStart(ad *adaptive, i int) {
	for fi, f := range r.hc.Faults {
		if i == f.From && !f.Fail {
			sizes := slices.Compact(slices.Sorted(slices.Values(r.stream)))
			r.alreadyOff[fi] = append(r.alreadyOff[fi], !ad.serves(f.Side, sizes))
		}
	}
}

// addRouting adds each strategy's own routing time to its requests. The
// routing runs between the caller's calls, so it is part of each
// request's time. What a single side measures there (the clock reads
// around the call) is the measurement's floor, taken off every
// strategy's (clamped at zero, so each keeps the upper half of the clock
// reads' noise, alike for all).
func (r *replay) addRouting() {
	floor := math.Inf(1)
	for k, st := range r.strats {
		if st.kind() == "single" {
			floor = min(floor, experiment.Median(r.recs[k].routing))
		}
	}
	for k, rec := range r.recs {
		for j, x := range rec.routing {
			rec.routing[j] = max(0, x-floor)
			rec.times[j] += rec.routing[j]
			r.totals[k][j/len(r.stream)] += rec.routing[j]
		}
	}
}

// strategies fills h's strategies, their ratios to the better single
// side, per-request sums and (hc.Rows) rows.
func (r *replay) strategies(h *report.Hybrid) {
	best := r.bestSingle()
	for k, st := range r.strats {
		rec := r.recs[k]
		sorted := slices.Clone(rec.times)
		sort.Float64s(sorted)
		tot := timing.Summarize(r.totals[k])
		ratios := make([]float64, len(r.totals[k]))
		for rp, t := range r.totals[k] {
			ratios[rp] = t / r.totals[best][rp]
		}
		h.Strategies = append(h.Strategies, report.HybridStrategy{
			Name: st.name(), Kind: st.kind(), Total: tot.Median, TotalSummary: tot, VsBest: timing.Summarize(ratios),
			P50: quantile(sorted, 0.5), P99: quantile(sorted, 0.99),
			Share: []int{rec.share[0], rec.share[1]}, Lost: rec.lost, Recovered: rec.rec, Probes: rec.probe, Routing: experiment.Median(rec.routing),
		})
	}
	h.Best = best
	times := make([][]float64, len(r.recs))
	for k, rec := range r.recs {
		times[k] = rec.times
	}
	h.PerRequest = perRequest(len(r.stream), r.repeats, times)
	if !r.hc.Rows {
		return
	}
	for k, rec := range r.recs {
		for j, t := range rec.times {
			h.Rows = append(h.Rows, report.HybridRequest{Strategy: k, Replay: j / len(r.stream), Index: j % len(r.stream), N: r.stream[j%len(r.stream)],
				Side: int(rec.side[j]), Seconds: t, Routing: rec.routing[j], Probe: rec.flag[j]&flagProbe != 0, Recovered: rec.flag[j]&flagRecovered != 0})
		}
	}
}

// bestSingle is the index of the better single-side strategy: fewer
// lost requests, then the lower median total.
func (r *replay) bestSingle() int {
	best := -1
	for k, st := range r.strats {
		if st.kind() != "single" {
			continue
		}
		if best < 0 {
			best = k
			continue
		}
		a, b := r.recs[k], r.recs[best]
		ta, tb := timing.Summarize(r.totals[k]).Median, timing.Summarize(r.totals[best]).Median
		if a.lost < b.lost || (a.lost == b.lost && ta < tb) {
			best = k
		}
	}
	return best
}

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
