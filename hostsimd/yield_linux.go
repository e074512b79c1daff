package hostsimd

import "syscall"

// osYield gives the OS thread's core to another runnable thread, if any
// (sched_yield).
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
