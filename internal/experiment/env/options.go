package env

import (
	"errors"
	"runtime"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// MeasureOpts are the statistics' stopping rules (see timing.MeasureOpts).
type MeasureOpts = timing.MeasureOpts

// DefaultBudget is the time budget per measurement of every command.
const DefaultBudget = time.Second

// CheckMeasure validates the budget and CI target of every command.
func CheckMeasure(budget time.Duration, target float64) error {
	if budget <= 0 {
		return Invalid("budget", budget, "must be positive")
	}
	if !(target > 0 && target < 1) {
		return Invalid("target", target, "must be in (0, 1)")
	}
	return nil
}

// ParseHost builds the Host the CPU sides run with from a SIMD level (by
// name; "": the default choice) and a worker thread count (0: GOMAXPROCS),
// refusing a count outside [0, hostsimd.MaxThreads()].
func ParseHost(level string, threads int) (hostsimd.Host, error) {
	if err := CheckThreads(threads); err != nil {
		return hostsimd.Host{}, err
	}
	h := hostsimd.Host{Threads: threads}
	if level != "" {
		lv, err := ParseLevels(level)
		if err != nil {
			return h, err
		}
		if len(lv) != 1 {
			return h, Invalid("cpu-level", level, "name one level")
		}
		h.Level, h.FixLevel = lv[0], true
	}
	return h, h.Validate()
}

// CheckThreads refuses a --threads count below 0 or above
// hostsimd.MaxThreads() (8 per logical CPU: each thread is an OS thread
// held for the rest of the process, and more only time-share the cores).
func CheckThreads(threads int) error {
	if m := hostsimd.MaxThreads(); threads < 0 || threads > m {
		return Usage(Invalid("threads", threads, "must be in [0, %d] (at most %d per logical CPU on this machine's %d; 0: GOMAXPROCS)",
			m, m/max(1, runtime.NumCPU()), runtime.NumCPU()))
	}
	return nil
}

// ParseLevels parses comma-separated host SIMD level names ("" or "all":
// every level this CPU has), refusing levels this CPU lacks.
func ParseLevels(s string) ([]hostsimd.Level, error) {
	if s == "" || s == "all" {
		return hostsimd.Available(), nil
	}
	var out []hostsimd.Level
	for _, name := range strings.Split(s, ",") {
		l, err := hostsimd.ParseLevel(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		ok := false
		for _, a := range hostsimd.Available() {
			ok = ok || a == l
		}
		if !ok {
			return nil, Invalid("cpu-level", name, "this CPU does not support it (available: %v)", hostsimd.Available())
		}
		out = append(out, l)
	}
	return out, nil
}

// WgpuNativeVersion is the version of the loaded wgpu-native library.
func WgpuNativeVersion() string { return wgpu.Version() }

// DawnVersion is the Dawn library --impl dawn loads, "VERSION (PATH)",
// or why there is none ("not installed: …").
func DawnVersion() string {
	if err := wgpu.LoadImpl(wgpu.ImplDawn); errors.Is(err, wgpu.ErrNoDawn) {
		return "not installed (scripts/setup-dawn.sh installs it; --impl dawn needs it)"
	} else if err != nil {
		return "unavailable: " + err.Error()
	}
	return wgpu.ImplVersionString(wgpu.ImplDawn) + " (" + wgpu.ImplLibraryPath(wgpu.ImplDawn) + ")"
}

// CeilingBudget is the CPU ceilings' share of --budget: one budget for
// each of their five kernels (read, write, copy, triad, FMA).
func CeilingBudget(m MeasureOpts) time.Duration {
	if m.Budget <= 0 {
		return 0
	}
	return 5 * m.Budget
}

// CheckCVWarn checks the coefficient of variation above which
// measurements are flagged as noisy (--cv-warn, MeasureOpts.WarnCV).
func CheckCVWarn(cv float64) error {
	if !(cv > 0 && cv < 10) {
		return Invalid("cv-warn", cv, "must be in (0, 10) (a fraction: 0.05 is 5%%)")
	}
	return nil
}

// ParseMaxMemory parses --max-memory, the memory budget of every phase
// (e.g. 1GiB, 512MiB, 2GB; "": the default budget, returned as 0),
// refusing a size too small to measure past the caches. Its errors are
// UsageErrors.
func ParseMaxMemory(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	b, err := machine.ParseBytes(s)
	if err != nil {
		return 0, Usage(Invalid("max-memory", s, "not a positive size (e.g. 1GiB, 512MiB, 2GB)"))
	}
	if b < machine.MinBudget {
		return 0, Usage(Invalid("max-memory", s, "below %s, too little to measure past the caches", machine.IEC(machine.MinBudget)))
	}
	return b, nil
}

// SetMaxMemory makes bytes (when positive) the memory budget every phase
// plans its working sets in, until restore is called.
func SetMaxMemory(bytes int64) (restore func()) {
	if bytes <= 0 {
		return func() {}
	}
	m := machine.Current()
	m.MaxMemory = bytes
	return machine.Set(m)
}

// SetQuickMemory makes every phase plan inside the budget of a quick look
// (--quick: at most machine.QuickCap unless --max-memory says otherwise),
// the library's own defaults and the calibration included, until restore
// is called.
func SetQuickMemory() (restore func()) {
	m := machine.Current()
	m.Quick = true
	return machine.Set(m)
}
