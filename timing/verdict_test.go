package timing

import (
	"github.com/wgpu-prof/wgpu-prof/timing/load"

	"strings"
	"testing"
)

// sp is a search point whose sides take a and b seconds with ±5% CIs.
func sp(n int, a, b float64) SearchPoint {
	s := func(t float64) Summary {
		return Summary{N: 20, Median: t, Lo: 0.95 * t, Hi: 1.05 * t, Confidence: 0.95}
	}
	p := SearchPoint{N: n, A: s(a), B: s(b)}
	p.Faster = Faster(p.A, p.B)
	return p
}

func TestJudgeCrossoverKinds(t *testing.T) {
	cases := []struct {
		name   string
		pts    []SearchPoint
		again  map[int]SearchPoint
		kind   string
		bFrom  int
		bTo    int
		reason string
	}{
		{"never", []SearchPoint{sp(1, 1, 3), sp(4, 2, 5), sp(16, 5, 9)}, nil, VerdictNever, 0, 0, "cpu faster at every size"},
		{"always", []SearchPoint{sp(1, 3, 1), sp(4, 5, 2)}, nil, VerdictAlways, 1, 0, "gpu faster"},
		{"crossover above", []SearchPoint{sp(1, 1, 3), sp(4, 2, 3), sp(16, 8, 4), sp(64, 30, 6)}, nil, VerdictCrossover, 16, 0, "gpu faster from 16"},
		{"bounded, two sizes", []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 4), sp(64, 10, 60)}, nil, VerdictCrossover, 4, 64, "only in [4, 64)"},
		{"bounded, one unconfirmed size", []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 40)}, nil, VerdictInconclusive, 0, 0, "one unconfirmed size"},
		{"bounded, one confirmed size", []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 40)}, map[int]SearchPoint{4: sp(4, 6, 3)}, VerdictCrossover, 4, 16, "only in [4, 16)"},
		{"second measurement disagrees", []SearchPoint{sp(1, 1, 3), sp(4, 6, 3)}, map[int]SearchPoint{4: sp(4, 2, 3)}, VerdictInconclusive, 0, 0, "measured twice"},
		{"all ties", []SearchPoint{sp(1, 1, 1), sp(4, 2, 2)}, nil, VerdictInconclusive, 0, 0, "indistinguishable at every size"},
		{"back and forth", []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 40), sp(64, 90, 41), sp(256, 100, 400)}, nil, VerdictInconclusive, 0, 0, "changes 4 times"},
	}
	for _, c := range cases {
		v := JudgeCrossover(c.pts, c.again, "cpu", "gpu", 0.99, 0.99, Policy{})
		if v.Kind != c.kind || (c.kind != VerdictInconclusive && (v.BFrom != c.bFrom || v.BTo != c.bTo)) || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s: got %+v, want %s [%d, %d) with %q in the reason", c.name, v, c.kind, c.bFrom, c.bTo, c.reason)
		}
		if !v.UseFit {
			t.Errorf("%s: fit refused at R² 0.99: %s", c.name, v.FitNote)
		}
	}
}

