// Package compute holds the GPU runners of wgpu-prof's WGSL kernels
// (package wgsl): each uploads its stored data once, checks its inputs and
// the adapter's limits on the host before any pipeline exists, splits data
// past one storage binding into chunks, records its dispatches in one
// submission and returns a Timing (timestamp and host clock). It also
// holds the GPU ceilings (read, write, copy, FMA roofline), the
// memory-vs-compute shader families and UserKernel, which runs a WGSL
// shader someone else wrote over buffers declared by name.
//
// It uses the binding (package gpu) only through its exported API, and
// knows nothing of references, statistics or reports: verification
// against float64 references is the workload package's.
package compute
