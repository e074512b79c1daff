// Package clock reads the host's finest monotonic clock, for timing calls.
//
// Go's time.Now is that clock everywhere but on Windows, where its
// monotonic reading is the interrupt time, which moves once per timer
// tick (0.5 to 15.6 ms; under Wine in steps of 50 µs to a few ms): a call
// shorter than a tick reads 0 s there, and a rate over it +Inf. On
// Windows Now reads QueryPerformanceCounter instead (100 ns or finer), as
// Windows' own timing APIs do (clock_windows.go).
//
// A reading of Now is a time.Time: its wall clock places it (traces,
// reports), and the difference of two readings of Now (Since, Time.Sub)
// has the fine clock's resolution. Subtract a reading of Now only from
// another reading of Now, never from one of time.Now.
package clock

import "time"

// Now returns the current time on the fine clock.
func Now() time.Time { return now() }

// Since returns the time elapsed since start, a reading of Now.
func Since(start time.Time) time.Duration { return now().Sub(start) }
