// Package env is the environment every experiment runs in: the opened GPU
// device and its timer, the host's SIMD level and threads, the memory
// budget, the measurement options, progress lines, the interrupt flag,
// the trace of GPU calls, the adapters present, and the errors that name
// a parameter.
package env
