package hostsimd

import (
	"fmt"
	"runtime"
	"time"

	"github.com/wgpu-prof/wgpu-prof/stream"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// StreamOpts configures RunStream.
type StreamOpts struct {
	// ArraySize is the number of float32 elements of each of the three
	// arrays (0: stream.DefaultArraySize, 2^25).
	ArraySize int
	// NumTimes is how often the Classic order runs (0: 100; at least 2).
	NumTimes int
	// Threads is the number of threads every kernel is split over (0:
	// GOMAXPROCS), whatever the array size, as an OpenMP parallel for
	// with OMP_NUM_THREADS does.
	Threads int
	// Stop, when set, is polled between kernel calls: once it returns
	// true RunStream returns ErrStopped and no times.
	Stop func() bool
}

// StreamResult is what RunStream measured: every run's wall time of each
// kernel (Times[k][0] is the warm-up run), and the final arrays already
// checked against BabelStream's gold values.
type StreamResult struct {
	ArraySize, NumTimes, Threads int
	Level                        Level
	Times                        [][]time.Duration // by stream.Kernels
	Sum                          float32           // the last Dot
}

// RunStream runs BabelStream's five Classic kernels (Copy c = a, Mul
// b = s·c, Add c = a + b, Triad a = b + s·c, Dot Σ a·b) in float32 with the
// current level's kernels: a, b and c start at 0.1, 0.2 and 0.0, the
// Classic order runs NumTimes times, each kernel call is timed on its own
// (wall clock around the parallel call), and the final arrays and the
// last sum are checked as BabelStream checks them (stream.Check);
// a failed check is an error and no times are returned.
//
// Each of Threads threads owns the same contiguous range of every array
// in every kernel (the range it first touched when the arrays were set
// up), as OpenMP's static schedule gives; the threads are hostsimd's
// persistent workers. The stores are non-temporal on the levels that have
// them (AVX2, AVX512; STNP hints on NEON), so a written line is not read
// first and the bytes moved are the bytes BabelStream counts.
// RunStream runs with the zero Host's level (the highest).
func RunStream(opts StreamOpts) (StreamResult, error) { return Host{}.RunStream(opts) }

// RunStream is the package-level RunStream with the kernels of h's level
// (its thread count is opts.Threads).
func (h Host) RunStream(opts StreamOpts) (StreamResult, error) {
	if err := h.Validate(); err != nil {
		return StreamResult{}, err
	}
	if opts.ArraySize == 0 {
		opts.ArraySize = stream.DefaultArraySize
	}
	if opts.NumTimes == 0 {
		opts.NumTimes = stream.DefaultNumTimes
	}
	if err := (stream.Opts{ArraySize: opts.ArraySize, NumTimes: opts.NumTimes}).Validate(); err != nil {
		return StreamResult{}, fmt.Errorf("hostsimd: RunStream: %w", err)
	}
	if opts.Threads < 0 || opts.Threads > MaxThreads() {
		return StreamResult{}, fmt.Errorf("hostsimd: RunStream: Threads %d: must be in [0, %d] (MaxThreads)", opts.Threads, MaxThreads())
	}
	return runStream(h.table(), opts)
}

// runStream is RunStream with the kernels of k.
func runStream(k *kernelTable, opts StreamOpts) (StreamResult, error) {
	t := opts.Threads
	if t == 0 {
		t = runtime.GOMAXPROCS(0)
	}
	n := opts.ArraySize
	bounds := streamBounds(n, t, k.ntBlock)
	ensureWorkers(len(bounds) - 1)
	a, b, c := HugeFloats(n), HugeFloats(n), HugeFloats(n)
	s := float32(stream.StartScalar)
	runSplit(bounds, func(lo, hi int) {
		fillGeneric(a[lo:hi], stream.StartA)
		fillGeneric(b[lo:hi], stream.StartB)
		fillGeneric(c[lo:hi], stream.StartC)
	})
	// nt runs an NT kernel over the part of [lo, hi) that is a multiple
	// of ntBlock and the generic loop over the rest (the last range only).
	nt := func(lo, hi int, fast, slow func(lo, hi int)) {
		m := lo + (hi-lo)/k.ntBlock*k.ntBlock
		if m > lo {
			fast(lo, m)
		}
		if m < hi {
			slow(m, hi)
		}
	}
	copyK := func(lo, hi int) {
		nt(lo, hi, func(lo, hi int) { k.copyNT(c[lo:hi], a[lo:hi]) }, func(lo, hi int) { copy(c[lo:hi], a[lo:hi]) })
	}
	mulK := func(lo, hi int) {
		nt(lo, hi, func(lo, hi int) { k.scaleNT(b[lo:hi], c[lo:hi], s) }, func(lo, hi int) { scaleGeneric(b[lo:hi], c[lo:hi], s) })
	}
	addK := func(lo, hi int) {
		nt(lo, hi, func(lo, hi int) { k.addNT(c[lo:hi], a[lo:hi], b[lo:hi]) }, func(lo, hi int) { addGeneric(c[lo:hi], a[lo:hi], b[lo:hi]) })
	}
	triadK := func(lo, hi int) {
		nt(lo, hi, func(lo, hi int) { k.triadNT(a[lo:hi], b[lo:hi], c[lo:hi], s) }, func(lo, hi int) { triadGeneric(a[lo:hi], b[lo:hi], c[lo:hi], s) })
	}
	// Each thread's partial sum has its own 64-byte line.
	partial := make([]float32, 16*(len(bounds)-1))
	dotK := func(lo, hi int) {
		w := 0
		for w+1 < len(bounds)-1 && bounds[w+1] <= lo {
			w++
		}
		partial[16*w] = k.dot(a[lo:hi], b[lo:hi])
	}
	fns := []func(lo, hi int){copyK, mulK, addK, triadK, dotK}
	res := StreamResult{ArraySize: n, NumTimes: opts.NumTimes, Threads: len(bounds) - 1, Level: k.level,
		Times: make([][]time.Duration, len(fns))}
	for i := range res.Times {
		res.Times[i] = make([]time.Duration, 0, opts.NumTimes)
	}
	for r := 0; r < opts.NumTimes; r++ {
		for i, fn := range fns {
			if opts.Stop != nil && opts.Stop() {
				return StreamResult{}, ErrStopped
			}
			t0 := clock.Now()
			runSplit(bounds, fn)
			if i == len(fns)-1 {
				var sum float32
				for w := 0; w < len(bounds)-1; w++ {
					sum += partial[16*w]
				}
				res.Sum = sum
			}
			res.Times[i] = append(res.Times[i], clock.Since(t0))
		}
	}
	if err := stream.Check(opts.NumTimes, a, b, c, res.Sum); err != nil {
		return StreamResult{}, fmt.Errorf("hostsimd: RunStream: %v, %d threads: %w: %w", k.level, res.Threads, ErrVerify, err)
	}
	runtime.KeepAlive(a)
	return res, nil
}

// streamBounds splits [0,n) into at most t ranges whose inner boundaries
// are multiples of blk (so each range starts aligned for the NT stores);
// fewer when n is too small to give every thread a block.
func streamBounds(n, t, blk int) []int {
	blocks := n / blk
	t = max(1, min(t, blocks))
	b := make([]int, t+1)
	for w := 1; w < t; w++ {
		b[w] = blocks * w / t * blk
	}
	b[t] = n
	return b
}
