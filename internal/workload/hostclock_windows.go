package workload

import (
	"syscall"
	"time"
	"unsafe"
)

// On Windows Go's monotonic clock reads the interrupt time, which moves
// once per timer tick (0.5 to 15.6 ms; Wine's in steps of 50 µs to a few
// ms): a CPU call shorter than a tick reads 0 s, and a fit over such
// samples fails. hostStart and hostSince read QueryPerformanceCounter
// instead (100 ns or finer), as Windows' own timing APIs do.

var (
	kernel32 = syscall.NewLazyDLL("kernel32.dll")
	qpc      = kernel32.NewProc("QueryPerformanceCounter")
	qpf      = kernel32.NewProc("QueryPerformanceFrequency")
	qpcHz    = func() int64 {
		var f int64
		if r, _, _ := qpf.Call(uintptr(unsafe.Pointer(&f))); r == 0 || f <= 0 {
			return 0
		}
		return f
	}()
)

// hostStart returns the counter's reading carried in a time.Time's
// nanoseconds (only hostSince reads it), or time.Now without a counter.
func hostStart() time.Time {
	if qpcHz == 0 {
		return time.Now()
	}
	var c int64
	qpc.Call(uintptr(unsafe.Pointer(&c)))
	return time.Unix(0, c)
}

func hostSince(start time.Time) time.Duration {
	if qpcHz == 0 {
		return time.Since(start)
	}
	var c int64
	qpc.Call(uintptr(unsafe.Pointer(&c)))
	d := c - start.UnixNano()
	return time.Duration(d/qpcHz)*time.Second + time.Duration(d%qpcHz*int64(time.Second)/qpcHz)
}
