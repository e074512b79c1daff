//go:build !linux

package hostsimd

import "runtime"

// osYield lets other goroutines run (no sched_yield outside Linux).
func osYield() { runtime.Gosched() }
