package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// The application's own code per size. The profile alone gives its mean
// per call (its CPU time over its calls); its time at each size is
// measured two ways: pprof labels, a service wrapping each call in
//
//	pprof.Do(ctx, pprof.Labels("size", strconv.Itoa(n)), func(context.Context) { ... })
//
// so the profile's samples of the operation carry the call's size (its
// CPU time per size over the mix file's calls per size), or Go
// benchmarks of it whose sub-benchmark names carry the size
// (BenchmarkScore/q=64). Without either the own code is known only at
// its mean and is compared only there.

// DefaultSizeLabel is the pprof label key that carries a call's size.
const DefaultSizeLabel = "size"

// SizeTime is an operation's CPU time (the profile's unit) and samples at
// one size, from the samples labelled with it.
type SizeTime struct {
	Value, Samples int64
}

// minLabelSamples is the fewest labelled samples of an operation whose
// time per size is read from them (a profile at 100 Hz: 0.1 s of CPU).
const minLabelSamples = 10

// BenchCurve is a Go benchmark's time per call at each size it names:
// the median of its runs at each size, ascending, with the relative
// standard error of that median (0 with fewer than 3 runs).
type BenchCurve struct {
	File, Name string
	Sizes      []int
	PerCall    []float64
	RelSE      []float64
	Runs       []int
}

// benchSizeKeys are the sub-benchmark keys that name a call's size.
var benchSizeKeys = []string{"size", "n", "q"}

// ReadBench reads a `go test -bench` output file (golang.org/x/perf's
// benchfmt) for the one benchmark whose sub-benchmark names carry a size
// (/size=N, /n=N or /q=N) and returns its time per op at each size. The
// other parts of the name (GOMAXPROCS aside) name the benchmark: a file
// holding two such benchmarks is refused, naming them.
func ReadBench(path string) (BenchCurve, error) {
	bad := func(format string, args ...any) error {
		return &env.ParamError{Name: "op", Value: "bench=" + path, Limit: fmt.Sprintf(format, args...)}
	}
	f, err := os.Open(path)
	if err != nil {
		return BenchCurve{}, bad("%v", err)
	}
	defer f.Close()
	runs := map[string]map[int][]float64{}
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
			name, n, ok := benchSize(r.Name)
			name = "Benchmark" + name // benchfmt drops the prefix
			if !ok {
				continue
			}
			if runs[name] == nil {
				runs[name] = map[int][]float64{}
			}
			runs[name][n] = append(runs[name][n], v)
		}
	}
	if err := rd.Err(); err != nil {
		return BenchCurve{}, bad("%v", err)
	}
	if len(runs) == 0 {
		why := "no benchmark with a time per op names a size (want sub-benchmarks /size=N, /n=N or /q=N)"
		if firstSyntax != nil {
			why += "; first unreadable line: " + firstSyntax.Error()
		}
		return BenchCurve{}, bad("%s", why)
	}
	if len(runs) > 1 {
		var names []string
		for name := range runs {
			names = append(names, name)
		}
		sort.Strings(names)
		return BenchCurve{}, bad("holds %d benchmarks with sizes (%s): want one per file (e.g. go test -bench '^%s$')",
			len(names), strings.Join(names, ", "), strings.SplitN(names[0], "/", 2)[0])
	}
	c := BenchCurve{File: path}
	for name, by := range runs {
		c.Name = name
		for n := range by {
			c.Sizes = append(c.Sizes, n)
		}
		sort.Ints(c.Sizes)
		for _, n := range c.Sizes {
			med, se := medianSE(by[n])
			c.PerCall, c.RelSE, c.Runs = append(c.PerCall, med), append(c.RelSE, se), append(c.Runs, len(by[n]))
		}
	}
	return c, nil
}

// benchSize splits a benchmark's full name into its name without the
// size part and GOMAXPROCS, and the size (ok false: no size part).
func benchSize(full benchfmt.Name) (name string, n int, ok bool) {
	base, parts := full.Parts()
	name = string(base)
	for _, p := range parts {
		s := string(p)
		if strings.HasPrefix(s, "-") {
			continue // GOMAXPROCS
		}
		if k, v, kv := strings.Cut(strings.TrimPrefix(s, "/"), "="); kv && !ok && isSizeKey(k) {
			if x, err := strconv.Atoi(v); err == nil && x > 0 {
				n, ok = x, true
				continue
			}
		}
		name += s
	}
	return name, n, ok
}

