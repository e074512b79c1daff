package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Asked is the answer to what a flag asked for (--batch-mix, --amdahl,
// --min-speedup, --transfer): the flag as given and its answer, one line
// each. The text and HTML reports print them first in the answer block,
// "--amdahl 0.3: …", so a reader finds the answer where the question was.
type Asked struct {
	// Flag is the flag with its value as the reader wrote it
	// ("--amdahl 0.3", "--batch-mix sizes.txt").
	Flag string `json:"flag"`
	// Answer is the answer in one sentence, every number with its side
	// and unit.
	Answer string `json:"answer"`
}

// AddAsked files the answer to flag; an answer already filed for the same
// flag with the same text is not filed twice.
func (r *Report) AddAsked(flag, answer string) {
	for _, a := range r.Asked {
		if a.Flag == flag && a.Answer == answer {
			return
		}
	}
	r.Asked = append(r.Asked, Asked{Flag: flag, Answer: answer})
}

// AnswerLines are the lines of r's answer block, in order: the answers to
// what the flags asked for, the verdicts (the summary when there are none
// and r is no plan), the noise line; a line equal to one before it is dropped (the
// same sentence never twice in one block).
func AnswerLines(r *Report) []string {
	var lines []string
	for _, a := range r.Asked {
		lines = append(lines, a.Flag+": "+a.Answer)
	}
	answers := r.Verdicts
	if len(answers) == 0 && !summaryIsDetail(r) {
		answers = r.Summary
	}
	lines = append(lines, answers...)
	if n := NoiseLine(r.Noise); n != "" {
		lines = append(lines, n)
	}
	seen := map[string]bool{}
	out := lines[:0]
	for _, l := range lines {
		k := strings.TrimSpace(l)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	return out
}

// summaryIsDetail reports whether r's summary is detail rather than the
// answer: a report with verdicts, or a plan (its table is the answer; the
// summary lists every measurement behind it).
func summaryIsDetail(r *Report) bool { return len(r.Verdicts) > 0 || r.Plan != nil }

// BatchUnit is what a batch size of the parameter batch counts, in words:
// "rows" for n, "queries" for q; "" where the name says it (nodes).
func BatchUnit(batch string) string {
	switch batch {
	case "n":
		return "rows"
	case "q":
		return "queries"
	}
	return ""
}

// BatchCount writes a batch size with what it counts: "n = 8192 rows",
// "q = 64 queries", "nodes = 10k".
func BatchCount(batch string, v float64) string {
	if batch == "" {
		batch = "n"
	}
	s := batch + " = " + formatCount(v)
	if u := BatchUnit(batch); u != "" {
		s += " " + u
	}
	return s
}

// BatchSpan writes a range of batch sizes with what they count:
// "n = 256 … 8192 rows".
func BatchSpan(batch string, lo, hi float64) string {
	if batch == "" {
		batch = "n"
	}
	s := fmt.Sprintf("%s = %s … %s", batch, formatCount(lo), formatCount(hi))
	if u := BatchUnit(batch); u != "" {
		s += " " + u
	}
	return s
}

// Seconds writes a time with a space before its unit, as prose does:
// "2.02 ms", "585 µs".
func Seconds(sec float64) string { return timing.FormatSecondsSpaced(sec) }

// SideTimes writes two sides' times, each named: "GPU 2.02 ms vs CPU
// 585 µs".
func SideTimes(sideA string, a float64, sideB string, b float64) string {
	return fmt.Sprintf("%s %s vs %s %s", sideA, Seconds(a), sideB, Seconds(b))
}

// MaxLine is the widest line of the short text output (a terminal of
// 120 columns, with room for a bullet's indent); WrapBullet breaks longer
// lines.
const MaxLine = 118

// WrapBullet breaks s into lines of at most width runes at spaces: the
// first line after prefix, the next ones after an indent as wide as
// prefix. A word longer than a line stays whole.
func WrapBullet(prefix, s string, width int) []string {
	indent := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	words := glueUnits(strings.Fields(s))
	var out []string
	cur := prefix
	empty := true
	for _, w := range words {
		if !empty && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, cur)
			cur, empty = indent+w, false
			continue
		}
		if empty {
			cur += w
		} else {
			cur += " " + w
		}
		empty = false
	}
	return append(out, cur)
}

// regimeName is a break-even's comparison in words: "GPU (data resident)
// vs CPU".
func regimeName(be BreakEven) string {
	la, lb := sidesOf(be)
	return SideName(lb) + " vs " + SideName(la)
}

