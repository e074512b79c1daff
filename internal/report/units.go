package report

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// FormatRate prints a bandwidth given in GB/s (10⁹ bytes/s) with a
// human prefix and three significant digits: 248 MB/s, 43.5 GB/s, 1.20 TB/s.
func FormatRate(gbs float64) string { return siUnit(gbs*1e9, "B/s") }

// FormatFlopRate prints an arithmetic rate given in GFLOP/s: 310 MFLOP/s,
// 43.4 GFLOP/s, 1.20 TFLOP/s.
func FormatFlopRate(gflops float64) string { return siUnit(gflops*1e9, "FLOP/s") }

// FormatBytes prints a size in bytes with a binary prefix: 32 MiB.
func FormatBytes(b float64) string {
	a := math.Abs(b)
	for i, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if a < 1024 || i == 4 {
			if i == 0 {
				return fmt.Sprintf("%.0f %s", b, u)
			}
			return sig3(b) + " " + u
		}
		a /= 1024
		b /= 1024
	}
	return ""
}

// FormatCount prints a batch size compactly: 950, 20.8k, 1.05M.
func FormatCount(v float64) string { return formatCount(v) }

func siUnit(v float64, unit string) string {
	a := math.Abs(v)
	switch {
	case a == 0 || math.IsNaN(v):
		return "0 " + unit
	case a >= 1e12:
		return sig3(v/1e12) + " T" + unit
	case a >= 1e9:
		return sig3(v/1e9) + " G" + unit
	case a >= 1e6:
		return sig3(v/1e6) + " M" + unit
	case a >= 1e3:
		return sig3(v/1e3) + " k" + unit
	}
	return sig3(v) + " " + unit
}

func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// CeilingKey is one parsed key of Ceilings: "read_gbs_1core" is kind
// "bandwidth", op "read", unit "GB/s", cores "1 core".
type CeilingKey struct {
	Key       string
	Kind      string  // "bandwidth" or "arithmetic" (or "other")
	Op        string  // read, write, copy, triad, fma
	OneCore   bool    // measured on one core (CPU)
	Intensity float64 // FMA at a given flop/byte (0: the peak)
}

// ParseCeilingKey splits a Ceilings key into its parts.
func ParseCeilingKey(k string) CeilingKey {
	c := CeilingKey{Key: k, Kind: "other", Op: k}
	s := k
	if t, ok := strings.CutSuffix(s, "_1core"); ok {
		s, c.OneCore = t, true
	}
	if op, at, ok := strings.Cut(s, "_gflops_at_"); ok {
		if v, err := strconv.ParseFloat(at, 64); err == nil {
			c.Kind, c.Op, c.Intensity = "arithmetic", op, v
		}
		return c
	}
	if lvl, ok := strings.CutPrefix(s, "bytes_"); ok {
		// The working-set size a per-level ceiling was measured at.
		c.Kind, c.Op = "working set", lvl
		return c
	}
	if op, lvl, ok := strings.Cut(s, "_gbs_"); ok {
		// A ceiling measured at one memory level's working set (l2, llc).
		c.Kind, c.Op = "bandwidth", op+" ("+lvl+")"
		return c
	}
	if op, ok := strings.CutSuffix(s, "_gbs"); ok {
		c.Kind, c.Op = "bandwidth", op
	} else if op, ok := strings.CutSuffix(s, "_gflops"); ok {
		c.Kind, c.Op = "arithmetic", op
	}
	return c
}

// Format prints a ceiling value in its unit.
func (c CeilingKey) Format(v float64) string {
	switch c.Kind {
	case "bandwidth":
		return FormatRate(v)
	case "arithmetic":
		return FormatFlopRate(v)
	case "working set":
		return FormatBytes(v)
	}
	return sig3(v)
}

// Label names the ceiling for a reader: "read", "FMA peak", "FMA at 4 flop/B".
func (c CeilingKey) Label() string {
	switch {
	case c.Kind == "arithmetic" && c.Intensity > 0:
		return fmt.Sprintf("%s at %g flop/B", strings.ToUpper(c.Op), c.Intensity)
	case c.Kind == "arithmetic":
		return strings.ToUpper(c.Op) + " peak"
	}
	return c.Op
}

var opOrder = map[string]int{"read": 0, "write": 1, "copy": 2, "triad": 3, "fma": 4}

