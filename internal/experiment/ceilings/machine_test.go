package ceilings

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// planHosts are the hosts the planning code is run as if on: caches,
// cores and memory none of the machines the suite runs on has.
var planHosts = []struct {
	name string
	m    machine.Machine
}{
	{"no L3 reported", machine.Machine{L1D: 48 << 10, L2: 2 << 20, Cores: 8, MemAvailable: 16 << 30}},
	{"no cache reported", machine.Machine{Cores: 4, MemAvailable: 8 << 30}},
	{"480 MiB L3", machine.Machine{L1D: 48 << 10, L2: 2 << 20, L3: 480 << 20, Cores: 2, MemAvailable: 22 << 30}},
	{"1.1 GB L3", machine.Machine{L1D: 32 << 10, L2: 1 << 20, L3: 1_100_000_000, Cores: 16, MemAvailable: 60 << 30}},
	{"1 core", machine.Machine{L1D: 32 << 10, L2: 512 << 10, L3: 8 << 20, Cores: 1, MemAvailable: 2 << 30}},
	{"64 cores", machine.Machine{L1D: 48 << 10, L2: 2 << 20, L3: 256 << 20, Cores: 64, MemAvailable: 200 << 30}},
	{"4 GB RAM", machine.Machine{L1D: 32 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 2, MemAvailable: 3 << 30}},
	{"2 TB RAM", machine.Machine{L1D: 48 << 10, L2: 2 << 20, L3: 384 << 20, Cores: 128, MemAvailable: 2 << 40}},
	{"memory unknown", machine.Machine{L1D: 32 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 2}},
	{"--max-memory 1GiB, 480 MiB L3", machine.Machine{L2: 2 << 20, L3: 480 << 20, Cores: 2, MemAvailable: 22 << 30, MaxMemory: 1 << 30}},
}

// fakeDevice is an adapter description for planning (no device behind
// it): a CPU adapter with a 2 GiB binding limit.
func fakeDevice() *wgpu.Device {
	return &wgpu.Device{Info: wgpu.AdapterInfo{Type: wgpu.DeviceCPU},
		Limits: wgpu.Limits{MaxStorageBufferBindingSize: 2 << 30, MaxBufferSize: 2 << 30}}
}

// synthetic is a read-bandwidth curve of m: each cache level a plateau
// (1.6× slower per level down), DRAM past the largest.
func synthetic(m machine.Machine, threads int) func(uint64) float64 {
	return func(b uint64) float64 {
		gbs := 400.0
		for _, l := range machine.CacheLevels {
			c := m.CacheBytes(l, threads)
			if c > 0 && float64(b) <= float64(c) {
				return gbs
			}
			if c > 0 {
				gbs /= 1.6
			}
		}
		return gbs
	}
}

