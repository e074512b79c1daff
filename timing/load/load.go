// Package load measures the work that ran beside a measurement: how many
// CPUs' worth of time other processes used while it ran, and the share
// of CPU time the hypervisor took (steal). A figure measured while the
// host was busy, or a comparison whose sides ran under different load,
// says so instead of passing as a finding.
//
// On Linux it reads /proc/stat and /proc/self/stat at the start and end
// of a span; elsewhere, and for spans too short for the kernel's tick
// accounting, the load is unknown (Since returns nil).
package load

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// Load is the work beside one span of time.
type Load struct {
	// Other is the CPUs' worth of time that other processes (not this
	// one) used during the span, averaged over it: 1.5 means one and a
	// half CPUs were busy with other work throughout.
	Other float64 `json:"other_cpus"`
	// Steal is the share of all CPU time the hypervisor gave to other
	// guests during the span (0 on bare metal).
	Steal float64 `json:"steal"`
	// CPUs is the number of CPUs the host has.
	CPUs int `json:"cpus"`
	// Seconds is the span's length.
	Seconds float64 `json:"seconds"`
}

// MinSpan is the shortest span whose load is known: below it the
// kernel's tick accounting (10 ms ticks) is too coarse to tell one busy
// CPU from none.
const MinSpan = 100 * time.Millisecond

// Busy is the rule for a host too busy for a firm figure: other work
// used half a CPU or more and at least a quarter of the host's CPUs, or
// the hypervisor took a tenth of the CPU time or more.
func (l *Load) Busy() bool {
	if l == nil {
		return false
	}
	return l.Other >= max(0.5, 0.25*float64(l.CPUs)) || l.Steal >= 0.1
}

// String is "other work 1.9 of 2 CPUs, steal 0%".
func (l *Load) String() string {
	if l == nil {
		return "load unknown"
	}
	s := fmt.Sprintf("other work %.1f of %d CPUs", l.Other, l.CPUs)
	if l.Steal > 0.005 {
		s += fmt.Sprintf(", steal %.0f%%", 100*l.Steal)
	}
	return s
}

// Max is the busier of a and b by Other (either may be nil).
func Max(a, b *Load) *Load {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.Other > a.Other || (b.Other == a.Other && b.Steal > a.Steal):
		return b
	}
	return a
}

// Mark is the counters at the start of a span.
type Mark struct {
	at          time.Time
	c           counters
	ok          bool
	cpus        int
	selfTicks   float64
	selfTicksOK bool
}

// counters are /proc/stat's aggregate cpu line, in ticks.
type counters struct {
	busy, steal, total float64
}

// Start marks the start of a span.
func Start() Mark {
	m := Mark{at: time.Now(), cpus: runtime.NumCPU()}
	m.c, m.ok = readStat()
	m.selfTicks, m.selfTicksOK = readSelf()
	return m
}

// Since is the load from m to now; nil where it is unknown (no /proc,
// a span shorter than MinSpan, or counters that went backwards).
func (m Mark) Since() *Load {
	el := time.Since(m.at)
	if !m.ok || !m.selfTicksOK || el < MinSpan {
		return nil
	}
	c, ok := readStat()
	self, okSelf := readSelf()
	if !ok || !okSelf {
		return nil
	}
	return between(m.c, c, self-m.selfTicks, m.cpus, el)
}

// between is the load from the counters a to b, with selfTicks of them
// this process's own.
func between(a, b counters, selfTicks float64, cpus int, el time.Duration) *Load {
	total := b.total - a.total
	busy := b.busy - a.busy
	steal := b.steal - a.steal
	if total <= 0 || busy < 0 || steal < 0 || selfTicks < 0 || cpus < 1 {
		return nil
	}
	perCPU := total / float64(cpus) // ticks of one CPU over the span
	other := math.Max(0, busy-selfTicks) / perCPU
	return &Load{Other: math.Min(other, float64(cpus)), Steal: steal / total, CPUs: cpus, Seconds: el.Seconds()}
}
