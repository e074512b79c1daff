package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// How an operation ran after the port (plan --validate --ported).
const (
	// PortedKeep: not ported; its own code as before.
	PortedKeep = "keep"
	// PortedSIMD: every call on the host SIMD kernel.
	PortedSIMD = "simd"
	// PortedGPU: every call on the GPU.
	PortedGPU = "gpu"
	// PortedRouted: each call routed by size, as the plan's route
	// (dispatch.RouteFromReport) decides.
	PortedRouted = "routed"
)

// PortedModes are the ways an operation may have run after the port.
var PortedModes = []string{PortedKeep, PortedSIMD, PortedGPU, PortedRouted}

// hostMode reports whether mode runs on the host only, so that a CPU
// profile holds all of its time.
func hostMode(mode string) bool { return mode == PortedKeep || mode == PortedSIMD }

// PortedSpec is one --ported entry: the operations it names (Pattern,
// over function names and labels; nil: every operation not named by
// another entry), how they ran, and the benchmark their wall time is in
// (Bench, "": the only one).
type PortedSpec struct {
	Text    string
	Pattern *regexp.Regexp
	Mode    string
	Bench   string
}

// ParsePorted parses --ported values: each MODE or REGEX=MODE[@BENCH]
// (MODE one of PortedModes), several to a value separated by commas (a
// comma inside a regular expression stays in it: an entry ends where
// "=MODE" does). A bare MODE applies to every operation no entry names;
// at most one is given.
func ParsePorted(values []string) ([]PortedSpec, error) {
	var out []PortedSpec
	bare := 0
	for _, v := range values {
		for _, e := range splitPorted(v) {
			sp, err := parsePortedEntry(e)
			if err != nil {
				return nil, err
			}
			if sp.Pattern == nil {
				if bare++; bare > 1 {
					return nil, &env.ParamError{Name: "ported", Value: fmt.Sprintf("%q", e),
						Limit: "a second value for every operation: give one, and REGEX=MODE for the others"}
				}
			}
			out = append(out, sp)
		}
	}
	return out, nil
}

// splitPorted splits a --ported value at the commas that end an entry:
// the pieces are joined until they end in a mode (with its @BENCH).
func splitPorted(v string) []string {
	var out []string
	cur := ""
	for _, p := range strings.Split(v, ",") {
		if cur != "" {
			cur += ","
		}
		cur += p
		if endsInMode(cur) {
			out = append(out, cur)
			cur = ""
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// endsInMode reports whether s is a mode, or ends in =MODE[@BENCH].
func endsInMode(s string) bool {
	mode := s
	if i := strings.LastIndex(s, "="); i >= 0 {
		mode = s[i+1:]
	}
	mode, _, _ = strings.Cut(mode, "@")
	return slices.Contains(PortedModes, mode)
}

func parsePortedEntry(e string) (PortedSpec, error) {
	bad := func(format string, args ...any) error {
		return &env.ParamError{Name: "ported", Value: fmt.Sprintf("%q", e), Limit: fmt.Sprintf(format, args...)}
	}
	want := "want " + strings.Join(PortedModes[:len(PortedModes)-1], ", ") + " or " + PortedModes[len(PortedModes)-1]
	sp := PortedSpec{Text: e}
	pat, mode := "", e
	if i := strings.LastIndex(e, "="); i >= 0 {
		pat, mode = e[:i], e[i+1:]
		if pat == "" {
			return sp, bad("no expression before '=': want REGEX=MODE or MODE (%s)", strings.TrimPrefix(want, "want "))
		}
	}
	mode, bench, hasBench := strings.Cut(mode, "@")
	if !slices.Contains(PortedModes, mode) {
		return sp, bad("mode %q: %s (REGEX=MODE per operation, or MODE for every one)", mode, want)
	}
	if hasBench {
		if bench == "" || hostMode(mode) {
			return sp, bad("@%s: a benchmark is named only for gpu or routed, whose wall time it gives (REGEX=gpu@BenchmarkName)", bench)
		}
		if !strings.HasPrefix(bench, "Benchmark") {
			bench = "Benchmark" + bench
		}
	}
	sp.Mode, sp.Bench = mode, bench
	if pat != "" {
		re, err := regexp.Compile(pat)
		if err != nil {
			return sp, bad("%v", err)
		}
		sp.Pattern = re
	}
	return sp, nil
}

// PortedOp is how one operation (an --op, in their order) ran after the
// port and which samples of the after profile are its own: Pattern, over
// function names and sample labels (key=value), its --ported expression
// or its --op's.
type PortedOp struct {
	Mode    string
	Pattern *regexp.Regexp
	Bench   string
	// Named: an entry named the operation (else the bare value, or keep).
	Named bool
}

// AssignPorted gives each operation its --ported entry: the entry whose
// expression is the operation's --op expression, or matches one of its
// functions in the profile before (shares[i].Functions); an entry that
// names no operation, or several, and an operation named twice, are
// errors. Operations no entry names take the bare value, else keep.
func AssignPorted(specs []PortedSpec, ops []Op, shares []ProfileShare) ([]PortedOp, error) {
	out := make([]PortedOp, len(ops))
	def := PortedSpec{Mode: PortedKeep}
	for _, sp := range specs {
		if sp.Pattern == nil {
			def = sp
		}
	}
	for i, op := range ops {
		out[i] = PortedOp{Mode: def.Mode, Pattern: op.Regex, Bench: def.Bench}
	}
	by := make([]string, len(ops))
	for _, sp := range specs {
		if sp.Pattern == nil {
			continue
		}
		var hit []int
		for i, op := range ops {
			if op.Regex.String() == sp.Pattern.String() {
				hit = []int{i}
				break
			}
			if slices.ContainsFunc(shares[i].Functions, sp.Pattern.MatchString) {
				hit = append(hit, i)
			}
		}
		bad := func(format string, args ...any) error {
			return env.Usage(&env.ParamError{Name: "ported", Value: fmt.Sprintf("%q", sp.Text), Limit: fmt.Sprintf(format, args...)})
		}
		switch {
		case len(hit) == 0:
			return nil, bad("names no --op: its expression is none of theirs (%s) and matches none of their functions in the profile", opList(ops))
		case len(hit) > 1:
			var names []string
			for _, i := range hit {
				names = append(names, ops[i].Regex.String())
			}
			return nil, bad("names %d operations (%s): give each its own entry", len(hit), strings.Join(names, ", "))
		case by[hit[0]] != "":
			return nil, bad("names %s, which %q named already", ops[hit[0]].Regex, by[hit[0]])
		}
		i := hit[0]
		by[i] = sp.Text
		out[i] = PortedOp{Mode: sp.Mode, Pattern: sp.Pattern, Bench: sp.Bench, Named: true}
	}
	return out, nil
}

func opList(ops []Op) string {
	var s []string
	for _, op := range ops {
		s = append(s, op.Regex.String())
	}
	return strings.Join(s, ", ")
}
