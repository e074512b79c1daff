// Package kernel profiles a user's WGSL compute shader (wgpu-prof kernel):
// its configurations checked before a device opens, each one verified for
// repeatable, finite output, timed and placed against the GPU ceilings,
// and, with a built-in workload as its CPU twin, its break-even against
// that workload's host kernel.
package kernel