func isSizeKey(k string) bool {
	for _, key := range benchSizeKeys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// medianSE is the median of xs and its relative standard error
// (1.253·1.4826·MAD/√k over the median; 0 with fewer than 3 values).
func medianSE(xs []float64) (med, rel float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	med = quantileSorted(s)
	if len(s) < 3 || !(med > 0) {
		return med, 0
	}
	dev := make([]float64, len(s))
	for i, x := range s {
		dev[i] = math.Abs(x - med)
	}
	sort.Float64s(dev)
	return med, 1.253 * 1.4826 * quantileSorted(dev) / math.Sqrt(float64(len(s))) / med
}

func quantileSorted(s []float64) float64 {
	k := len(s)
	if k%2 == 1 {
		return s[k/2]
	}
	return (s[k/2-1] + s[k/2]) / 2
}

// ownPoint is a measured size of the own code: its seconds per call and
// their relative standard error.
type ownPoint struct {
	n, t, relSE float64
}

// ownSizes is the own code measured per size over a mix: the measured
// points (ascending) its curve passes through, its time per call at each
// size of the mix (the curve there: a measured point, or interpolated
// between two), and what was not measured directly.
type ownSizes struct {
	basis, source string
	points        []ownPoint
	at, relSE     []float64
	samples       []int64 // labels: the samples at each size of the mix
	notes         []string
}

// note is the own code's notes in one line.
func (o ownSizes) note() string { return strings.Join(o.notes, "; ") }

// ownFromLabels reads the own code's time per size from the profile's
// samples of the operation labelled with their call's size (share.BySize,
// label key key) and the mix's calls per size. The labelled time at the
// mix's sizes is scaled to the operation's whole time (share.Value), so
// the mean over the calls is the profile's; a size with no labelled
// sample takes the curve between its measured neighbours. ok is false,
// with why, when the labels cannot give the sizes: no mix file, too few
// labelled samples, or fewer than two sizes sampled.
func ownFromLabels(mix *crossover.BatchMix, share ProfileShare, key string) (o ownSizes, why string, ok bool) {
	if len(share.BySize) == 0 {
		return o, fmt.Sprintf("no sample of it carries a pprof label %q with its size", key), false
	}
	if mix == nil || mix.File == "" {
		return o, fmt.Sprintf("its samples carry the label %q, but sizes need the mix file's calls per size", key), false
	}
	var labelled, samples int64
	sampled := 0
	inMix := map[int]bool{}
	for _, n := range mix.Sizes {
		inMix[n] = true
		if st := share.BySize[n]; st.Samples > 0 {
			labelled += st.Value
			samples += st.Samples
			sampled++
		}
	}
	if samples < minLabelSamples || sampled < min(2, len(mix.Sizes)) {
		return o, fmt.Sprintf("too few labelled samples at the mix's sizes (%d samples at %d size(s); want %d at 2)",
			samples, sampled, minLabelSamples), false
	}
	k := float64(share.Value) / float64(labelled)
	o = ownSizes{basis: report.OwnLabels, source: fmt.Sprintf("pprof label %q (%d samples)", key, samples)}
	o.samples = make([]int64, len(mix.Sizes))
	for i, n := range mix.Sizes {
		st := share.BySize[n]
		o.samples[i] = st.Samples
		if st.Samples > 0 {
			t := float64(st.Value) * 1e-9 * k / float64(mix.Counts[i])
			o.points = append(o.points, ownPoint{float64(n), t, 1 / math.Sqrt(float64(st.Samples))})
		}
	}
	var missing []string
	for i, n := range mix.Sizes {
		if o.samples[i] == 0 {
			missing = append(missing, strconv.Itoa(n))
		}
	}
	if len(missing) > 0 {
		o.notes = append(o.notes, fmt.Sprintf("n = %s: no labelled sample, from the curve between the measured sizes", strings.Join(missing, ", ")))
	}
	var outside []int
	for n, st := range share.BySize {
		if !inMix[n] && st.Samples > 0 {
			outside = append(outside, n)
		}
	}
	sort.Ints(outside)
	if k > 1.05 {
		what := "carries no size label"
		if len(outside) > 0 {
			what = fmt.Sprintf("carries no size label or one not in the mix (%s)", joinInts(outside, 5))
		}
		o.notes = append(o.notes, fmt.Sprintf("%.0f%% of its time %s: spread over the sizes in proportion", 100*(1-1/k), what))
	}
	o.fill(mix)
	return o, "", true
}

// ownFromBench reads the own code's time per size from a benchmark: at
// each size of the mix the benchmark's curve (its medians, linear
// between two benchmarked sizes, extrapolated outside them and said so),
// scaled to the profile's mean per call mean when that is known (> 0):
// the benchmarks give the shape, the profile the level the application
// runs at.
func ownFromBench(mix crossover.BatchMix, b BenchCurve, mean float64) ownSizes {
	o := ownSizes{basis: report.OwnBenchmarks, source: fmt.Sprintf("Go benchmark %s in %s (%d sizes)", b.Name, b.File, len(b.Sizes))}
	for i, n := range b.Sizes {
		o.points = append(o.points, ownPoint{float64(n), b.PerCall[i], b.RelSE[i]})
	}
	o.fill(&mix)
	var outside []int
	for _, n := range mix.Sizes {
		if n < b.Sizes[0] || n > b.Sizes[len(b.Sizes)-1] {
			outside = append(outside, n)
		}
	}
	if len(outside) > 0 {
		o.notes = append(o.notes, fmt.Sprintf("n = %s outside the benchmarked %d … %d: extrapolated",
			joinInts(outside, 5), b.Sizes[0], b.Sizes[len(b.Sizes)-1]))
	}
	if mean > 0 {
		var s float64
		for i := range mix.Sizes {
			s += float64(mix.Counts[i]) * o.at[i]
		}
		bm := s / float64(mix.Calls())
		if k := mean / bm; k > 0 && !math.IsInf(k, 0) {
			for i := range o.points {
				o.points[i].t *= k
			}
			for i := range o.at {
				o.at[i] *= k
			}
			if math.Abs(k-1) > 0.05 {
				o.notes = append(o.notes, fmt.Sprintf("scaled ×%.2f to the profile's mean per call (the benchmarks' mean over the mix %s)", k, crossover.FmtSeconds(bm)))
			}
			if k > 2 || k < 0.5 {
				o.notes = append(o.notes, "the benchmarks and the profile disagree more than 2×: check that they time the same code and sizes")
			}
		}
	}
	return o
}

// fill sets o.at and o.relSE at the mix's sizes from o's curve.
func (o *ownSizes) fill(mix *crossover.BatchMix) {
	m := ownCurve(o.points)
	o.at, o.relSE = make([]float64, len(mix.Sizes)), make([]float64, len(mix.Sizes))
	for i, n := range mix.Sizes {
		o.at[i] = math.Max(m.At(float64(n)), 0)
		// A size between two measured ones is as uncertain as the
		// nearer; one measured is as uncertain as itself.
		best := math.Inf(1)
		for _, p := range o.points {
			if d := math.Abs(math.Log(p.n / float64(n))); d < best {
				best, o.relSE[i] = d, p.relSE
			}
		}
	}
}

// model is the own code's curve as a timing.Model.
func (o ownSizes) model() timing.Model { return ownCurve(o.points) }

// ownCurve is the curve through measured points: a line between each two
// neighbours; below the smallest, the first line, or the line through
// the origin where the first line falls under it (no size costs less
// than nothing); above the largest the last line, flat where it falls.
// One point gives the line through the origin.
func ownCurve(ps []ownPoint) timing.Model {
	seg := func(from, to, origin, a, b float64) timing.Segment {
		f := timing.LinearFit{Overhead: a, PerItem: b}
		return timing.Segment{From: from, To: to, Origin: origin, Fit: f, R2: 1}
	}
	if len(ps) == 0 {
		return timing.Model{}
	}
	first := ps[0]
	if len(ps) == 1 {
		f := timing.LinearFit{PerItem: first.t / first.n}
		return timing.Model{Segments: []timing.Segment{seg(first.n, first.n, 0, 0, f.PerItem)}, Single: f}
	}
	var m timing.Model
	slope0 := (ps[1].t - first.t) / (ps[1].n - first.n)
	if first.n > 1 && first.t-slope0*(first.n-1) < first.t/first.n {
		m.Segments = append(m.Segments, seg(1, first.n, 0, 0, first.t/first.n))
	}
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		m.Segments = append(m.Segments, seg(a.n, b.n, a.n, a.t, (b.t-a.t)/(b.n-a.n)))
	}
	if last := m.Segments[len(m.Segments)-1]; last.Fit.PerItem < 0 {
		p := ps[len(ps)-1]
		m.Segments = append(m.Segments, seg(p.n, p.n, 0, p.t, 0))
	}
	// The one line over every point (least squares, as a summary).
	var sn, st, snn, snt float64
	for _, p := range ps {
		sn, st, snn, snt = sn+p.n, st+p.t, snn+p.n*p.n, snt+p.n*p.t
	}
	k := float64(len(ps))
	if d := k*snn - sn*sn; d > 0 {
		b := (k*snt - sn*st) / d
		m.Single = timing.LinearFit{Overhead: (st - b*sn) / k, PerItem: b}
	}
	return m
}

// draw returns o's times at the mix's sizes, each drawn from its
// relative standard error (normal, kept above 5% of the value).
func (o ownSizes) draw(rng *rand.Rand) []float64 {
	out := make([]float64, len(o.at))
	for i, t := range o.at {
		out[i] = t * math.Max(0.05, 1+o.relSE[i]*rng.NormFloat64())
	}
	return out
}

func joinInts(xs []int, most int) string {
	var s []string
	for i, x := range xs {
		if i == most {
			s = append(s, fmt.Sprintf("… %d more", len(xs)-most))
			break
		}
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ", ")
}
