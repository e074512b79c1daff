package hostsimd

import (
	"errors"
	"fmt"
	"runtime"
)

// Host says how the host kernels run: which instruction-set level, on how
// many threads, and from what size a call is split across threads. It is a
// plain value passed by the caller, so two users of the package in one
// process never change each other's settings, and it is safe for
// concurrent use. The zero Host is the default: the measured choice of
// level for CosineSingle (see Calibrate) and the highest level for the
// other kernels, runtime.GOMAXPROCS(0) threads, and the calibrated
// one-vs-all-threads break-even. The package-level kernel functions
// (CosineSingle, CosineBatch, …) run with the zero Host.
//
// Every method that returns an error first checks the Host (Validate) and
// does no work when it is invalid.
type Host struct {
	// Level is the level every kernel uses when FixLevel is set (tests
	// and benchmarks compare levels this way); it must be one of
	// Available().
	Level    Level
	FixLevel bool
	// Threads is how many threads the kernels may use: 0 means
	// runtime.GOMAXPROCS(0) at start-up, 1 runs everything on the calling goroutine
	// (per-core measurements). At most MaxThreads(). Worker goroutines
	// are started on demand, each locked to an OS thread, and live for
	// the rest of the process. A call may use fewer threads when its
	// input is too small to pay for waking them (MinBytesPerThread).
	Threads int
	// ExactThreads, when > 0, splits every parallel call into exactly
	// that many ranges run by that many threads (the caller and
	// ExactThreads−1 workers), whatever the size, bypassing the automatic
	// choice that keeps small calls on one thread; so a side named
	// threads=2 means two threads even for one row. At most MaxThreads().
	ExactThreads int
	// MinBytesPerThread is the smallest number of bytes a streaming call
	// (CosineSingle and friends) gives each extra thread; 0 means the
	// calibrated break-even (Calibration.MinBytesPerThread), or 256 KiB
	// before any calibration.
	MinBytesPerThread int64
}

// ErrHost is wrapped by the errors of an invalid Host.
var ErrHost = errors.New("invalid Host")

// threadsPerCPU bounds thread counts: MaxThreads is this many threads per
// logical CPU. Each thread is a goroutine locked to its own OS thread for
// the rest of the process, so an unbounded count exhausts the process's
// threads (Go stops at 10000) long before it could help; more threads
// than a few per CPU only time-share the cores.
const threadsPerCPU = 8

// MaxThreads is the largest thread count a Host accepts: 8 per logical CPU
// (runtime.NumCPU), and at least GOMAXPROCS at start-up.
func MaxThreads() int { return maxThreads }

// defaultThreads (GOMAXPROCS at start-up) and maxThreads are read once, so
// a call does not take the scheduler's lock to find them.
var defaultThreads, maxThreads = func() (int, int) {
	g := runtime.GOMAXPROCS(0)
	return g, max(threadsPerCPU*runtime.NumCPU(), g)
}()

// Validate reports whether h can run: its level is available on this CPU
// and build, its thread counts lie in [0, MaxThreads()] and
// MinBytesPerThread is not negative. The error wraps ErrHost and names the
// field, its value and the limit.
func (h Host) Validate() error {
	if h.FixLevel {
		if _, ok := tables[h.Level]; !ok {
			return fmt.Errorf("hostsimd: Host.Validate: %w: Level %v not available on this CPU/build (available: %v)", ErrHost, h.Level, Available())
		}
	}
	if m := MaxThreads(); h.Threads < 0 || h.Threads > m {
		return fmt.Errorf("hostsimd: Host.Validate: %w: Threads %d outside [0, %d] (%d per logical CPU; 0: GOMAXPROCS)", ErrHost, h.Threads, m, threadsPerCPU)
	}
	if m := MaxThreads(); h.ExactThreads < 0 || h.ExactThreads > m {
		return fmt.Errorf("hostsimd: Host.Validate: %w: ExactThreads %d outside [0, %d] (%d per logical CPU; 0: automatic)", ErrHost, h.ExactThreads, m, threadsPerCPU)
	}
	if h.MinBytesPerThread < 0 {
		return fmt.Errorf("hostsimd: Host.Validate: %w: MinBytesPerThread %d is negative (0: calibrated)", ErrHost, h.MinBytesPerThread)
	}
	return nil
}

// run is a validated Host resolved for one call: the kernels of its level
// and its thread settings.
type run struct {
	k        *kernelTable
	fixed    bool // level fixed by the caller (Host.FixLevel)
	threads  int
	exact    int
	minBytes int64
}

// resolve checks h and resolves it for one call, starting the workers the
// call may need.
func (h Host) resolve() (run, error) {
	if err := h.Validate(); err != nil {
		return run{}, err
	}
	return h.mustResolve(), nil
}

// mustResolve is resolve for a Host already validated, or for the
// functions that cannot return an error (Dot, L2Squared, Cosine): an
// unavailable level falls back to the default one and thread counts are
// clamped to [1, MaxThreads()].
func (h Host) mustResolve() run {
	r := run{k: topTable, threads: h.Threads, exact: h.ExactThreads, minBytes: h.MinBytesPerThread}
	if h.FixLevel {
		if k, ok := tables[h.Level]; ok {
			r.k, r.fixed = k, true
		}
	}
	if r.threads <= 0 {
		r.threads = defaultThreads
	}
	r.threads = min(r.threads, maxThreads)
	r.exact = min(max(r.exact, 0), maxThreads)
	if r.minBytes <= 0 {
		r.minBytes = calibCur.Load().MinBytesPerThreadOr()
	}
	// The workers of defaultThreads exist from start-up.
	if w := max(r.threads, r.exact); w > defaultThreads {
		ensureWorkers(w)
	}
	return r
}

// table is the table of h's level (the default one when h does not fix
// an available level), for the kernels that run on the calling goroutine.
func (h Host) table() *kernelTable {
	if k, ok := tables[h.Level]; ok && h.FixLevel {
		return k
	}
	return defaultKernels()
}

// defaultKernels is the highest level's table, which every kernel but
// CosineSingle runs by default.
func defaultKernels() *kernelTable { return topTable }

// ActiveLevel is the level the kernels other than CosineSingle run at
// with h (see SingleChoice for CosineSingle's).
func (h Host) ActiveLevel() Level { return h.table().level }

// ThreadCount is the number of threads h lets a call use: Threads, or
// runtime.GOMAXPROCS(0) at start-up when it is 0.
func (h Host) ThreadCount() int {
	if h.Threads <= 0 {
		return defaultThreads
	}
	return min(h.Threads, MaxThreads())
}

// BytesPerThread is the number of bytes below which a streaming call
// (CosineSingle and friends) does not give work to another thread:
// MinBytesPerThread, or the calibrated value when it is 0.
func (h Host) BytesPerThread() int64 {
	if h.MinBytesPerThread > 0 {
		return h.MinBytesPerThread
	}
	return calibCur.Load().MinBytesPerThreadOr()
}

// ThreadsFor returns the number of threads a streaming call over bytes
// bytes uses with h: one per BytesPerThread, at least 1, at most
// ThreadCount.
func (h Host) ThreadsFor(bytes int64) int {
	r := h.mustResolve()
	return r.threadsFor(bytes)
}

func (r *run) threadsFor(bytes int64) int {
	t := int64(r.threads)
	per := max(r.minBytes, 1)
	return int(max(1, min(t, bytes/per)))
}
