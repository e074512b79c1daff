//go:build !windows

package workload

import "time"

// hostStart and hostSince time a CPU call on the host: Go's monotonic
// clock, which is fine-grained everywhere but on Windows
// (hostclock_windows.go).
func hostStart() time.Time { return time.Now() }

func hostSince(start time.Time) time.Duration { return time.Since(start) }
