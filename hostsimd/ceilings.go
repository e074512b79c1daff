package hostsimd

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// CeilingOpts configures MeasureCeilings. Zero values pick defaults.
type CeilingOpts struct {
	// Threads is the number of goroutines streaming at once; 0 means
	// GOMAXPROCS (all cores), 1 gives the one-core ceiling.
	Threads int
	// Bytes is the size of each array. The default is DRAMWorkingSet
	// (at least 8× the last-level cache cpuid reports), so the kernels
	// stream from memory. The triad needs three arrays.
	Bytes int64
	// Runs is how often each kernel runs; the first run is a warm-up and
	// excluded, the best of the others is reported. Default 7, minimum 2.
	Runs int
	// CacheBytes, when positive, also measures the read ceiling over a
	// working set of about that many bytes (all threads), repeated
	// in place so it stays cache-resident: Ceilings.CacheReadGBs.
	CacheBytes int64
	// Budget bounds the total time: once it is spent, each remaining
	// kernel runs only twice (warm-up + one timed run). 0 means no bound.
	Budget time.Duration
	// Stop, when set, is polled between timed runs: once it returns
	// true the remaining kernels are skipped and MeasureCeilings returns
	// ErrStopped.
	Stop func() bool
}

// ErrStopped is wrapped by the error of a measurement its Stop function
// ended (compute.ErrStopped is the same error).
var ErrStopped = errors.New("measurement stopped")

// ErrVerify is wrapped by the error of a kernel whose output did not match
// its reference: the measurement that produced it must not be used
// (compute.ErrVerify is the same error, so one errors.Is finds a failed
// check on either side).
var ErrVerify = errors.New("result verification failed")

// Ceilings are measured CPU limits, in 10^9 bytes or flops per second.
type Ceilings struct {
	// ReadGBs is the bandwidth of reading one array: the best of several
	// readers (the 4-accumulator SIMD sum, a plain 2-accumulator sum, the
	// sum with software prefetch singlePrefetch bytes ahead, the distance
	// CosineSingle uses, on the levels that have them) and thread layouts
	// (one contiguous part per thread, or 1 MiB blocks dealt round-robin),
	// so the ceiling is the best known read streamer of this machine.
	ReadGBs float64
	// ReadPrefetch is the software prefetch distance in bytes of the read
	// kernel that set ReadGBs, 0 for the plain sum.
	ReadPrefetch int
	// ReadKernel names the reader and thread layout that set ReadGBs (see
	// MeasureRead); ReadCandidates has every one tried.
	ReadKernel     string
	ReadCandidates []ReadCandidate
	// CacheReadGBs is the read ceiling over a working set of CacheBytes
	// (CeilingOpts.CacheBytes, 0 when not asked for), the roof for
	// cache-resident kernels; CacheReadKernel names its reader.
	CacheReadGBs    float64
	CacheBytes      int64
	CacheReadKernel string
	// WriteGBs is the bandwidth of filling one array. On the AVX2 and
	// AVX512 levels the fill, copy and triad kernels use non-temporal
	// (streaming) stores, so written lines are not read first; the
	// bytes counted match the bytes moved. NEON stores with STNP, a
	// non-temporal hint the core may ignore. Generic uses plain stores.
	WriteGBs float64
	// CopyGBs counts bytes read plus bytes written (2 streams).
	CopyGBs float64
	// TriadGBs is a[i] = b[i] + s*c[i], counting 3 streams.
	TriadGBs float64
	// FMAGFLOPs is the peak rate of independent vector FMA chains held in
	// registers, 2 flops per lane per FMA, summed over Threads.
	FMAGFLOPs float64
	Threads   int
	Bytes     int64 // bytes per array actually used
	Level     Level // kernel level measured
}

