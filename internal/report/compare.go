package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// CompareAlpha is the significance level of the U-test used by Compare.
const CompareAlpha = 0.05

// Significance methods reported in CompareRow.Method.
const (
	MethodUTest = "u-test"     // Mann-Whitney U on raw samples
	MethodCI    = "ci-overlap" // 95% CIs of the medians do not overlap
)

// CompareRow compares one measurement present in both reports.
type CompareRow struct {
	Key      string // Measurement.Key: workload|side|variant|params
	Workload string
	Side     string
	Variant  string
	Params   []Param
	// OldBackend and NewBackend are the rows' backends and variants as
	// "backend/variant" when the two differ (compare across backends).
	OldBackend, NewBackend string
	Clock                  string // "kernel" when both rows have kernel times, else "end-to-end"
	Old, New               timing.Summary
	// Delta is new/old − 1 of the medians: +0.20 means 20% slower.
	Delta       float64
	Significant bool
	Method      string  // MethodUTest or MethodCI
	P           float64 // U-test p-value (MethodUTest only)
	Regression  bool    // significant and Delta > threshold
	Improvement bool    // significant and Delta < −threshold
}

// CompareResult is the outcome of Compare.
type CompareResult struct {
	Threshold float64
	Rows      []CompareRow // in the old report's order
	// Geomean is the geometric mean of new/old over all rows, minus 1
	// (benchstat's closing row).
	Geomean float64
	OnlyOld []string // keys missing from the new report
	OnlyNew []string // keys missing from the old report
	// Regressed is true when any row is a significant slowdown by more
	// than Threshold.
	Regressed bool
}

// Compare matches measurements of old and new by (workload, side, variant,
// params) and compares their medians. Kernel times are compared when both
// rows have them, end-to-end times otherwise.
//
// Significance: when both rows keep raw samples for the compared clock, a
// two-sided Mann-Whitney U-test (benchmath, α = 0.05) decides; otherwise the
// difference is significant when the 95% CIs of the two medians do not
// overlap. threshold is a fraction (0.05 = 5%); negative values count as 0.
// Nil reports compare as empty.
//
// When the rows of both reports name their backend, a row matches only
// the row of the same backend (a report of several backends compares
// each with its own); reports written before rows named it match as
// before.
func Compare(old, new *Report, threshold float64) CompareResult {
	key := (*Measurement).Key
	if namesBackends(old) && namesBackends(new) {
		key = func(m *Measurement) string { return m.Key() + "|" + m.Backend }
	}
	return compareBy(old, new, threshold, key)
}

// CompareAcrossBackends is Compare for two runs of the same suite on
// different backends or adapters: rows match by workload, side and params
// alone — the backend, and the GPU variant, which each adapter chooses
// for itself, may differ. Each report must hold one backend (a report of
// several is side by side already): ErrSeveralBackends otherwise.
func CompareAcrossBackends(old, new *Report, threshold float64) (CompareResult, error) {
	for _, r := range []*Report{old, new} {
		if r != nil && r.Backends != nil && len(r.Backends.Adapters) > 1 {
			return CompareResult{}, ErrSeveralBackends
		}
	}
	key := func(m *Measurement) string {
		return strings.Join([]string{m.Workload, m.Side, paramString(m.Params, ",")}, "|")
	}
	return compareBy(old, new, threshold, key), nil
}

// ErrSeveralBackends: a report given to CompareAcrossBackends holds rows
// of several backends.
var ErrSeveralBackends = errors.New("report: the report holds several backends side by side already; compare across backends takes two reports of one backend each")

// namesBackends reports whether r's rows name their backend.
func namesBackends(r *Report) bool {
	return r != nil && len(r.Measurements) > 0 && r.Measurements[0].Backend != ""
}

func compareBy(old, new *Report, threshold float64, key func(*Measurement) string) CompareResult {
	res := CompareResult{Threshold: math.Max(threshold, 0)}
	if old == nil {
		old = &Report{}
	}
	if new == nil {
		new = &Report{}
	}
	newByKey := map[string]*Measurement{}
	for i := range new.Measurements {
		newByKey[key(&new.Measurements[i])] = &new.Measurements[i]
	}
	matched := map[string]bool{}
	var logSum float64
	for i := range old.Measurements {
		o := &old.Measurements[i]
		n, ok := newByKey[key(o)]
		if !ok {
			res.OnlyOld = append(res.OnlyOld, key(o))
			continue
		}
		matched[key(o)] = true
		row := compareRow(o, n, res.Threshold)
		if row.Old.Median > 0 && row.New.Median > 0 {
			logSum += math.Log(row.New.Median / row.Old.Median)
		}
		res.Regressed = res.Regressed || row.Regression
		res.Rows = append(res.Rows, row)
	}
	for i := range new.Measurements {
		if k := key(&new.Measurements[i]); !matched[k] {
			res.OnlyNew = append(res.OnlyNew, k)
		}
	}
	sort.Strings(res.OnlyOld)
	sort.Strings(res.OnlyNew)
	if len(res.Rows) > 0 {
		res.Geomean = math.Exp(logSum/float64(len(res.Rows))) - 1
	}
	return res
}

