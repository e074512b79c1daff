package hostsimd

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The worker pool: persistent goroutines, each locked to its own OS thread
// and fed through its own channel, started once and reused by every call.
//
// Streaming kernels (parallelRows) give worker w the same contiguous range
// of rows on every call, so each thread reads one long run of memory (the
// hardware prefetchers see a single stream), outputs are written in
// disjoint contiguous ranges whose shared boundaries fall on 64-byte lines
// (no false sharing), and data initialised through SplitRows is first
// touched by the thread that later reads it (NUMA first touch). The caller
// runs range 0 itself.
//
// Irregular work (parallelFor) is handed out in chunks through an atomic
// counter instead, so a slow chunk does not hold up the others.
//
// Waking a parked thread is slow on virtual machines: an idle vCPU halts,
// and the wake-up goes through the hypervisor, costing as much as many
// rows of work. So, as OpenMP
// runtimes do, a worker that finishes a range polls its channel for
// spinWait before it parks, and the caller polls for its workers' ranges
// to finish for as long before it blocks: back-to-back calls find their
// workers awake.

type job struct {
	fn    func(lo, hi int)
	n     int
	chunk int
	next  atomic.Int64
	wg    sync.WaitGroup
	panicBox
}

func (j *job) run() {
	for {
		lo := int(j.next.Add(int64(j.chunk))) - j.chunk
		if lo >= j.n {
			return
		}
		hi := min(lo+j.chunk, j.n)
		j.runRange(j.fn, lo, hi)
		j.wg.Done()
	}
}

// panicBox keeps the first panic raised by a range run on a worker, so the
// caller that handed out the ranges re-raises it on its own goroutine
// (where it can be recovered) instead of the worker killing the process.
type panicBox struct{ p atomic.Pointer[any] }

// runRange calls fn(lo, hi), recording a panic instead of letting it
// unwind the worker.
func (b *panicBox) runRange(fn func(lo, hi int), lo, hi int) {
	defer func() {
		if v := recover(); v != nil {
			b.p.CompareAndSwap(nil, &v)
		}
	}()
	fn(lo, hi)
}

// reraise panics with the first recorded value, if any.
func (b *panicBox) reraise() {
	if v := b.p.Load(); v != nil {
		panic(*v)
	}
}

// task is one contiguous range for one worker.
type task struct {
	fn     func(lo, hi int)
	lo, hi int
	done   *split
}

// split counts the ranges of one runSplit call still running on workers.
type split struct {
	left atomic.Int32
	wg   sync.WaitGroup
	panicBox
}

// finish marks one range done.
func (s *split) finish() {
	s.left.Add(-1)
	s.wg.Done()
}

// wait returns once every range is done: it polls for hotSpin, then
// blocks (the caller waits on work in progress, not for new work).
func (s *split) wait() {
	if s.left.Load() == 0 {
		return
	}
	start := time.Now()
	for i := 1; s.left.Load() > 0; i++ {
		if i%64 == 0 && time.Since(start) > hotSpin {
			s.wg.Wait()
			return
		}
	}
}

// spinWait is how long a worker polls for its next range before it
// parks: 1 ms of plain polling (hotSpin), then up to 10 ms polling with a
// yield of the OS thread between polls, so other threads that want the
// core (a GPU driver's, the program's) get it while the worker stays
// awake. A parked worker costs the next parallel call its wake-up, which
// can be a hundred times a small call's work: polling only 1 ms, a stream
// that interleaves one-thread and two-thread calls with a few ms between
// the latter finds the worker parked, and a dispatcher learns the parallel
// side is slow from those wake-ups. TestReceivePollsThenParks checks the
// polling and the parking; the wake-up's cost is in
// docs/results/2026-11-24-epyc-zen4/NOTES.md. (LLVM's OpenMP spins 200 ms.)
const (
	hotSpin  = time.Millisecond
	spinWait = 10 * time.Millisecond
)

