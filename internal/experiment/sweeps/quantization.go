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
// (workload.ParamPrecision) runs in f32, f16 and int8 on both sides over
// the same vectors. Per precision and side it reports the time, bytes,
// GB/s and share of the ceiling of the row's working set (ordinary
// measurement rows), the decode overhead against f32 — on the same rows
// (how much faster the smaller rows make the call) and on the same bytes
// (f32 over 1/2 or 1/4 of the rows, which moves as many bytes: what
// decoding costs per byte) — as (B − A)/A, and the accuracy: recall@k of
// the precision's top-k against the exact f32 top-k and the largest score
// error. Its answer, per workload and side, is the fastest precision whose
// recall reaches the accepted one.

// DefaultMinRecall is the recall@k a precision must reach to be accepted.
const DefaultMinRecall = 0.95

// QuantizationWorkloads lists the workloads the experiment runs: those
// with a stored precision that score one query against stored rows (their
// batch counts rows), whose top-k recall the experiment measures.
func QuantizationWorkloads() []string {
	var out []string
	for _, d := range workload.All() {
		if d.Has(workload.ParamPrecision.Name) && d.Batch == workload.ParamN.Name {
			out = append(out, d.Name)
		}
	}
	return out
}

// quantRows is the number of stored rows the experiment measures: n, and
// for generated data at least enough that the f32 rows lie past every
// cache level the host's threads may use (hostsimd.DRAMWorkingSet), so the
// f32 rows are judged at the DRAM level. A user's vectors are used as
// they are.
func quantRows(c workload.Config, threads int) int {
	if c.Vectors != nil {
		return c.N
	}
	ws := hostsimd.DRAMWorkingSet(threads)
	return max(c.N, int((ws+int64(4*c.Dim)-1)/int64(4*c.Dim)))
}

// Quantization runs the experiment on the configured workloads (those
// with a stored precision; the default list is all of them).
func Quantization(e *env.Env, cfg experiment.RunConfig, minRecall float64, rep *report.Report) error {
	if !(minRecall > 0 && minRecall <= 1) {
		return env.Usage(env.Invalid("min-recall", minRecall, "a recall in (0, 1]"))
	}
	if cfg.Precision != "" && cfg.Precision != workload.PrecisionF32 {
		return env.Usage(env.Invalid(workload.ParamPrecision.Name, cfg.Precision, "the quantization experiment runs every precision (%s): leave it out", strings.Join(workload.Precisions, ", ")))
	}
	have := QuantizationWorkloads()
	if len(cfg.Workloads) == 0 || len(cfg.Workloads) == len(workload.Names()) {
		cfg.Workloads = have
	}
	for _, w := range cfg.Workloads {
		if !slices.Contains(have, w) {
			return env.Usage(env.Invalid("workloads", w, "is not a single-query workload with a stored precision (have %s)", strings.Join(have, ", ")))
		}
	}
	cfg.Defaults()
	cfg.N = quantRows(cfg.Config, e.Host.ThreadCount())
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		return err
	}
	roofs, err := ceilings.Ceilings(e, cfg, rep)
	if err != nil {
		return err
	}
	acc := map[string]workload.Accuracy{}
	var precs []string
	for _, p := range workload.Precisions {
		e.Progressf("accuracy of %s over %d rows", p, cfg.N)
		c := cfg.Config
		c.Precision = p
		a, err := workload.StoredAccuracy(c, p, cfg.N, cfg.K)
		var pe *env.ParamError
		if err != nil && p != workload.PrecisionF32 && errors.As(err, &pe) {
			// Data this precision cannot hold (f16's range, int8's
			// dimension): the other precisions still run.
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s left out: %v", p, err))
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		acc[p] = a
		precs = append(precs, p)
	}
	rep.Summary = append(rep.Summary, accuracyLines(precs, acc, cfg)...)
	for _, w := range ds {
		if err := quantWorkload(e, w, cfg, precs, acc, minRecall, roofs, rep); err != nil {
			return err
		}
	}
	return nil
}

// accuracyLines say what each precision costs in results on the data.
func accuracyLines(precs []string, acc map[string]workload.Accuracy, cfg experiment.RunConfig) []string {
	var out []string
	for _, p := range precs {
		a := acc[p]
		out = append(out, fmt.Sprintf("accuracy %s over n = %d rows, d = %d: recall@%d %.3f against the exact f32 top-%d; largest cosine error %.3g (bound %.3g)",
			p, cfg.N, cfg.Dim, a.K, a.Recall, a.K, a.MaxScoreErr, a.Bound))
	}
	return out
}

// quantPoint is one precision's rows of a workload: both sides at the
// experiment's rows.
type quantPoint struct {
	prec     string
	gpu, cpu *report.Measurement
}

// quantWorkload measures w in every precision, then the f32 rows that
// move as many bytes as f16 and int8 do, and concludes.
// quantPointOf is precision p's rows ms as a quantPoint, each row naming
// its precision and the accuracy a of that precision.
func quantPointOf(p string, ms []report.Measurement, a workload.Accuracy) quantPoint {
	pt := quantPoint{prec: p}
	for i := range ms {
		m := &ms[i]
		if p == workload.PrecisionF32 { // the other precisions' rows name theirs
			m.Params = append(m.Params, p0("precision", p))
		}
		m.Params = append(m.Params, p0(fmt.Sprintf("recall@%d", a.K), fmt.Sprintf("%.3f", a.Recall)), p0("max_score_err", fmt.Sprintf("%.3g", a.MaxScoreErr)))
		if m.Side == report.SideGPU {
			pt.gpu = m
		} else {
			pt.cpu = m
		}
	}
	return pt
}

