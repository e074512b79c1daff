package clock

import (
	"syscall"
	"time"
	"unsafe"
)

// On Windows a reading of Now is the wall and monotonic time of a base
// reading of time.Now taken once, advanced by the QueryPerformanceCounter
// ticks since then: time.Time.Add moves both readings, so Time.Sub of two
// readings of Now is the counter's difference. Without a counter (never on
// Windows XP or later) Now is time.Now.

var (
	kernel32 = syscall.NewLazyDLL("kernel32.dll")
	qpc      = kernel32.NewProc("QueryPerformanceCounter")
	qpf      = kernel32.NewProc("QueryPerformanceFrequency")

	hz, base0, base = func() (int64, int64, time.Time) {
		var f, c int64
		if r, _, _ := qpf.Call(uintptr(unsafe.Pointer(&f))); r == 0 || f <= 0 {
			return 0, 0, time.Time{}
		}
		if r, _, _ := qpc.Call(uintptr(unsafe.Pointer(&c))); r == 0 {
			return 0, 0, time.Time{}
		}
		return f, c, time.Now()
	}()
)

func now() time.Time {
	if hz == 0 {
		return time.Now()
	}
	var c int64
	qpc.Call(uintptr(unsafe.Pointer(&c)))
	d := c - base0
	return base.Add(time.Duration(d/hz)*time.Second + time.Duration(d%hz*int64(time.Second)/hz))
}
