package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// The host's state (docs/METHOD.md, "Host state"): a probe
// (hostsimd.ProbeState) is taken before and after every CPU DRAM read
// ceiling pass and every DRAM-level CPU row (and around every GPU row in
// run); a CPU row is judged only against a ceiling pass of its own state.

// stateUnknown labels a probe that failed (no second CPU to pin to, a
// pinned thread starved): its rows and passes form a state of their own.
const stateUnknown = "unknown"

// ProbeState probes the host's state as threads threads see it; it never
// fails (a failed probe is labelled stateUnknown).
func ProbeState(threads int) *report.HostState {
	s, err := hostsimd.ProbeState(threads)
	if err != nil {
		return &report.HostState{Label: stateUnknown}
	}
	return &report.HostState{Label: s.Label, RoundTripNs: s.RoundTripNs, CPUs: s.CPUs}
}

// SpanState is the state of a span probed before and after: before's,
// or StateChanged (with before's values) when the two labels differ.
func SpanState(before, after *report.HostState) report.HostState {
	s := *before
	if after != nil && after.Label != before.Label {
		s.Label = report.StateChanged
	}
	return s
}

// rowState is the state a row is judged in: "" when it has none,
// StateChanged when its probes before and after disagree.
func rowState(m *report.Measurement) string {
	if m.State == nil {
		return ""
	}
	if m.StateEnd != nil && m.StateEnd.Label != m.State.Label {
		return report.StateChanged
	}
	return m.State.Label
}

// MeasureReadPass measures the CPU read ceiling over bytes on threads
// threads with a probe before and after it; stop, when set, ends it early
// (an error wrapping ErrInterrupted).
func MeasureReadPass(bytes int64, threads int, why string, stop func() bool) (report.CeilingPass, error) {
	before := ProbeState(threads)
	rc, err := hostsimd.MeasureReadUntil(bytes, threads, 0, stop)
	if err != nil {
		return report.CeilingPass{}, env.Stopped(err)
	}
	after := ProbeState(threads)
	return report.CeilingPass{Key: "read_gbs", GBs: rc.GBs, Bytes: float64(rc.Bytes), State: SpanState(before, after), Why: why}, nil
}

// bestPass is the best pass of key measured in state label.
func bestPass(passes []report.CeilingPass, key, label string) (float64, bool) {
	best, ok := 0.0, false
	for _, p := range passes {
		if p.Key == key && p.State.Label == label && p.GBs > best {
			best, ok = p.GBs, true
		}
	}
	return best, ok
}

// JudgeByState places every CPU row judged against the DRAM read ceiling
// ("read_gbs") that carries a state against the best ceiling pass of
// that state. A state no pass has seen gets a pass measured now (measure,
// up to maxStatePasses tries in all: the state may have moved on again);
// a row above 100% of its same-state ceiling gets one more pass (the
// ceiling may have missed the machine's best in that state). A row whose
// probes disagree, or whose state no pass caught, is not judged
// (CeilingFrac 0) and says why. It returns the summary lines: when the
// run saw more than one state, one line giving each state's ceiling and
// the rows' fractions in each. TestJudgeByStateNeverCrossesStates.
func JudgeByState(rep *report.Report, fma float64, measure func(why string) (report.CeilingPass, error)) ([]string, error) {
	const key = "read_gbs"
	rows := func() []*report.Measurement {
		var out []*report.Measurement
		for i := range rep.Measurements {
			m := &rep.Measurements[i]
			if m.Side == report.SideCPU && m.ReadCeilingKey() == key && m.State != nil {
				out = append(out, m)
			}
		}
		return out
	}()
	if len(rows) == 0 && len(rep.CeilingPasses) == 0 {
		return nil, nil
	}
	tries := 0
	rechecked := map[string]bool{}
	for {
		missing, above := "", ""
		for _, m := range rows {
			st := rowState(m)
			if st == report.StateChanged {
				continue
			}
			gbs, ok := bestPass(rep.CeilingPasses, key, st)
			if !ok {
				missing = st
				continue
			}
			if m.Bound == timing.BoundMemory && !rechecked[st] && m.GBs > gbs {
				above = st
			}
		}
		why := ""
		switch {
		case missing != "":
			why = "state"
		case above != "":
			why, rechecked[above] = "recheck", true
		}
		if why == "" || tries >= maxStatePasses || measure == nil {
			break
		}
		tries++
		p, err := measure(why)
		if err != nil {
			return nil, err
		}
		rep.CeilingPasses = append(rep.CeilingPasses, p)
	}
	for _, m := range rows {
		st := rowState(m)
		gbs, ok := bestPass(rep.CeilingPasses, key, st)
		switch {
		case st == report.StateChanged:
			m.CeilingFrac = 0
			m.Warnings = append(m.Warnings, fmt.Sprintf("the host's state changed during this row (%s before, %s after): not judged against a ceiling", m.State.Label, m.StateEnd.Label))
		case !ok:
			m.CeilingFrac = 0
			m.Warnings = append(m.Warnings, fmt.Sprintf("no CPU read ceiling was measured in this row's host state (%s): not judged", st))
		default:
			Place(m, timing.Roof{PeakGFLOPs: PeakFor(rep.Ceilings.CPU, m, fma), BandwidthGBs: gbs}, m.Time().Median)
		}
	}
	return stateLines(rep, rows), nil
}