func (c Ceilings) String() string {
	return fmt.Sprintf("level=%v threads=%d bytes=%d read=%.2f GB/s (%s) cache-read=%.2f GB/s (%d B) write=%.2f GB/s copy=%.2f GB/s triad=%.2f GB/s fma=%.1f GFLOP/s",
		c.Level, c.Threads, c.Bytes, c.ReadGBs, c.ReadKernel, c.CacheReadGBs, c.CacheBytes, c.WriteGBs, c.CopyGBs, c.TriadGBs, c.FMAGFLOPs)
}

// DefaultCeilingBytes is the default CeilingOpts.Bytes for this machine:
// DRAMWorkingSet of all threads.
func DefaultCeilingBytes() int64 { return DRAMWorkingSet(runtime.GOMAXPROCS(0)) }

// CeilingArrays is how many arrays of CeilingOpts.Bytes MeasureCeilings
// holds at once (the triad's).
const CeilingArrays = 3

// DRAMWorkingSet is the working set of a "dram" measurement on threads
// threads: what the caches call for (past every cache any of them can
// see, machine.Machine.DRAMWant), planned so that CeilingArrays arrays of
// it fit the memory budget of the machine in use (machine.Current).
// DRAMWorkingSetPlan says whether the budget cut it.
func DRAMWorkingSet(threads int) int64 {
	b, _ := DRAMWorkingSetPlan(threads)
	return b
}

// DRAMWorkingSetPlan is DRAMWorkingSet and whether the memory budget made
// it smaller than the caches call for (a capped DRAM level: it may still
// be partly cache-resident).
func DRAMWorkingSetPlan(threads int) (int64, bool) {
	m := machine.Current()
	return machine.Plan(m.DRAMWant(threads), CeilingArrays, m.Budget(false))
}

// alignedFloats returns n float32s starting on a 64-byte boundary.
func alignedFloats(n int) []float32 {
	buf := make([]float32, n+16)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}

var ceilingSink float32

// MeasureCeilings measures STREAM-style memory bandwidth (read, write,
// copy, triad) and the peak FMA rate with the kernels of the highest
// level, using opts.Threads goroutines that each own a contiguous part of
// the arrays. It allocates three arrays of opts.Bytes each.
func MeasureCeilings(opts CeilingOpts) (Ceilings, error) { return Host{}.MeasureCeilings(opts) }

// MeasureCeilings is the package-level MeasureCeilings with the kernels of
// h's level (its thread count is opts.Threads).
func (h Host) MeasureCeilings(opts CeilingOpts) (Ceilings, error) {
	if err := h.Validate(); err != nil {
		return Ceilings{}, err
	}
	cr, err := newCeilingRun(h.table(), opts)
	if err != nil {
		return Ceilings{}, err
	}
	k, t, n := cr.k, cr.t, cr.part*cr.t
	res := Ceilings{Threads: t, Bytes: int64(n) * 4, Level: k.level}
	a, b, c := HugeFloats(n), HugeFloats(n), HugeFloats(n)
	// First touch by the owning thread.
	cr.par(func(_, lo, hi int) {
		fillGeneric(a[lo:hi], 1)
		fillGeneric(b[lo:hi], 2)
		fillGeneric(c[lo:hi], 0.5)
	})
	best := func(fn func(th, lo, hi int)) float64 { return cr.bestOf(fn, true) }
	gb := func(nbytes int64, sec float64) float64 { return float64(nbytes) / sec / 1e9 }
	nb := int64(n) * 4

	rd, err := measureRead(k, a, t, cr.runs, opts.Budget, cr.start, opts.Stop)
	if err != nil {
		return Ceilings{}, err
	}
	res.ReadGBs, res.ReadPrefetch, res.ReadKernel, res.ReadCandidates = rd.GBs, rd.Prefetch, rd.Kernel, rd.Candidates
	if opts.CacheBytes > 0 {
		cn := int(opts.CacheBytes/4) / t / 16 * 16 * t
		if cn == 0 {
			return Ceilings{}, fmt.Errorf("hostsimd: MeasureCeilings: CacheBytes=%d too small for %d threads", opts.CacheBytes, t)
		}
		cache, err := measureRead(k, a[:cn], t, cr.runs, 0, clock.Now(), opts.Stop)
		if err != nil {
			return Ceilings{}, err
		}
		res.CacheReadGBs, res.CacheBytes, res.CacheReadKernel = cache.GBs, int64(cn)*4, cache.Kernel
	}
	res.WriteGBs = gb(nb, best(func(_, lo, hi int) { k.fillNT(c[lo:hi], 0.5) }))
	res.CopyGBs = gb(2*nb, best(func(_, lo, hi int) { k.copyNT(c[lo:hi], a[lo:hi]) }))
	res.TriadGBs = gb(3*nb, best(func(_, lo, hi int) { k.triadNT(a[lo:hi], b[lo:hi], c[lo:hi], 0.5) }))
	res.FMAGFLOPs = cr.fmaPeak()
	runtime.KeepAlive(a)
	if cr.stopped() {
		return res, fmt.Errorf("hostsimd: MeasureCeilings: %w", ErrStopped)
	}
	return res, nil
}

