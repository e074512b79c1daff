package timing

import (
	"math"
	"strings"
	"testing"
)

// A size whose second measurement (the sides interleaved) comes out a tie
// is a tie, whatever the first said: one winner from one measurement does
// not make a crossover.
func TestJudgeCrossoverTieOnRemeasureUnsettlesTheWinner(t *testing.T) {
	pts := []SearchPoint{sp(1, 1, 3), sp(4, 2, 5), sp(16, 8, 4)}
	v := JudgeCrossover(pts, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictCrossover {
		t.Fatalf("set-up: without a second measurement: %+v", v)
	}
	v = JudgeCrossover(pts, map[int]SearchPoint{16: sp(16, 5, 5)}, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictNever || !strings.Contains(v.Reason, "indistinguishable at 16") {
		t.Errorf("gpu faster at 16 once, a tie when measured again: %+v, want never with 16 indistinguishable", v)
	}
}

// A crossover of two runs (the faster side changing once) that rests on a
// side's time falling as the batch grows is inconclusive: the fall, not
// the sides, may have made the change.
func TestJudgeCrossoverSingleChangeOnAFallIsInconclusive(t *testing.T) {
	// cpu falls from 2.02ms at 256 to 128µs at 4096; the faster side
	// changes once, from gpu to cpu.
	v := JudgeCrossover([]SearchPoint{sp(256, 2.02e-3, 300e-6), sp(4096, 128e-6, 2e-3)}, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictInconclusive || !strings.Contains(v.Reason, "cpu time falls") {
		t.Errorf("one change resting on a falling cpu time: %+v, want inconclusive naming the fall", v)
	}
	// The same change without the fall is a crossover.
	v = JudgeCrossover([]SearchPoint{sp(256, 100e-6, 300e-6), sp(4096, 3e-3, 2e-3)}, nil, "cpu", "gpu", 0.99, 0.99, Policy{})
	if v.Kind != VerdictCrossover {
		t.Errorf("one change, times rising: %+v, want crossover", v)
	}
}

// A fit whose R² is NaN (a degenerate fit) is never used to predict.
func TestJudgeCrossoverNaNR2RefusesTheFit(t *testing.T) {
	pts := []SearchPoint{sp(1, 1, 3), sp(4, 2, 5), sp(16, 5, 9)}
	for _, r2 := range [][2]float64{{math.NaN(), 0.99}, {0.99, math.NaN()}, {math.NaN(), math.NaN()}} {
		v := JudgeCrossover(pts, nil, "cpu", "gpu", r2[0], r2[1], Policy{})
		if v.UseFit || !strings.Contains(v.FitNote, "NaN") {
			t.Errorf("R² %v: UseFit %v, note %q; want the fit refused naming the NaN", r2, v.UseFit, v.FitNote)
		}
	}
}
