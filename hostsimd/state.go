package hostsimd

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// The host's state. On cloud virtual machines the hypervisor moves the
// vCPUs between placements that change the memory system under the same
// guest: two vCPUs on one chiplet share one last-level cache and one path
// to memory, two on different chiplets each have their own, and the
// two-thread DRAM read bandwidth differs by more than half between the
// two while nothing the guest can see (steal time, FMA rate, cpuid)
// changes. What does change is how long a cache line takes to travel
// from one thread's core to the other's and back: within one L3 the line
// moves through it, across chiplets through the I/O die. ProbeState
// measures that round trip between the first two CPUs the process may
// run on, with one thread pinned to each; it takes well under a
// millisecond, so it can be taken beside every measurement it labels.

// HostState is one probe of the host's state.
type HostState struct {
	// Label names the state: StateSharedLLC, StateSplitLLC, or
	// StateOneThread when fewer than two threads are in use (there is no
	// second core to reach).
	Label string `json:"label"`
	// RoundTripNs is the median time for a cache line to go from one
	// pinned thread to the other and back, in nanoseconds (0 with one
	// thread).
	RoundTripNs float64 `json:"round_trip_ns"`
	// CPUs are the two CPUs the threads were pinned to (empty with one
	// thread or where pinning is not available).
	CPUs []int `json:"cpus,omitempty"`
}

// The state labels.
const (
	StateSharedLLC = "shared-llc" // the threads' cores share a last-level cache
	StateSplitLLC  = "split-llc"  // they do not: separate chiplets or sockets
	StateOneThread = "one-thread"
)

// SplitLLCRoundTripNs is the round trip at and above which two cores are
// taken not to share a last-level cache. Within one L3 a line's round
// trip is tens of ns on bare metal and 80-120 ns under a hypervisor;
// across chiplets or sockets it is 300 ns and more (core-to-core latency
// tables of Zen, Ice Lake and Sapphire Rapids parts), so a boundary at
// 200 ns separates the two with room on both sides
// (TestClassifyRoundTrip).
const SplitLLCRoundTripNs = 200

// ClassifyRoundTrip returns the state label of a measured round trip.
func ClassifyRoundTrip(ns float64) string {
	if ns >= SplitLLCRoundTripNs {
		return StateSplitLLC
	}
	return StateSharedLLC
}

// String is the label and the round trip ("split-llc (364 ns)").
func (s HostState) String() string {
	if s.Label == StateOneThread || s.RoundTripNs == 0 {
		return s.Label
	}
	return fmt.Sprintf("%s (%.0f ns)", s.Label, s.RoundTripNs)
}

// probeRounds and probeBatch: the round trip is the median over
// probeRounds batches of probeBatch round trips each (a batch that lost
// its core to another thread or a hypervisor exit is an outlier the
// median ignores).
const (
	probeRounds = 15
	probeBatch  = 64
)

// probeTimeout bounds a probe: a pinned thread whose CPU another process
// holds for that long makes the probe fail rather than wait.
const probeTimeout = 2 * time.Second

// probeMu serializes probes: two at once would share the pinned CPUs.
var probeMu sync.Mutex

// ProbeState measures the host's state as seen by threads threads (0:
// GOMAXPROCS): with two or more, the round trip of a cache line between
// two threads pinned to the first two CPUs the process may use.
func ProbeState(threads int) (HostState, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if threads < 2 {
		return HostState{Label: StateOneThread}, nil
	}
	probeMu.Lock()
	defer probeMu.Unlock()
	cpus := allowedCPUs()
	var pin [2]int
	pinned := len(cpus) >= 2
	if pinned {
		pin = [2]int{cpus[0], cpus[1]}
	}
	ns, err := roundTrip(pin, pinned)
	if err != nil {
		return HostState{}, err
	}
	s := HostState{Label: ClassifyRoundTrip(ns), RoundTripNs: ns}
	if pinned {
		s.CPUs = pin[:]
	}
	return s, nil
}

