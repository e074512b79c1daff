// Package stream holds the definitions wgpu-prof shares with
// BabelStream (the memory-bandwidth benchmark with ports to CUDA, HIP,
// SYCL, OpenCL, OpenMP and others), so that its stream runs on either side
// can be set beside a BabelStream run: the five Classic kernels in their
// run order, the bytes each is counted for, the start values and scalar,
// the gold values the final arrays are checked against with BabelStream's
// tolerances and the summary over runs (the first run excluded). The
// wgpu-prof stream command writes its two outputs (the table and the CSV
// with BabelStream's columns) from these.
//
// Only definitions live here: the kernels themselves are in hostsimd
// (RunStream) and compute (RunStream), whose options default to
// DefaultArraySize and DefaultNumTimes and are checked by Opts.Validate;
// docs/STREAM.md says how each corresponds to BabelStream's.
package stream

import (
	"fmt"
	"math"
	"time"
)

// Start values of the three arrays and the scalar of Mul and Triad, as
// BabelStream defines them (each rounded to the element type).
const (
	StartA      = 0.1
	StartB      = 0.2
	StartC      = 0.0
	StartScalar = 0.4
)

// DefaultArraySize is BabelStream's default element count, 2^25.
const DefaultArraySize = 1 << 25

// DefaultNumTimes is BabelStream's default number of runs of each kernel.
const DefaultNumTimes = 100

// Kernel identifies one of the five Classic kernels.
type Kernel int

// The Classic kernels in BabelStream's run order: each run of the Classic
// order runs them once in this order, NumTimes times over.
const (
	Copy  Kernel = iota // c = a
	Mul                 // b = scalar*c
	Add                 // c = a + b
	Triad               // a = b + scalar*c
	Dot                 // sum = Σ a*b
)

// Kernels lists the Classic kernels in run order.
var Kernels = []Kernel{Copy, Mul, Add, Triad, Dot}

var names = [...]string{"Copy", "Mul", "Add", "Triad", "Dot"}

// String is BabelStream's label for k ("Copy", …).
func (k Kernel) String() string {
	if k < 0 || int(k) >= len(names) {
		return fmt.Sprintf("kernel(%d)", int(k))
	}
	return names[k]
}

// Weight is the number of array elements BabelStream counts as moved per
// index: 2 for Copy, Mul and Dot (one read, one write or two reads), 3
// for Add and Triad (two reads, one write). Bytes = Weight·sizeof·N.
func (k Kernel) Weight() int {
	if k == Add || k == Triad {
		return 3
	}
	return 2
}

// Opts are the options common to both sides.
type Opts struct {
	ArraySize int // elements per array
	NumTimes  int // runs of each kernel, the first excluded from the summary
}

// MaxArraySize bounds ArraySize: three float64 arrays of 2^31 elements
// are 48 GiB, past any machine the tool runs on, and the GPU side indexes
// elements with 32-bit integers per binding. Where int is 32 bits the
// bound is lower, so that the three float64 arrays' bytes still fit in an
// int (the address space): a larger size is refused by Validate, not
// left to fail in make.
const MaxArraySize = min(1<<31, math.MaxInt/(3*8))

// FieldError is an Opts field out of its range: the field's name
// ("ArraySize", "NumTimes"), its value and the range it must be in. A
// command line maps Field to its own flag name.
type FieldError struct {
	Field string
	Value int
	Want  string // the accepted range, e.g. "in 1..2147483648"
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("stream: Opts.Validate: %s %d: must be %s", e.Field, e.Value, e.Want)
}

// Validate checks o; a bad field is a *FieldError naming the field, its
// value and its limit.
func (o Opts) Validate() error {
	if o.ArraySize < 1 || o.ArraySize > MaxArraySize {
		return &FieldError{Field: "ArraySize", Value: o.ArraySize, Want: fmt.Sprintf("in 1..%d", MaxArraySize)}
	}
	if o.NumTimes < 2 {
		return &FieldError{Field: "NumTimes", Value: o.NumTimes, Want: "2 or more (the first run is excluded)"}
	}
	return nil
}