// quantSameBytes measures the f32 case pr over as many bytes as n rows of
// each of precs move (n·bytes/4 rows) into sameBytes (GPU, CPU row) and
// rep.
func quantSameBytes(e *env.Env, pr *workload.Prepared, knobs workload.Knobs, n int, precs []string, roofs experiment.Roofs, sameBytes map[string][2]*report.Measurement, rep *report.Report) error {
	for _, q := range precs {
		rows := n * workload.BytesPerValue(q) / 4
		ms, err := experiment.MeasureCase(e, pr.At(max(rows, 1), knobs), roofs)
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

func quantWorkload(e *env.Env, w *workload.Descriptor, cfg experiment.RunConfig, precs []string, acc map[string]workload.Accuracy, minRecall float64, roofs experiment.Roofs, rep *report.Report) error {
	n := cfg.N
	var pts []quantPoint
	sameBytes := map[string][2]*report.Measurement{} // precision → f32 (gpu, cpu) over as many bytes
	for _, p := range precs {
		c := cfg
		c.Precision = p
		pr, err := w.Prepare(c.Config)
		if err != nil {
			return fmt.Errorf("%s %s: %w", w.Name, p, err)
		}
		knobs, err := quantKnobs(e, w, pr, c, rep)
		gpuOK := err == nil
		if err != nil && !experiment.CanSkip(err) {
			return fmt.Errorf("%s %s: %w", w.Name, p, err)
		}
		cs := pr.At(n, knobs)
		if !gpuOK {
			cs.GPU = nil
		}
		ms, err := experiment.MeasureCase(e, cs, roofs)
		if err != nil && gpuOK && experiment.CanSkip(err) {
			gpuOK, cs.GPU = false, nil
			ms, err = experiment.MeasureCase(e, cs, roofs)
		}
		if err != nil {
			return err
		}
		if !gpuOK {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s %s: no GPU row: no design of it runs on this adapter (the f16 designs need shader-f16)", w.Name, p))
		}
		pts = append(pts, quantPointOf(p, ms, acc[p]))
		if p != workload.PrecisionF32 {
			continue
		}
		if err := quantSameBytes(e, pr, knobs, n, precs[1:], roofs, sameBytes, rep); err != nil {
			return err
		}
	}
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
	rep.Verdicts = append(rep.Verdicts, quantVerdict(w.Name, n, pts, acc, minRecall))
	rep.Summary = append(rep.Summary, quantOverheadLines(w.Name, n, pts, sameBytes)...)
	return nil
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
// whose recall reaches minRecall.
func quantVerdict(name string, n int, pts []quantPoint, acc map[string]workload.Accuracy, minRecall float64) string {
	k := acc[workload.PrecisionF32].K
	var parts []string
	for i, side := range []string{"CPU", "GPU"} {
		var best *quantPoint
		var bestM *report.Measurement
		for j := range pts {
			m := []*report.Measurement{pts[j].cpu, pts[j].gpu}[i]
			if m == nil || acc[pts[j].prec].Recall < minRecall {
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
		s := fmt.Sprintf("%s: %s (%s a call, recall@%d %.3f", side, best.prec, fmtDur(bestM.Time().Median), k, acc[best.prec].Recall)
		if best.prec != workload.PrecisionF32 && f32 != nil {
			s += fmt.Sprintf("; f32 %s over %s %s, %s", fmtDur(f32.Time().Median), experiment.FmtBytes(f32.Bytes), ceilingLevel(f32), fmtOverhead(overhead(f32, bestM)))
		}
		parts = append(parts, s+")")
	}
	var rejected []string
	for _, pt := range pts {
		if p := pt.prec; acc[p].Recall < minRecall {
			rejected = append(rejected, fmt.Sprintf("%s (recall@%d %.3f)", p, k, acc[p].Recall))
		}
	}
	v := fmt.Sprintf("%s, n = %d rows: fastest at recall@%d ≥ %.2f — %s", name, n, k, minRecall, strings.Join(parts, "; "))
	if len(rejected) > 0 {
		v += "; below the accepted recall: " + strings.Join(rejected, ", ")
	}
	return v
}

// quantOverheadLines give each side's decode overheads.
func quantOverheadLines(name string, n int, pts []quantPoint, same map[string][2]*report.Measurement) []string {
	var out []string
	for i, side := range []string{"gpu", "cpu"} {
		var parts []string
		for _, pt := range pts[1:] {
			m := []*report.Measurement{pt.gpu, pt.cpu}[i]
			f32 := []*report.Measurement{pts[0].gpu, pts[0].cpu}[i]
			parts = append(parts, fmt.Sprintf("%s %s on the same %d rows, %s on the same bytes", pt.prec,
				fmtOverhead(overhead(f32, m)), n, fmtOverhead(overhead(same[pt.prec][i], m))))
		}
		out = append(out, fmt.Sprintf("%s %s: time against f32 ((B − A)/A): %s", name, side, strings.Join(parts, "; ")))
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