// TestMachinePlans runs the planning code (budgets, the staircase's
// sweep, the DRAM-level working sets, the calibration's buffers, labels,
// thread counts, the workloads' data) as if on each of planHosts: every
// planned allocation fits the budget, and no working set is labelled with
// a level whose cache is smaller than it.
func TestMachinePlans(t *testing.T) {
	for _, h := range planHosts {
		for _, quick := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/quick=%v", h.name, quick), func(t *testing.T) {
				defer machine.Set(h.m)()
				m := machine.Current()
				threads := m.Threads(0)
				budget := m.Budget(quick)
				if budget < machine.MinBudget || (h.m.MaxMemory == 0 && h.m.MemAvailable > 0 && float64(budget) > machine.BudgetFraction*float64(h.m.MemAvailable)+1) {
					t.Fatalf("budget %d of MemAvailable %d", budget, h.m.MemAvailable)
				}
				if quick && h.m.MaxMemory == 0 && budget > machine.QuickCap {
					t.Errorf("quick budget %d above the cap %d", budget, machine.QuickCap)
				}

				// The staircase: every point's array within the budget; the
				// DRAM level found past the caches or the sweep capped.
				step := uint64(2)
				if quick {
					step = 4
				}
				curve := synthetic(m, threads)
				var largest uint64
				top, reached, err := sweepCPU(uint64(budget), stairPast(m, threads), step, func(b uint64) (report.StairPoint, error) {
					largest = max(largest, b)
					return report.StairPoint{Side: report.SideCPU, Bytes: float64(b), GBs: curve(b)}, nil
				})
				if err != nil || largest > uint64(budget) || top != largest {
					t.Errorf("staircase: largest point %d, top %d, budget %d, err %v", largest, top, budget, err)
				}
				if c := m.LargestCache(threads); reached && int64(top) <= c {
					t.Errorf("staircase: DRAM level said reached at %d, inside the %d cache", top, c)
				}
				if !reached && top*2 <= uint64(budget) {
					t.Errorf("staircase stopped at %d, not reached, with room for the next point in %d", top, budget)
				}

				// The DRAM-level ceilings, both sides, and the label line.
				e := &env.Env{Device: fakeDevice(), Host: hostsimd.Host{Threads: min(threads, hostsimd.MaxThreads())}}
				st := &report.Staircase{}
				for b := uint64(stairMin); b <= top; b *= step {
					st.Points = append(st.Points, report.StairPoint{Side: report.SideCPU, Bytes: float64(b), GBs: curve(b)})
				}
				st.Levels = findLevels(report.SideCPU, st.Points)
				nameByCPUID(st.Levels, e.Host.ThreadCount())
				capReachByCPUID(st.Levels, e.Host.ThreadCount())
				cfg := experiment.RunConfig{QuickStaircase: quick}
				gpuBytes, cpuBytes, plan := planDRAM(e, cfg, st, "")
				if n := hostsimd.CeilingArrays; cpuBytes*int64(n) > budget || int64(gpuBytes)*int64(n) > budget {
					t.Errorf("dram ceilings: cpu %d, gpu %d bytes × %d arrays past the budget %d", cpuBytes, gpuBytes, n, budget)
				}
				rep := &report.Report{}
				rep.Ceilings.CPU, rep.Ceilings.GPU = map[string]float64{}, map[string]float64{}
				line, anyCapped := plan.line(rep)
				if anyCapped != strings.Contains(line, ": capped ") {
					t.Errorf("line %q says capped=%v", line, anyCapped)
				}
				if capped := cpuBytes < m.DRAMWant(e.Host.ThreadCount()); capped != (rep.Ceilings.CPU["dram_capped"] == 1) || capped != strings.Contains(line, "capped cpu dram") {
					t.Errorf("cpu dram %d of %d wanted: capped label %v, line %q", cpuBytes, m.DRAMWant(threads), rep.Ceilings.CPU["dram_capped"], line)
				}

				// The library's own plan (hostsimd.MeasureCeilings'
				// default, the calibration's dram class).
				lib, _ := hostsimd.DRAMWorkingSetPlan(threads)
				if lib*hostsimd.CeilingArrays > m.Budget(false) {
					t.Errorf("hostsimd.DRAMWorkingSet %d × %d past the budget %d", lib, hostsimd.CeilingArrays, m.Budget(false))
				}

				// Labels: the run's levels (staircase) and host's (cpuid)
				// never name a cache smaller than the working set.
				for _, c := range []struct {
					levels   []experiment.RoofLevel
					measured map[string]float64
				}{{stairRoofLevels(st, e.Host.ThreadCount()), stairReaches(st)}, {cacheLevels(float64(cpuBytes), e.Host.ThreadCount()), nil}} {
					r := experiment.Roofs{CPU: roofOf(1), Levels: c.levels}
					have := map[string]bool{}
					for i := range r.Levels {
						r.Levels[i].CPU = roofOf(10)
						have[r.Levels[i].Name] = true
					}
					for b := float64(4 << 10); b < 1<<42; b *= 1.5 {
						_, lvl, _ := r.ForBytes(report.SideCPU, b)
						if lvl != machine.DRAM {
							if cb := float64(m.CacheBytes(lvl, e.Host.ThreadCount())); b > cb {
								t.Fatalf("%.0f bytes labelled %s, whose cache holds %.0f", b, lvl, cb)
							}
						}
						// The roofs follow the level rule; a level with no
						// ceiling of its own (l1; one the sweep did not
						// find) is judged by the next one up that has one.
						want := m.LevelOf(b, e.Host.ThreadCount(), c.measured)
						for i, l := range machine.CacheLevels {
							if l == want && !have[l] {
								want = machine.DRAM
								for _, up := range machine.CacheLevels[i+1:] {
									if have[up] && b <= m.Reach(up, e.Host.ThreadCount(), c.measured[up]) {
										want = up
										break
									}
								}
							}
						}
						if lvl != want {
							t.Errorf("%.0f bytes: roofs say %s, the level rule %s", b, lvl, want)
						}
					}
				}

				// Threads: a thread count of 0 is every core.
				if m.Threads(0) != max(h.m.Cores, 1) {
					t.Errorf("threads: %d for %d cores", m.Threads(0), h.m.Cores)
				}

				// The quick suite's data fits any host of 4 GB or more.
				if quick && h.m.MaxMemory == 0 {
					var c workload.Config
					for _, p := range workload.Params() {
						if p.Kind == experiment.IntParam {
							*p.Int(&c) = p.QuickDefault()
						}
					}
					c.Defaults()
					if err := env.CheckMemory("quick", experiment.DataBytes(c, workload.All()), true); err != nil {
						t.Errorf("the quick suite's data refused: %v", err)
					}
				}
			})
		}
	}
}

// stairReaches are the CPU levels' measured reaches of st, by name.
func stairReaches(st *report.Staircase) map[string]float64 {
	out := map[string]float64{}
	for _, l := range st.Levels {
		if l.Side == report.SideCPU && l.ReachBytes > 0 {
			out[l.Name] = l.ReachBytes
		}
	}
	return out
}