// Float is the element types BabelStream runs (--float and double).
type Float interface{ ~float32 | ~float64 }

// Gold returns the values every element of a, b and c and the Dot sum
// must have after numTimes runs of the Classic order over n elements,
// computed in T as BabelStream computes them.
func Gold[T Float](numTimes, n int) (a, b, c, sum T) {
	a, b, c = T(StartA), T(StartB), T(StartC)
	s := T(StartScalar)
	for k := 0; k < numTimes; k++ {
		c = a
		b = s * c
		c = a + b
		a = b + s*c
		sum = a * b * T(n)
	}
	return a, b, c, sum
}

// epsilon is the machine epsilon of T (2^-23 or 2^-52).
func epsilon[T Float]() T {
	var x T
	if _, ok := any(x).(float32); ok {
		return T(1.0 / (1 << 23))
	}
	return T(math.Nextafter(1, 2) - 1)
}

// within is BabelStream's relative check: |is − should| ≤
// max(|is|, |should|)·rel, and is not NaN.
func within[T Float](is, should, rel T) bool {
	x, y := float64(is), float64(should)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	return math.Abs(float64(is-should)) <= float64(max(T(math.Abs(x)), T(math.Abs(y)))*rel)
}

// Check compares the final arrays and the last Dot sum with the gold
// values (Gold) under BabelStream's tolerances: 100 epsilon relative for
// every element, 10^7 epsilon for the sum (a reduction's rounding grows
// with n). It reports the first few failures; nil means every element
// and the sum passed. NaN never passes.
func Check[T Float](numTimes int, a, b, c []T, sum T) error {
	n := len(a)
	if len(b) != n || len(c) != n {
		return fmt.Errorf("stream: Check: arrays of %d, %d and %d elements", len(a), len(b), len(c))
	}
	ga, gb, gc, gs := Gold[T](numTimes, n)
	rel := 100 * epsilon[T]()
	relDot := 10000000 * epsilon[T]()
	var msgs []string
	failed := 0
	note := func(name string, i int, is, should T) {
		failed++
		if len(msgs) < 3 {
			where := name
			if i >= 0 {
				where = fmt.Sprintf("%s[%d]", name, i)
			}
			msgs = append(msgs, fmt.Sprintf("%s = %v, want %v", where, is, should))
		}
	}
	if !within(sum, gs, relDot) {
		note("sum", -1, sum, gs)
	}
	for i := 0; i < n; i++ {
		if !within(a[i], ga, rel) {
			note("a", i, a[i], ga)
		}
		if !within(b[i], gb, rel) {
			note("b", i, b[i], gb)
		}
		if !within(c[i], gc, rel) {
			note("c", i, c[i], gc)
		}
	}
	if failed > 0 {
		return fmt.Errorf("stream: Check: %d values failed validation (first: %v)", failed, msgs)
	}
	return nil
}

// Stats is the summary of one kernel's runs, the first run excluded:
// the bandwidth from the minimum time, as BabelStream reports it.
type Stats struct {
	Kernel        Kernel
	MBytesPerSec  float64 // 10^6 bytes per second at Min
	Min, Max, Avg time.Duration
}

// Summarize returns k's Stats over times (times[0] is the warm-up run and
// excluded) for n elements of sizeof bytes.
func Summarize(k Kernel, times []time.Duration, n, sizeof int) (Stats, error) {
	if len(times) < 2 {
		return Stats{}, fmt.Errorf("stream: Summarize: %s: %d runs, need at least 2", k, len(times))
	}
	st := Stats{Kernel: k, Min: times[1], Max: times[1]}
	var total time.Duration
	for _, t := range times[1:] {
		st.Min, st.Max = min(st.Min, t), max(st.Max, t)
		total += t
	}
	st.Avg = total / time.Duration(len(times)-1)
	if st.Min <= 0 {
		return Stats{}, fmt.Errorf("stream: Summarize: %s: a run took %v", k, st.Min)
	}
	st.MBytesPerSec = 1e-6 * float64(k.Weight()) * float64(sizeof) * float64(n) / st.Min.Seconds()
	return st, nil
}
