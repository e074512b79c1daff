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
	o, err := o.resolve(a, b)
	if err != nil {
		return BreakEvenResult{}, fmt.Errorf("timing: CompareExecutors: %w", err)
	}
	deadline := time.Now().Add(o.Budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c := &comparison{ctx: ctx, ex: [2]Executor{a, b}, o: o, runs: map[int][2]Summary{}}
	so := SearchOpts{Sizes: o.Sizes, Max: o.Max, MaxReason: o.MaxReason, Deadline: deadline, Refine: c.probe}
	res, err := SearchCrossover(so, a.Name, b.Name, func(n int) (Summary, Summary, error) { return c.probe(n, 0) })
	if err != nil {
		return BreakEvenResult{}, err
	}
	return c.fit(res)
}

// resolve checks o and the executors and fills o's defaults: Max the
// largest size given, Budget 2 minutes.
func (o CompareOpts) resolve(a, b Executor) (CompareOpts, error) {
	if a.At == nil || b.At == nil {
		return o, fmt.Errorf("%w: an executor has no At", ErrCompare)
	}
	if len(o.Sizes) < 3 {
		return o, fmt.Errorf("%w: %d sizes; a fit needs at least 3", ErrCompare, len(o.Sizes))
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return o, fmt.Errorf("%w: size %d is not positive", ErrCompare, n)
		}
	}
	o.Max = max(o.Max, 0)
	if o.Max == 0 {
		for _, n := range o.Sizes {
			o.Max = max(o.Max, n)
		}
		if o.MaxReason == "" {
			o.MaxReason = "the largest size given"
		}
	}
	if o.Budget <= 0 {
		o.Budget = defaultCompareBudget
	}
	return o, nil
}

// comparison is one CompareExecutors in progress: the host times of both
// executors at every size measured (the last measurement of each).
type comparison struct {
	ctx  context.Context
	ex   [2]Executor
	o    CompareOpts
	runs map[int][2]Summary
}

// probe measures both executors at n side by side (MeasurePair), each
// verified before and after it is timed; tight > 0 halves the CI target
// and doubles the run cap that many times (a refinement round).
func (c *comparison) probe(n, tight int) (Summary, Summary, error) {
	if err := c.ctx.Err(); err != nil {
		return Summary{}, Summary{}, err
	}
	calls, err := c.prepare(n)
	defer func() {
		for _, call := range calls {
			if call.Close != nil {
				call.Close()
			}
		}
	}()
	if err != nil {
		return Summary{}, Summary{}, err
	}
	mo := c.o.Measure
	for range tight {
		if mo.TargetRel == 0 {
			mo.TargetRel = DefaultTargetRel
		}
		mo.TargetRel /= 2
		mo.MaxRuns = max(mo.MaxRuns, DefaultMaxRuns) * 2
	}
	ra, rb, err := MeasurePair(mo, calls[0].Run, calls[1].Run)
	if err != nil {
		return Summary{}, Summary{}, fmt.Errorf("%s vs %s at n = %d: %w", c.ex[0].Name, c.ex[1].Name, n, err)
	}
	for i, call := range calls {
		if call.Verify != nil {
			if err := call.Verify(); err != nil {
				return Summary{}, Summary{}, fmt.Errorf("%s at n = %d (after timing): wrong result: %w", c.ex[i].Name, n, err)
			}
		}
	}
	c.runs[n] = [2]Summary{ra.Host, rb.Host}
	return ra.Host, rb.Host, nil
}

// prepare builds both executors at n, runs each once and verifies its
// output. The calls it returns (even with an error) are to be closed.
func (c *comparison) prepare(n int) ([2]Call, error) {
	var calls [2]Call
	for i, e := range c.ex {
		call, err := e.At(n)
		if err != nil {
			return calls, fmt.Errorf("%s at n = %d: %w", e.Name, n, err)
		}
		if call.Run == nil {
			return calls, fmt.Errorf("%w: %s at n = %d has no Run", ErrCompare, e.Name, n)
		}
		calls[i] = call
		if _, err := call.Run(); err != nil {
			return calls, fmt.Errorf("%s at n = %d: %w", e.Name, n, err)
		}
		if call.Verify != nil {
			if err := call.Verify(); err != nil {
				return calls, fmt.Errorf("%s at n = %d: wrong result: %w", e.Name, n, err)
			}
		}
	}
	return calls, nil
}

// fit fits each executor's model over every size measured, predicts the
// crossover and states the verdict.
func (c *comparison) fit(res SearchResult) (BreakEvenResult, error) {
	a, b := c.ex[0].Name, c.ex[1].Name
	ns := make([]int, 0, len(c.runs))
	for n := range c.runs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	x, ta, tb := make([]float64, len(ns)), make([]float64, len(ns)), make([]float64, len(ns))
	for i, n := range ns {
		x[i], ta[i], tb[i] = float64(n), c.runs[n][0].Median, c.runs[n][1].Median
	}
	r := BreakEvenResult{A: a, B: b, Search: res}
	if len(ns) < 3 {
		return r, fmt.Errorf("timing: CompareExecutors: %s vs %s: measured %d sizes before the budget ran out; a fit needs 3", a, b, len(ns))
	}
	var err error
	if r.ModelA, err = FitModel(x, ta, c.o.Measure.Policy); err != nil {
		return r, fmt.Errorf("timing: CompareExecutors: %s: %w", a, err)
	}
	if r.ModelB, err = FitModel(x, tb, c.o.Measure.Policy); err != nil {
		return r, fmt.Errorf("timing: CompareExecutors: %s: %w", b, err)
	}
	r.Predicted = PredictCrossover(r.ModelA, r.ModelB)
	r.Verdict = verdict(r, ns)
	return r, nil
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
