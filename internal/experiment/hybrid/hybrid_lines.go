package hybrid

import (
	"fmt"
	"math"
	"slices"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// faultResponse says, for each injected slow-down or failure, how many
// requests after its start the dispatcher moved off the side and how many
// after its end it moved back.
func faultResponse(name string, hc Config, sw []dispatch.Switch, length, repeats int, alreadyOff [][]bool) []string {
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

// hybridLines is the replay's verdict: one line per strategy against the
// better single side (its total over that side's, replay by replay, with
// the CI of the median), then, where the totals and the per-request
// medians point opposite ways for the adaptive dispatcher, one line
// saying which view decides and why, then the stream. Switches are in
// the report's JSON (Hybrid.Switches), not here.
func hybridLines(h *report.Hybrid) []string {
	if len(h.Strategies) == 0 || h.Best < 0 || h.Best >= len(h.Strategies) {
		return nil
	}
	head := "hybrid " + h.Workload + ": "
	best := h.Strategies[h.Best]
	out := []string{fmt.Sprintf("%sbetter single side: %s, total %s per replay (median of %d replays)", head, best.Name, best.TotalSummary.String(), h.Repeats)}
	for k, s := range h.Strategies {
		if k == h.Best {
			continue
		}
		out = append(out, head+strategyVerdict(s, best))
	}
	if line := viewsDisagree(h); line != "" {
		out = append(out, head+line)
	}
	if p := h.PerRequest; p != nil && len(p.Sums) > h.Best && p.Sums[h.Best] > 0 {
		out = append(out, fmt.Sprintf("%sper-request oracle (request by request the faster side's median, the most any routing can gain): %.3f× the better single side", head, p.Oracle/p.Sums[h.Best]))
	}
	if h.SwitchCount > 0 {
		out = append(out, fmt.Sprintf("%sthe dispatcher switched %d times (listed with their reasons in the JSON report)", head, h.SwitchCount))
	}
	out = append(out, priorLines(h)...)
	out = append(out, head+"stream: "+h.Stream)
	for _, f := range h.Faults {
		out = append(out, head+"fault injected: "+f)
	}
	return out
}

// strategyVerdict says how strategy s compares with the better single
// side: its ratio and CI, whether it is faster, slower or not
// distinguishable, its shares and its costs.
func strategyVerdict(s, best report.HybridStrategy) string {
	v := s.VsBest
	word := "not distinguishable from"
	switch {
	case !v.Valid():
		word = "not compared with"
	case v.Hi < 1:
		word = "faster than"
	case v.Lo > 1:
		word = "slower than"
	}
	line := fmt.Sprintf("%s: %.3f× [95%% CI %.3f, %.3f] the better single side's total: %s it", s.Name, v.Median, v.Lo, v.Hi, word)
	if len(s.Share) == 2 && s.Kind != "single" {
		line += fmt.Sprintf("; shares %d/%d", s.Share[0], s.Share[1])
	}
	if s.Lost > 0 {
		line += fmt.Sprintf("; %d requests LOST", s.Lost)
	}
	if s.Recovered > 0 {
		line += fmt.Sprintf("; %d answered by the other side after an error", s.Recovered)
	}
	if s.Probes > 0 {
		line += fmt.Sprintf("; %d probes", s.Probes)
	}
	if s.Kind != "single" {
		line += fmt.Sprintf("; routing %s per request (median, included)", timing.FormatSeconds(s.Routing))
	}
	return line
}

// viewsDisagree is the line that settles which view decides when the
// adaptive dispatcher's totals and its per-request medians point
// opposite ways against the better single side (empty: they agree, or
// either is not distinguishable from it).
func viewsDisagree(h *report.Hybrid) string {
	p := h.PerRequest
	k := slices.IndexFunc(h.Strategies, func(s report.HybridStrategy) bool { return s.Kind == "adaptive" })
	if p == nil || k < 0 || k >= len(p.Sums) || p.Sums[h.Best] <= 0 {
		return ""
	}
	v := h.Strategies[k].VsBest
	perReq := p.Sums[k] / p.Sums[h.Best]
	totalSide := 0 // -1 faster, 1 slower, 0 not distinguishable
	switch {
	case v.Valid() && v.Hi < 1:
		totalSide = -1
	case v.Valid() && v.Lo > 1:
		totalSide = 1
	}
	reqSide := 0
	switch {
	case perReq < 1/1.01:
		reqSide = -1
	case perReq > 1.01:
		reqSide = 1
	}
	if totalSide*reqSide >= 0 {
		return ""
	}
	return fmt.Sprintf("the totals decide: adaptive is %.3f× the better single side on totals but %.3f× on per-request medians (each request's median over the replays, summed); "+
		"a total counts every call, tails included, which is what an application pays, while a per-request median drops each request's slow calls, and those fall on the sides unevenly (one side's tail is heavier)",
		v.Median, perReq)
}
