package kernel

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// Config describes a user's WGSL compute shader to profile
// (wgpu-prof kernel).
type Config struct {
	File    string // shown in the report; the source is Source
	Source  string
	Entry   string // "" : the only @compute entry point
	Buffers []compute.BufferSpec
	// Dispatch holds the workgroup counts X[, Y, Z] as integer expressions
	// that may name the shader's override constants ("4194304/WG").
	Dispatch  []string
	Constants map[string]float64
	// Bytes and Flops are what one dispatch moves and computes; Bytes 0:
	// every bound buffer read once and every read_write one written once.
	Bytes, Flops float64
	// SweepName, SweepValues sweep one override constant.
	SweepName   string
	SweepValues []float64
	// NoCheck skips the repeatability check (for kernels whose outputs
	// legitimately vary between runs, e.g. float atomics).
	NoCheck      bool
	CeilingBytes uint64
	Seed         uint64
	// LoopIterations bounds the loop iterations of one invocation
	// (compute.UserKernelOptions.LoopIterations); 0: not declared.
	LoopIterations uint64
}

// kernelPoint is one configuration of a kernel run: its constants and
// evaluated dispatch.
type kernelPoint struct {
	consts   wgpu.Constants
	dispatch [3]uint32
	label    string
}

// points checks the configuration against the shader and evaluates the
// dispatch of every sweep point, before anything is measured.
func (c Config) points() ([]kernelPoint, *wgpu.WGSLModuleInfo, error) {
	info, err := wgpu.ScanWGSL(c.Source)
	if err != nil {
		return nil, nil, err
	}
	if len(c.Dispatch) == 0 || len(c.Dispatch) > 3 {
		return nil, nil, env.Invalid("dispatch", "", "want X[,Y[,Z]], got %d values", len(c.Dispatch))
	}
	values := []float64{0}
	if c.SweepName != "" {
		if _, ok := info.Overrides[c.SweepName]; !ok {
			return nil, nil, &env.ParamError{Name: "sweep", Value: c.SweepName, Limit: "the shader has no override constant " + c.SweepName}
		}
		if _, clash := c.Constants[c.SweepName]; clash {
			return nil, nil, &env.ParamError{Name: "sweep", Value: c.SweepName, Limit: "also given as a constant: name it once"}
		}
		if len(c.SweepValues) == 0 {
			return nil, nil, &env.ParamError{Name: "sweep", Value: c.SweepName, Limit: "no values"}
		}
		values = c.SweepValues
	}
	var out []kernelPoint
	for _, v := range values {
		kp := kernelPoint{consts: wgpu.Constants{}}
		set := map[string]int64{}
		for k, x := range c.Constants {
			kp.consts[k] = x
			if x == float64(int64(x)) {
				set[k] = int64(x)
			}
		}
		if c.SweepName != "" {
			kp.consts[c.SweepName] = v
			set[c.SweepName] = int64(v)
			kp.label = fmt.Sprintf("%s=%s", c.SweepName, strconv.FormatFloat(v, 'g', -1, 64))
		}
		for i := range kp.dispatch {
			kp.dispatch[i] = 1
		}
		for i, expr := range c.Dispatch {
			n, err := info.EvalInt(expr, set)
			if err != nil {
				return nil, nil, &env.ParamError{Name: "dispatch", Value: strings.Join(c.Dispatch, ","), Limit: err.Error()}
			}
			if n < 1 || n > 1<<32-1 {
				return nil, nil, &env.ParamError{Name: "dispatch", Value: strings.Join(c.Dispatch, ","), Limit: fmt.Sprintf("%c = %d at %s: must be ≥ 1", "XYZ"[i], n, kp.label)}
			}
			kp.dispatch[i] = uint32(n)
		}
		out = append(out, kp)
	}
	return out, info, nil
}