// MixAnswer answers --batch-mix for one end-to-end break-even priced on
// the mix (be.Mix): what the mix routes to side B, what 1,000 calls of it
// cost on each side and routed, and the saving with its 95% CI. An
// inconclusive verdict routes no call and says so. "" without a mix.
func MixAnswer(be BreakEven) string {
	m := be.Mix
	if m == nil {
		return ""
	}
	la, lb := sidesOf(be)
	a, b := shortSide(la), shortSide(lb)
	if a == b {
		a, b = la, lb
	}
	batch := be.Batch
	if batch == "" {
		batch = "n"
	}
	var route string
	switch {
	case be.Verdict == timing.VerdictInconclusive:
		route = fmt.Sprintf("routes no call to the %s: the break-even is inconclusive, so every call stays on the %s", b, a)
	case m.ShareAbove <= 0:
		route = fmt.Sprintf("routes no call to the %s (it is faster at no size of the mix)", b)
	case m.ShareAbove >= 1:
		route = fmt.Sprintf("routes every call to the %s", b)
	default:
		route = fmt.Sprintf("routes calls of %s ≥ %s%s to the %s (%.0f%% of calls)", batch, formatCount(m.Crossover), unitSuffix(batch), b, 100*m.ShareAbove)
	}
	s := fmt.Sprintf("%s, %s, %d calls of %d sizes: %s; per 1,000 calls %s-only %s, %s-only %s, routed %s",
		be.Workload, regimeName(be), m.Calls, m.Distinct, route, a, Seconds(m.PerThousandA), b, Seconds(m.PerThousandB), Seconds(m.PerThousandRouted))
	if m.ShareAbove <= 0 || be.Verdict == timing.VerdictInconclusive {
		s += fmt.Sprintf(": no saving against %s-only", a)
	} else {
		s += fmt.Sprintf(": saves %.1f%% (95%% CI %.1f%% … %.1f%%) against %s-only", 100*m.Saving, 100*m.SavingLo, 100*m.SavingHi, a)
	}
	if m.Outside > 0 {
		s += fmt.Sprintf("; %d size(s) outside a fit's measured range (extrapolated)", m.Outside)
	}
	return s
}

func unitSuffix(batch string) string {
	if u := BatchUnit(batch); u != "" {
		return " " + u
	}
	return ""
}

// AmdahlAnswer answers --amdahl share for one break-even: side B's
// speedup over side A at the largest size measured, with its 95% CI
// (from the two medians' CIs), and the application speedup Amdahl's law
// gives for an operation taking share of the application's time, with
// its CI; with a batch mix priced, the same for the mix routed.
func AmdahlAnswer(be BreakEven, share float64) (string, error) {
	last := len(be.Batches) - 1
	if last < 0 || last >= len(be.CPU) || last >= len(be.GPU) || !be.CPU[last].Valid() || !be.GPU[last].Valid() || be.GPU[last].Median <= 0 {
		return "", nil
	}
	la, lb := sidesOf(be)
	a, b := shortSide(la), shortSide(lb)
	if a == b {
		a, b = la, lb
	}
	ca, cb := be.CPU[last], be.GPU[last]
	sp := ca.Median / cb.Median
	spLo, spHi := sp, sp
	if cb.Hi > 0 && ca.Lo > 0 {
		spLo = ca.Lo / cb.Hi
	}
	if cb.Lo > 0 {
		spHi = ca.Hi / cb.Lo
	}
	app, err := timing.Amdahl(share, sp)
	if err != nil {
		return "", err
	}
	appLo, errLo := timing.Amdahl(share, spLo)
	appHi, errHi := timing.Amdahl(share, spHi)
	ci := ""
	if errLo == nil && errHi == nil {
		ci = fmt.Sprintf(" (95%% CI %.2f× … %.2f×)", appLo, appHi)
	}
	s := fmt.Sprintf("%s, %s, at %s (%s): %s on the %s makes an application spending %.0f%% of its time here %.2f× as fast%s",
		be.Workload, regimeName(be), BatchCount(be.Batch, float64(be.Batches[last])), SideTimes(b, cb.Median, a, ca.Median),
		"every call", b, 100*share, app, ci)
	if m := be.Mix; m != nil && m.Speedup > 0 {
		if mix, err := timing.Amdahl(share, m.Speedup); err == nil {
			s += fmt.Sprintf("; the batch mix routed: %.2f×", mix)
			lo, e1 := timing.Amdahl(share, m.SpeedupLo)
			hi, e2 := timing.Amdahl(share, m.SpeedupHi)
			if e1 == nil && e2 == nil {
				s += fmt.Sprintf(" (95%% CI %.2f× … %.2f×)", lo, hi)
			}
		}
	}
	return s, nil
}

// units are the words that stay on the line of the number before them
// ("2.02 ms", "64 queries").
var units = map[string]bool{"ns": true, "µs": true, "ms": true, "s": true, "rows": true, "queries": true,
	"GB/s": true, "MB/s": true, "GFLOP/s": true, "TFLOP/s": true, "KiB": true, "MiB": true, "GiB": true, "MB": true, "GB": true}

// glueUnits joins a unit to the number before it, so a line never breaks
// between them.
func glueUnits(words []string) []string {
	out := words[:0:0]
	for _, w := range words {
		if n := len(out); n > 0 && units[strings.TrimRight(w, ",;:.)]")] {
			prev := out[n-1]
			if prev != "" && prev[len(prev)-1] >= '0' && prev[len(prev)-1] <= '9' {
				out[n-1] = prev + " " + w
				continue
			}
		}
		out = append(out, w)
	}
	return out
}