func compareRow(o, n *Measurement, threshold float64) CompareRow {
	row := CompareRow{Key: o.Key(), Workload: o.Workload, Side: o.Side, Variant: o.Variant, Params: o.Params,
		Clock: "end-to-end", Old: o.EndToEnd, New: n.EndToEnd}
	if o.Backend != n.Backend || o.Variant != n.Variant {
		row.OldBackend, row.NewBackend = o.Backend+"/"+o.Variant, n.Backend+"/"+n.Variant
	}
	oldS, newS := o.Samples, n.Samples
	if o.Kernel != nil && n.Kernel != nil {
		row.Clock, row.Old, row.New = "kernel", *o.Kernel, *n.Kernel
		oldS, newS = o.KernelSamples, n.KernelSamples
	}
	if row.Old.Median > 0 {
		row.Delta = row.New.Median/row.Old.Median - 1
	}
	if len(oldS) > 0 && len(newS) > 0 {
		th := &benchmath.Thresholds{CompareAlpha: CompareAlpha}
		c := benchmath.AssumeNothing.Compare(benchmath.NewSample(oldS, th), benchmath.NewSample(newS, th))
		row.Method, row.P = MethodUTest, c.P
		row.Significant = c.P < c.Alpha
	} else {
		row.Method = MethodCI
		row.Significant = row.Old.Valid() && row.New.Valid() && (row.New.Lo > row.Old.Hi || row.New.Hi < row.Old.Lo)
	}
	row.Regression = row.Significant && row.Delta > threshold
	row.Improvement = row.Significant && row.Delta < -threshold
	return row
}

// WriteCompare prints a CompareResult as a benchstat-like table: old and new
// medians with CIs, delta (or "~" when not significant), and the method;
// a geomean row closes it, followed by unmatched keys.
func WriteCompare(w io.Writer, c CompareResult) error {
	if w == nil {
		return errors.New("report: WriteCompare: nil writer")
	}
	rows := [][]string{{"measurement", "clock", "old", "new", "delta", "significance", ""}}
	for _, r := range c.Rows {
		delta := "~"
		if r.Significant {
			delta = fmt.Sprintf("%+.1f%%", 100*r.Delta)
		}
		sig := r.Method
		if r.Method == MethodUTest {
			sig = fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.Old.N, r.New.N)
		}
		mark := ""
		if r.Regression {
			mark = "REGRESSION"
		}
		what := r.Key
		if r.OldBackend != "" {
			what = fmt.Sprintf("%s|%s (%s → %s)", r.Workload, r.Side, r.OldBackend, r.NewBackend)
		}
		rows = append(rows, []string{what, r.Clock, r.Old.String(), r.New.String(), delta, sig, mark})
	}
	if len(c.Rows) > 0 {
		rows = append(rows, []string{"geomean", "", "", "", fmt.Sprintf("%+.1f%%", 100*c.Geomean), "", ""})
	}
	tw := &textWriter{w: w}
	if tableWidth(rows) <= MaxLine {
		tw.table(rows)
	} else {
		// Folded within MaxLine: each measurement's name on a line of
		// its own, its figures under it, aligned with the others'.
		figures := make([][]string, len(rows))
		for i, row := range rows {
			figures[i] = append([]string{""}, row[1:]...)
			if i == 0 || row[0] == "geomean" {
				figures[i][0] = row[0]
			}
		}
		for i, l := range tableLines(figures) {
			if figures[i][0] == "" {
				tw.printf("%s\n", rows[i][0])
			}
			tw.printf("%s\n", l)
		}
	}
	if tw.err != nil {
		return fmt.Errorf("report: WriteCompare: %w", tw.err)
	}
	var err error
	for _, k := range c.OnlyOld {
		if _, err = fmt.Fprintf(w, "only in old: %s\n", k); err != nil {
			break
		}
	}
	for _, k := range c.OnlyNew {
		if err != nil {
			break
		}
		_, err = fmt.Fprintf(w, "only in new: %s\n", k)
	}
	if err == nil && c.Regressed {
		_, err = fmt.Fprintf(w, "regressed: at least one significant slowdown above %.0f%%\n", 100*c.Threshold)
	}
	if err != nil {
		return fmt.Errorf("report: WriteCompare: %w", err)
	}
	return nil
}