// ceilingRun is one MeasureCeilings: t locked goroutines, each owning part
// floats of every array, timing each kernel runs times.
type ceilingRun struct {
	k             *kernelTable
	opts          CeilingOpts
	t, part, runs int
	start         time.Time
}

// newCeilingRun checks opts and fills their defaults.
func newCeilingRun(k *kernelTable, opts CeilingOpts) (*ceilingRun, error) {
	t := opts.Threads
	if t <= 0 {
		t = runtime.GOMAXPROCS(0)
	}
	if opts.Bytes < 0 || opts.Runs < 0 || opts.Budget < 0 {
		return nil, fmt.Errorf("hostsimd: MeasureCeilings: negative option in %+v", opts)
	}
	bytes := opts.Bytes
	if bytes == 0 {
		bytes = DefaultCeilingBytes()
	}
	runs := opts.Runs
	if runs == 0 {
		runs = 7
	}
	runs = max(runs, 2)
	part := int(bytes/4) / t / k.ntBlock * k.ntBlock // floats per thread
	if part == 0 {
		return nil, fmt.Errorf("hostsimd: MeasureCeilings: Bytes=%d too small for %d threads", bytes, t)
	}
	return &ceilingRun{k: k, opts: opts, t: t, part: part, runs: runs, start: clock.Now()}, nil
}

func (cr *ceilingRun) stopped() bool { return cr.opts.Stop != nil && cr.opts.Stop() }

// par runs fn on every thread's part and returns the wall time.
func (cr *ceilingRun) par(fn func(th, lo, hi int)) time.Duration {
	var wg sync.WaitGroup
	t0 := clock.Now()
	for th := 0; th < cr.t; th++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			fn(th, th*cr.part, (th+1)*cr.part)
		}()
	}
	wg.Wait()
	return clock.Since(t0)
}

// bestOf runs fn runs times (the first a warm-up) and returns the best
// time; with budgeted set, a spent Budget cuts the runs short.
func (cr *ceilingRun) bestOf(fn func(th, lo, hi int), budgeted bool) float64 {
	bt := time.Duration(math.MaxInt64)
	for r := 0; r < cr.runs; r++ {
		if cr.stopped() {
			return math.Inf(1)
		}
		d := cr.par(fn)
		if r > 0 {
			bt = min(bt, d)
			if budgeted && cr.opts.Budget > 0 && clock.Since(cr.start) > cr.opts.Budget {
				break
			}
		}
	}
	return bt.Seconds()
}

