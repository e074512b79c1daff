// Package timing holds the numerical core of wgpu-prof: robust summaries of
// repeated timings (median with an exact order-statistic confidence
// interval), the adaptive measurement loop, the break-even fit between a CPU
// and a GPU implementation, roofline placement, Amdahl's law and the
// memory-versus-compute classification described in METHOD.md.
//
// Everything here is pure Go and deterministic given its inputs. The package
// must not depend on the GPU, on cgo, on the host SIMD kernels or on any
// output format: callers hand it numbers (or a function that returns
// numbers) and get numbers, intervals and warnings back. It never prints and
// never panics on caller-supplied data; problems with the data are returned
// either as errors (when no meaningful answer exists) or as warning strings
// (when an answer exists but deserves suspicion), as benchmath does.
//
// Thresholds that are choices rather than facts (when a kernel clock is
// distrusted, when a fit has a knee or may predict, when falling times make
// evidence contradict itself) are Policy fields with documented defaults.
// Errors read "timing: Func: …" and wrap the sentinels in errors.go.
//
// Units: summaries are unit-agnostic except where noted (Summary.String and
// Measure treat values as seconds).
//
// Example_breakEven (example_test.go) finds a break-even between two
// executors with synthetic, deterministic times.
package timing