// maxStatePasses bounds the extra ceiling passes judgeByState measures.
const maxStatePasses = 4

// StatePrefix starts the summary line about host states; HostSummary
// keeps it.
const StatePrefix = "host state: "

// stateLines is one line when the run saw more than one state: each
// state's DRAM read ceiling and each workload's best fraction in it.
func stateLines(rep *report.Report, rows []*report.Measurement) []string {
	var labels []string
	for _, l := range rep.StateLabels() {
		if _, ok := bestPass(rep.CeilingPasses, "read_gbs", l); ok {
			labels = append(labels, l)
		}
	}
	if len(labels) < 2 {
		if len(labels) == 1 {
			return []string{fmt.Sprintf("%sone state during the run (%s); every DRAM-level CPU row judged against a ceiling from it", StatePrefix, labels[0])}
		}
		return nil
	}
	var ceil []string
	for _, l := range labels {
		gbs, _ := bestPass(rep.CeilingPasses, "read_gbs", l)
		ceil = append(ceil, fmt.Sprintf("%.1f GB/s (%s)", gbs, describeState(l)))
	}
	// Each workload's best fraction per state.
	type wl struct {
		name string
		frac map[string]float64
	}
	var ws []*wl
	for _, m := range rows {
		st := rowState(m)
		if st == report.StateChanged || m.CeilingFrac <= 0 {
			continue
		}
		var w *wl
		for _, x := range ws {
			if x.name == m.Workload {
				w = x
			}
		}
		if w == nil {
			w = &wl{name: m.Workload, frac: map[string]float64{}}
			ws = append(ws, w)
		}
		w.frac[st] = max(w.frac[st], m.CeilingFrac)
	}
	var parts []string
	for _, w := range ws {
		var fs []string
		states := make([]string, 0, len(w.frac))
		for s := range w.frac {
			states = append(states, s)
		}
		sort.Strings(states)
		for _, s := range states {
			fs = append(fs, fmt.Sprintf("%.0f%% in %s", 100*w.frac[s], s))
		}
		parts = append(parts, w.name+" "+strings.Join(fs, ", "))
	}
	line := fmt.Sprintf("%smemory bandwidth changed during the run: %s; each row judged against its own state's ceiling", StatePrefix, strings.Join(ceil, " and "))
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, "; ")
	}
	return []string{line}
}

// describeState spells a state label out for the summary.
func describeState(l string) string {
	switch l {
	case hostsimd.StateSharedLLC:
		return "threads sharing one L3"
	case hostsimd.StateSplitLLC:
		return "threads on separate L3s"
	}
	return l
}
