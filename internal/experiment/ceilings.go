package experiment

import (
	"fmt"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// cacheLevels are the cache-resident working sets the read ceilings are
// measured at besides DRAM: half the L2 and half the last-level cache
// (from cpuid; a level the CPU does not report is skipped).
func cacheLevels(dram float64) []RoofLevel {
	var out []RoofLevel
	add := func(name string, b int) {
		if b > 0 && float64(b/2) < dram {
			out = append(out, RoofLevel{Name: name, Bytes: float64(b / 2)})
		}
	}
	add("l2", cpuid.CPU.Cache.L2)
	add("llc", cpuid.CPU.Cache.L3)
	return out
}

// levelKeys are the report's Ceilings keys of a cache level's read
// ceiling and of the working set it was measured at; levelOf is the
// level a read ceiling key names, if any.
func levelKeys(level string) (read, bytes string) { return "read_gbs_" + level, "bytes_" + level }

func levelOf(readKey string) (string, bool) { return strings.CutPrefix(readKey, "read_gbs_") }

// cacheCeilings measures the read ceilings at each cache-resident working
// set on both sides (FMA peaks do not depend on the working set: the DRAM
// run's are kept) and records them as read_gbs_<level> keys.
func (e *Env) cacheCeilings(cfg RunConfig, dram Roofs, rep *report.Report) ([]RoofLevel, error) {
	dramBytes := float64(cfg.CeilingBytes)
	if dramBytes == 0 {
		dramBytes = float64(hostsimd.DefaultCeilingBytes())
	}
	levels := cacheLevels(dramBytes)
	if rep.Staircase != nil {
		// The levels the staircase found, each side at a working set
		// inside its own plateau.
		levels = stairRoofLevels(rep.Staircase)
	}
	for i := range levels {
		l := &levels[i]
		rk, bk := levelKeys(l.Name)
		gpuBytes := l.GPUBytes
		if gpuBytes == 0 && rep.Staircase == nil {
			gpuBytes = l.Bytes
		}
		if gpuBytes >= 4096 {
			// Only the read ceiling depends on the level: the read
			// designs alone (compute.MeasureReadAt).
			e.progress("gpu read ceiling at the %s working set (%s)", l.Name, fmtBytes(gpuBytes))
			gc, err := compute.MeasureReadAt(e.Device, uint64(gpuBytes), 0)
			if err != nil {
				return nil, fmt.Errorf("gpu read ceiling (%s working set): %w", l.Name, err)
			}
			gbs := gc.GBs
			if rep.Staircase != nil {
				gbs = max(gbs, plateauBest(rep.Staircase, report.SideGPU, l.Name))
			}
			l.GPU = timing.Roof{PeakGFLOPs: dram.GPU.PeakGFLOPs, BandwidthGBs: gbs}
			rep.Ceilings.GPU[rk] = gbs
			rep.Ceilings.GPU[bk] = float64(gc.Bytes)
		}
		if l.Bytes > 0 {
			e.progress("cpu ceilings at the %s working set (%s)", l.Name, fmtBytes(l.Bytes))
			before := probeState(e.Host.ThreadCount())
			cc, err := e.Host.MeasureCeilings(hostsimd.CeilingOpts{Bytes: int64(l.Bytes), Budget: ceilingBudget(e.Measure)})
			if err != nil {
				return nil, fmt.Errorf("cpu ceilings (%s working set): %w", l.Name, err)
			}
			rep.CeilingPasses = append(rep.CeilingPasses, report.CeilingPass{Key: rk, GBs: cc.ReadGBs, Bytes: float64(cc.Bytes),
				State: spanState(before, probeState(e.Host.ThreadCount())), Why: "first"})
			gbs := cc.ReadGBs
			if rep.Staircase != nil {
				gbs = max(gbs, plateauBest(rep.Staircase, report.SideCPU, l.Name))
			}
			l.CPU = timing.Roof{PeakGFLOPs: dram.CPU.PeakGFLOPs, BandwidthGBs: gbs}
			rep.Ceilings.CPU[rk] = gbs
			rep.Ceilings.CPU[bk] = l.Bytes
		}
	}
	return levels, nil
}

// CeilingCheck is the invariant that no kernel runs above 105% of the
// ceiling it is judged against: a kernel faster than its ceiling means the
// ceiling is not this machine's best. It returns one warning per row above
// it, or a line saying none is.
func CeilingCheck(rep *report.Report) (warnings []string, ok string) {
	for _, m := range rep.Measurements {
		if m.CeilingFrac > 1.05 {
			warnings = append(warnings, fmt.Sprintf("%s %s %s %s: %.0f%% of its %s ceiling, above the 105%% the invariant allows: that ceiling is not this machine's best",
				m.Workload, m.Side, m.Variant, paramLabel(m.Params), 100*m.CeilingFrac, m.Bound+"-bound"))
		}
	}
	if len(warnings) == 0 {
		ok = "ceiling check: no row runs above 105% of the ceiling of its own working set"
	}
	return warnings, ok
}

// recheckCPUReadCeilings measures again, after the kernels, each CPU read
// ceiling that a memory-bound CPU row ran above. The ceilings are measured
// before the kernels, and a virtual machine's DRAM bandwidth can move
// over seconds (docs/METHOD.md, "Ceilings"); a row above
// its ceiling means the ceiling missed the machine's best, so that
// ceiling is read again right away and the better of the two passes is
// kept, every CPU row judged against it placed again, and the summary
// says so. A row still above 105% after that is left to CeilingCheck.
// TestRecheckCPUReadCeilings checks both outcomes.
// dramBytes is the DRAM ceiling's working set (0: the default).
func recheckCPUReadCeilings(rep *report.Report, dramBytes int64, threads int, progress func(string, ...any)) ([]string, error) {
	cs := rep.Ceilings.CPU
	if cs == nil {
		return nil, nil
	}
	var keys []string
	worst := map[string]*report.Measurement{}
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		if m.Side != report.SideCPU || m.Bound != timing.BoundMemory || m.CeilingFrac <= 1 {
			continue
		}
		k := m.ReadCeilingKey()
		if k == "read_gbs" && len(rep.CeilingPasses) > 0 {
			continue // judged by host state (judgeByState)
		}
		if w, ok := worst[k]; !ok || m.CeilingFrac > w.CeilingFrac {
			if !ok {
				keys = append(keys, k)
			}
			worst[k] = m
		}
	}
	var lines []string
	for _, k := range keys {
		old := cs[k]
		var bytes int64
		if lvl, ok := levelOf(k); ok {
			_, bk := levelKeys(lvl)
			bytes = int64(cs[bk])
		} else if k == "read_gbs" {
			bytes = dramBytes
			if bytes <= 0 {
				bytes = hostsimd.DefaultCeilingBytes()
			}
		} else if k == "cache_read_gbs" {
			bytes = int64(cs["cache_read_bytes"])
		}
		if bytes <= 0 || !(old > 0) {
			continue
		}
		if progress != nil {
			progress("cpu %s ceiling again (a row ran above it)", report.ReadCeilingName(k))
		}
		// On the threads the rows ran on (host --threads), as the first
		// pass was.
		rc, err := hostsimd.MeasureRead(bytes, threads, 0)
		if err != nil {
			return lines, fmt.Errorf("cpu %s ceiling, measured again: %w", report.ReadCeilingName(k), err)
		}
		w := worst[k]
		line := fmt.Sprintf("%sCPU %s ceiling measured again after the kernels, as %s %s ran at %.0f%% of %.1f GB/s: %.1f GB/s (%s)", RecheckPrefix,
			report.ReadCeilingName(k), w.Workload, w.Variant, 100*w.CeilingFrac, old, rc.GBs, rc.Kernel)
		if rc.GBs <= old {
			lines = append(lines, line+"; the first pass stands")
			continue
		}
		cs[k] = rc.GBs
		lines = append(lines, line+"; the rows are judged against the better pass (this machine's bandwidth moved during the run)")
		roof := timing.Roof{PeakGFLOPs: cs["fma_gflops"], BandwidthGBs: rc.GBs}
		for i := range rep.Measurements {
			m := &rep.Measurements[i]
			if m.Side != report.SideCPU || m.ReadCeilingKey() != k || m.Bound == "" {
				continue
			}
			place(m, roof, m.Time().Median)
		}
	}
	return lines, nil
}

// RecheckPrefix starts the summary lines of recheckCPUReadCeilings;
// HostSummary keeps them.
const RecheckPrefix = "ceiling recheck: "
