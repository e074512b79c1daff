package sweeps

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
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
// carry the workload's explanation (Descriptor.Idle). docs/SWEEPS.md, "Sweeps".
func Sweep(e *env.Env, kernel string, cfg experiment.RunConfig, sizes, tiles []int, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	knob, values, err := knobValues(w, sizes, tiles)
	if err != nil {
		return err
	}
	fits, err := fitting(e, knob, values)
	if err != nil {
		return err
	}
	pr, err := experiment.Prepare(e, w, cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	design, why, err := designOf(e, w, pr, cfg, rep)
	if err != nil {
		return err
	}
	runDesign := ""
	if !designHas(pr, design, knob) {
		with := designsWith(w, pr, knob)
		if cfg.Variant != "" || len(with) == 0 {
			return env.Usage(fmt.Errorf("sweep %s: the design %s (%s) has no %s knob; pass --variant with a design that has one (%s)",
				kernel, design, why, knob, strings.Join(with, ", ")))
		}
		// The design run uses lacks the knob: sweep the best family that
		// has it, and say how its best compares with run's design.
		runDesign = design
		if design, why, err = bestWith(e, w, pr, cfg, knob, with, fits[0]); err != nil {
			return err
		}
	}
	ks := &knobSweep{e: e, w: w, cfg: cfg, pr: pr, rep: rep, knob: knob, design: design, done: map[int]bool{},
		s: report.Sweep{Name: "workgroup size", Workload: kernel, Side: report.SideGPU, Design: design, DesignWhy: why}}
	if knob == "tile" {
		ks.s.Name = "tile size"
	}
	if err := ks.run(values, why); err != nil {
		return err
	}
	if runDesign != "" {
		return ks.compareWith(runDesign)
	}
	return nil
}

// knobValues picks the knob to sweep (the tile when tiles are given,
// else the workgroup size) and its values, refusing a workload without
// that knob.
func knobValues(w *workload.Descriptor, sizes, tiles []int) (string, []int, error) {
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
		return "", nil, env.Usage(fmt.Errorf("kernel %q has no %s knob to sweep; the %s sweep applies to %v", w.Name, knob, knob, have))
	}
	if len(values) == 0 {
		return "", nil, fmt.Errorf("sweep %s: no %s values to sweep", w.Name, knob)
	}
	return knob, values, nil
}

// checkKnob checks a value of knob against the adapter's limits.
func checkKnob(e *env.Env, knob string, v int) error {
	if knob == "tile" {
		return compute.CheckTile(e.Device, v)
	}
	return e.Device.CheckWorkgroup(v)
}

// fitting returns the values the adapter can run. A list of which it can
// run none is an input error, found before anything is measured; a list
// with some it can run sweeps those and reports the others as rejected.
func fitting(e *env.Env, knob string, values []int) ([]int, error) {
	var fits []int
	var reject error
	for _, v := range values {
		if err := checkKnob(e, knob, v); err != nil {
			reject = cmp.Or(reject, err)
		} else {
			fits = append(fits, v)
		}
	}
	if len(fits) == 0 {
		flag := "sizes"
		if knob == "tile" {
			flag = "tiles"
		}
		return nil, env.Usage(env.Invalid(flag, "", "%s: the adapter %q runs none of them (%v)", joinInts(values), e.Device.Info.Name, reject))
	}
	return fits, nil
}