// orderedCeilingRows groups the keys of both sides by kind (bandwidth
// first), then by operation in a fixed order (read, write, copy, triad;
// FMA peak, then by intensity), merging the one-core variants into the
// same row.
func orderedCeilingRows(cs Ceilings) []CeilingKey {
	seen := map[string]bool{}
	var rows []CeilingKey
	for _, m := range []map[string]float64{cs.GPU, cs.CPU} {
		for k := range m {
			c := ParseCeilingKey(k)
			c.OneCore = false
			c.Key = strings.TrimSuffix(k, "_1core")
			if !seen[c.Key] {
				seen[c.Key] = true
				rows = append(rows, c)
			}
		}
	}
	kindOrder := map[string]int{"bandwidth": 0, "arithmetic": 1, "working set": 2, "other": 3}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if kindOrder[a.Kind] != kindOrder[b.Kind] {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		oa, oka := opOrder[a.Op]
		ob, okb := opOrder[b.Op]
		if oka != okb {
			return oka
		}
		if oa != ob {
			return oa < ob
		}
		if a.Intensity != b.Intensity {
			return a.Intensity < b.Intensity
		}
		return a.Key < b.Key
	})
	return rows
}

// CeilingOf names the measured ceiling a measurement's "% of ceiling"
// compares with (the roofline's roof for its bound: read bandwidth for a
// memory-bound row, the FMA peak for a compute-bound one), with its value:
// "GPU read 3.10 GB/s". Empty when the row has no bound.
func CeilingOf(r *Report, m *Measurement) string {
	cs := r.Ceilings.CPU
	side := "CPU"
	if m.Side == SideGPU {
		cs, side = r.Ceilings.GPU, "GPU"
	}
	switch m.Bound {
	case "memory":
		key := m.ReadCeilingKey()
		if v, ok := cs[key]; ok {
			return fmt.Sprintf("%s %s %s", side, ReadCeilingName(key), FormatRate(v))
		}
	case "compute":
		if m.PeakKey() == Int8PeakKey {
			if v, ok := cs[Int8PeakKey]; ok {
				return fmt.Sprintf("%s int8 dot-product peak %s", side, FormatOpRate(v))
			}
		}
		if v, ok := cs["fma_gflops"]; ok {
			return fmt.Sprintf("%s FMA peak %s", side, FormatFlopRate(v))
		}
	}
	return ""
}

// Int8PeakKey is the key, in a side's Ceilings map, of its integer
// dot-product peak (1e9 int8 ops per second: a byte product with its
// sum counts 2, as an FMA counts 2 flops).
const Int8PeakKey = "int8_gops"

// Precision is the stored precision a row read: its "precision" param,
// "f32" when it has none.
func (m *Measurement) Precision() string {
	for _, p := range m.Params {
		if p.Key == "precision" {
			return p.Value
		}
	}
	return "f32"
}

// PeakKey is the key of the compute peak m is judged against: the int8
// dot-product peak for an int8 row (its Flops are integer ops), else the
// FMA peak.
func (m *Measurement) PeakKey() string {
	if m.Precision() == "int8" {
		return Int8PeakKey
	}
	return "fma_gflops"
}

// PeakOf is the compute peak of m in cs (its side's Ceilings): cs at
// m.PeakKey(), the FMA peak where that is missing.
func PeakOf(cs map[string]float64, m *Measurement) float64 {
	if v := cs[m.PeakKey()]; v > 0 {
		return v
	}
	return cs["fma_gflops"]
}

// FormatRateOf prints m's arithmetic rate (GFLOPs) in its unit: integer
// ops for an int8 row, FLOP/s otherwise.
func FormatRateOf(m *Measurement) string {
	if m.PeakKey() == Int8PeakKey {
		return FormatOpRate(m.GFLOPs)
	}
	return FormatFlopRate(m.GFLOPs)
}

// FormatOpRate prints an integer op rate given in 1e9 ops/s: "1.02 Tops/s".
func FormatOpRate(gops float64) string { return siUnit(gops*1e9, "ops/s") }

// ReadCeilingKey is the key of the read ceiling a memory-bound row is
// judged against: ReadCeiling, "read_gbs" (DRAM) when empty.
func (m *Measurement) ReadCeilingKey() string {
	if m.ReadCeiling != "" {
		return m.ReadCeiling
	}
	return "read_gbs"
}

// ReadCeilingName names a read-bandwidth ceiling key: "read" (DRAM),
// "read (llc)", "cache-resident read".
func ReadCeilingName(key string) string {
	switch {
	case key == "read_gbs":
		return "read"
	case key == "cache_read_gbs":
		return "cache-resident read"
	case strings.HasPrefix(key, "read_gbs_"):
		return "read (" + strings.TrimPrefix(key, "read_gbs_") + ")"
	}
	return key
}

// FormatDuration prints a duration with three significant digits: 1.43ms.
func FormatDuration(d time.Duration) string { return timing.FormatSeconds(d.Seconds()) }

