package hostsimd

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The worker pool: persistent goroutines that take jobs from a channel.
// A job is a range [0,n) handed out in chunks through an atomic counter;
// the caller works on its own job too, so a job finishes even when every
// worker is busy, and a worker that picks up a finished job returns at
// once.

type job struct {
	fn    func(lo, hi int)
	n     int
	chunk int
	next  atomic.Int64
	wg    sync.WaitGroup
}

func (j *job) run() {
	for {
		lo := int(j.next.Add(int64(j.chunk))) - j.chunk
		if lo >= j.n {
			return
		}
		hi := min(lo+j.chunk, j.n)
		j.fn(lo, hi)
		j.wg.Done()
	}
}

var pool struct {
	mu      sync.Mutex
	threads atomic.Int32
	started int
	jobs    chan *job
}

func init() {
	pool.jobs = make(chan *job, 256)
	SetThreads(0)
}

// SetThreads sets how many threads the batch kernels use; n <= 0 means
// runtime.GOMAXPROCS(0). SetThreads(1) runs everything on the calling
// goroutine (per-core measurements). Worker goroutines are started on
// demand and live for the rest of the process.
func SetThreads(n int) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	pool.threads.Store(int32(n))
	pool.mu.Lock()
	for ; pool.started < n-1; pool.started++ {
		go func() {
			for j := range pool.jobs {
				j.run()
			}
		}()
	}
	pool.mu.Unlock()
}

// ForceThreads makes every parallel kernel split each call into exactly n
// ranges run by n threads (the caller and n−1 workers), whatever the size,
// bypassing the automatic choice of SetThreads' path (which runs small calls
// inline); n <= 0 restores the automatic choice. Break-even uses it so a
// side named threads=2 means two workers even for one row.
func ForceThreads(n int) {
	pool.mu.Lock()
	for ; pool.started < n-1; pool.started++ {
		go func() {
			for j := range pool.jobs {
				j.run()
			}
		}()
	}
	pool.mu.Unlock()
	forced.Store(int32(max(n, 0)))
}

var forced atomic.Int32

// forcedFor runs fn over [0,n) as t ranges, one per thread.
func forcedFor(n, t int, fn func(lo, hi int)) {
	if t <= 1 {
		fn(0, n)
		return
	}
	chunk := (n + t - 1) / t
	j := &job{fn: fn, n: n, chunk: chunk}
	j.wg.Add((n + chunk - 1) / chunk)
	for h := 0; h < t-1; h++ {
		pool.jobs <- j
	}
	j.run()
	j.wg.Wait()
}

// Threads returns the thread count set by SetThreads.
func Threads() int { return int(pool.threads.Load()) }

// inlineWork is the amount of work (roughly float32 multiply-adds) below
// which a batch call runs on the caller's goroutine.
const inlineWork = 1 << 15

// parallelFor calls fn on disjoint ranges covering [0,n). cost is the work
// per item; grain the smallest useful range.
func parallelFor(n, cost, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if f := int(forced.Load()); f > 0 {
		forcedFor(n, f, fn)
		return
	}
	t := Threads()
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
}
