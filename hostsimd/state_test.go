package hostsimd

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/machine"
)

// TestClassifyRoundTrip: round trips typical of the two placements of a
// virtual machine's vCPUs (one chiplet, two chiplets) and of bare metal
// (within one L3, across sockets) get the labels of their placement.
func TestClassifyRoundTrip(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{{25, StateSharedLLC}, {80, StateSharedLLC}, {120, StateSharedLLC}, {199, StateSharedLLC},
		{200, StateSplitLLC}, {350, StateSplitLLC}, {390, StateSplitLLC}, {1200, StateSplitLLC}} {
		if got := ClassifyRoundTrip(c.ns); got != c.want {
			t.Errorf("%v ns: %s, want %s", c.ns, got, c.want)
		}
	}
}

func TestGroupStates(t *testing.T) {
	probes := []HostState{
		{Label: StateSharedLLC, RoundTripNs: 90}, {Label: StateSplitLLC, RoundTripNs: 370},
		{Label: StateSharedLLC, RoundTripNs: 110}, {Label: StateSplitLLC, RoundTripNs: 355},
	}
	g := GroupStates(probes)
	if len(g) != 2 || g[0].Label != StateSharedLLC || g[0].Count != 2 || g[0].MinNs != 90 || g[0].MaxNs != 110 || g[1].MinNs != 355 {
		t.Fatalf("%+v", g)
	}
}

// TestProbeState runs the real probe: one thread has no round trip; two
// give a positive one labelled by ClassifyRoundTrip.
func TestProbeState(t *testing.T) {
	s, err := ProbeState(1)
	if err != nil || s.Label != StateOneThread || s.RoundTripNs != 0 {
		t.Fatalf("one thread: %+v %v", s, err)
	}
	s, err = ProbeState(2)
	if err != nil {
		t.Fatal(err)
	}
	if !(s.RoundTripNs > 0) || s.Label != ClassifyRoundTrip(s.RoundTripNs) {
		t.Fatalf("two threads: %+v", s)
	}
	t.Logf("state %v on CPUs %v", s, s.CPUs)
}

func BenchmarkProbeState(b *testing.B) {
	for range b.N {
		if _, err := ProbeState(2); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDRAMWorkingSet: the DRAM working set is past every L3 the threads
// may see (at least 8× the reported L3, twice the L3s of all threads,
// 256 MiB) where the memory budget allows it, and otherwise the largest
// set CeilingArrays arrays of which fit the budget, said to be capped.
func TestDRAMWorkingSet(t *testing.T) {
	for _, m := range []machine.Machine{
		{L3: 32 << 20, Cores: 2, MemAvailable: 22 << 30},
		{Cores: 2, MemAvailable: 22 << 30},
		{L3: 480 << 20, Cores: 2, MemAvailable: 22 << 30},
		{L3: 32 << 20, Cores: 2, MemAvailable: 22 << 30, MaxMemory: 256 << 20},
	} {
		restore := machine.Set(m)
		l3 := m.L3
		if l3 <= 0 {
			l3 = 32 << 20
		}
		for _, th := range []int{1, 2, 8, 64} {
			b, capped := DRAMWorkingSetPlan(th)
			want := max(8*l3, 2*l3*int64(th), 256<<20)
			per := m.Budget(false) / CeilingArrays
			if capped != (want > per) || (!capped && b != want) || (capped && b != per) {
				t.Errorf("L3 %d, budget %d, %d threads: %d bytes (capped %v), want %d within %d per array", m.L3, m.Budget(false), th, b, capped, want, per)
			}
			if DRAMWorkingSet(th) != b {
				t.Errorf("DRAMWorkingSet(%d) != DRAMWorkingSetPlan", th)
			}
		}
		restore()
	}
}
