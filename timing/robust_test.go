package timing_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestPredictCrossoverZeroModels(t *testing.T) {
	p := timing.PredictCrossover(timing.Model{}, timing.Model{})
	if p.Kind != timing.CrossUnknown {
		t.Errorf("PredictCrossover(Model{}, Model{}) = %+v, want kind %q", p, timing.CrossUnknown)
	}
	if _, err := json.Marshal(p); err != nil {
		t.Errorf("prediction not JSON-encodable: %v", err)
	}
	var m timing.Model
	if lo, hi := m.Range(); lo != 0 || hi != 0 {
		t.Errorf("Model{}.Range() = %v, %v", lo, hi)
	}
}

func TestSearchCrossoverNilProbe(t *testing.T) {
	_, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 2, 4}}, "a", "b", nil)
	if !errors.Is(err, timing.ErrSearch) || !strings.Contains(err.Error(), "nil probe") {
		t.Errorf("nil probe: err = %v", err)
	}
}

// With Max = math.MaxInt and one side always faster, the extension past
// the sweep grows the size geometrically: it must saturate at MaxInt,
// never wrap (4 → 4294967296 → 4.6e18 → 0), never probe n ≤ 0, and stop.
func TestSearchCrossoverMaxIntSaturates(t *testing.T) {
	for _, grow := range []int{4, 1 << 20, math.MaxInt} {
		var seen []int
		probe := func(n int) (a, b timing.Summary, err error) {
			seen = append(seen, n)
			if len(seen) > 1000 {
				t.Fatalf("grow %d: search does not stop: %v…", grow, seen[:20])
			}
			return point(1), point(2), nil
		}
		res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 2, 4}, Max: math.MaxInt, Grow: grow, MaxProbes: 1000}, "a", "b", probe)
		if err != nil {
			t.Fatalf("grow %d: %v", grow, err)
		}
		for i, n := range seen {
			if n <= 0 || (i > 0 && n <= seen[i-1]) {
				t.Fatalf("grow %d: probed sizes %v: not positive and increasing", grow, seen)
			}
		}
		if seen[len(seen)-1] != math.MaxInt || res.Found {
			t.Errorf("grow %d: probed %v, result %+v: want the last size MaxInt and no crossover", grow, seen, res.Status)
		}
	}
	// Without a Max the probe cap stops the search.
	calls := 0
	_, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1}}, "a", "b", func(n int) (a, b timing.Summary, err error) {
		calls++
		if n <= 0 {
			t.Fatalf("probe at n=%d", n)
		}
		return point(1), point(2), nil
	})
	if err != nil || calls > 40 {
		t.Errorf("no Max: %d probes (default cap 40), err %v", calls, err)
	}
}

// point is a tight summary around v.
func point(v float64) timing.Summary {
	return timing.Summary{N: 10, Median: v, Lo: v * 0.99, Hi: v * 1.01, Confidence: 0.98, Mean: v, Min: v * 0.99, Max: v * 1.01}
}

func TestMeasureRefusesBadInput(t *testing.T) {
	neg := func() (timing.Sample, error) { return timing.Sample{Host: -time.Second}, nil }
	if _, err := timing.Measure(timing.MeasureOpts{}, neg); !errors.Is(err, timing.ErrNegativeSample) {
		t.Errorf("negative sample durations: err = %v, want ErrNegativeSample", err)
	}
	ok := func() (timing.Sample, error) { return timing.Sample{Host: time.Millisecond}, nil }
	for _, o := range []timing.MeasureOpts{{TargetRel: math.NaN()}, {TargetRel: math.Inf(1)}, {WarnCV: math.NaN()}, {WarnCV: -1}, {Budget: -1}} {
		if _, err := timing.Measure(o, ok); !errors.Is(err, timing.ErrBadOpts) {
			t.Errorf("Measure(%+v): err = %v, want ErrBadOpts", o, err)
		}
	}
	one := 0
	if _, _, err := timing.MeasurePair(timing.MeasureOpts{}, ok, func() (timing.Sample, error) {
		one++
		if one > 3 {
			return timing.Sample{Host: -1}, nil
		}
		return timing.Sample{Host: time.Millisecond}, nil
	}); !errors.Is(err, timing.ErrNegativeSample) {
		t.Errorf("MeasurePair with a negative sample: err = %v", err)
	}
}