// run measures the given values, extends the sweep past its ends while
// the best value sits at one, and concludes.
func (ks *knobSweep) run(values []int, why string) error {
	for _, v := range values {
		if ks.done[v] {
			continue
		}
		if _, err := ks.measure(v); err != nil {
			return err
		}
	}
	if len(ks.pts) == 0 {
		return fmt.Errorf("sweep %s: the adapter rejected every configuration: %v", ks.s.Workload, ks.s.Rejected)
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	notes, lo, hi, err := ks.extend(lo, hi)
	if err != nil {
		return err
	}
	ks.conclude(notes, lo, hi, why)
	return nil
}

// bestWith picks, among the designs with knob (with), the fastest at the
// workload's default size with the knob at v (each verified and timed
// once, its time a point of no sweep), and says why.
func bestWith(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, cfg experiment.RunConfig, knob string, with []string, v int) (string, string, error) {
	if len(with) == 1 {
		return with[0], fmt.Sprintf("the only %s design with a %s knob", w.Name, knob), nil
	}
	best, bestT := "", 0.0
	var tried []string
	for _, d := range with {
		k := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile, Variant: d}
		if knob == "tile" {
			k.Tile = v
		} else {
			k.Workgroup = v
		}
		c := pr.At(pr.Size, k)
		c.CPU = nil
		e.Progressf("gpu  %s %s: which design with a %s knob is fastest", w.Name, d, knob)
		ms, err := experiment.MeasureCase(e, c, experiment.Roofs{})
		if err != nil {
			if errors.Is(err, experiment.ErrWrongResult) {
				return "", "", err
			}
			tried = append(tried, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		t := ms[0].Time().Median
		tried = append(tried, fmt.Sprintf("%s %s", d, timing.FormatSecondsSpaced(t)))
		if best == "" || t < bestT {
			best, bestT = d, t
		}
	}
	if best == "" {
		return "", "", fmt.Errorf("sweep %s: no design with a %s knob runs here (%s)", w.Name, knob, strings.Join(tried, "; "))
	}
	return best, fmt.Sprintf("the fastest %s design with a %s knob at %s=%d (%s)", w.Name, knob, knob, v, strings.Join(tried, ", ")), nil
}

// compareWith measures runDesign, the design run uses (which lacks the
// knob), once in the same call on the same data, and files one line
// comparing the sweep's best with it.
func (ks *knobSweep) compareWith(runDesign string) error {
	kernel := ks.s.Workload
	b := ks.best()
	c := ks.pr.At(ks.pr.Size, workload.Knobs{Workgroup: ks.cfg.Workgroup, Tile: ks.cfg.Tile, Variant: runDesign})
	c.CPU = nil
	ks.e.Progressf("gpu  %s %s: the design run uses, for comparison", kernel, runDesign)
	ms, err := experiment.MeasureCase(ks.e, c, experiment.Roofs{})
	if err != nil {
		return fmt.Errorf("sweep %s: measuring %s, the design run uses: %w", kernel, runDesign, err)
	}
	m := ms[0]
	ks.rep.Measurements = append(ks.rep.Measurements, m)
	rt := m.Time()
	fast, slow := b.sum, rt
	if slow.Median < fast.Median {
		fast, slow = slow, fast
	}
	cmp := timing.Compare(fast, slow)
	var how string
	switch {
	case !cmp.Significant:
		how = "not significantly different from"
	case b.sum.Median < rt.Median:
		how = fmt.Sprintf("%.2f× faster than", rt.Median/b.sum.Median)
	default:
		how = fmt.Sprintf("%.2f× slower than", b.sum.Median/rt.Median)
	}
	line := fmt.Sprintf("%s: the design run uses, %s, has no %s knob; the %s design's best, %s at %s, is %s %s at %s (same call, same data)",
		kernel, runDesign, ks.knob, ks.design, ks.label(b.v), timing.FormatSecondsSpaced(b.sum.Median), how, runDesign, timing.FormatSecondsSpaced(rt.Median))
	ks.rep.Verdicts = append(ks.rep.Verdicts, line)
	return nil
}

// knobSweep is one sweep of a GPU design's workgroup size or tile side:
// the points measured so far and the sweep's report entry.
type knobSweep struct {
	e      *env.Env
	w      *workload.Descriptor
	cfg    experiment.RunConfig
	pr     *workload.Prepared
	rep    *report.Report
	knob   string // "wg" or "tile"
	design string
	s      report.Sweep
	pts    []sweepPoint
	done   map[int]bool
}

type sweepPoint struct {
	v   int
	sum timing.Summary
}

func (ks *knobSweep) knobs(v int) workload.Knobs {
	k := workload.Knobs{Workgroup: ks.cfg.Workgroup, Tile: ks.cfg.Tile, Variant: ks.design}
	if ks.knob == "tile" {
		k.Tile = v
	} else {
		k.Workgroup = v
	}
	return k
}

func (ks *knobSweep) label(v int) string {
	if ks.knob == "tile" {
		return fmt.Sprintf("tile=%d (wg=%d)", v, (v/4)*(v/4))
	}
	return fmt.Sprintf("wg=%d", v)
}

// floor is the smallest value an extension goes down to.
func (ks *knobSweep) floor() int {
	if ks.knob == "wg" {
		return max(1, int(ks.e.Device.Info.SubgroupMin))
	}
	return 4
}

// measure runs value v; ok false when the adapter refused it.
func (ks *knobSweep) measure(v int) (ok bool, err error) {
	ks.done[v] = true
	label := ks.label(v)
	if err := checkKnob(ks.e, ks.knob, v); err != nil {
		ks.s.Rejected = append(ks.s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
		return false, nil
	}
	c := ks.pr.At(ks.pr.Size, ks.knobs(v))
	c.CPU = nil
	ms, err := experiment.MeasureCase(ks.e, c, experiment.Roofs{})
	if err != nil {
		if errors.Is(err, experiment.ErrWrongResult) {
			return false, err
		}
		var ge *wgpu.GPUError
		if errors.Is(err, wgpu.ErrLimit) || errors.As(err, &ge) {
			ks.s.Rejected = append(ks.s.Rejected, report.Rejection{Label: label, Reason: err.Error()})
			return false, nil
		}
		return false, err
	}
	m := ms[0]
	t := m.Time()
	sp := report.SweepPoint{Label: label, Params: append(m.Params, experiment.ParamOf("variant", m.Variant)), Time: t, GBs: m.GBs}
	kernel := ks.s.Workload
	if msg := ks.w.Idle(ks.cfg.Config, ks.knobs(v)); msg != "" {
		sp.Params = append(sp.Params, experiment.ParamOf("idle", msg))
		ks.rep.Warnings = append(ks.rep.Warnings, fmt.Sprintf("%s sweep %s: %s", kernel, label, msg))
	}
	if t.N < timing.DefaultMinRuns {
		ks.rep.Warnings = append(ks.rep.Warnings, fmt.Sprintf("%s sweep %s: only %d samples (< %d)", kernel, label, t.N, timing.DefaultMinRuns))
	}
	ks.s.Points = append(ks.s.Points, sp)
	ks.rep.Measurements = append(ks.rep.Measurements, m)
	ks.pts = append(ks.pts, sweepPoint{v, t})
	return true, nil
}

func (ks *knobSweep) best() sweepPoint {
	b := ks.pts[0]
	for _, x := range ks.pts[1:] {
		if x.sum.Median < b.sum.Median {
			b = x
		}
	}
	return b
}

// extend measures past the edge of the range [lo, hi] while the winner
// sits on it (halving down to the floor, doubling while the adapter takes
// the value), at most maxSweepExtension times; it returns the notes and
// the range measured.
func (ks *knobSweep) extend(lo, hi int) (notes []string, _, _ int, _ error) {
	floor := ks.floor()
	for i := 0; i < maxSweepExtension; i++ {
		b := ks.best()
		var next int
		switch {
		case b.v == lo && lo/2 >= floor && !ks.done[lo/2]:
			next = lo / 2
			lo = next
		case b.v == hi && !ks.done[hi*2] && checkKnob(ks.e, ks.knob, hi*2) == nil:
			next = hi * 2
			hi = next
		default:
			return notes, lo, hi, nil
		}
		notes = append(notes, fmt.Sprintf("winner %s at the edge of the range: extended to %s", ks.label(b.v), ks.label(next)))
		if ok, err := ks.measure(next); err != nil {
			return notes, lo, hi, err
		} else if !ok {
			break
		}
	}
	return notes, lo, hi, nil
}

// conclude names the best value against the runner-up (or the values tied
// with it), notes a winner at an edge of the range, and files the sweep.
func (ks *knobSweep) conclude(notes []string, lo, hi int, why string) {
	s, kernel := &ks.s, ks.s.Workload
	b := ks.best()
	var runner *sweepPoint
	for i := range ks.pts {
		if ks.pts[i].v != b.v && (runner == nil || ks.pts[i].sum.Median < runner.sum.Median) {
			runner = &ks.pts[i]
		}
	}
	s.Best = ks.label(b.v)
	verdict := fmt.Sprintf("best %s at %s", s.Best, timing.FormatSeconds(b.sum.Median))
	if runner != nil {
		cmp := timing.Compare(b.sum, runner.sum)
		if cmp.Significant {
			verdict += fmt.Sprintf(", beats the runner-up %s (%s) %s", ks.label(runner.v), timing.FormatSeconds(runner.sum.Median), cmp)
		} else {
			var tied []string
			for _, x := range ks.pts {
				if x.v != b.v && !timing.Compare(b.sum, x.sum).Significant {
					tied = append(tied, ks.label(x.v))
				}
			}
			verdict = fmt.Sprintf("tie: the fastest median, %s (%s), is not significantly faster than %s (95%% CIs overlap: %s's median is %.1f%% higher, within the noise)",
				s.Best, timing.FormatSeconds(b.sum.Median), strings.Join(tied, ", "), ks.label(runner.v), 100*cmp.Margin)
		}
	}
	if b.v == lo && lo > 1 {
		reason := "the sweep cannot go lower"
		if floor := ks.floor(); lo/2 < floor {
			reason = fmt.Sprintf("the next value %d is below the floor %d", lo/2, floor)
		}
		notes = append(notes, fmt.Sprintf("winner %s is at the low edge of the range (%s): a smaller value may be faster still", s.Best, reason))
	}
	if b.v == hi {
		notes = append(notes, fmt.Sprintf("winner %s is at the high edge of the range (the next value %d does not run here): a larger value may be faster still", s.Best, hi*2))
	}
	sort.Slice(s.Points, func(i, j int) bool { return sweepValue(s.Points[i].Label) < sweepValue(s.Points[j].Label) })
	s.Verdict, s.Notes = verdict, notes
	ks.rep.Sweeps = append(ks.rep.Sweeps, *s)
	ks.rep.Verdicts = append(ks.rep.Verdicts, fmt.Sprintf("%s %s sweep of the %s design: %s", kernel, s.Name, ks.design, verdict),
		fmt.Sprintf("%s design %s: %s", kernel, ks.design, why))
	for _, n := range notes {
		ks.rep.Summary = append(ks.rep.Summary, fmt.Sprintf("%s %s sweep: %s", kernel, s.Name, n))
	}
}

// designOf is the GPU design a sweep or an experiment measures, and why:
// cfg.Variant when forced (--variant), else the design run chooses on this
// adapter (SelectVariant with run's knobs, so the autotune cache serves
// the same choice run made), so the design measured is the design that
// runs (TestSweepMeasuresRunsDesign).
func designOf(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, cfg experiment.RunConfig, rep *report.Report) (string, string, error) {
	if cfg.Variant != "" {
		if err := w.CheckVariant(cfg.Variant); err != nil {
			return "", "", env.Usage(&env.ParamError{Name: "variant", Limit: err.Error()})
		}
		return cfg.Variant, "forced by --variant", nil
	}
	if len(w.Variants) == 1 {
		return w.Variants[0], "the workload's only design", nil
	}
	k, ch, err := experiment.SelectVariant(e, w, cfg.Config, pr, pr.Size, workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}, cfg.Retune, rep)
	if err != nil {
		return "", "", err
	}
	why := "the design run uses on this adapter"
	if ch.Chosen != "" {
		why += ": " + ch.Summary()
	}
	return k.Variant, why, nil
}

// designHas reports whether design has knob ("wg" or "tile"): its case
// label changes with the knob's value (a design without the knob ignores
// it).
func designHas(pr *workload.Prepared, design, knob string) bool {
	at := func(v int) string {
		k := workload.Knobs{Variant: design, Workgroup: 64, Tile: 16}
		if knob == "tile" {
			k.Tile = v
		} else {
			k.Workgroup = v
		}
		return pr.At(pr.Size, k).Variant
	}
	if knob == "tile" {
		return at(16) != at(32)
	}
	return at(64) != at(128)
}

// designsWith lists the designs of w that have knob.
func designsWith(w *workload.Descriptor, pr *workload.Prepared, knob string) []string {
	var out []string
	for _, v := range w.Variants {
		if designHas(pr, v, knob) {
			out = append(out, v)
		}
	}
	return out
}

// sweepValue is the knob value of a sweep label ("wg=64", "tile=32 (…)").
func sweepValue(label string) int {
	var v int
	if i := strings.IndexByte(label, '='); i >= 0 {
		fmt.Sscanf(label[i+1:], "%d", &v)
	}
	return v
}

// memComputeWorkgroups are the workgroup sizes memory-compute reports a
// verdict at when --wg is not given (for kernels with a wg knob).
var memComputeWorkgroups = []int{64, 256}

// MemCompute runs the memory-vs-compute experiment of docs/METHOD.md
// ("Memory-vs-compute") on the GPU side of any workload with a probe
// family: C is the workload's own kernel (verified), A reads exactly C's
// bytes with one add per loaded vec4, B performs C's arithmetic as FMAs
// on registers, E is the skeleton they share (launch, reduction,
// write-back); E's time is subtracted from A, B and C before classifying,
// and the verdict is checked against the roofline position A−E vs B−E.
// Without --wg the experiment runs at each of memComputeWorkgroups and
// says whether the verdict changes with the workgroup size.
func MemCompute(e *env.Env, kernel string, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Defaults()
	cfg.Workloads = []string{kernel}
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	w := ds[0]
	if w.MemCompute != compute.MemComputeStream {
		return fmt.Errorf("experiment memory-compute: kernel %q has no memory-vs-compute probes (have %v)", kernel, MemComputeWorkloads())
	}
	wgs := []int{cfg.Workgroup}
	if cfg.Workgroup == 0 && w.Has("wg") {
		wgs = memComputeWorkgroups
	}
	pr, err := experiment.Prepare(e, w, cfg.Config)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	design, why, err := designOf(e, w, pr, cfg, rep)
	if err != nil {
		return err
	}
	if !designHas(pr, design, "wg") {
		wgs = []int{cfg.Workgroup}
	}
	rep.Verdicts = append(rep.Verdicts, fmt.Sprintf("%s design %s: %s", kernel, design, why))
	cfg.Variant = design
	var verdicts []string
	kinds := map[string]bool{}
	for _, wg := range wgs {
		ex, err := memComputeAt(e, w, pr, cfg, wg, rep)
		if err != nil {
			return err
		}
		kinds[ex.Classification.Kind] = true
		verdicts = append(verdicts, fmt.Sprintf("%s: %s", experiment.ParamValue(ex.Params, "wg"), ex.Classification.Kind))
		rep.Experiments = append(rep.Experiments, ex)
		rep.Verdicts = append(rep.Verdicts, fmt.Sprintf("%s wg %s: %s — %s; %s", kernel, experiment.ParamValue(ex.Params, "wg"),
			ex.Classification.Kind, ex.Classification.Explanation, ex.Classification.Roofline))
	}
	if len(wgs) > 1 {
		if len(kinds) > 1 {
			rep.Verdicts = append(rep.Verdicts, fmt.Sprintf("%s: the verdict CHANGES with the workgroup size (%s): the kernel's bound depends on how it is launched; see each size's net A, B and C above",
				kernel, strings.Join(verdicts, ", ")))
		} else {
			rep.Verdicts = append(rep.Verdicts, fmt.Sprintf("%s: the verdict is the same at every workgroup size tried (%s)", kernel, strings.Join(verdicts, ", ")))
		}
	}
	return nil
}

// memComputeAt runs C, A, B and E at workgroup size wg (0: the kernel's
// default) and classifies.
func memComputeAt(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, cfg experiment.RunConfig, wg int, rep *report.Report) (report.Experiment, error) {
	var ex report.Experiment
	c := pr.At(pr.Size, workload.Knobs{Workgroup: wg, Tile: cfg.Tile, Variant: cfg.Variant})
	if c.GPU == nil {
		return ex, fmt.Errorf("memory-compute %s: no GPU side", w.Name)
	}
	probeWG := wg
	if probeWG == 0 {
		probeWG = compute.DefaultWorkgroup
	}
	e.Progressf("gpu  memory-compute %s C (%s)", w.Name, c.Variant)
	side, err := c.GPU.BuildGPU(e.GPU())
	if err != nil {
		return ex, fmt.Errorf("memory-compute %s C: %w", w.Name, err)
	}
	resC, err := experiment.MeasureSide("memory-compute "+w.Name+" C", side, e.Measure)
	side.Close()
	if err != nil {
		return ex, err
	}
	ms, err := compute.NewMemStream(e.Device, c.Bytes, c.Flops, max(1, c.Passes), probeWG)
	if err != nil {
		return ex, fmt.Errorf("memory-compute %s: %w", w.Name, err)
	}
	defer ms.Release()
	pick := func(r timing.Result) timing.Summary {
		if r.Kernel != nil {
			return *r.Kernel
		}
		return r.Host
	}
	sums := map[string]timing.Summary{compute.VariantFull: pick(resC)}
	for _, v := range []string{compute.VariantEmpty, compute.VariantMemory, compute.VariantCompute} {
		e.Progressf("gpu  memory-compute %s %s", w.Name, v)
		// Run verifies every output itself (compute.ErrVerify on mismatch).
		res, err := timing.Measure(e.Measure, func() (timing.Sample, error) {
			return workload.SampleOf(ms.Run(v, e.Timer))
		})
		if err != nil {
			return ex, fmt.Errorf("memory-compute %s variant %s: %w", w.Name, v, err)
		}
		sums[v] = pick(res)
	}
	a, b, cc, em := sums[compute.VariantMemory], sums[compute.VariantCompute], sums[compute.VariantFull], sums[compute.VariantEmpty]
	for _, x := range []struct {
		name string
		s    timing.Summary
	}{{"A", a}, {"B", b}, {"C", cc}, {"E", em}} {
		if x.s.N < timing.DefaultMinRuns {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("memory-compute %s wg %d %s: only %d samples (< %d)", w.Name, probeWG, x.name, x.s.N, timing.DefaultMinRuns))
		}
		for _, wn := range x.s.Warnings {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("memory-compute %s wg %d %s: %s", w.Name, probeWG, x.name, wn))
		}
	}
	na, nb, nc := timing.Subtract(a, em), timing.Subtract(b, em), timing.Subtract(cc, em)
	cl := timing.ClassifyMemCompute(na, nb, nc, e.Measure.Policy)
	cl.Explanation = "net of the empty skeleton E " + em.String() + ": " + cl.Explanation
	timing.RooflineCheck(&cl, na, nb)
	if !cl.Consistent {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("memory-compute %s wg %d: %s", w.Name, probeWG, cl.Roofline))
	}
	ex = report.Experiment{
		Workload: w.Name, Side: report.SideGPU,
		Params: append(append([]report.Param(nil), c.Params...), experiment.ParamOf("variant", c.Variant), experiment.ParamOf("wg", probeWG),
			experiment.ParamOf("bytes", ms.Bytes), experiment.ParamOf("flops_b", ms.Flops), experiment.ParamOf("dispatches", ms.Dispatches)),
		A: a, B: b, C: cc, E: &em, Classification: cl,
	}
	return ex, nil
}

// MemComputeWorkloads names the workloads that have a memory-vs-compute
// shader family.
func MemComputeWorkloads() []string {
	var out []string
	for _, d := range workload.All() {
		if d.MemCompute == compute.MemComputeStream {
			out = append(out, d.Name)
		}
	}
	return out
}

// joinInts writes a list of values as on the command line: 1,2,3.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
