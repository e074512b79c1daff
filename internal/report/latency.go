package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// LatencyLine is the report's latency anatomy in one line: the tiny
// call's round trip, the empty call, the cost per further dispatch, and
// the range of the GPU rows' round-trip shares ("" without an anatomy).
func LatencyLine(r *Report) string {
	if r == nil || r.Latency == nil || !r.Latency.Tiny.Valid() {
		return ""
	}
	a := r.Latency
	s := fmt.Sprintf("GPU call round trip (one submit, one wait): tiny call %s, empty %s, +%s per dispatch",
		FormatSummary(a.Tiny), FormatSummary(a.Empty), timing.FormatSeconds(a.PerDispatch()))
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, m := range r.Measurements {
		if m.RoundTripShare != nil {
			lo, hi, n = math.Min(lo, *m.RoundTripShare), math.Max(hi, *m.RoundTripShare), n+1
		}
	}
	switch {
	case n == 1:
		s += fmt.Sprintf("; %.0f%% of the GPU row's end-to-end time", 100*lo)
	case n > 1:
		s += fmt.Sprintf("; %.0f–%.0f%% of the GPU rows' end-to-end times", 100*lo, 100*hi)
	}
	return s
}

// latency writes LatencyLine as a section of its own.
func (t *textWriter) latency(r *Report) {
	if s := LatencyLine(r); s != "" {
		t.section("Call latency")
		t.bullet("- ", s)
	}
}

// Anatomy is the latency anatomy of one adapter (timing.Anatomy).
type Anatomy = timing.Anatomy

// LatencyFile is what wgpu-prof latency --format json writes.
type LatencyFile struct {
	Tool    string   `json:"tool"`
	Adapter string   `json:"adapter"`
	Backend string   `json:"backend"`
	Latency *Anatomy `json:"latency"`
}

// WriteLatencyDetail writes the anatomy's fixed costs, its calls by
// number of dispatches and its transfer curves as text tables.
func WriteLatencyDetail(w io.Writer, a *Anatomy) {
	fmt.Fprintf(w, "fixed launch cost %s, %s per further dispatch (fit over K, R² %.3f); %d calls timed, each verified\n\n",
		timing.FormatSeconds(a.Launch()), timing.FormatSeconds(a.PerDispatch()), a.DispatchFit.R2, a.Calls)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "call\thost time per call (median, 95%% CI)\t\n")
	fmt.Fprintf(tw, "empty\t%s\t\n", a.Empty)
	fmt.Fprintf(tw, "tiny\t%s\t\n", a.Tiny)
	for _, p := range a.Dispatches {
		fmt.Fprintf(tw, "K=%d dispatches\t%s\t\n", p.K, p.Call)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bytes\treadback time\treadback GB/s\tupload time\tupload GB/s\t\n")
	for i, r := range a.Readback {
		u := a.Upload[i]
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%s\t%.3f\t\n", r.Bytes, r.Time, r.GBps, u.Time, u.GBps)
	}
	tw.Flush()
}

// FixedCostCheck sets the fixed cost a break-even's fit gives a GPU side
// (its end-to-end fit's intercept: the time of a call of no work) beside
// the latency anatomy's measured round trip of the tiny call, the least
// any GPU call costs on the adapter, and says which of the two the
// adaptive dispatcher's prior for the side uses. The prior at size n is
// max(model(n), round trip) (dispatch.Side.Floor): hybrid and
// dispatch.RouteFromReport apply it. The break-even's fitted crossover
// (Fitted) is the two fits' as they are, floor or not: a "below round
// trip" check says it comes too early; the measured crossover uses no
// model.
type FixedCostCheck struct {
	Side string `json:"side"` // the GPU side's label
	// Used names the fixed cost the dispatcher's prior uses: "round
	// trip" when the side's model at n = 1 lies below the round trip
	// (the prior is floored there), else "fit". It judges the model as
	// fitted: where a measured crossover rescales the model first
	// (dispatch.Profile), the floor holds under the rescaled one too.
	Used        string     `json:"used"`
	Fit         float64    `json:"fit_s"`
	FitCI       [2]float64 `json:"fit_ci_s"`
	RoundTrip   float64    `json:"anatomy_round_trip_s"`
	RoundTripCI [2]float64 `json:"anatomy_round_trip_ci_s"`
	// Check is "consistent" (the fit's CI reaches the round trip or
	// above) or "below round trip" (the fit puts the GPU's fixed cost
	// below what any call costs: its fitted crossover is too early).
	Check string `json:"check"`
	// Source says where the round trip came from (the report's own
	// anatomy, a profile report's, or one measured for the purpose).
	Source string `json:"source,omitempty"`
}

