package plan

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// A CPU profile holds no GPU time: an operation that ran on the GPU (or
// routed between it and the host) is validated on wall time, from the
// application's own benchmark of the operation (a `go test -bench`
// output, golang.org/x/perf's benchfmt) before and after the port.

// Units of a wall benchmark beside sec/op: the operation's calls in one
// benchmark op, and those of them the GPU answered (a routed port's
// dispatch.Route.Share), by which plan sees what the route did.
const (
	UnitCalls    = "calls/op"
	UnitGPUCalls = "gpu-calls/op"
)

// WallBench is one benchmark of a wall-time file: its name (with its
// sub-benchmarks, without GOMAXPROCS), the median of its runs' sec/op,
// and the medians of its calls/op and gpu-calls/op (HasCalls: both
// reported).
type WallBench struct {
	Name            string
	Sec             float64
	Runs            int
	Calls, GPUCalls float64
	HasCalls        bool
	File            string
}

// ReadWall reads a `go test -bench` output (flag names the flag in
// errors) into its benchmarks by name.
func ReadWall(flag, path string) (map[string]WallBench, error) {
	bad := func(format string, args ...any) error {
		return env.Usage(&env.ParamError{Name: flag, Value: path, Limit: fmt.Sprintf(format, args...)})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, bad("%v", err)
	}
	defer f.Close()
	type runs struct{ sec, calls, gpu []float64 }
	by := map[string]*runs{}
	var firstSyntax error
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			if firstSyntax == nil {
				firstSyntax = r
			}
		case *benchfmt.Result:
			v, ok := r.Value("sec/op")
			if !ok || !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			name := wallName(r.Name)
			if by[name] == nil {
				by[name] = &runs{}
			}
			rs := by[name]
			rs.sec = append(rs.sec, v)
			c, okC := r.Value(UnitCalls)
			g, okG := r.Value(UnitGPUCalls)
			if okC && okG && c > 0 && g >= 0 {
				rs.calls, rs.gpu = append(rs.calls, c), append(rs.gpu, g)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, bad("%v", err)
	}
	if len(by) == 0 {
		why := "no benchmark with a time per op (want a `go test -bench` output)"
		if firstSyntax != nil {
			why += "; first unreadable line: " + firstSyntax.Error()
		}
		return nil, bad("%s", why)
	}
	out := map[string]WallBench{}
	for name, rs := range by {
		med, _ := medianSE(rs.sec)
		wb := WallBench{Name: name, Sec: med, Runs: len(rs.sec), File: path}
		if len(rs.calls) == len(rs.sec) {
			wb.Calls, _ = medianSE(rs.calls)
			wb.GPUCalls, _ = medianSE(rs.gpu)
			wb.HasCalls = true
		}
		out[name] = wb
	}
	return out, nil
}

// wallName is a benchmark's full name without GOMAXPROCS, with its
// Benchmark prefix.
func wallName(full benchfmt.Name) string {
	base, parts := full.Parts()
	name := "Benchmark" + string(base)
	for _, p := range parts {
		if s := string(p); !strings.HasPrefix(s, "-") {
			name += s
		}
	}
	return name
}

// wallPair is the benchmark named name (or, when name is "", the only one
// both files hold) before and after.
func wallPair(before, after map[string]WallBench, name string) (b, a WallBench, err error) {
	var common []string
	for n := range before {
		if _, ok := after[n]; ok {
			common = append(common, n)
		}
	}
	sort.Strings(common)
	if name == "" {
		if len(common) != 1 {
			return b, a, fmt.Errorf("the wall files hold %d benchmarks in common (%s): name the operation's, REGEX=gpu@NAME", len(common), strings.Join(common, ", "))
		}
		name = common[0]
	}
	b, okB := before[name]
	a, okA := after[name]
	if !okB || !okA {
		return b, a, fmt.Errorf("benchmark %s is not in both wall files (in common: %s)", name, strings.Join(common, ", "))
	}
	return b, a, nil
}
