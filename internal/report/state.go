package report

import (
	"fmt"
	"strings"
)

// HostState is the host's state as a probe saw it (hostsimd.ProbeState):
// a label ("shared-llc", "split-llc", "one-thread", or "changed" for a
// span whose probes before and after disagree) and the probe's values.
type HostState struct {
	Label       string  `json:"label"`
	RoundTripNs float64 `json:"round_trip_ns,omitempty"` // core-to-core round trip of the threads in use
	CPUs        []int   `json:"cpus,omitempty"`
}

// StateChanged labels a measurement or ceiling pass whose probes before
// and after saw different states: it belongs to neither, and is never
// compared with a figure of one state.
const StateChanged = "changed"

func (s *HostState) String() string {
	if s == nil {
		return ""
	}
	if s.RoundTripNs > 0 {
		return fmt.Sprintf("%s (%.0f ns)", s.Label, s.RoundTripNs)
	}
	return s.Label
}

// CeilingPass is one measurement of a CPU read ceiling with the host's
// state around it: the rows are judged against passes of their own state
// only.
type CeilingPass struct {
	Key   string    `json:"key"` // the Ceilings key it measures, e.g. "read_gbs"
	GBs   float64   `json:"gbs"`
	Bytes float64   `json:"bytes"` // working set
	State HostState `json:"state"`
	// Why: "first" (the ceilings before the kernels), "state" (measured
	// because a row ran in a state no pass had seen), "recheck" (a row
	// ran above its same-state ceiling).
	Why string `json:"why"`
}

// StateLabels are the distinct state labels (not "changed") of the
// report's ceiling passes and CPU rows, in first-seen order.
func (r *Report) StateLabels() []string {
	var out []string
	add := func(s *HostState) {
		if s == nil || s.Label == "" || s.Label == StateChanged {
			return
		}
		for _, x := range out {
			if x == s.Label {
				return
			}
		}
		out = append(out, s.Label)
	}
	for i := range r.CeilingPasses {
		add(&r.CeilingPasses[i].State)
	}
	for i := range r.Measurements {
		add(r.Measurements[i].State)
	}
	return out
}

// StateDiff returns a one-line warning when a and b saw different host
// states (compare), or "".
func StateDiff(a, b *Report) string {
	sa, sb := a.StateLabels(), b.StateLabels()
	if len(sa) == 0 || len(sb) == 0 || strings.Join(sa, ",") == strings.Join(sb, ",") {
		return ""
	}
	return fmt.Sprintf("the two reports saw different host states (%s vs %s): memory-bound rows differ with the machine, not only with the code", strings.Join(sa, ", "), strings.Join(sb, ", "))
}