// FixedCostLine states a check in a few words.
func FixedCostLine(c FixedCostCheck) string {
	used := "the fit's"
	if c.Used == "round trip" {
		used = "the round trip"
	}
	return fmt.Sprintf("%s fixed cost: fit %s [%s, %s], measured round trip %s [%s, %s]: %s; the dispatcher's prior uses %s",
		shortSide(c.Side), timing.FormatSeconds(c.Fit), timing.FormatSeconds(c.FitCI[0]), timing.FormatSeconds(c.FitCI[1]),
		timing.FormatSeconds(c.RoundTrip), timing.FormatSeconds(c.RoundTripCI[0]), timing.FormatSeconds(c.RoundTripCI[1]), c.Check, used)
}

// latency writes the anatomy as a section: the line, the calls by number
// of dispatches, the transfer curves and each GPU row's round-trip share.
func (h *htmlWriter) latency(r *Report) {
	s := LatencyLine(r)
	if s == "" {
		return
	}
	a := r.Latency
	h.p("<h2 id=\"latency\">GPU call latency</h2>\n<p class=\"note\">%s. Each call: one submit, one wait, its result checked; median ±95%% CI of the median over %d calls.</p>\n", esc(s), a.Calls)
	rows := [][]cell{
		{label("empty call"), num(FormatSummary(a.Empty), "/latency/empty_call/median", 1)},
		{label("tiny call (K = 1)"), num(FormatSummary(a.Tiny), "/latency/tiny_call/median", 1)},
	}
	for i, p := range a.Dispatches {
		rows = append(rows, []cell{label(fmt.Sprintf("K = %d dispatches", p.K)), num(FormatSummary(p.Call), fmt.Sprintf("/latency/dispatches/%d/call/median", i), 1)})
	}
	h.table([]string{"call", "host time per call"}, rows)
	rows = nil
	for i, rb := range a.Readback {
		if i >= len(a.Upload) {
			break
		}
		up := a.Upload[i]
		rows = append(rows, []cell{label(SizeLabel(rb.Bytes)),
			num(FormatSummary(rb.Time), fmt.Sprintf("/latency/readback/%d/time/median", i), 1), num(fmt.Sprintf("%.3f GB/s", rb.GBps), fmt.Sprintf("/latency/readback/%d/gbps", i), 1e9),
			num(FormatSummary(up.Time), fmt.Sprintf("/latency/upload/%d/time/median", i), 1), num(fmt.Sprintf("%.3f GB/s", up.GBps), fmt.Sprintf("/latency/upload/%d/gbps", i), 1e9)})
	}
	if len(rows) > 0 {
		h.table([]string{"bytes", "readback time", "readback rate", "upload time", "upload rate"}, rows)
	}
	rows = nil
	for i, m := range r.Measurements {
		if m.RoundTripShare != nil {
			rows = append(rows, []cell{label(m.Workload + " " + m.Side), num(FormatSummary(m.EndToEnd), fmt.Sprintf("/measurements/%d/end_to_end/median", i), 1),
				num(fmt.Sprintf("%.1f%%", 100**m.RoundTripShare), fmt.Sprintf("/measurements/%d/round_trip_share", i), 1)})
		}
	}
	if len(rows) > 0 {
		h.table([]string{"GPU row", "end-to-end time", "of it, the tiny call's round trip"}, rows)
	}
	var checks []string
	for _, b := range r.BreakEvens {
		if b.FixedCost != nil {
			checks = append(checks, b.Workload+" ("+b.Clock+"): "+FixedCostLine(*b.FixedCost))
		}
	}
	if len(checks) > 0 {
		h.p("<p class=\"note\">Break-even fits against the round trip:</p>\n<ul class=\"summary\">\n")
		for _, c := range checks {
			h.p("<li>%s</li>\n", esc(c))
		}
		h.p("</ul>\n")
	}
}

// SizeLabel is a byte count in B, KiB or MiB, the largest unit that
// divides it exactly: 4 B, 64 KiB, 64 MiB.
func SizeLabel(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