// fmaPeak is the FMA rate of every thread, GFLOP/s, with iterations
// calibrated to ~20 ms on one thread.
func (cr *ceilingRun) fmaPeak() float64 {
	const m, add = 0.99999994, 1e-3
	k := cr.k
	iters := 1 << 12
	for {
		t0 := clock.Now()
		ceilingSink += k.fmaPeak(iters, m, add)
		if clock.Since(t0) > 20*time.Millisecond || iters > 1<<30 {
			break
		}
		iters *= 2
	}
	// Not cut by the budget: a run is ~20 ms, and one timed run on a
	// shared machine can land on a busy core and read far below the peak.
	var sinkMu sync.Mutex
	sec := cr.bestOf(func(_, _, _ int) {
		s := k.fmaPeak(iters, m, add)
		sinkMu.Lock()
		ceilingSink += s
		sinkMu.Unlock()
	}, false)
	return float64(cr.t) * float64(iters) * float64(k.fmaLanes) * 2 / sec / 1e9
}

// ReadCandidate is one reader and thread layout MeasureRead tried.
type ReadCandidate struct {
	Kernel string  `json:"kernel"`
	GBs    float64 `json:"gbs"`
}

// ReadCeiling is the result of MeasureRead.
type ReadCeiling struct {
	GBs        float64
	Kernel     string // reader/layout of GBs
	Prefetch   int    // software prefetch distance of that reader, bytes
	Bytes      int64  // bytes read per pass
	Threads    int
	Candidates []ReadCandidate
}

// MeasureRead measures the read bandwidth over a working set of about
// bytes bytes with threads goroutines (0: GOMAXPROCS): the best of every
// reader and thread layout (see Ceilings.ReadGBs), each the best of runs
// timed passes after a warm-up (runs 0: 7). A working set that fits in
// cache is read several times per timed pass so a pass lasts long enough
// to time, and stays resident: this is the roof for cache-resident rows.
func MeasureRead(bytes int64, threads, runs int) (ReadCeiling, error) {
	return MeasureReadUntil(bytes, threads, runs, nil)
}

// MeasureReadUntil is MeasureRead polling stop (when not nil) between
// timed runs: once it returns true the measurement ends with ErrStopped.
func MeasureReadUntil(bytes int64, threads, runs int, stop func() bool) (ReadCeiling, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if runs == 0 {
		runs = 7
	}
	if bytes <= 0 || runs < 0 {
		return ReadCeiling{}, fmt.Errorf("hostsimd: MeasureRead: bytes=%d runs=%d (bytes must be positive, runs >= 0)", bytes, runs)
	}
	n := int(bytes/4) / threads / 16 * 16 * threads
	if n == 0 {
		return ReadCeiling{}, fmt.Errorf("hostsimd: MeasureRead: bytes=%d too small for %d threads", bytes, threads)
	}
	a := HugeFloats(n)
	if !fillUntil(a, threads, stop) {
		return ReadCeiling{}, fmt.Errorf("hostsimd: MeasureRead: %w", ErrStopped)
	}
	return measureRead(defaultKernels(), a, threads, max(runs, 2), 0, clock.Now(), stop)
}

// fillChunk is how many floats a filling goroutine writes between two
// looks at stop: a few milliseconds of first-touch page faults.
const fillChunk = 4 << 20

// fillUntil fills a with ones on threads goroutines (each its own part,
// so first touch places the pages), looking at stop between chunks; it
// reports false when stop ended it first.
func fillUntil(a []float32, threads int, stop func() bool) bool {
	part := len(a) / threads
	var wg sync.WaitGroup
	var stopped atomic.Bool
	for th := 0; th < threads; th++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := a[th*part : (th+1)*part]
			for lo := 0; lo < len(p); lo += fillChunk {
				if stopped.Load() || (stop != nil && stop()) {
					stopped.Store(true)
					return
				}
				fillGeneric(p[lo:min(lo+fillChunk, len(p))], 1)
			}
		}()
	}
	wg.Wait()
	return !stopped.Load()
}