// Run profiles a user's compute shader: the GPU ceilings of this run,
// then each configuration (one, or one per swept constant value) checked
// for repeatable, finite output, timed, and placed against the ceilings.
func Run(e *env.Env, cfg Config, rep *report.Report) error {
	pts, _, err := cfg.points()
	if err != nil {
		return err
	}
	// Build (and so compile and check) every configuration before the
	// ceilings spend any time.
	uks, err := buildAll(e, cfg, pts)
	defer func() {
		for _, k := range uks {
			if k != nil {
				k.Release()
			}
		}
	}()
	if err != nil {
		return err
	}
	e.Progressf("gpu ceilings (read, write, copy, FMA intensities)")
	gc, err := compute.MeasureCeilings(e.Device, compute.CeilingOptions{Bytes: cfg.CeilingBytes})
	if err != nil {
		return fmt.Errorf("gpu ceilings: %w", err)
	}
	rep.Ceilings.GPU = map[string]float64{"read_gbs": gc.ReadGBs, "write_gbs": gc.WriteGBs, "copy_gbs": gc.CopyGBs, "fma_gflops": gc.PeakGFLOPs}
	rep.Warnings = append(rep.Warnings, gc.FailedLines()...)

	name := "kernel:" + filepath.Base(cfg.File)
	sw := report.Sweep{Name: cfg.SweepName, Workload: name, Side: report.SideGPU}
	bestT := 0.0
	for i, k := range uks {
		pt := pts[i]
		m, err := measurePoint(e, cfg, name, k, pt, gc, rep)
		if err != nil {
			return err
		}
		rep.Measurements = append(rep.Measurements, m)
		t := m.Time().Median
		if cfg.SweepName != "" {
			sw.Points = append(sw.Points, report.SweepPoint{Label: pt.label, Params: m.Params, Time: m.Time(), GBs: m.GBs})
			if bestT == 0 || t < bestT {
				bestT, sw.Best = t, pt.label
			}
		}
		rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s: %s per dispatch, %s = %.0f%% of the %s GPU read ceiling measured in this run",
			name, variantLabel(pt.label), timing.FormatSeconds(t), formatRate(m.GBs), 100*m.GBs/gc.ReadGBs, formatRate(gc.ReadGBs)))
	}
	if cfg.SweepName != "" {
		rep.Sweeps = append(rep.Sweeps, sw)
		rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s sweep: best %s at %s", name, cfg.SweepName, sw.Best, timing.FormatSeconds(bestT)))
	}
	return nil
}

// buildAll builds the kernel of every configuration; on an error the
// kernels built so far are returned with it, for the caller to release.
func buildAll(e *env.Env, cfg Config, pts []kernelPoint) ([]*compute.UserKernel, error) {
	uks := make([]*compute.UserKernel, len(pts))
	for i, pt := range pts {
		var err error
		uks[i], err = compute.NewUserKernel(e.Device, compute.UserKernelOptions{
			Label: filepath.Base(cfg.File), Source: cfg.Source, Entry: cfg.Entry, Buffers: cfg.Buffers,
			Dispatch: pt.dispatch, Constants: pt.consts, Seed: cfg.Seed, LoopIterations: cfg.LoopIterations,
		})
		if err != nil {
			return uks, err
		}
	}
	return uks, nil
}

// measurePoint measures one configuration's kernel k, checked for
// repeatable, finite output before and after timing, and places it
// against the GPU ceilings gc.
func measurePoint(e *env.Env, cfg Config, name string, k *compute.UserKernel, pt kernelPoint, gc compute.Ceilings, rep *report.Report) (report.Measurement, error) {
	bytes, estimated := cfg.Bytes, false
	if bytes == 0 {
		bytes, estimated = k.DeclaredBytes(), true
	}
	params := []report.Param{experiment.ParamOf("entry", k.Entry()), experiment.ParamOf("dispatch", fmt.Sprintf("%d,%d,%d", pt.dispatch[0], pt.dispatch[1], pt.dispatch[2]))}
	for _, c := range sortedConsts(pt.consts) {
		params = append(params, experiment.ParamOf(c, pt.consts[c]))
	}
	e.Progressf("gpu  %s %s", name, env.ParamLabel(params))
	side := &userSide{e: e, name: name, k: k, noCheck: cfg.NoCheck}
	res, err := experiment.MeasureSide("gpu "+name, side, e.Measure)
	if err != nil {
		return report.Measurement{}, err
	}
	roofs := experiment.Roofs{GPU: timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs}}
	m := experiment.Measurement(name, report.SideGPU, variantLabel(pt.label), params, res, bytes, cfg.Flops, roofs)
	switch {
	case cfg.NoCheck:
		m.Verified = false
		m.Warnings = append(m.Warnings, "not verified (--no-check): a user kernel has no reference, and the repeatability check was skipped")
	case k.LoopRisk != "":
		// Repeatable, but a loop cut by the driver is repeatable too.
		m.Verified = false
		m.Warnings = append(m.Warnings, "not verified: "+k.LoopRisk+" (declare the bound with --loop-iterations)")
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s %s: not verified: the adapter silently ends loops past its loop budget and the shader's loops have no declared bound (--loop-iterations)", name, variantLabel(pt.label)))
	default:
		m.Warnings = append(m.Warnings, "user kernel: verified as repeatable (bit-identical read_write buffers from identical inputs, twice, before and after timing) and finite; there is no reference result")
	}
	if estimated {
		m.Warnings = append(m.Warnings, fmt.Sprintf("bytes estimated as %.0f (each bound buffer read once, each read_write one also written once); pass --bytes for the kernel's real traffic", bytes))
	}
	return m, nil
}

