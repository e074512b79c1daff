package wgpu

import "time"

// Hooks into the WGSL scanner for the external test package.

// ScannedEntry is one @compute entry point found by the scanner.
type ScannedEntry struct {
	Name          string
	WorkgroupVars []string // workgroup variables the entry can reach, sorted
}

// ScanEntries lists the @compute entry points of src.
func ScanEntries(src string) []ScannedEntry {
	var out []ScannedEntry
	for _, e := range scanWGSL(src).entries {
		out = append(out, ScannedEntry{Name: e.name, WorkgroupVars: e.wgVarSet})
	}
	return out
}

// ScanOverrides maps each override of src to its default expression ("" if
// none).
func ScanOverrides(src string) map[string]string { return scanWGSL(src).overrides }

// PredictLimits is the host-side limit check CreatePipeline makes: why is
// non-empty when entry with the overrides in set exceeds lim; known is
// false when the expressions could not be evaluated.
func PredictLimits(lim Limits, src, entry string, set map[string]int64) (why string, known bool) {
	return scanWGSL(src).exceeds(lim, entry, set)
}

// TicksToDuration is ticksToDuration, for the clock-conversion test.
var TicksToDuration = ticksToDuration

// PassTimes is passTimes, for the tick-pair test.
var PassTimes = passTimes

// SetWaitTimeout changes d's wait timeout between calls, so a test can
// time work with a generous timeout first and then set the one it is
// about relative to that.
func SetWaitTimeout(d *Device, t time.Duration) { d.timeout = t }

// SubmitCount is how many queue submissions the binding has made.
func SubmitCount() uint64 { return submitCount() }
