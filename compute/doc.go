// Package compute is wgpu-prof's GPU compute library. Open returns a ready
// device (adapter, device, timestamps when the adapter has them) in one
// call. Each runner of wgpu-prof's WGSL kernels (package wgsl) uploads its
// stored data once, checks its inputs and the adapter's limits on the host
// before any pipeline exists, splits data past one storage binding into
// chunks, records its dispatches in one submission and returns a Timing
// (timestamp and host clock). The package also holds the GPU ceilings
// (read, write, copy, FMA roofline), the memory-vs-compute shader families
// and UserKernel, which runs a WGSL shader someone else wrote over buffers
// declared by name.
//
// It uses the binding (package compute/wgpu) only through its exported
// API, and must know nothing of references, statistics or reports:
// verification against float64 references belongs to the caller (the CLI's
// workloads), statistics to package timing.
//
// # Concurrency
//
// Every runner (CosineSingle, CosineBatch, Gather, Spread, TopK,
// TopKSingle, MemCompute, MemStream, UserKernel) is safe for concurrent
// use: its calls share its GPU buffers, so each runner serialises them
// (TestRunnersConcurrentCallers runs one CosineSingle from 8 goroutines).
// Calls on different runners of one device may run at once. A wgpu.Timer
// is not safe for concurrent use: give each goroutine its own. The option,
// result and error types (CosineOptions, Timing, Ceilings, ParamError, …)
// are plain values.
//
// ExampleOpen (a device in one call) and ExampleUserKernel (a shader of
// your own, timed with timestamps) in example_test.go show the package in
// use; `go doc -http` renders them with the documentation.
package compute