func TestThresholdsRefuseNaN(t *testing.T) {
	for _, conf := range []float64{math.NaN(), 0, 1, -0.5, math.Inf(1)} {
		if _, _, _, err := timing.MedianCI(10, conf); !errors.Is(err, timing.ErrBadThreshold) {
			t.Errorf("MedianCI(10, %v): err = %v", conf, err)
		}
	}
	if _, _, _, err := timing.MedianCI(0, 0.95); err == nil {
		t.Error("MedianCI(0, 0.95): no error")
	}
	a := point(1)
	for _, tol := range []float64{math.NaN(), -0.1, math.Inf(1)} {
		if k := timing.ClassifyMemCompute(a, a, a, timing.Policy{ClassifyTol: tol}); k.Kind != timing.Invalid || !strings.Contains(k.Explanation, "ClassifyTol") {
			t.Errorf("ClassifyMemCompute(ClassifyTol %v) = %+v, want invalid naming the tolerance", tol, k)
		}
	}
	if _, err := timing.SummarizeCV([]float64{1, 2}, math.NaN()); !errors.Is(err, timing.ErrBadThreshold) {
		t.Errorf("SummarizeCV(warnCV NaN): err = %v", err)
	}
}

// MedianCI for huge n (math.MaxInt included) returns at once with indices
// inside [0, n).
func TestMedianCIHugeN(t *testing.T) {
	for _, n := range []int{1 << 16, 1<<16 + 1, math.MaxInt/2 + 1, math.MaxInt} {
		lo, hi, cov, err := timing.MedianCI(n, 0.95)
		if err != nil || lo < 0 || hi >= n || lo > hi || !(cov >= 0.94 && cov <= 1) {
			t.Errorf("MedianCI(%d) = %d, %d, %v, %v", n, lo, hi, cov, err)
		}
	}
}

// Values near ±MaxFloat64 keep a finite mean and CV and a JSON-encodable
// summary.
func TestSummarizeHugeValues(t *testing.T) {
	for _, x := range [][]float64{
		{1e308, 1.5e308, 1.7e308},
		{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64},
		{-math.MaxFloat64, math.MaxFloat64},
		{-math.MaxFloat64, math.MaxFloat64, 1e-300},
		{5e-324, 5e-324, 1e-320},
	} {
		s, err := timing.SummarizeErr(x)
		if err != nil {
			t.Fatalf("%v: %v", x, err)
		}
		for name, v := range map[string]float64{"mean": s.Mean, "median": s.Median, "cv": s.CV, "lo": s.Lo, "hi": s.Hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%v: %s = %v", x, name, v)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%v: summary not JSON-encodable: %v", x, err)
		}
	}
	s, _ := timing.SummarizeErr([]float64{1e308, 1.5e308, 1.7e308})
	if !(math.Abs(s.Mean-1.4e308) < 1e294) {
		t.Errorf("mean of 1e308, 1.5e308, 1.7e308 = %v, want 1.4e308", s.Mean)
	}
}

