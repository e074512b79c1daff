package experiment

import (
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// MeasureOpts are the statistics' stopping rules (see timing.MeasureOpts).
type MeasureOpts = timing.MeasureOpts

// DefaultBudget is the time budget per measurement of every command.
const DefaultBudget = time.Second

// CheckMeasure validates the budget and CI target of every command.
func CheckMeasure(budget time.Duration, target float64) error {
	if budget <= 0 {
		return invalid("budget", budget, "must be positive")
	}
	if !(target > 0 && target < 1) {
		return invalid("target", target, "must be in (0, 1)")
	}
	return nil
}

// SetCPU selects the host SIMD level (by name; "" keeps the best
// available) and worker threads (0 keeps GOMAXPROCS) for the CPU sides.
func SetCPU(level string, threads int) error {
	if threads < 0 {
		return invalid("threads", threads, "must be ≥ 0")
	}
	if level != "" {
		lv, err := ParseLevels(level)
		if err != nil {
			return err
		}
		if len(lv) != 1 {
			return invalid("cpu-level", level, "name one level")
		}
		if err := hostsimd.SetLevel(lv[0]); err != nil {
			return err
		}
	}
	if threads > 0 {
		hostsimd.SetThreads(threads)
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
			return nil, invalid("cpu-level", name, "this CPU does not support it (available: %v)", hostsimd.Available())
		}
		out = append(out, l)
	}
	return out, nil
}

// WgpuNativeVersion is the version of the loaded wgpu-native library.
func WgpuNativeVersion() string { return wgpu.Version() }

// ceilingBudget is the CPU ceilings' share of --budget: one budget for
// each of their five kernels (read, write, copy, triad, FMA).
func ceilingBudget(m MeasureOpts) time.Duration {
	if m.Budget <= 0 {
		return 0
	}
	return 5 * m.Budget
}

// SetCVWarn sets the coefficient of variation above which measurements
// are flagged as noisy (--cv-warn; default 0.05).
func SetCVWarn(cv float64) error {
	if !(cv > 0 && cv < 10) {
		return invalid("cv-warn", cv, "must be in (0, 10) (a fraction: 0.05 is 5%%)")
	}
	timing.WarnCV = cv
	return nil
}