// TestJudgeCrossoverNonMonotonic: evidence in which a side's time falls
// sixteenfold while its batch grows (a noisy host) is inconclusive, while
// a side that runs 1.3× faster on twice the batch (more threads) is not.
func TestJudgeCrossoverNonMonotonic(t *testing.T) {
	v := JudgeCrossover([]SearchPoint{sp(256, 106e-6, 300e-6), sp(304, 2.02e-3, 310e-6), sp(4096, 128e-6, 2e-3)}, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictInconclusive || !strings.Contains(v.Reason, "cpu time falls from 2.02 ms at 304") {
		t.Errorf("non-monotonic CPU: got %+v", v)
	}
	// A slow first GPU call does not change who wins: the verdict stands,
	// marked noisy.
	v = JudgeCrossover([]SearchPoint{sp(1, 1e-6, 1.58e-3), sp(4, 4e-6, 298e-6), sp(16, 30e-6, 700e-6)}, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictNever || !v.Noisy || !strings.Contains(v.Reason, "gpu time falls") {
		t.Errorf("slow first GPU call: got %+v, want never, noisy", v)
	}
	v = JudgeCrossover([]SearchPoint{sp(256, 100e-6, 300e-6), sp(512, 77e-6, 500e-6), sp(1024, 150e-6, 900e-6)}, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictNever {
		t.Errorf("1.3× fall on a doubled batch: got %+v, want never", v)
	}
}

func TestJudgeCrossoverPoorFit(t *testing.T) {
	v := JudgeCrossover([]SearchPoint{sp(1, 1, 3), sp(4, 2, 5), sp(16, 5, 9)}, nil, "cpu", "gpu", 0.005, 0.95, Policy{})
	if v.UseFit || !strings.Contains(v.FitNote, "cpu R² 0.01 below 0.80") || v.Kind != VerdictNever {
		t.Errorf("R² 0.005: got %+v, want the fit refused and the verdict still never", v)
	}
}

func TestDisputed(t *testing.T) {
	got := Disputed([]SearchPoint{sp(1, 1, 3), sp(4, 2, 2), sp(16, 8, 4), sp(64, 30, 6), sp(256, 10, 60)})
	want := []int{1, 16, 64, 256}
	if len(got) != len(want) {
		t.Fatalf("Disputed = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Disputed = %v, want %v", got, want)
		}
	}
}

// TestJudgeCrossoverBusyHostIsInconclusive: a verdict resting on a side
// measured while other work held the host is not firm: inconclusive,
// the reason naming the load, the side, the size and what was measured.
func TestJudgeCrossoverBusyHostIsInconclusive(t *testing.T) {
	sum := func(med float64, l *load.Load) Summary {
		return Summary{N: 20, Median: med, Lo: 0.99 * med, Hi: 1.01 * med, Confidence: 0.95, Load: l}
	}
	quiet := &load.Load{Other: 0.1, CPUs: 2, Seconds: 1}
	busy := &load.Load{Other: 1.9, CPUs: 2, Seconds: 1}
	pts := func(cpuLoad *load.Load) []SearchPoint {
		var out []SearchPoint
		for _, n := range []int{1, 4, 16, 64} {
			a, b := sum(float64(n)*1e-3, quiet), sum(20e-3, quiet)
			if n == 64 {
				a.Load = cpuLoad
			}
			out = append(out, SearchPoint{N: n, A: a, B: b, Faster: Faster(a, b)})
		}
		return out
	}
	if v := JudgeCrossover(pts(quiet), nil, "CPU", "GPU", 1, 1, Policy{}); v.Kind != VerdictCrossover {
		t.Fatalf("quiet host: %s (%s), want crossover", v.Kind, v.Reason)
	}
	v := JudgeCrossover(pts(busy), nil, "CPU", "GPU", 1, 1, Policy{})
	if v.Kind != VerdictInconclusive || v.BFrom != 0 {
		t.Fatalf("busy host: %s (%s), want inconclusive", v.Kind, v.Reason)
	}
	for _, want := range []string{"host busy: other work 1.9 of 2 CPUs while the CPU side ran at 64", "as measured, crossover"} {
		if !strings.Contains(v.Reason, want) {
			t.Errorf("reason %q lacks %q", v.Reason, want)
		}
	}
	// An interleaved pair shares one load: both sides are named.
	both := pts(quiet)
	both[1].A.Load, both[1].B.Load = busy, busy
	if v := JudgeCrossover(both, nil, "CPU", "GPU", 1, 1, Policy{}); !strings.Contains(v.Reason, "while both sides (interleaved) ran at 4") {
		t.Errorf("interleaved pair: %s (%s)", v.Kind, v.Reason)
	}
	// A busy re-measurement counts too.
	again := map[int]SearchPoint{16: {N: 16, A: sum(16e-3, quiet), B: sum(20e-3, busy), Faster: FasterA}}
	if v := JudgeCrossover(pts(quiet), again, "CPU", "GPU", 1, 1, Policy{}); v.Kind != VerdictInconclusive || !strings.Contains(v.Reason, "GPU side ran at 16") {
		t.Errorf("busy re-measurement: %s (%s)", v.Kind, v.Reason)
	}
}

// TestCompareOnABusyHostIsNotFirm: disjoint CIs measured while other
// work held the host make no firm winner.
func TestCompareOnABusyHostIsNotFirm(t *testing.T) {
	a := Summary{Median: 1, Lo: 0.99, Hi: 1.01}
	b := Summary{Median: 1.2, Lo: 1.19, Hi: 1.21}
	if s := Compare(a, b).String(); s != "by 20.0%, significant (95% CIs disjoint)" {
		t.Errorf("quiet: %q", s)
	}
	b.Load = &load.Load{Other: 1.6, CPUs: 2}
	c := Compare(a, b)
	if !c.Significant || c.Busy == nil || c.String() != "by 20.0%, 95% CIs disjoint, but not firm: host busy (other work 1.6 of 2 CPUs)" {
		t.Errorf("busy: %+v %q", c, c.String())
	}
}

// TestClassifyOnABusyHostIsNotFirm: a memory-vs-compute kind measured
// beside other work says it is not firm.
func TestClassifyOnABusyHostIsNotFirm(t *testing.T) {
	s := func(m float64) Summary {
		return Summary{N: 20, Median: m, Lo: 0.99 * m, Hi: 1.01 * m, Confidence: 0.95}
	}
	a, b, c := s(1e-3), s(0.3e-3), s(1.02e-3)
	if k := ClassifyMemCompute(a, b, c, Policy{}); k.Kind != MemoryBound || k.Busy != nil || strings.Contains(k.Explanation, "busy") {
		t.Fatalf("quiet: %+v", k)
	}
	c.Load = &load.Load{Other: 1.2, CPUs: 2}
	if k := ClassifyMemCompute(a, b, c, Policy{}); k.Busy == nil || !strings.HasSuffix(k.Explanation, "; not firm: host busy (other work 1.2 of 2 CPUs)") {
		t.Errorf("busy: %+v", k)
	}
}
