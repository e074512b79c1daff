package sweeps

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// The quantization experiment: each workload with a stored precision
// (workload.Quantized) runs in f32, f16 and int8 on both sides over the
// same vectors. Per precision and side it reports the time, bytes, GB/s
// and share of the ceiling of the row's working set (ordinary
// measurement rows), the decode overhead against f32 — on the same rows
// (how much faster the smaller rows make the call) and on the same bytes
// (f32 over as many stored-vector bytes: what decoding costs per byte,
// workload.Quantized.SameBytes) — as (B − A)/A, and the accuracy: recall@k
// of the precision's results against the exact f32 ones, the mean and the
// worst over the workload's queries (workload.Quantized.RecallOver), and
// the largest score error. Its answer, per workload and side, is the
// fastest precision whose mean recall reaches the accepted one.

// DefaultMinRecall is the recall@k a precision must reach to be accepted.
const DefaultMinRecall = 0.95

// QuantizationWorkloads lists the workloads the experiment runs: those
// with a stored precision, whose recall the workload defines
// (workload.Quantized).
func QuantizationWorkloads() []string {
	var out []string
	for _, d := range workload.All() {
		if _, ok := d.Workload.(workload.Quantized); ok && d.Has(workload.ParamPrecision.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// QuantizationDefault is the experiment's "all": the workloads of
// QuantizationWorkloads that read every data file given (files names the
// file parameters set, such as "vectors").
func QuantizationDefault(files []string) []string {
	var out []string
	for _, name := range QuantizationWorkloads() {
		d, _ := workload.Lookup(name)
		if !slices.ContainsFunc(files, func(f string) bool { return !d.Has(f) }) {
			out = append(out, name)
		}
	}
	return out
}

// fileParams names the data-file parameters c sets.
func fileParams(c workload.Config) []string {
	var out []string
	for _, p := range []*workload.Param{workload.ParamVectors, workload.ParamQueries} {
		if *p.String(&c) != "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// leftOutByFiles says which workloads of the experiment the data files
// of c keep out of the default list chosen.
func leftOutByFiles(c workload.Config, chosen []string) []string {
	files := fileParams(c)
	if len(files) == 0 || !slices.Equal(chosen, QuantizationDefault(files)) {
		return nil
	}
	var out []string
	for _, name := range QuantizationWorkloads() {
		if !slices.Contains(chosen, name) {
			out = append(out, fmt.Sprintf("%s left out: it does not read --%s (it makes its own data; run it without them)", name, strings.Join(files, " or --")))
		}
	}
	return out
}

// quantRows is the number of stored rows the experiment measures: n, and
// for generated data of a workload whose calls read every row at least
// enough that the f32 rows lie past every cache level the host's threads
// may use (hostsimd.DRAMWorkingSet), so the f32 rows are judged at the
// DRAM level (planQuantization keeps them within the memory budget). A
// user's vectors are used as they are.
func quantRows(c workload.Config, scans bool, threads int) int {
	if c.Vectors != nil || !scans {
		return c.N
	}
	ws := hostsimd.DRAMWorkingSet(threads)
	return max(c.N, int((ws+int64(4*c.Dim)-1)/int64(4*c.Dim)))
}

// quantJob is one workload of the experiment with its configuration.
type quantJob struct {
	w   *workload.Descriptor
	qw  workload.Quantized
	cfg experiment.RunConfig
}

// Quantization runs the experiment on the configured workloads (those
// with a stored precision; the default list is all of them).
func Quantization(e *env.Env, cfg experiment.RunConfig, minRecall float64, rep *report.Report) error {
	jobs, err := planQuantization(e, cfg, minRecall, rep)
	if err != nil {
		return err
	}
	widest := cfg
	widest.Defaults()
	for _, j := range jobs {
		widest.N = max(widest.N, j.cfg.N)
	}
	roofs, err := ceilings.Ceilings(e, widest, rep)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := quantWorkload(e, j, minRecall, roofs, rep); err != nil {
			return err
		}
		env.FreeMemory()
	}
	return nil
}

// planQuantization checks the input and plans each workload's rows,
// memory and time before anything is made: bad input is a usage error
// naming the parameter.
func planQuantization(e *env.Env, cfg experiment.RunConfig, minRecall float64, rep *report.Report) ([]quantJob, error) {
	if !(minRecall > 0 && minRecall <= 1) {
		return nil, env.Usage(env.Invalid("min-recall", minRecall, "a recall in (0, 1]"))
	}
	if cfg.Precision != "" && cfg.Precision != workload.PrecisionF32 {
		return nil, env.Usage(env.Invalid(workload.ParamPrecision.Name, cfg.Precision, "the quantization experiment runs every precision (%s): leave it out", strings.Join(workload.Precisions, ", ")))
	}
	have := QuantizationWorkloads()
	if len(cfg.Workloads) == 0 || len(cfg.Workloads) == len(workload.Names()) {
		cfg.Workloads = have
	}
	rep.Warnings = append(rep.Warnings, leftOutByFiles(cfg.Config, cfg.Workloads)...)
	for _, w := range cfg.Workloads {
		if !slices.Contains(have, w) {
			return nil, env.Usage(env.Invalid("workloads", w, "stores no vectors in a precision (have %s)", strings.Join(have, ", ")))
		}
	}
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return nil, err
	}
	var jobs []quantJob
	for _, w := range ds {
		qw := w.Workload.(workload.Quantized)
		c := cfg
		c.Workloads = []string{w.Name}
		c.N = quantRows(c.Config, qw.ScansRows(), e.Host.ThreadCount())
		if want := c.N; want > cfg.N {
			// Rows raised past the caches stay within the memory budget.
			budget := float64(env.MemoryBudget(c.QuickStaircase))
			for c.N > cfg.N && quantMemory(c.Config, w) > budget {
				c.N = max(cfg.N, c.N*7/8)
			}
			if c.N < want {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: n = %d rows, the most the memory budget holds (%s), short of the %d whose f32 set lies past the caches: its rows are judged at the level they fit", w.Name, c.N, experiment.FmtBytes(budget), want))
			}
		}
		if err := qw.CheckRecall(c.Config); err != nil {
			return nil, env.Usage(fmt.Errorf("%s: %w", w.Name, err))
		}
		if _, err := c.Validate(e.Device); err != nil {
			return nil, err
		}
		if err := env.CheckMemory(fmt.Sprintf("experiment quantization of %s at %s", w.Name, quantSizes(w, c.Config)), quantMemory(c.Config, w), c.QuickStaircase); err != nil {
			return nil, err
		}
		jobs = append(jobs, quantJob{w: w, qw: qw, cfg: c})
		meas := 2 * (2*len(workload.Precisions) - 1)
		line := fmt.Sprintf("%s plan: %s, about %s of host memory (budget %s), %d measurements of at most %v each after a GPU design choice per precision, references about %.2g G float64 multiply-adds",
			w.Name, quantSizes(w, c.Config), experiment.FmtBytes(quantMemory(c.Config, w)), experiment.FmtBytes(float64(env.MemoryBudget(c.QuickStaircase))), meas, e.Measure.Budget, quantRefWork(c.Config, w)/1e9)
		if buildsIndex(c.Config, w) {
			line += "; candidates from an " + workload.PlanHNSWIndex(c.Config).String() + " (limit " + workload.HNSWBuildLimit.String() + ")"
		}
		rep.Summary = append(rep.Summary, line)
	}
	return jobs, nil
}

// quantSizes names the sizes of w that its memory grows with.
func quantSizes(w *workload.Descriptor, c workload.Config) string {
	s := fmt.Sprintf("n %d d %d", c.N, c.Dim)
	if w.Has(workload.ParamQ.Name) {
		s += fmt.Sprintf(" q %d", c.Q)
	}
	if w.Has(workload.ParamC.Name) {
		s += fmt.Sprintf(" c %d", c.C)
	}
	return s
}

// buildsIndex says whether w at c builds an HNSW index for its
// candidates (workload.PlanHNSWIndex).
func buildsIndex(c workload.Config, w *workload.Descriptor) bool {
	return w.Has(workload.ParamCandidates.Name) && c.Candidates == workload.CandidatesHNSW
}

// quantMemory is the most host memory the experiment holds for w at c
// at once: the f32 rows and their reference, and one stored precision
// beside them — while it is made, its values (at most 2 bytes a value)
// and the widened copy its reference is computed from (4 bytes a value),
// its reference and bound per row; while it is measured, its values and
// their device copy (less). A workload with queries adds them, the f32
// and stored references of every score with the f32 ones the stored
// bound is checked against, and both sides' outputs; one with
// candidates, their references, and the index they are traced from
// while it is built.
func quantMemory(c workload.Config, w *workload.Descriptor) float64 {
	n, d, q := float64(c.N), float64(c.Dim), float64(c.Q)
	need := 4*n*d + 16*n + 6*n*d + 24*n
	switch {
	case w.Has(workload.ParamC.Name):
		cc := float64(c.C)
		need += 4*q*d + q*cc*(2*16+2*4)
		if buildsIndex(c, w) {
			need += workload.PlanHNSWIndex(c).Bytes
		}
	case w.Has(workload.ParamQ.Name):
		need += 4*q*d + q*n*(3*16+2*4)
	}
	return need
}

// quantRefWork is the float64 multiply-adds of w's references at c: the
// f32 scores, and per stored precision its own and (with queries) the f32
// ones its bound is checked against; cosine-batch's same-bytes rows add
// ¾ of a set.
func quantRefWork(c workload.Config, w *workload.Descriptor) float64 {
	n, d, q := float64(c.N), float64(c.Dim), float64(c.Q)
	switch {
	case w.Has(workload.ParamC.Name):
		return 3 * q * float64(c.C) * d
	case w.Has(workload.ParamQ.Name):
		return 5.75 * q * n * d
	}
	return 3 * n * d
}

// accuracyLine says what precision a costs in results on w's data.
func accuracyLine(name string, a workload.Accuracy, c workload.Config, over string) string {
	s := fmt.Sprintf("%s accuracy %s over n = %d rows, d = %d: recall@%d %.3f against the exact f32 results", name, a.Precision, c.N, c.Dim, a.K, a.Recall)
	if a.Queries > 1 {
		s += fmt.Sprintf(" (mean; worst %.3f; over %s)", a.Worst, over)
	}
	s += fmt.Sprintf("; largest score error %.3g", a.MaxScoreErr)
	if a.Bound > 0 {
		s += fmt.Sprintf(" (bound %.3g)", a.Bound)
	}
	return s
}

// quantPoint is one precision's rows of a workload: both sides at the
// experiment's rows, with the precision's accuracy.
type quantPoint struct {
	prec     string
	acc      workload.Accuracy
	gpu, cpu *report.Measurement
}

// quantPointOf is precision p's rows ms as a quantPoint, each row naming
// its precision and the accuracy a of that precision.
func quantPointOf(p string, ms []report.Measurement, a workload.Accuracy) quantPoint {
	pt := quantPoint{prec: p, acc: a}
	for i := range ms {
		m := &ms[i]
		if p == workload.PrecisionF32 { // the other precisions' rows name theirs
			m.Params = append(m.Params, p0("precision", p))
		}
		m.Params = append(m.Params, p0(fmt.Sprintf("recall@%d", a.K), fmt.Sprintf("%.3f", a.Recall)),
			p0(fmt.Sprintf("recall@%d_worst", a.K), fmt.Sprintf("%.3f", a.Worst)),
			p0("recall_queries", fmt.Sprint(a.Queries)),
			p0("max_score_err", fmt.Sprintf("%.3g", a.MaxScoreErr)))
		if a.Bound > 0 {
			m.Params = append(m.Params, p0("score_err_bound", fmt.Sprintf("%.3g", a.Bound)))
		}
		if m.Side == report.SideGPU {
			pt.gpu = m
		} else {
			pt.cpu = m
		}
	}
	return pt
}

// quantSameBytes measures f32 over as many stored-vector bytes as the
// batch moves in each of precs (workload.Quantized.SameBytes) into
// sameBytes (GPU, CPU row) and rep.
func quantSameBytes(e *env.Env, j quantJob, f32 *workload.Prepared, knobs workload.Knobs, precs []string, roofs experiment.Roofs, sameBytes map[string][2]*report.Measurement, rep *report.Report) error {
	for _, q := range precs {
		pr, batch, _, err := j.qw.SameBytes(f32, f32.Size, q)
		if err != nil {
			return fmt.Errorf("%s same bytes as %s: %w", j.w.Name, q, err)
		}
		ms, err := experiment.MeasureCase(e, pr.At(batch, knobs), roofs)
		if err != nil {
			return err
		}
		var pair [2]*report.Measurement
		for i := range ms {
			ms[i].Params = append(ms[i].Params, p0("precision", workload.PrecisionF32), p0("same_bytes_as", q))
			if ms[i].Side == report.SideGPU {
				pair[0] = &ms[i]
			} else {
				pair[1] = &ms[i]
			}
		}
		sameBytes[q] = pair
		rep.Measurements = append(rep.Measurements, ms...)
	}
	return nil
}

// quantWorkload measures j's workload in every precision its data can
// hold (each prepared beside the f32 data for its accuracy, then let go),
// then the f32 rows that move as many stored bytes as f16 and int8 do,
// and concludes.
func quantWorkload(e *env.Env, j quantJob, minRecall float64, roofs experiment.Roofs, rep *report.Report) error {
	w, cfg := j.w, j.cfg
	cfg.Precision = workload.PrecisionF32
	e.Progressf("%s: f32 data, n = %d rows", w.Name, cfg.N)
	f32, err := w.Prepare(cfg.Config)
	if err != nil {
		return fmt.Errorf("%s f32: %w", w.Name, err)
	}
	var pts []quantPoint
	var f32Knobs workload.Knobs
	over := j.qw.RecallOver(cfg.Config)
	for _, p := range workload.Precisions {
		c := cfg
		c.Precision = p
		pr := f32
		if p != workload.PrecisionF32 {
			e.Progressf("%s: %s data and its accuracy", w.Name, p)
			pr, err = j.qw.Stored(f32, p)
			var pe *env.ParamError
			if err != nil && errors.As(err, &pe) {
				// Data this precision cannot hold (f16's range, int8's
				// dimension): the other precisions still run.
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s left out: %v", w.Name, p, err))
				continue
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", w.Name, p, err)
			}
		}
		a, err := j.qw.Accuracy(f32, pr, cfg.K)
		if err == nil {
			err = a.CheckBound()
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", w.Name, p, err)
		}
		rep.Summary = append(rep.Summary, accuracyLine(w.Name, a, cfg.Config, over))
		knobs, ms, err := quantMeasure(e, w, pr, c, roofs, rep)
		if err != nil {
			return err
		}
		if p == workload.PrecisionF32 {
			f32Knobs = knobs
		}
		pts = append(pts, quantPointOf(p, ms, a))
	}
	var precs []string
	for _, pt := range pts[1:] {
		precs = append(precs, pt.prec)
	}
	sameBytes := map[string][2]*report.Measurement{} // precision → f32 (gpu, cpu) over as many bytes
	if err := quantSameBytes(e, j, f32, f32Knobs, precs, roofs, sameBytes, rep); err != nil {
		return err
	}
	// The A/A control: f32 measured again after every other precision.
	e.Progressf("%s: f32 again (the A/A control)", w.Name)
	c := cfg
	c.Precision = workload.PrecisionF32
	_, again, err := quantMeasure(e, w, f32, c, roofs, &report.Report{})
	if err != nil {
		return fmt.Errorf("%s f32 again: %w", w.Name, err)
	}
	ctrl := quantControlOf(pts[0], quantPointOf(workload.PrecisionF32, again, pts[0].acc))
	rep.Summary = append(rep.Summary, ctrl.line(w.Name))
	for _, pt := range pts {
		for i, m := range []*report.Measurement{pt.gpu, pt.cpu} {
			if m == nil {
				continue
			}
			f32 := []*report.Measurement{pts[0].gpu, pts[0].cpu}[i]
			rows, bytes := overhead(f32, m), overhead(sameBytes[pt.prec][i], m)
			m.Params = append(m.Params, p0("vs_f32_same_rows", fmtOverhead(rows)), p0("vs_f32_same_bytes", fmtOverhead(bytes)))
			rep.Measurements = append(rep.Measurements, *m)
		}
	}
	shape := quantShape(w, cfg.Config, f32.Size)
	rep.Verdicts = append(rep.Verdicts, quantVerdict(w.Name, shape, pts, minRecall, ctrl))
	rep.Summary = append(rep.Summary, quantOverheadLines(w.Name, shape, pts, sameBytes, ctrl)...)
	return nil
}

// quantControl is the A/A control of the precisions' comparison: per side
// (gpu, cpu), the band [lo, hi] that f32's time moved in between its
// first measurement and the one after every other precision: the far
// end of the ratio's CI either way, m, as [1/m, m]; ok false where a side
// has no pair.
type quantControl struct {
	lo, hi [2]float64
	ok     [2]bool
}

// quantControlOf is the control from f32's first and second rows.
func quantControlOf(first, again quantPoint) quantControl {
	var c quantControl
	for i, pair := range [][2]*report.Measurement{{first.gpu, again.gpu}, {first.cpu, again.cpu}} {
		a, b := pair[0], pair[1]
		if a == nil || b == nil || !(a.Time().Lo > 0) || !(b.Time().Lo > 0) {
			continue
		}
		// The host may move either way: the band is symmetric about 1.
		m := max(b.Time().Hi/a.Time().Lo, a.Time().Hi/b.Time().Lo)
		c.lo[i], c.hi[i], c.ok[i] = 1/m, m, true
	}
	return c
}

// noise says whether row m's time against f32's row on side i (0 gpu, 1
// cpu), its ratio's CI, meets the control's band: a difference the A/A
// rows showed too.
func (c quantControl) noise(i int, f32, m *report.Measurement) bool {
	if !c.ok[i] || f32 == nil || m == nil || !(f32.Time().Lo > 0) {
		return false
	}
	lo, hi := m.Time().Lo/f32.Time().Hi, m.Time().Hi/f32.Time().Lo
	return lo <= c.hi[i] && hi >= c.lo[i]
}

// line is the control's summary line.
func (c quantControl) line(name string) string {
	var parts []string
	for i, side := range []string{"GPU", "CPU"} {
		if c.ok[i] {
			parts = append(parts, fmt.Sprintf("%s %.2f–%.2f×", side, c.lo[i], c.hi[i]))
		}
	}
	if len(parts) == 0 {
		return name + " A/A control: f32 measured again after the other precisions: no pair to compare"
	}
	return fmt.Sprintf("%s A/A control: f32 measured again after the other precisions moved %s; a difference inside that band is within host noise",
		name, strings.Join(parts, ", "))
}

// quantMeasure measures pr at its full batch on both sides with the GPU
// design of its precision; a precision with no GPU design on this
// adapter is measured on the CPU alone, with a warning.
func quantMeasure(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, c experiment.RunConfig, roofs experiment.Roofs, rep *report.Report) (workload.Knobs, []report.Measurement, error) {
	knobs, err := quantKnobs(e, w, pr, c, rep)
	gpuOK := err == nil
	if err != nil && !experiment.CanSkip(err) {
		return knobs, nil, fmt.Errorf("%s %s: %w", w.Name, c.Precision, err)
	}
	cs := pr.At(pr.Size, knobs)
	if !gpuOK {
		cs.GPU = nil
	}
	ms, err := experiment.MeasureCase(e, cs, roofs)
	if err != nil && gpuOK && experiment.CanSkip(err) {
		gpuOK, cs.GPU = false, nil
		ms, err = experiment.MeasureCase(e, cs, roofs)
	}
	if err != nil {
		return knobs, nil, err
	}
	if !gpuOK {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s %s: no GPU row: no design of it runs on this adapter (the f16 designs need shader-f16)", w.Name, c.Precision))
	}
	return knobs, ms, nil
}

// quantShape names what one call of w covers: its stored rows, and its
// queries (and candidates) where it has them.
func quantShape(w *workload.Descriptor, c workload.Config, batch int) string {
	switch {
	case w.Has(workload.ParamC.Name):
		return fmt.Sprintf("q = %d batches of c = %d of n = %d rows", batch, c.C, c.N)
	case w.Batch == workload.ParamN.Name:
		return fmt.Sprintf("n = %d rows", batch)
	}
	return fmt.Sprintf("q = %d queries, n = %d rows", batch, c.N)
}

// quantKnobs picks the GPU design of w in one precision: --variant, or
// the fastest verified design on this adapter (selected at up to 16384
// rows, so the selection stays short at the DRAM-level rows).
func quantKnobs(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, cfg experiment.RunConfig, rep *report.Report) (workload.Knobs, error) {
	k := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile, Variant: cfg.Variant}
	if cfg.Variant != "" {
		if err := w.CheckVariant(cfg.Variant); err != nil {
			return k, env.Usage(&env.ParamError{Name: "variant", Limit: err.Error()})
		}
		return k, nil
	}
	k, _, err := experiment.SelectVariant(e, w, cfg.Config, pr, min(pr.Size, 16384), k, cfg.Retune, rep)
	return k, err
}

// overhead is (B − A)/A of the rows' median times (NaN when either is
// missing).
func overhead(a, b *report.Measurement) float64 {
	if a == nil || b == nil {
		return math.NaN()
	}
	ta, tb := a.Time().Median, b.Time().Median
	if !(ta > 0) {
		return math.NaN()
	}
	return (tb - ta) / ta
}

func fmtOverhead(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

func p0(k, v string) report.Param { return report.Param{Key: k, Value: v} }

// quantVerdict is the workload's answer: per side, the fastest precision
// whose (mean) recall reaches minRecall.
func quantVerdict(name, shape string, pts []quantPoint, minRecall float64, ctrl quantControl) string {
	k := pts[0].acc.K
	var parts []string
	for i, side := range []string{"CPU", "GPU"} {
		var best *quantPoint
		var bestM *report.Measurement
		for j := range pts {
			m := []*report.Measurement{pts[j].cpu, pts[j].gpu}[i]
			if m == nil || pts[j].acc.Recall < minRecall {
				continue
			}
			if bestM == nil || m.Time().Median < bestM.Time().Median {
				best, bestM = &pts[j], m
			}
		}
		if best == nil {
			parts = append(parts, side+": no precision measured")
			continue
		}
		f32 := []*report.Measurement{pts[0].cpu, pts[0].gpu}[i]
		s := fmt.Sprintf("%s: %s (%s a call, %s", side, best.prec, fmtDur(bestM.Time().Median), fmtRecall(best.acc))
		if best.prec != workload.PrecisionF32 && f32 != nil {
			s += fmt.Sprintf("; f32 %s over %s %s, %s", fmtDur(f32.Time().Median), experiment.FmtBytes(f32.Bytes), ceilingLevel(f32), fmtOverhead(overhead(f32, bestM)))
			if ctrl.noise(1-i, f32, bestM) {
				s += ", within host noise"
			}
		}
		parts = append(parts, s+")")
	}
	var rejected []string
	for _, pt := range pts {
		if pt.acc.Recall < minRecall {
			rejected = append(rejected, fmt.Sprintf("%s (%s)", pt.prec, fmtRecall(pt.acc)))
		}
	}
	v := fmt.Sprintf("%s, %s: fastest at recall@%d ≥ %.2f — %s", name, shape, k, minRecall, strings.Join(parts, "; "))
	if len(rejected) > 0 {
		v += "; below the accepted recall: " + strings.Join(rejected, ", ")
	}
	return v
}

// fmtRecall is "recall@k R", with the worst query's where there are
// several.
func fmtRecall(a workload.Accuracy) string {
	if a.Queries > 1 {
		return fmt.Sprintf("recall@%d %.3f mean, %.3f worst of %d", a.K, a.Recall, a.Worst, a.Queries)
	}
	return fmt.Sprintf("recall@%d %.3f", a.K, a.Recall)
}

// quantOverheadLines give each side's decode overheads.
func quantOverheadLines(name, shape string, pts []quantPoint, same map[string][2]*report.Measurement, ctrl quantControl) []string {
	var out []string
	for i, side := range []string{"gpu", "cpu"} {
		var parts []string
		for _, pt := range pts[1:] {
			m := []*report.Measurement{pt.gpu, pt.cpu}[i]
			f32 := []*report.Measurement{pts[0].gpu, pts[0].cpu}[i]
			rows := fmtOverhead(overhead(f32, m))
			if ctrl.noise(i, f32, m) {
				rows += " (within host noise)"
			}
			parts = append(parts, fmt.Sprintf("%s %s on the same vectors, %s on the same bytes", pt.prec,
				rows, fmtOverhead(overhead(same[pt.prec][i], m))))
		}
		out = append(out, fmt.Sprintf("%s %s, %s: time against f32 ((B − A)/A): %s", name, side, shape, strings.Join(parts, "; ")))
	}
	return out
}

// ceilingLevel says which read ceiling a row was judged against: "at
// DRAM", or the key of a cache level's.
func ceilingLevel(m *report.Measurement) string {
	if m.ReadCeiling == "" || m.ReadCeiling == "read_gbs" {
		return "at DRAM"
	}
	return "against " + m.ReadCeiling
}

func fmtDur(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3g s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g µs", s*1e6)
}