// measureRead times every reader of k in every layout over a (whose
// length is a multiple of 16*t) with t locked goroutines.
func measureRead(k *kernelTable, a []float32, t, runs int, budget time.Duration, start time.Time, stop func() bool) (ReadCeiling, error) {
	n := len(a)
	res := ReadCeiling{Bytes: int64(n) * 4, Threads: t}
	// Passes per timed run: at least ~256 MiB read, so cache-sized sets
	// are timed over many passes (and stay resident) and waking the
	// goroutines is a negligible part of a run.
	passes := max(1, int((256<<20)/(int64(n)*4)))
	for _, rd := range readersOf(k) {
		for _, ly := range readLayouts(n, t) {
			bt := time.Duration(math.MaxInt64)
			for r := 0; r < runs; r++ {
				if stop != nil && stop() {
					return res, fmt.Errorf("hostsimd: MeasureRead: %w", ErrStopped)
				}
				d := timeRead(a, t, passes, rd.fn, ly.parts)
				if r > 0 {
					bt = min(bt, d)
					if budget > 0 && clock.Since(start) > budget {
						break
					}
				}
			}
			gbs := float64(n) * 4 * float64(passes) / bt.Seconds() / 1e9
			name := rd.name + "/" + ly.name
			res.Candidates = append(res.Candidates, ReadCandidate{name, gbs})
			if gbs > res.GBs {
				res.GBs, res.Kernel, res.Prefetch = gbs, name, rd.pf
			}
		}
	}
	runtime.KeepAlive(a)
	return res, nil
}

// reader is one read kernel measureRead tries, with its software prefetch
// distance in bytes.
type reader struct {
	name string
	pf   int
	fn   func([]float32) float32
}

// readersOf lists the read kernels of k.
func readersOf(k *kernelTable) []reader {
	readers := []reader{{"sum4", 0, k.sum}}
	if k.sum2 != nil {
		readers = append(readers, reader{"sum2", 0, k.sum2})
	}
	if k.sumPF != nil {
		readers = append(readers, reader{fmt.Sprintf("sum4+prefetch%dK", singlePrefetch>>10), singlePrefetch,
			func(x []float32) float32 { return k.sumPF(x, singlePrefetch) }})
	}
	return readers
}

// readLayout is how n floats are split over t threads: parts(th) are
// thread th's ranges.
type readLayout struct {
	name  string
	parts func(th int) [][2]int
}

// readLayouts are the layouts tried over n floats: contiguous parts, and
// where the set is large enough, 1 MiB blocks dealt round-robin.
func readLayouts(n, t int) []readLayout {
	const block = 1 << 18 // floats: 1 MiB blocks for the interleaved layout
	layouts := []readLayout{{"contiguous", func(th int) [][2]int {
		p := n / t
		return [][2]int{{th * p, (th + 1) * p}}
	}}}
	if n >= 2*block*t {
		layouts = append(layouts, readLayout{"interleaved-1MiB", func(th int) [][2]int {
			var r [][2]int
			for lo := th * block; lo < n; lo += t * block {
				r = append(r, [2]int{lo, min(lo+block, n)})
			}
			return r
		}})
	}
	return layouts
}

// timeRead runs one timed run: t locked goroutines, started together once
// all are ready, each reading its parts of a passes times.
func timeRead(a []float32, t, passes int, fn func([]float32) float32, layout func(th int) [][2]int) time.Duration {
	var sinkMu sync.Mutex
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	ready.Add(t)
	gate := make(chan struct{})
	for th := 0; th < t; th++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			parts := layout(th)
			ready.Done()
			<-gate
			var s float32
			for p := 0; p < passes; p++ {
				for _, pr := range parts {
					s += fn(a[pr[0]:pr[1]])
				}
			}
			sinkMu.Lock()
			ceilingSink += s
			sinkMu.Unlock()
		}()
	}
	ready.Wait()
	t0 := clock.Now()
	close(gate)
	wg.Wait()
	return clock.Since(t0)
}
