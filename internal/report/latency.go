package report

import (
	"fmt"
	"math"

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