// DisplayParams formats params for a reader: "k=v k=v", with a long
// per-step list ("active=169/2313/…/10000", one value per spreading step)
// summarised as its last value and its peak: "active=10000 (peak 10000)",
// and a list of zeros as one "0".
func DisplayParams(ps []Param) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		parts = append(parts, p.Key+"="+displayValue(p.Value))
	}
	return strings.Join(parts, " ")
}

// displayValue summarises a "/"-separated list of more than two numbers as
// its last value and its peak (the peak omitted where it is the last).
func displayValue(v string) string {
	if strings.Contains(v, "e+") {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			return formatCount(x)
		}
	}
	f := strings.Split(v, "/")
	if len(f) <= 2 {
		return v
	}
	peak, last := math.Inf(-1), 0.0
	for i, x := range f {
		n, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return v
		}
		peak = math.Max(peak, n)
		if i == len(f)-1 {
			last = n
		}
	}
	if last == peak {
		return f[len(f)-1]
	}
	return fmt.Sprintf("%s (peak %s)", f[len(f)-1], strconv.FormatFloat(peak, 'f', -1, 64))
}

// informational reports whether a measurement's warning is a note rather
// than a warning: which ceilings a row was judged against (the table
// names them), or good news about a user kernel's checks.
func informational(w string) bool {
	return strings.HasPrefix(w, "judged against the ") || strings.HasPrefix(w, "user kernel: verified as repeatable")
}

var numberRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// AggregateWarnings lists r's warnings one line per kind: a kind seen once
// is written as it is; a kind seen on several rows is written once with
// the count and its worst case (the largest last number: the highest CV,
// the largest max/median, the widest host CI). Informational notes
// (informational) are left out; run-level warnings come first, each once.
func AggregateWarnings(r *Report) []string {
	type entry struct {
		row, msg string
		score    float64
	}
	var order []string
	groups := map[string][]entry{}
	add := func(row, msg string) {
		key := numberRE.ReplaceAllString(msg, "#")
		score := math.Inf(-1)
		if ns := numberRE.FindAllString(msg, -1); len(ns) > 0 {
			score, _ = strconv.ParseFloat(ns[len(ns)-1], 64)
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], entry{row, msg, score})
	}
	// A run-level warning "subject: what" is grouped by what, like a
	// row's.
	for _, w := range r.Warnings {
		subject, what, ok := strings.Cut(w, ": ")
		if !ok || strings.ContainsAny(subject, "\"'") {
			subject, what = "", w
		}
		add(subject, what)
	}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		name := strings.Join(nonEmpty(m.Workload, m.Side, m.Variant, DisplayParams(m.Params)), " ")
		for _, w := range m.Warnings {
			if !informational(w) {
				add(name, w)
			}
		}
		for _, w := range m.EndToEnd.Warnings {
			add(name+" (end to end)", w)
		}
		if m.Kernel != nil {
			for _, w := range m.Kernel.Warnings {
				add(name+" (kernel)", w)
			}
		}
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		worst := g[0]
		for _, e := range g[1:] {
			if e.score > worst.score {
				worst = e
			}
		}
		line := worst.msg
		if worst.row != "" {
			line = worst.row + ": " + worst.msg
		}
		if len(g) > 1 {
			kind := strings.SplitN(worst.msg, ":", 2)[0]
			if strings.HasPrefix(worst.msg, "stopped by ") {
				kind = strings.SplitN(worst.msg, " after ", 2)[0] + " before the CI target"
			}
			line = fmt.Sprintf("%s: %d times; worst: %s", kind, len(g), line)
		}
		out = append(out, line)
	}
	return out
}

// FormatSummary prints a summary as its median and 95% CI of the median
// relative to it: "1.23ms ±2%" when the interval is about symmetric,
// "6.56ms −3%/+55%" when one side is more than 1.5× the other (a
// long-tailed sample: "±55%" would overstate the lower bound).
func FormatSummary(s timing.Summary) string {
	if s.N == 0 || !(s.Median > 0) || math.IsInf(s.Hi, 0) {
		return s.String()
	}
	lo, hi := (s.Median-s.Lo)/s.Median, (s.Hi-s.Median)/s.Median
	if lo < 0 || hi < 0 || (hi <= 1.5*lo+0.005 && lo <= 1.5*hi+0.005) {
		return s.String()
	}
	pct := func(x float64) string {
		if x < 0.0095 {
			return fmt.Sprintf("%.1f%%", 100*x)
		}
		return fmt.Sprintf("%.0f%%", 100*x)
	}
	return fmt.Sprintf("%s −%s/+%s", timing.FormatSeconds(s.Median), pct(lo), pct(hi))
}