// poll is one round of waiting that started at start: after hotSpin it
// yields the OS thread; it reports whether spinWait is over.
func poll(i int, start time.Time) bool {
	if i%64 != 0 {
		return false
	}
	d := time.Since(start)
	if d > hotSpin {
		osYield()
	}
	return d > spinWait
}

// receive returns ch's next task, polling for spinWait before it blocks;
// ok is false once ch is closed.
func receive(ch chan task) (t task, ok bool) {
	start := time.Now()
	for i := 1; ; i++ {
		select {
		case t, ok = <-ch:
			return t, ok
		default:
		}
		if poll(i, start) {
			t, ok = <-ch
			return t, ok
		}
	}
}

var pool struct {
	mu sync.Mutex
	// workers[w] feeds worker w+1 (the caller is worker 0). Read under
	// atomic load so calls do not take mu.
	workers atomic.Pointer[[]chan task]
	jobs    chan *job
}

func init() {
	pool.jobs = make(chan *job, 256)
	ensureWorkers(defaultThreads)
}

// ensureWorkers starts workers until at least n-1 exist (n is bounded by
// MaxThreads through Host). Each worker is a goroutine locked to an OS
// thread, with a second goroutine serving parallelFor's jobs; both live
// for the rest of the process.
func ensureWorkers(n int) {
	if ws := pool.workers.Load(); ws != nil && len(*ws) >= n-1 {
		return
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var ws []chan task
	if p := pool.workers.Load(); p != nil {
		ws = *p
	}
	for len(ws) < n-1 {
		ch := make(chan task, 1)
		ws = append(ws[:len(ws):len(ws)], ch)
		go func() {
			runtime.LockOSThread()
			for {
				t, ok := receive(ch)
				if !ok {
					return
				}
				t.done.runRange(t.fn, t.lo, t.hi)
				t.done.finish()
			}
		}()
		go func() {
			for j := range pool.jobs {
				j.run()
			}
		}()
	}
	pool.workers.Store(&ws)
}

// runForced runs fn over [0,n) as Host.ExactThreads demands and reports
// whether it did (false: no count is forced, the caller chooses).
func (r *run) runForced(n int, fn func(lo, hi int)) bool {
	switch f := r.exact; {
	case f > 1:
		runSplit(evenBounds(n, min(f, n)), fn)
	case f == 1:
		fn(0, n)
	default:
		return false
	}
	return true
}

// evenBounds splits [0,n) into t ranges of near-equal size.
func evenBounds(n, t int) []int {
	b := make([]int, t+1)
	for w := 1; w <= t; w++ {
		b[w] = n * w / t
	}
	return b
}

// defaultMinBytesPerThread: waking a parked worker costs a few
// microseconds, in which one core streams about 256 KiB from L2/L3.
const defaultMinBytesPerThread = 256 << 10

// rowAlign is the granularity of the row ranges handed to threads: 16 rows
// give 16 float32 outputs, one 64-byte line, so two threads never write
// the same line when the output starts on a line boundary.
const rowAlign = 16

// splitBounds splits [0,n) into t contiguous ranges with boundaries on
// multiples of rowAlign: range w is [b[w], b[w+1]).
func splitBounds(n, t int) []int {
	b := make([]int, t+1)
	units := (n + rowAlign - 1) / rowAlign
	for w := 1; w < t; w++ {
		b[w] = min(n, units*w/t*rowAlign)
	}
	b[t] = n
	return b
}

// parallelRows runs fn over [0,n) rows of rowBytes bytes each: the rows
// are split into r.threadsFor(n*rowBytes) contiguous ranges, range 0 on the
// caller, range w on worker w. A worker that is still busy (a concurrent
// call) has its range run by the caller, so calls never wait on each
// other.
func (r *run) parallelRows(n, rowBytes int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	switch t, forced := r.rowPlan(n, rowBytes); {
	case t <= 1:
		fn(0, n)
	case forced:
		runSplit(evenBounds(n, t), fn)
	default:
		runSplit(splitBounds(n, t), fn)
	}
}

// rowPlan is the number of threads parallelRows(n, rowBytes, …) runs its
// ranges on, and whether ForceThreads set it (even ranges) rather than
// the size (ranges aligned to rowAlign).
func (r *run) rowPlan(n, rowBytes int) (threads int, forced bool) {
	if f := r.exact; f > 0 {
		return min(f, n), true
	}
	return min(r.threadsFor(int64(n)*int64(rowBytes)), (n+rowAlign-1)/rowAlign), false
}

// rowThreads is rowPlan's thread count (1: parallelRows runs fn(0, n) on
// the caller, nothing else), so a kernel can run a one-thread call without
// building the closure parallelRows needs.
func (r *run) rowThreads(n, rowBytes int) int {
	t, _ := r.rowPlan(n, rowBytes)
	return t
}

func runSplit(b []int, fn func(lo, hi int)) {
	t := len(b) - 1
	ws := *pool.workers.Load()
	var done split
	var mine []int
	for w := 1; w < t; w++ {
		if b[w] == b[w+1] {
			continue
		}
		done.left.Add(1)
		done.wg.Add(1)
		sent := false
		if w-1 < len(ws) {
			select {
			case ws[w-1] <- task{fn: fn, lo: b[w], hi: b[w+1], done: &done}:
				sent = true
			default:
			}
		}
		if !sent {
			done.finish()
			mine = append(mine, w)
		}
	}
	fn(b[0], b[1])
	for _, w := range mine {
		fn(b[w], b[w+1])
	}
	done.wait()
	done.reraise()
}

// SplitRows calls fn on the contiguous row ranges a streaming kernel over
// n rows of d float32s uses, each range on the thread that will read it,
// and waits. Initialising data through it places every page where the
// thread reading it runs (first touch), as on NUMA machines it must be.
// A panic in fn on a worker is re-raised on the caller's goroutine
// (after every range has finished), so the caller can recover it. SplitRows
// uses the zero Host; see Host.SplitRows.
func SplitRows(n, d int, fn func(lo, hi int)) { Host{}.SplitRows(n, d, fn) }

// SplitRows is the package-level SplitRows with h's threads. An invalid
// h (see Validate) runs fn(0, n) on the caller. n <= 0 or d <= 0 calls
// nothing.
func (h Host) SplitRows(n, d int, fn func(lo, hi int)) {
	if n <= 0 || d <= 0 || fn == nil {
		return
	}
	if h.Validate() != nil {
		fn(0, n)
		return
	}
	r := h.mustResolve()
	r.parallelRows(n, 4*d, fn)
}

// inlineWork is the amount of work (roughly float32 multiply-adds) below
// which a parallelFor call runs on the caller's goroutine.
const inlineWork = 1 << 15

// parallelFor calls fn on disjoint ranges covering [0,n), handed out in
// chunks to whichever thread is free (for work of uneven cost). cost is
// the work per item; grain the smallest useful range.
func (r *run) parallelFor(n, cost, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if r.runForced(n, fn) {
		return
	}
	t := r.threads
	if t <= 1 || n*max(cost, 1) < inlineWork || n <= grain {
		fn(0, n)
		return
	}
	// About 4 chunks per thread for balance, but at least grain items.
	chunk := max(grain, (n+4*t-1)/(4*t))
	nchunks := (n + chunk - 1) / chunk
	if nchunks == 1 {
		fn(0, n)
		return
	}
	j := &job{fn: fn, n: n, chunk: chunk}
	j.wg.Add(nchunks)
	helpers := min(t, nchunks) - 1
	for h := 0; h < helpers; h++ {
		select {
		case pool.jobs <- j:
		default:
		}
	}
	j.run()
	j.wg.Wait()
	j.reraise()
}
