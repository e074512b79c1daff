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