// roundTrip ping-pongs one cache line between two goroutines, each
// locked to its own OS thread (and, with pinned, to CPU pin[i]), and
// returns the median round trip in nanoseconds. The pinned threads are
// not returned to the runtime (a goroutine that ends locked takes its
// thread with it), so no other goroutine inherits their affinity.
func roundTrip(pin [2]int, pinned bool) (float64, error) {
	p := &pingPong{errs: make(chan error, 2), ready: make(chan struct{}, 2), times: make([]float64, 0, probeRounds),
		deadline: time.Now().Add(probeTimeout)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		p.respond(pin[1], pinned)
	}()
	go func() {
		defer wg.Done()
		p.initiate(pin[0], pinned)
	}()
	wg.Wait()
	select {
	case err := <-p.errs:
		return 0, err
	default:
	}
	slices.Sort(p.times)
	return p.times[len(p.times)/2], nil
}

// pingPong is one round-trip probe: a cache line of its own that the
// initiator sets to odd values and the responder answers with the next
// even one; -1 on it tells the other side to stop.
type pingPong struct {
	_        [64]byte
	v        atomic.Int64
	_        [64]byte
	errs     chan error
	ready    chan struct{}
	times    []float64 // ns per round trip, one per round
	deadline time.Time
}

// spinUntil spins until the line holds want. It returns false when the
// other side stopped, or when the deadline passed: then it sends the
// error late (formatted with probeTimeout) and stops the other side.
func (p *pingPong) spinUntil(want int64, late string) bool {
	spins := 0
	for {
		x := p.v.Load()
		if x == want {
			return true
		}
		if x < 0 {
			return false
		}
		if spins++; spins%4096 == 0 && time.Now().After(p.deadline) {
			p.errs <- fmt.Errorf(late, probeTimeout)
			p.v.Store(-1)
			return false
		}
	}
}

// respond answers every odd value with the next even one, on a thread
// locked (and with pinned, pinned to cpu) for good.
func (p *pingPong) respond(cpu int, pinned bool) {
	runtime.LockOSThread()
	if pinned {
		if err := pinThread(cpu); err != nil {
			p.errs <- err
			p.ready <- struct{}{}
			p.v.Store(-1)
			return
		}
	}
	p.ready <- struct{}{}
	total := int64(probeRounds * probeBatch)
	for want := int64(1); want < 2*total; want += 2 {
		if !p.spinUntil(want, "hostsimd: ProbeState: the responder waited past %v") {
			return
		}
		p.v.Store(want + 1)
	}
}

// initiate times probeRounds rounds of probeBatch round trips once the
// responder is ready, on a thread locked (and with pinned, pinned to cpu)
// for good.
func (p *pingPong) initiate(cpu int, pinned bool) {
	runtime.LockOSThread()
	if pinned {
		if err := pinThread(cpu); err != nil {
			p.errs <- err
			p.v.Store(-1)
			return
		}
	}
	<-p.ready
	next := int64(1)
	for r := 0; r < probeRounds; r++ {
		t0 := clock.Now()
		for i := 0; i < probeBatch; i++ {
			p.v.Store(next)
			if !p.spinUntil(next+1, "hostsimd: ProbeState: no answer from the responder within %v") {
				return
			}
			next += 2
		}
		p.times = append(p.times, float64(clock.Since(t0).Nanoseconds())/probeBatch)
	}
}

// StateSummary groups probes by label: how many probes saw each state,
// in the order the states were first seen.
type StateSummary struct {
	Label  string
	Count  int
	MinNs  float64
	MaxNs  float64
	Probes []HostState
}

// GroupStates returns the states among probes in first-seen order.
func GroupStates(probes []HostState) []StateSummary {
	var out []StateSummary
	for _, p := range probes {
		i := slices.IndexFunc(out, func(s StateSummary) bool { return s.Label == p.Label })
		if i < 0 {
			out = append(out, StateSummary{Label: p.Label, MinNs: p.RoundTripNs, MaxNs: p.RoundTripNs})
			i = len(out) - 1
		}
		s := &out[i]
		s.Count++
		s.MinNs, s.MaxNs = min(s.MinNs, p.RoundTripNs), max(s.MaxNs, p.RoundTripNs)
		s.Probes = append(s.Probes, p)
	}
	return out
}
