package experiment

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ErrWrongResult marks a result that failed verification: its timings are
// never reported.
var ErrWrongResult = fmt.Errorf("result failed verification")

// VerifiedRun poisons s's outputs, runs it once and verifies them; errors
// are prefixed with what (a wrong result wraps ErrWrongResult).
func VerifiedRun(what string, s workload.Side) (timing.Sample, error) {
	s.Poison()
	smp, err := s.Run()
	if err != nil {
		return smp, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.Verify(); err != nil {
		return smp, fmt.Errorf("%s: %w: %v", what, ErrWrongResult, err)
	}
	return smp, nil
}

// Stoppable is s with every call preceded by check: once check returns an
// error, the call returns it instead of running (a measurement in progress
// ends at its next call).
func Stoppable(s workload.Side, check func(phase string) error) workload.Side {
	return stoppable{Side: s, check: check}
}

// stoppable is a Side whose Run first asks check.
type stoppable struct {
	workload.Side
	check func(phase string) error
}

// Run returns check's error, or runs the side.
func (s stoppable) Run() (timing.Sample, error) {
	if err := s.check("during a measurement"); err != nil {
		return timing.Sample{}, err
	}
	return s.Side.Run()
}

// MeasureSide verifies a poisoned run, measures, then verifies the last
// measured run's output again: no timing of a wrong result is reported.
func MeasureSide(what string, s workload.Side, opts timing.MeasureOpts) (timing.Result, error) {
	if _, err := VerifiedRun(what, s); err != nil {
		return timing.Result{}, err
	}
	res, err := timing.Measure(opts, s.Run)
	if err != nil {
		return timing.Result{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.Verify(); err != nil {
		return timing.Result{}, fmt.Errorf("%s (after timing): %w: %v", what, ErrWrongResult, err)
	}
	return res, nil
}

// Ceilings of both sides, as roofs.
type Roofs struct {
	GPU, CPU timing.Roof
	// Key names the DRAM roofs' read ceiling in the report's Ceilings
	// ("": read_gbs).
	Key string
	// GPUInt8, CPUInt8 are each side's integer dot-product peak (GOP/s,
	// report.Int8PeakKey; 0: not measured): an int8 row's ops are judged
	// against it instead of the FMA peak.
	GPUInt8, CPUInt8 float64
	// Levels are roofs measured at smaller working sets (cache-resident),
	// ascending by Bytes (half of the cache each is named after); a
	// kernel whose working set is at most levelReach × a level's Bytes is
	// judged against that level's roof, else against GPU/CPU (DRAM).
	Levels []RoofLevel
}

// RoofLevel is the pair of roofs measured at one working-set size.
type RoofLevel struct {
	Name     string
	Bytes    float64
	GPU, CPU timing.Roof
	// GPUBytes is the GPU ceiling's working set when it differs from
	// Bytes (levels from the staircase: each side's own plateau), 0 for
	// Bytes. CPUReach and GPUReach, when positive, are the working sets
	// each side's level judges (below the next plateau's start, from the
	// staircase); 0 means levelReach × Bytes on the GPU side and the
	// capacity on the CPU side.
	GPUBytes           float64
	CPUReach, GPUReach float64
	// CPUCap is the capacity cpuid reports for the level as the CPU side's
	// threads see it (0: not reported): the CPU side's reach never passes
	// it (machine.ReachOf, the one level rule).
	CPUCap float64
}

// Reach is the largest working set side's roof of l judges: on the CPU
// side the one level rule (machine.ReachOf: the measured reach, capped by
// the capacity cpuid reports), on the GPU side the measured reach.
func (l RoofLevel) Reach(side string) float64 {
	if side == report.SideGPU {
		if l.GPUReach > 0 {
			return l.GPUReach
		}
		return levelReach * l.Bytes
	}
	if l.CPUCap > 0 || l.CPUReach > 0 {
		return machine.ReachOf(l.CPUCap, l.CPUReach)
	}
	return levelReach * l.Bytes
}

// levelReach: a level's roof (measured at half its cache) judges working
// sets up to twice the cache. Read bandwidth does not grow with the working
// set, so for a set larger than the level's own it is still an upper bound;
// and a set that overflows the cache by less than that still hits it for a
// good part of its reads, so judged against DRAM it would run above 100%
// (TestRoofsForBytes; docs/METHOD.md, "Ceilings").
const levelReach = 4

// ForBytes returns the roof of side for a kernel moving bytes, the
// level's name ("dram" for the largest) and the key of its read ceiling in
// the report's Ceilings.
func (r Roofs) ForBytes(side string, bytes float64) (timing.Roof, string, string) {
	for _, l := range r.Levels {
		if bytes <= l.Reach(side) {
			roof := l.CPU
			if side == report.SideGPU {
				roof = l.GPU
			}
			if roof.BandwidthGBs > 0 {
				rk, _ := LevelKeys(l.Name)
				return roof, l.Name, rk
			}
		}
	}
	key := r.Key
	if key == "" {
		key = "read_gbs"
	}
	return r.of(side), "dram", key
}

// int8Peak is side's integer dot-product peak (0: not measured).
func (r Roofs) int8Peak(side string) float64 {
	if side == report.SideGPU {
		return r.GPUInt8
	}
	return r.CPUInt8
}

// PeakFor is the compute peak row m is judged against: its side's int8
// dot-product peak in cs for an int8 row where measured, else fma.
func PeakFor(cs map[string]float64, m *report.Measurement, fma float64) float64 {
	if v := cs[report.Int8PeakKey]; v > 0 && m.PeakKey() == report.Int8PeakKey {
		return v
	}
	return fma
}

func (r Roofs) of(side string) timing.Roof {
	if side == report.SideGPU {
		return r.GPU
	}
	return r.CPU
}

// Measurement fills a report.Measurement from a timing.Result.
func Measurement(workload, side, variant string, params []report.Param, res timing.Result, bytes, flops float64, roofs Roofs) report.Measurement {
	m := report.Measurement{
		Workload: workload, Side: side, Variant: variant, Params: params,
		Kernel: res.Kernel, EndToEnd: res.Host, Bytes: bytes, Flops: flops, Verified: true,
		Warnings: append([]string(nil), res.Warnings...),
	}
	for _, s := range res.Samples {
		m.Samples = append(m.Samples, s.Host.Seconds())
		if s.HasKernel && m.Kernel != nil {
			m.KernelSamples = append(m.KernelSamples, s.Kernel.Seconds())
		}
	}
	t := m.Time().Median
	if t > 0 {
		m.GBs = bytes / t / 1e9
		m.GFLOPs = flops / t / 1e9
		roof, level, key := roofs.ForBytes(side, bytes)
		if i8 := roofs.int8Peak(side); i8 > 0 && m.PeakKey() == report.Int8PeakKey {
			roof.PeakGFLOPs, m.ComputeCeiling = i8, report.Int8PeakKey
		}
		if Place(&m, roof, t) {
			if key != "read_gbs" {
				m.ReadCeiling = key
			}
			if len(roofs.Levels) > 0 && level != "dram" {
				m.Warnings = append(m.Warnings, fmt.Sprintf("judged against the %s ceilings (working set %.3g MB)", level, bytes/1e6))
			}
		}
	}
	return m
}

// Place sets m's bound and fraction of the ceiling from its rate at t
// seconds a call on roof; false when either is unusable.
func Place(m *report.Measurement, roof timing.Roof, t float64) bool {
	pl, err := timing.Place(roof, timing.Point{Flops: m.Flops, Bytes: m.Bytes, Seconds: t})
	if err != nil {
		return false
	}
	m.CeilingFrac, m.Bound = pl.Efficiency, pl.Bound
	return true
}

func ParamOf(key string, v any) report.Param { return report.Param{Key: key, Value: fmt.Sprint(v)} }

// CpuVariant names the host kernels h runs for a row with params: SIMD
// level and threads; for an f16 or int8 row the level its stored-precision
// kernels run at (hostsimd.Host.StoredLevels).
func CpuVariant(h hostsimd.Host, params []report.Param) string {
	l := h.ActiveLevel()
	i8, h16 := h.StoredLevels()
	switch (&report.Measurement{Params: params}).Precision() {
	case workload.PrecisionInt8:
		l = i8
	case workload.PrecisionF16:
		l = h16
	}
	return fmt.Sprintf("%s-t%d", l, h.ThreadCount())
}

// Prepare generates (or reads) w's data at c, announced on the progress
// writer first: an index build or a large graph can take a minute, and
// the progress display says what runs meanwhile.
func Prepare(e *env.Env, w *workload.Descriptor, c workload.Config) (*workload.Prepared, error) {
	e.Progressf("data %s: generating or reading the inputs (and their float64 reference)", w.Name)
	return w.Prepare(c)
}

// LevelKeys are the report's Ceilings keys of a cache level's read
// ceiling and of the working set it was measured at; levelOf is the
// level a read ceiling key names, if any.
func LevelKeys(level string) (read, bytes string) { return "read_gbs_" + level, "bytes_" + level }

func LevelOf(readKey string) (string, bool) { return strings.CutPrefix(readKey, "read_gbs_") }

// FmtBytes formats a byte count in KiB, MiB or GiB.
func FmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.3g KiB", b/(1<<10))
}
