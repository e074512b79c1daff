// Package machine describes the host the measurements run on as a value:
// its caches (as cpuid reports them; any may be absent), its logical
// cores, the memory available when the process started and the memory
// budget every measuring phase plans its working sets inside. It also
// holds the one rule that says which cache level a working set belongs
// to. The description in use can be replaced (Set), so the planning code
// can be tested as if on hosts this one is not.
//
// It measures nothing and allocates nothing large.
package machine

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/cpuid/v2"
)

// Machine is one host's description.
type Machine struct {
	// L1D and L2 are the per-core data caches, L3 the last-level cache
	// (one, shared), in bytes as cpuid reports them; 0 when not reported.
	L1D, L2, L3 int64
	// Cores is the number of logical CPUs.
	Cores int
	// MemAvailable is the memory the OS had available when the process
	// started (Linux: MemAvailable of /proc/meminfo), 0 when unknown.
	MemAvailable uint64
	// MaxMemory, when positive, is the memory budget (--max-memory); 0
	// means the default (Budget).
	MaxMemory int64
	// Quick marks a process making a quick look (--quick): every
	// Budget is the quick one.
	Quick bool
}

// BudgetFraction is the share of MemAvailable the default budget takes:
// the rest is left to the OS, other work on the host, the GPU driver and
// the process's own code and data.
const BudgetFraction = 0.25

// QuickCap is the most a quick look (--quick) plans to use by default,
// whatever the host has.
const QuickCap = 1 << 30

// unknownMemory is the MemAvailable assumed where the OS does not say:
// a small host's, so the default budget stays safe.
const unknownMemory = 4 << 30

// MinBudget is the smallest budget accepted: below it no level past a
// cache can be measured at all.
const MinBudget = 64 << 20

// Budget is the memory, in bytes, that the working sets of one phase may
// take together: MaxMemory when set, else BudgetFraction of MemAvailable
// (of 4 GiB when unknown), at most QuickCap for a quick look.
func (m Machine) Budget(quick bool) int64 {
	quick = quick || m.Quick
	if m.MaxMemory > 0 {
		return m.MaxMemory
	}
	avail := m.MemAvailable
	if avail == 0 {
		avail = unknownMemory
	}
	b := max(int64(BudgetFraction*float64(avail)), MinBudget)
	if quick {
		b = min(b, QuickCap)
	}
	return b
}

// BudgetSource says where Budget(quick) comes from, for the report.
func (m Machine) BudgetSource(quick bool) string {
	quick = quick || m.Quick
	if m.MaxMemory > 0 {
		return "--max-memory"
	}
	avail := "MemAvailable " + IEC(float64(m.MemAvailable))
	if m.MemAvailable == 0 {
		avail = "an assumed " + IEC(unknownMemory) + " (MemAvailable unknown)"
	}
	s := fmt.Sprintf("%.0f%% of %s", 100*BudgetFraction, avail)
	if a := m.MemAvailable; a > 0 && int64(BudgetFraction*float64(a)) < MinBudget {
		s = fmt.Sprintf("the %s floor (%.0f%% of MemAvailable %s is less)", IEC(MinBudget), 100*BudgetFraction, IEC(float64(a)))
	}
	full := m
	full.Quick = false
	if quick && full.Budget(false) > QuickCap {
		s += fmt.Sprintf(", capped at %s for --quick", IEC(QuickCap))
	}
	return s
}

// Threads is the thread count threads means on m (0: every core).
func (m Machine) Threads(threads int) int {
	if threads > 0 {
		return threads
	}
	return max(m.Cores, 1)
}

// Cache levels, smallest first, as the rest of the tool names them.
const (
	L1   = "l1"
	L2   = "l2"
	LLC  = "llc"
	DRAM = "dram"
)

// CacheLevels are the cache level names, smallest first.
var CacheLevels = []string{L1, L2, LLC}

// CacheBytes is the capacity of cache level as threads threads see it:
// the per-core caches threads times over, the shared last-level cache
// once; 0 when cpuid reports no such cache.
func (m Machine) CacheBytes(level string, threads int) int64 {
	t := int64(m.Threads(threads))
	switch level {
	case L1:
		return m.L1D * t
	case L2:
		return m.L2 * t
	case LLC:
		return m.L3
	}
	return 0
}