// TestLevelOfOneRule pins the one level rule: without a staircase a
// working set belongs to the smallest cache whose cpuid capacity (as the
// threads see it) holds it; a measured reach decides where there is one,
// never past the capacity.
func TestLevelOfOneRule(t *testing.T) {
	m := machine.Machine{L1D: 32 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 2}
	for _, c := range []struct {
		bytes    float64
		threads  int
		measured map[string]float64
		want     string
	}{
		{64 << 10, 2, nil, machine.L1},
		{64<<10 + 1, 2, nil, machine.L2},
		{2 << 20, 2, nil, machine.L2},
		{2<<20 + 1, 2, nil, machine.LLC},
		{2<<20 + 1, 1, nil, machine.LLC},
		{1<<20 + 1, 1, nil, machine.LLC},
		{32 << 20, 2, nil, machine.LLC},
		{32<<20 + 1, 2, nil, machine.DRAM},
		{16<<20 + 1, 2, map[string]float64{machine.LLC: 16 << 20}, machine.DRAM},
		{40 << 20, 2, map[string]float64{machine.LLC: 64 << 20}, machine.DRAM}, // capped by cpuid
	} {
		if got := m.LevelOf(c.bytes, c.threads, c.measured); got != c.want {
			t.Errorf("LevelOf(%.0f, %d threads, %v) = %s, want %s", c.bytes, c.threads, c.measured, got, c.want)
		}
	}
	if r := machine.ReachOf(0, 0); r != 0 {
		t.Errorf("a level neither reported nor measured reaches %g", r)
	}
	if r := machine.ReachOf(0, 5); r != 5 || math.IsNaN(r) {
		t.Errorf("a measured level cpuid does not report reaches %g", r)
	}
}

func roofOf(gbs float64) timing.Roof { return timing.Roof{BandwidthGBs: gbs, PeakGFLOPs: 100} }

// TestNameByCPUIDCapsByCapacity: a sweep whose doubling steps past the L3
// leave two points partly in the L3s of two chiplets (64 and 128 MiB
// here, within a plateau's tolerance of each other) does not name that
// plateau after the L3: the L3's name, ceiling and reach stay with the
// plateau that fits it (a staircase measured on a 2-vCPU EPYC, 32 MiB L3).
func TestNameByCPUIDCapsByCapacity(t *testing.T) {
	defer machine.Set(machine.Machine{L1D: 48 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 2, MemAvailable: 16 << 30})()
	mib := func(x float64) float64 { return x * (1 << 20) }
	var pts []report.StairPoint
	for _, p := range [][2]float64{{0.015625, 336.9}, {0.0625, 802.8}, {0.25, 366.5}, {1, 301.5}, {4, 212.1}, {16, 189.7}, {64, 76.7}, {128, 60.2}, {256, 54.9}} {
		pts = append(pts, report.StairPoint{Side: report.SideCPU, Bytes: mib(p[0]), GBs: p[1]})
	}
	lv := findLevels(report.SideCPU, pts)
	nameByCPUID(lv, 2)
	capReachByCPUID(lv, 2)
	st := &report.Staircase{Points: pts, Levels: lv}
	var llc *experiment.RoofLevel
	for _, l := range stairRoofLevels(st, 2) {
		if l.Name == machine.LLC {
			llc = &l
		}
	}
	if llc == nil || llc.Bytes > mib(32) || llc.Bytes < mib(4) || llc.Reach(report.SideCPU) > mib(32) {
		t.Fatalf("llc roof level %+v; levels %+v", llc, lv)
	}
	for _, l := range lv {
		if (l.Name == machine.LLC || l.Name == machine.L2) && l.FromBytes > float64(machine.Current().CacheBytes(l.Name, 2)) {
			t.Errorf("plateau %v … %v named %s, past its cache", l.FromBytes, l.ToBytes, l.Name)
		}
	}
}

// TestGPUCeilingBindingBelow2GiB: an implementation that offers a 4 GiB
// binding still gets GPU ceiling buffers below 2^31 bytes, and the note
// names the binding limit.
func TestGPUCeilingBindingBelow2GiB(t *testing.T) {
	defer machine.Set(machine.Machine{L2: 2 << 20, L3: 32 << 20, Cores: 16, MemAvailable: 128 << 30})()
	d := &wgpu.Device{Info: wgpu.AdapterInfo{Type: wgpu.DeviceDiscreteGPU},
		Limits: wgpu.Limits{MaxStorageBufferBindingSize: 4 << 30, MaxBufferSize: 1 << 40}}
	e := &env.Env{Device: d, Host: hostsimd.Host{Threads: 1}}
	st := &report.Staircase{Levels: []report.StairLevel{{Side: report.SideGPU, Name: "l2", FromBytes: 1 << 20, ToBytes: 256 << 20, GBs: 4000}}}
	gpuBytes, _, _ := planDRAM(e, experiment.RunConfig{}, st, "")
	if gpuBytes != maxCeilingBinding {
		t.Errorf("gpu ceiling bytes %d, want %d (below 2^31)", gpuBytes, uint64(maxCeilingBinding))
	}
	if len(st.Notes) == 0 || !strings.Contains(st.Notes[len(st.Notes)-1], "the binding limit") {
		t.Errorf("notes %q", st.Notes)
	}
}
