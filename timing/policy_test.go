package timing

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// The zero Policy is the documented defaults.
func TestPolicyDefaults(t *testing.T) {
	got := Policy{}.WithDefaults()
	want := Policy{KernelSlackRel: 0.10, KernelSlackAbs: 50 * time.Microsecond, MaxSuspiciousFrac: 0.20,
		KneeR2: 0.98, KneeGain: 4, KneeMinPoints: 3, MinPredictR2: 0.8, FallFactor: 1.5, ClassifyTol: 0.15}
	if got != want {
		t.Errorf("Policy{}.WithDefaults() = %+v, want %+v", got, want)
	}
	// A field set keeps its value.
	if p := (Policy{FallFactor: 3}).WithDefaults(); p.FallFactor != 3 || p.MinPredictR2 != 0.8 {
		t.Errorf("set field overwritten: %+v", p)
	}
}

// A negative, NaN or infinite field is refused by every function that
// takes a Policy, naming the field.
func TestPolicyRejectsBadFields(t *testing.T) {
	ns, ts := []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		p := Policy{FallFactor: v}
		if _, err := FitModel(ns, ts, p); !errors.Is(err, ErrBadThreshold) || !strings.Contains(err.Error(), "Policy.FallFactor") ||
			!strings.HasPrefix(err.Error(), "timing: FitModel: ") {
			t.Errorf("FitModel(FallFactor %v): err %v", v, err)
		}
		if _, err := Measure(MeasureOpts{Policy: p}, func() (Sample, error) { return Sample{Host: 1}, nil }); !errors.Is(err, ErrBadThreshold) {
			t.Errorf("Measure(FallFactor %v): err %v", v, err)
		}
		if j := JudgeCrossover([]SearchPoint{sp(1, 1, 3)}, nil, "a", "b", 1, 1, p); j.Kind != VerdictInconclusive || !strings.Contains(j.Reason, "Policy.FallFactor") {
			t.Errorf("JudgeCrossover(FallFactor %v) = %+v", v, j)
		}
		a := Summary{N: 10, Median: 1, Lo: 0.9, Hi: 1.1}
		if k := ClassifyMemCompute(a, a, a, p); k.Kind != Invalid {
			t.Errorf("ClassifyMemCompute(FallFactor %v) = %+v", v, k)
		}
	}
}

// Each threshold changes the judgement it governs.
func TestPolicyGovernsJudgements(t *testing.T) {
	// MinPredictR2: an R² of 0.7 is refused by default, used at 0.5.
	pts := []SearchPoint{sp(1, 1, 3), sp(4, 2, 5)}
	if v := JudgeCrossover(pts, nil, "a", "b", 0.7, 0.99, Policy{}); v.UseFit {
		t.Errorf("R² 0.7 used with the default MinPredictR2: %+v", v)
	}
	if v := JudgeCrossover(pts, nil, "a", "b", 0.7, 0.99, Policy{MinPredictR2: 0.5}); !v.UseFit {
		t.Errorf("R² 0.7 refused with MinPredictR2 0.5: %+v", v)
	}
	// FallFactor: a side 1.3× faster on a larger batch is noise at 1.2,
	// not at the default 1.5.
	fall := []SearchPoint{sp(1, 1.3, 3), sp(4, 1, 5), sp(16, 20, 6)}
	if v := JudgeCrossover(fall, nil, "a", "b", 1, 1, Policy{}); v.Kind != VerdictCrossover {
		t.Errorf("default FallFactor: %+v", v)
	}
	if v := JudgeCrossover(fall, nil, "a", "b", 1, 1, Policy{FallFactor: 1.2}); v.Kind != VerdictInconclusive || !strings.Contains(v.Reason, "a time falls") {
		t.Errorf("FallFactor 1.2: %+v", v)
	}
	// KneeGain: a clean knee is kept by default and refused at a gain no
	// fit reaches.
	var n, tt []float64
	for i := 1; i <= 10; i++ {
		x := float64(i)
		n = append(n, x)
		tt = append(tt, 1+x+9*math.Max(0, x-5))
	}
	if m, err := FitModel(n, tt, Policy{}); err != nil || m.Knee != 5 {
		t.Errorf("default policy: knee %v, err %v; want 5", m.Knee, err)
	}
	if m, err := FitModel(n, tt, Policy{KneeGain: math.MaxFloat64}); err != nil || m.Knee != 0 {
		t.Errorf("KneeGain max: knee %v, err %v; want none", m.Knee, err)
	}
	// ClassifyTol: C 10% above A is memory-bound at the default 15%, not
	// at 5% (CIs disjoint).
	s := func(m float64) Summary { return Summary{N: 20, Median: m, Lo: 0.99 * m, Hi: 1.01 * m} }
	if k := ClassifyMemCompute(s(1), s(0.2), s(1.1), Policy{}); k.Kind != MemoryBound {
		t.Errorf("default tolerance: %+v", k)
	}
	if k := ClassifyMemCompute(s(1), s(0.2), s(1.1), Policy{ClassifyTol: 0.05}); k.Kind == MemoryBound {
		t.Errorf("tolerance 5%%: %+v", k)
	}
}

func TestKernelSuspicious(t *testing.T) {
	us := time.Microsecond
	def := Policy{}.WithDefaults()
	tight := Policy{KernelSlackRel: 0.01, KernelSlackAbs: us}.WithDefaults()
	tests := []struct {
		s    Sample
		p    Policy
		want bool
	}{
		{Sample{Host: 1000 * us, Kernel: 900 * us, HasKernel: true}, def, false},
		{Sample{Host: 1000 * us, Kernel: 1149 * us, HasKernel: true}, def, false}, // limit 1000·1.1 + 50 = 1150
		{Sample{Host: 1000 * us, Kernel: 1151 * us, HasKernel: true}, def, true},
		{Sample{Host: 10 * us, Kernel: 60 * us, HasKernel: true}, def, false}, // limit 11 + 50 = 61
		{Sample{Host: 1000 * us, Kernel: 0, HasKernel: true}, def, true},
		{Sample{Host: 1000 * us, Kernel: -5, HasKernel: true}, def, true},
		{Sample{Host: 1000 * us, Kernel: 900 * us, HasKernel: false}, def, true},
		{Sample{Host: 1000 * us, Kernel: 1010 * us, HasKernel: true}, tight, false}, // limit 1010 + 1 = 1011
		{Sample{Host: 1000 * us, Kernel: 1012 * us, HasKernel: true}, tight, true},
	}
	for _, tc := range tests {
		if got := kernelSuspicious(tc.s, tc.p); got != tc.want {
			t.Errorf("kernelSuspicious(%+v, %+v) = %v, want %v", tc.s, tc.p, got, tc.want)
		}
	}
}
