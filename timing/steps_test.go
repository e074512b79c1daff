package timing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The steps of JudgeCrossover, one at a time.
func TestJudgeSteps(t *testing.T) {
	if use, note := fitUse("cpu", "gpu", 0.9, 0.5, 0.8); use || note != "fit not used to predict: gpu R² 0.50 below 0.80" {
		t.Errorf("fitUse: %v %q", use, note)
	}
	if use, _ := fitUse("cpu", "gpu", 0.9, 0.8, 0.8); !use {
		t.Error("fitUse refuses R² equal to the threshold")
	}

	// remeasured: same winner confirms, a tie unsettles, opposite winners
	// contradict.
	j := judge{sideA: "cpu", sideB: "gpu", pts: []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 40)}}
	if c := j.remeasured(map[int]SearchPoint{1: sp(1, 1, 3), 4: sp(4, 3, 3)}); c != "" || !j.confirmed[1] || j.confirmed[4] || j.pts[1].Faster != Tie {
		t.Errorf("remeasured: %q, confirmed %v, point 4 %+v", c, j.confirmed, j.pts[1])
	}
	if c := j.remeasured(map[int]SearchPoint{16: sp(16, 40, 8)}); !strings.Contains(c, "at 16, measured twice") {
		t.Errorf("contradiction: %q", c)
	}

	// fall: a side 2× faster on a larger batch, CIs disjoint.
	j = judge{sideA: "cpu", sideB: "gpu", pts: []SearchPoint{sp(1, 1, 3), sp(4, 2, 1.4)}}
	if f := j.fall(1.5); !strings.Contains(f, "gpu time falls from 3.00 s at 1 to 1.40 s at 4") {
		t.Errorf("fall 1.5: %q", f)
	}
	if f := j.fall(2.5); f != "" {
		t.Errorf("fall 2.5: %q", f)
	}

	// runs: stretches of one winner, ties named.
	j = judge{sideA: "cpu", sideB: "gpu", pts: []SearchPoint{sp(1, 1, 3), sp(2, 1, 1), sp(4, 1, 3), sp(8, 5, 1), sp(16, 9, 1)}}
	runs, note := j.runs()
	if len(runs) != 2 || runs[0] != (winRun{FasterA, 0, 2, 2}) || runs[1] != (winRun{FasterB, 3, 4, 2}) || note != "; indistinguishable at 2" {
		t.Errorf("runs %+v, note %q", runs, note)
	}

	// bounded: one unconfirmed size in the middle decides nothing; the
	// same size confirmed bounds B's range.
	j = judge{sideA: "cpu", sideB: "gpu", pts: []SearchPoint{sp(1, 1, 3), sp(4, 6, 3), sp(16, 8, 40)}, confirmed: map[int]bool{}}
	runs, _ = j.runs()
	if v := j.bounded(Verdict{Kind: VerdictInconclusive}, runs, ""); v.Kind != VerdictInconclusive || !strings.Contains(v.Reason, "one unconfirmed size") {
		t.Errorf("unconfirmed middle: %+v", v)
	}
	j.confirmed[4] = true
	if v := j.bounded(Verdict{Kind: VerdictInconclusive}, runs, ""); v.Kind != VerdictCrossover || !v.Bounded || v.BFrom != 4 || v.BTo != 16 {
		t.Errorf("confirmed middle: %+v", v)
	}
}

// The steps of CompareExecutors: option defaults and checks, and a probe
// that refuses an executor whose output is wrong before it is timed.
func TestCompareSteps(t *testing.T) {
	ok := Executor{Name: "x", At: func(int) (Call, error) { return Call{Run: func() (Sample, error) { return Sample{Host: 1}, nil }}, nil }}
	o, err := CompareOpts{Sizes: []int{1, 8, 4}}.resolve(ok, ok)
	if err != nil || o.Max != 8 || o.MaxReason != "the largest size given" || o.Budget != 2*time.Minute {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	for _, c := range []struct {
		o    CompareOpts
		b    Executor
		want string
	}{
		{CompareOpts{Sizes: []int{1, 2, 3}}, Executor{Name: "y"}, "no At"},
		{CompareOpts{Sizes: []int{1, 2}}, ok, "2 sizes"},
		{CompareOpts{Sizes: []int{1, 0, 3}}, ok, "size 0 is not positive"},
	} {
		if _, err := c.o.resolve(ok, c.b); !errors.Is(err, ErrCompare) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resolve(%+v): %v, want %q", c.o, err, c.want)
		}
	}
	closed := 0
	wrong := Executor{Name: "wrong", At: func(int) (Call, error) {
		return Call{Run: func() (Sample, error) { return Sample{Host: 1}, nil },
			Verify: func() error { return errors.New("sum 3, want 4") }, Close: func() { closed++ }}, nil
	}}
	timed := 0
	right := Executor{Name: "right", At: func(int) (Call, error) {
		return Call{Run: func() (Sample, error) { timed++; return Sample{Host: 1}, nil }, Close: func() { closed++ }}, nil
	}}
	c := &comparison{ctx: context.Background(), ex: [2]Executor{right, wrong}, runs: map[int][2]Summary{}}
	if _, _, err := c.probe(4, 0); err == nil || !strings.Contains(err.Error(), "wrong at n = 4: wrong result: sum 3, want 4") {
		t.Errorf("probe of a wrong executor: %v", err)
	}
	if timed != 1 || closed != 2 || len(c.runs) != 0 {
		t.Errorf("wrong executor: right ran %d times (want 1, untimed), %d calls closed (want 2), %d sizes kept", timed, closed, len(c.runs))
	}
}
