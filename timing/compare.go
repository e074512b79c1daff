package timing

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Executor is one way of running an operation whose cost grows with a
// batch size n: a user's Go function, a GPU kernel run through package
// compute, a library call. CompareExecutors builds it at each size it
// measures.
type Executor struct {
	// Name labels the executor in the comparison ("go", "wgsl", …).
	Name string
	// At prepares the executor at batch size n (inputs of n items, outputs
	// allocated) and returns the call to time.
	At func(n int) (Call, error)
}

// Call is an executor ready at one batch size.
type Call struct {
	// Run performs one call and reports its times (Sample.Host at least).
	Run func() (Sample, error)
	// Verify, if set, checks the output of the last Run; it is called once
	// before timing and once after, and a failure stops the comparison: a
	// wrong result is never timed.
	Verify func() error
	// Close, if set, releases what At allocated.
	Close func()
}

// CompareOpts bound CompareExecutors.
type CompareOpts struct {
	// Sizes is the coarse sweep (at least 3 sizes); the search extends past
	// it up to Max and bisects where the faster executor changes.
	Sizes []int
	// Max is the largest batch size the executors accept (0: the largest
	// of Sizes); MaxReason says what sets it.
	Max       int
	MaxReason string
	// Measure is the stopping rule of each pair of measurements.
	Measure MeasureOpts
	// Budget bounds the whole search (0: 2 minutes); a deadline of ctx
	// bounds it too.
	Budget time.Duration
}

// defaultCompareBudget is CompareExecutors' default time budget.
const defaultCompareBudget = 2 * time.Minute

// BreakEvenResult is the adaptive break-even of two executors: the measured
// interval where the faster one changes (Search), each executor's fitted
// model with its regimes (segments meeting at a knee), the crossover the
// models predict, and the verdict in words.
type BreakEvenResult struct {
	A, B           string
	Search         SearchResult
	ModelA, ModelB Model
	Predicted      Prediction
	Verdict        string
}

