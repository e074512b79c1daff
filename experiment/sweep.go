package experiment

import (
	"errors"
	"fmt"
	"github.com/wgpu-prof/wgpu-prof/gpu"
	"github.com/wgpu-prof/wgpu-prof/kernels"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/workload"
)

// maxSweepExtension bounds how many points a sweep adds past an edge
// winner (each doubles or halves the knob).
const maxSweepExtension = 4

// Sweep times the GPU side of kernel at each workgroup size (tiles nil) or
// each tile size, at the workload's default size. Configurations the
// adapter rejects are listed with the reason; a wrong result is an error,
// never a point. The winner is reported with its margin over the runner-up
// and whether the difference is significant (timing.Compare: disjoint
// 95% CIs; else "tie"). A winner at an edge of the range extends the sweep
// (halving down to the subgroup size, doubling up to the adapter's limit)
// until it is inside the range or no further point can run; a winner left
// at an edge is flagged. Points where part of a workgroup or tile idles
// carry the workload's explanation (Descriptor.Idle). METHOD.md, "Sweeps".
func (e *Env) Sweep(kernel string, cfg RunConfig, sizes, tiles []int, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	knob, values := "wg", sizes
	if len(tiles) > 0 {
		knob, values = "tile", tiles
	}
	if !w.Has(knob) {
		var have []string
		for _, d := range workload.All() {
			if d.Has(knob) {
				have = append(have, d.Name)
			}
		}
		return fmt.Errorf("kernel %q has no %s knob to sweep; the %s sweep applies to %v", kernel, knob, knob, have)
	}
	if len(values) == 0 {
		return fmt.Errorf("sweep %s: no %s values to sweep", kernel, knob)
	}
	pr, err := w.Prepare(cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	s := report.Sweep{Name: "workgroup size", Workload: kernel, Side: report.SideGPU}
	if knob == "tile" {
		s.Name = "tile size"
	}
	knobsOf := func(v int) workload.Knobs {
		k := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
		if knob == "tile" {
			k.Tile = v
		} else {
			k.Workgroup = v
		}
		return k
	}
	labelOf := func(v int) string {
		if knob == "tile" {
			return fmt.Sprintf("tile=%d (wg=%d)", v, (v/4)*(v/4))
		}
		return fmt.Sprintf("wg=%d", v)
	}
	check := e.Device.CheckWorkgroup
	if knob == "tile" {
		check = func(t int) error { return kernels.CheckTile(e.Device, t) }
	}
	// The smallest knob value an extension goes down to.
	floor := 4
	if knob == "wg" {
		floor = max(1, int(e.Device.Info.SubgroupMin))
	}
	type point struct {
		v   int
		sum timing.Summary
	}
	var pts []point
	done := map[int]bool{}
	// measure runs value v; ok false when the adapter refused it.
	measure := func(v int) (ok bool, err error) {
		done[v] = true
		label := labelOf(v)
		if err := check(v); err != nil {
			s.Rejected = append(s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
			return false, nil
		}
		c := pr.At(pr.Size, knobsOf(v))
		c.CPU = nil
		ms, err := e.measureCase(c, Roofs{})
		if err != nil {
			if errors.Is(err, ErrWrongResult) {
				return false, err
			}
			var ge *gpu.GPUError
			if errors.Is(err, gpu.ErrLimit) || errors.As(err, &ge) {
				s.Rejected = append(s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
				return false, nil
			}
			return false, err
		}
		m := ms[0]
		t := m.Time()
		sp := report.SweepPoint{Label: label, Params: append(m.Params, p("variant", m.Variant)), Time: t, GBs: m.GBs}
		if w.Idle != nil {
			if msg := w.Idle(cfg.Config, knobsOf(v)); msg != "" {
				sp.Params = append(sp.Params, p("idle", msg))
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s sweep %s: %s", kernel, label, msg))
			}
		}
		if t.N < timing.DefaultMinRuns {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s sweep %s: only %d samples (< %d)", kernel, label, t.N, timing.DefaultMinRuns))
		}
		s.Points = append(s.Points, sp)
		rep.Measurements = append(rep.Measurements, m)
		pts = append(pts, point{v, t})
		return true, nil
	}
	for _, v := range values {
		if done[v] {
			continue
		}
		if _, err := measure(v); err != nil {
			return err
		}
	}
	if len(pts) == 0 {
		return fmt.Errorf("sweep %s: the adapter rejected every configuration: %v", kernel, s.Rejected)
	}
	best := func() point {
		b := pts[0]
		for _, x := range pts[1:] {
			if x.sum.Median < b.sum.Median {
				b = x
			}
		}
		return b
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	var notes []string
	for i := 0; i < maxSweepExtension; i++ {
		b := best()
		var next int
		switch {
		case b.v == lo && lo/2 >= floor && !done[lo/2]:
			next = lo / 2
			lo = next
		case b.v == hi && !done[hi*2] && check(hi*2) == nil:
			next = hi * 2
			hi = next
		default:
			i = maxSweepExtension
			continue
		}
		notes = append(notes, fmt.Sprintf("winner %s at the edge of the range: extended to %s", labelOf(b.v), labelOf(next)))
		if ok, err := measure(next); err != nil {
			return err
		} else if !ok {
			break
		}
	}
	b := best()
	var runner *point
	for i := range pts {
		if pts[i].v != b.v && (runner == nil || pts[i].sum.Median < runner.sum.Median) {
			runner = &pts[i]
		}
	}
	s.Best = labelOf(b.v)
	verdict := fmt.Sprintf("best %s at %s", s.Best, timing.FormatSeconds(b.sum.Median))
	if runner != nil {
		cmp := timing.Compare(b.sum, runner.sum)
		if cmp.Significant {
			verdict += fmt.Sprintf(", beats the runner-up %s (%s) %s", labelOf(runner.v), timing.FormatSeconds(runner.sum.Median), cmp)
		} else {
			var tied []string
			for _, x := range pts {
				if x.v != b.v && !timing.Compare(b.sum, x.sum).Significant {
					tied = append(tied, labelOf(x.v))
				}
			}
			verdict = fmt.Sprintf("tie: the fastest, %s (%s), is not significantly faster than %s (95%% CIs overlap; the runner-up %s is %.1f%% slower)",
				s.Best, timing.FormatSeconds(b.sum.Median), strings.Join(tied, ", "), labelOf(runner.v), 100*cmp.Margin)
		}
	}
	if b.v == lo && lo > 1 {
		reason := "the sweep cannot go lower"
		if lo/2 < floor {
			reason = fmt.Sprintf("the next value %d is below the floor %d", lo/2, floor)
		}
		notes = append(notes, fmt.Sprintf("winner %s is at the low edge of the range (%s): a smaller value may be faster still", s.Best, reason))
	}
	if b.v == hi {
		notes = append(notes, fmt.Sprintf("winner %s is at the high edge of the range (the next value %d does not run here): a larger value may be faster still", s.Best, hi*2))
	}
	sort.Slice(s.Points, func(i, j int) bool { return sweepValue(s.Points[i].Label) < sweepValue(s.Points[j].Label) })
	s.Verdict, s.Notes = verdict, notes
	rep.Sweeps = append(rep.Sweeps, s)
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s sweep: %s", kernel, s.Name, verdict))
	for _, n := range notes {
		rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s sweep: %s", kernel, s.Name, n))
	}
	return nil
}

// sweepValue is the knob value of a sweep label ("wg=64", "tile=32 (…)").
func sweepValue(label string) int {
	var v int
	if i := strings.IndexByte(label, '='); i >= 0 {
		fmt.Sscanf(label[i+1:], "%d", &v)
	}
	return v
}

// MemCompute runs the memory-vs-compute experiment of docs/METHOD.md on
// the GPU: A (reads only), B (arithmetic only), C (the full kernel), each
// verified, then classifies.
func (e *Env) MemCompute(kernel string, cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	if w.MemCompute == "" {
		var have []string
		for _, d := range workload.All() {
			if d.MemCompute != "" {
				have = append(have, d.Name)
			}
		}
		return fmt.Errorf("experiment memory-compute: kernel %q has no memory-vs-compute shaders (have %v)", kernel, have)
	}
	wg := cfg.Workgroup
	if wg == 0 {
		wg = kernels.DefaultWorkgroup
	}
	v := workload.MemComputeData(cfg.Config)
	mc, err := kernels.NewMemCompute(e.Device, w.MemCompute, v, cfg.Dim, wg)
	if err != nil {
		return err
	}
	defer mc.Release()
	var sums [3]timing.Summary
	for i, v := range []string{kernels.VariantMemory, kernels.VariantCompute, kernels.VariantFull} {
		e.progress("gpu  memory-compute %s %s", kernel, v)
		// Run verifies every output itself (kernels.ErrVerify on mismatch).
		res, err := timing.Measure(e.Measure, func() (timing.Sample, error) {
			return workload.SampleOf(mc.Run(v, e.Timer))
		})
		if err != nil {
			return fmt.Errorf("memory-compute %s variant %s: %w", kernel, v, err)
		}
		sums[i] = res.Host
		if res.Kernel != nil {
			sums[i] = *res.Kernel
		}
	}
	cl := timing.ClassifyMemCompute(sums[0], sums[1], sums[2])
	rep.Experiments = append(rep.Experiments, report.Experiment{
		Workload: kernel, Side: report.SideGPU, Params: []report.Param{p("d", cfg.Dim), p("n", cfg.N), p("wg", wg)},
		A: sums[0], B: sums[1], C: sums[2], Classification: cl,
	})
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s: %s — %s", kernel, cl.Kind, cl.Explanation))
	return nil
}

// MemComputeWorkloads names the workloads that have a memory-vs-compute
// shader family.
func MemComputeWorkloads() []string {
	var out []string
	for _, d := range workload.All() {
		if d.MemCompute != "" {
			out = append(out, d.Name)
		}
	}
	return out
}