func variantLabel(l string) string {
	if l == "" {
		return "user"
	}
	return l
}

func formatRate(gbs float64) string {
	if gbs >= 1000 {
		return fmt.Sprintf("%.2f TB/s", gbs/1000)
	}
	if gbs >= 1 {
		return fmt.Sprintf("%.1f GB/s", gbs)
	}
	return fmt.Sprintf("%.1f MB/s", gbs*1000)
}

func sortedConsts(c wgpu.Constants) []string {
	out := make([]string, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseBufferSpec parses NAME=TYPE:COUNT[:INIT] (wgpu-prof kernel
// --buffer).
func ParseBufferSpec(s string) (compute.BufferSpec, error) {
	bad := func(why string) (compute.BufferSpec, error) {
		return compute.BufferSpec{}, env.Invalid("buffer", s, "%s (want NAME=TYPE:COUNT[:INIT], e.g. x=f32:1048576:rand)", why)
	}
	name, rest, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return bad("no NAME=")
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return bad("want TYPE:COUNT or TYPE:COUNT:INIT after =")
	}
	spec := compute.BufferSpec{Name: name, Type: strings.TrimSpace(parts[0]), Init: "zero"}
	switch spec.Type {
	case "f32", "u32", "i32", "f16":
	default:
		return bad(fmt.Sprintf("type %q: want f32, u32, i32 or f16", spec.Type))
	}
	n, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
	if err != nil || n <= 0 || n > 1<<40 {
		return bad(fmt.Sprintf("count %q: want a positive integer", parts[1]))
	}
	spec.Count = int(n)
	if len(parts) == 3 {
		spec.Init = strings.TrimSpace(parts[2])
		switch spec.Init {
		case "zero", "rand", "iota":
		default:
			return bad(fmt.Sprintf("init %q: want zero, rand or iota", spec.Init))
		}
	}
	return spec, nil
}

// CheckConfig checks what can be checked before a device opens:
// the shader's entry points and constants, and every dispatch expression.
func CheckConfig(c Config) error {
	_, info, err := c.points()
	if err != nil {
		return err
	}
	if c.Entry != "" {
		found := false
		for _, e := range info.Entries {
			found = found || e == c.Entry
		}
		if !found {
			return &env.ParamError{Name: "entry", Value: c.Entry, Limit: fmt.Sprintf("the shader has no @compute entry point %s (have %s)", c.Entry, strings.Join(info.Entries, ", "))}
		}
	} else if len(info.Entries) != 1 {
		return &env.ParamError{Name: "entry", Limit: fmt.Sprintf("the shader has %d @compute entry points (%s): name one", len(info.Entries), strings.Join(info.Entries, ", "))}
	}
	for k := range c.Constants {
		if _, ok := info.Overrides[k]; !ok {
			return &env.ParamError{Name: "const", Value: k, Limit: "the shader has no override constant " + k}
		}
	}
	return nil
}

// userSide is a user kernel as a workload.Side: its check is the kernel's
// repeatable, finite output (none under --no-check); the kernel is closed
// by its owner.
type userSide struct {
	e       *env.Env
	name    string
	k       *compute.UserKernel
	noCheck bool
}

// Poison does nothing: the kernel checks its own output.
func (u *userSide) Poison() {}

// Run launches the kernel once.
func (u *userSide) Run() (timing.Sample, error) {
	start := clock.Now()
	t, err := u.k.Run(u.e.Timer)
	return u.e.GPUSample(u.name, start, t, err)
}

// Verify checks the output unless checks are off.
func (u *userSide) Verify() error {
	if u.noCheck {
		return nil
	}
	return u.k.Check()
}

// Close does nothing: the kernel outlives the measurement.
func (u *userSide) Close() {}