// LargestCache is the largest capacity of any level threads threads
// see, 0 when cpuid reports none.
func (m Machine) LargestCache(threads int) int64 {
	var b int64
	for _, l := range CacheLevels {
		b = max(b, m.CacheBytes(l, threads))
	}
	return b
}

// Reach is the largest working set cache level judges on threads threads
// (the one rule; see LevelOf): ReachOf the capacity cpuid reports for it
// as threads threads see it and the measured reach (0: none measured).
func (m Machine) Reach(level string, threads int, measured float64) float64 {
	return ReachOf(float64(m.CacheBytes(level, threads)), measured)
}

// ReachOf is the one rule for the largest working set a cache level
// holds: measured, when positive, is where the measured staircase's
// plateau of that level ends, and capacity (when positive) the size cpuid
// reports for it. The measurement decides where there is one, the
// capacity only caps it: no working set larger than the cache is ever
// said to sit in it. Without a measurement the level reaches its
// capacity; with neither it does not exist (0).
func ReachOf(capacity, measured float64) float64 {
	switch {
	case measured > 0 && capacity > 0:
		return min(measured, capacity)
	case measured > 0:
		return measured
	}
	return max(capacity, 0)
}

// LevelOf is the level a working set of bytes belongs to on threads
// threads: the smallest cache level whose Reach holds it, else DRAM.
// measured gives the staircase's reach of each level it found (nil or a
// missing level: none measured). host, run, breakeven, stream and the
// host kernels' calibration all label working sets by this rule
// (TestLevelOfOneRule).
func (m Machine) LevelOf(bytes float64, threads int, measured map[string]float64) string {
	for _, l := range CacheLevels {
		if r := m.Reach(l, threads, measured[l]); r > 0 && bytes <= r {
			return l
		}
	}
	return DRAM
}

// DRAMWant is the per-array working set a DRAM-level measurement on
// threads threads calls for, before any budget: past every cache any of
// them can see. The guest reports one L3, but a hypervisor may place
// each vCPU on its own chiplet with an L3 of that size, so the set is at
// least twice the L3 times the threads and at least 8× the largest
// cache, and at least 256 MiB.
func (m Machine) DRAMWant(threads int) int64 {
	t := int64(m.Threads(threads))
	l3 := m.L3
	if l3 <= 0 {
		l3 = 32 << 20
	}
	return max(8*m.LargestCache(threads), 8*l3, 2*l3*t, 256<<20)
}

// Plan fits arrays arrays of want bytes each into budget bytes: the
// bytes per array it plans (at most want, at least 4 KiB) and whether the
// budget made it smaller than want.
func Plan(want int64, arrays int, budget int64) (int64, bool) {
	per := budget / int64(max(arrays, 1))
	if want <= per {
		return want, false
	}
	return max(per, 4<<10), true
}

var (
	hostOnce sync.Once
	host     Machine
	override atomic.Pointer[Machine]
)

// Host is this host's description, read once (MemAvailable as it was at
// the first call).
func Host() Machine {
	hostOnce.Do(func() {
		host = Machine{
			L1D: int64(max(cpuid.CPU.Cache.L1D, 0)), L2: int64(max(cpuid.CPU.Cache.L2, 0)), L3: int64(max(cpuid.CPU.Cache.L3, 0)),
			Cores: runtime.NumCPU(), MemAvailable: memAvailable(),
		}
	})
	return host
}

// Current is the description in use: the one Set installed, else Host.
func Current() Machine {
	if m := override.Load(); m != nil {
		return *m
	}
	return Host()
}

// Set installs m as the description in use (tests; the CLI's
// --max-memory) and returns the function that puts the previous one
// back. Like runtime/debug.SetMemoryLimit it is process-wide: every
// phase that plans a working set afterwards plans against m.
func Set(m Machine) (restore func()) {
	prev := override.Swap(&m)
	return func() { override.Store(prev) }
}

// memAvailable reads MemAvailable from /proc/meminfo; 0 when unknown.
func memAvailable() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// IEC writes b bytes in binary units (KiB, MiB, GiB, …).
func IEC(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}

// ParseBytes parses a size such as 1GiB, 512MiB, 2GB, 1.5G or 1073741824
// (binary units for K/M/G/T with or without "iB", decimal for KB/MB/GB/TB).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult > 1<<62 {
		return 0, fmt.Errorf("%q is not a positive size (e.g. 1GiB, 512MiB, 2GB)", s)
	}
	return int64(v * mult), nil
}