// CompareExecutors measures a and b side by side (MeasurePair) at the
// batch sizes SearchCrossover chooses, each call verified before and after
// it is timed, fits each executor's cost per regime (FitModel) over every
// size measured, and predicts the crossover from the models
// (PredictCrossover). It is the break-even wgpu-prof computes for its
// built-in workloads, for any two executors of one operation.
func CompareExecutors(ctx context.Context, a, b Executor, o CompareOpts) (BreakEvenResult, error) {
	if a.At == nil || b.At == nil {
		return BreakEvenResult{}, fmt.Errorf("timing: CompareExecutors: %w: an executor has no At", ErrCompare)
	}
	if len(o.Sizes) < 3 {
		return BreakEvenResult{}, fmt.Errorf("timing: CompareExecutors: %w: %d sizes; a fit needs at least 3", ErrCompare, len(o.Sizes))
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return BreakEvenResult{}, fmt.Errorf("timing: CompareExecutors: %w: size %d is not positive", ErrCompare, n)
		}
		o.Max = max(o.Max, 0)
	}
	if o.Max == 0 {
		for _, n := range o.Sizes {
			o.Max = max(o.Max, n)
		}
		if o.MaxReason == "" {
			o.MaxReason = "the largest size given"
		}
	}
	budget := o.Budget
	if budget <= 0 {
		budget = defaultCompareBudget
	}
	deadline := time.Now().Add(budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	runs := map[int][2]Summary{}
	probe := func(n, tight int) (Summary, Summary, error) {
		if err := ctx.Err(); err != nil {
			return Summary{}, Summary{}, err
		}
		var calls [2]Call
		defer func() {
			for _, c := range calls {
				if c.Close != nil {
					c.Close()
				}
			}
		}()
		for i, e := range []Executor{a, b} {
			c, err := e.At(n)
			if err != nil {
				return Summary{}, Summary{}, fmt.Errorf("%s at n = %d: %w", e.Name, n, err)
			}
			if c.Run == nil {
				return Summary{}, Summary{}, fmt.Errorf("%w: %s at n = %d has no Run", ErrCompare, e.Name, n)
			}
			calls[i] = c
			if _, err := c.Run(); err != nil {
				return Summary{}, Summary{}, fmt.Errorf("%s at n = %d: %w", e.Name, n, err)
			}
			if c.Verify != nil {
				if err := c.Verify(); err != nil {
					return Summary{}, Summary{}, fmt.Errorf("%s at n = %d: wrong result: %w", e.Name, n, err)
				}
			}
		}
		mo := o.Measure
		for range tight {
			if mo.TargetRel == 0 {
				mo.TargetRel = DefaultTargetRel
			}
			mo.TargetRel /= 2
			mo.MaxRuns = max(mo.MaxRuns, DefaultMaxRuns) * 2
		}
		ra, rb, err := MeasurePair(mo, calls[0].Run, calls[1].Run)
		if err != nil {
			return Summary{}, Summary{}, fmt.Errorf("%s vs %s at n = %d: %w", a.Name, b.Name, n, err)
		}
		for i, c := range calls {
			if c.Verify != nil {
				if err := c.Verify(); err != nil {
					return Summary{}, Summary{}, fmt.Errorf("%s at n = %d (after timing): wrong result: %w", []string{a.Name, b.Name}[i], n, err)
				}
			}
		}
		runs[n] = [2]Summary{ra.Host, rb.Host}
		return ra.Host, rb.Host, nil
	}
	so := SearchOpts{Sizes: o.Sizes, Max: o.Max, MaxReason: o.MaxReason, Deadline: deadline, Refine: probe}
	res, err := SearchCrossover(so, a.Name, b.Name, func(n int) (Summary, Summary, error) { return probe(n, 0) })
	if err != nil {
		return BreakEvenResult{}, err
	}
	ns := make([]int, 0, len(runs))
	for n := range runs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	x, ta, tb := make([]float64, len(ns)), make([]float64, len(ns)), make([]float64, len(ns))
	for i, n := range ns {
		x[i], ta[i], tb[i] = float64(n), runs[n][0].Median, runs[n][1].Median
	}
	c := BreakEvenResult{A: a.Name, B: b.Name, Search: res}
	if len(ns) < 3 {
		return c, fmt.Errorf("timing: CompareExecutors: %s vs %s: measured %d sizes before the budget ran out; a fit needs 3", a.Name, b.Name, len(ns))
	}
	if c.ModelA, err = FitModel(x, ta, o.Measure.Policy); err != nil {
		return c, fmt.Errorf("timing: CompareExecutors: %s: %w", a.Name, err)
	}
	if c.ModelB, err = FitModel(x, tb, o.Measure.Policy); err != nil {
		return c, fmt.Errorf("timing: CompareExecutors: %s: %w", b.Name, err)
	}
	c.Predicted = PredictCrossover(c.ModelA, c.ModelB)
	c.Verdict = verdict(c, ns)
	return c, nil
}

// verdict says in one line which executor to use at which sizes.
func verdict(c BreakEvenResult, ns []int) string {
	name := func(f int) string {
		if f == FasterA {
			return c.A
		}
		return c.B
	}
	r := c.Search
	lo, hi := ns[0], ns[len(ns)-1]
	switch {
	case r.Found && r.Status == SearchIndistinguishable:
		return fmt.Sprintf("the faster executor changes between n = %d and %d, where %s and %s are statistically indistinguishable", r.Lo, r.Hi, c.A, c.B)
	case r.Found && r.Before != Tie:
		after := FasterA
		if r.Before == FasterA {
			after = FasterB
		}
		return fmt.Sprintf("%s faster up to n = %d, %s from n = %d (measured between %d and %d; %s)", name(r.Before), r.Lo, name(after), r.Hi, r.Lo, r.Hi, r.Status)
	case r.Status == SearchIndistinguishable:
		return fmt.Sprintf("%s and %s are statistically indistinguishable over n = %d … %d", c.A, c.B, lo, hi)
	}
	for _, p := range r.Points {
		if p.Faster != Tie {
			return fmt.Sprintf("%s faster over the whole measured range n = %d … %d (%s)", name(p.Faster), lo, hi, r.Reason)
		}
	}
	return fmt.Sprintf("no executor measurably faster over n = %d … %d (%s)", lo, hi, r.Reason)
}