// floats decodes b as little-endian float64s (any bit pattern).
func floats(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// FuzzTimingEntryPoints calls the exported functions of timing with
// arbitrary floats (NaN, ±Inf, subnormals, huge values) and sizes: none
// may panic, every summary must stay JSON-encodable, and a crossover
// search must stop.
func FuzzTimingEntryPoints(f *testing.F) {
	f.Add([]byte{}, 0, 1.0)
	f.Add(make([]byte, 64), 3, 0.5)
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00\x00\x00\x00\xf8\x7f0123456789abcdef01234567"), 7, math.NaN())
	f.Fuzz(func(t *testing.T, data []byte, n int, x float64) {
		v := floats(data)
		s := timing.Summarize(v)
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("Summarize(%v) not JSON-encodable: %v", v, err)
		}
		if s2, err := timing.SummarizeCV(v, x); err == nil {
			if _, err := json.Marshal(s2); err != nil {
				t.Fatalf("SummarizeCV(%v, %v) not JSON-encodable: %v", v, x, err)
			}
		}
		timing.MedianCI(n, x)
		half := len(v) / 2
		ns, ts := v[:half], v[half:2*half]
		timing.FitLinear(ns, ts)
		timing.FitConstrained(ns, ts)
		timing.FitLinearWeighted(ns, ts, ts)
		ma, _ := timing.FitModel(ns, ts, timing.Policy{})
		mb, _ := timing.FitLocal(ns, ts, x)
		p := timing.PredictCrossover(ma, mb)
		timing.PredictCrossover(mb, ma)
		ma.At(x)
		mb.Range()
		timing.IntervalError(x, p.ValidFrom, p.ValidTo)
		timing.Summary{Median: x, Lo: x / 2, Hi: x * 2}.RelHalfWidth()
		a, b := timing.Summarize(ns), timing.Summarize(ts)
		timing.Faster(a, b)
		_ = timing.Compare(a, b).String()
		timing.Ratio(a, b)
		timing.Subtract(a, b)
		k := timing.ClassifyMemCompute(a, b, s, timing.Policy{ClassifyTol: x})
		timing.RooflineCheck(&k, a, b)
		timing.RooflineCheck(nil, a, b)
		timing.Amdahl(x, float64(n))
		timing.Place(timing.Roof{PeakGFLOPs: x, BandwidthGBs: float64(n)}, timing.Point{Flops: x, Bytes: float64(n), Seconds: x})
		batches := make([]int, half)
		for i := range batches {
			batches[i] = n + i
		}
		sums := make([]timing.Summary, half)
		for i := range sums {
			sums[i] = timing.Summarize(v[i : i+1])
		}
		timing.MeasuredCrossover(batches, sums, sums[:len(sums)/2])
		timing.FormatSeconds(x)
		timing.Bracket([]timing.SearchPoint{{N: n, A: a, B: b, Faster: timing.Faster(a, b)}})

		// A search over sizes from the fuzz input with a probe whose
		// answers come from the floats: it must stop, probing positive
		// sizes only.
		sizes := []int{max(1, n&0xffff), max(1, (n>>16)&0xffff), 3}
		calls := 0
		timing.SearchCrossover(timing.SearchOpts{Sizes: sizes, Max: [4]int{0, math.MaxInt, 1 << 20, n}[uint(n)%4], Grow: 2 + int(uint(n)%7), Ratio: 1 + math.Abs(x)},
			"a", "b", func(m int) (timing.Summary, timing.Summary, error) {
				calls++
				if m <= 0 || calls > 200 {
					t.Fatalf("probe %d at n=%d", calls, m)
				}
				if len(v) == 0 {
					return point(1), point(float64(m)), nil
				}
				return point(math.Abs(v[m%len(v)])), point(float64(m%7 + 1)), nil
			})

		// Measure with durations from the input: negative ones are
		// refused, the rest summarized.
		i := 0
		res, err := timing.Measure(timing.MeasureOpts{MaxRuns: 30, Budget: time.Hour, TargetRel: math.Abs(x), WarnCV: math.Abs(x)}, func() (timing.Sample, error) {
			i++
			if len(v) == 0 {
				return timing.Sample{Host: time.Duration(i)}, nil
			}
			h := v[i%len(v)]
			return timing.Sample{Host: time.Duration(int64(math.Float64bits(h) >> 20)), Kernel: time.Duration(int64(math.Float64bits(h))), HasKernel: n%2 == 0}, nil
		})
		if err == nil {
			if _, err := json.Marshal(res); err != nil {
				t.Fatalf("Measure result not JSON-encodable: %v", err)
			}
		}
	})
}
