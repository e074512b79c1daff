// Package suite runs the default suite (wgpu-prof run): the ceilings of
// both sides, then for each workload the GPU variant chosen for this
// adapter, both sides measured and verified at the default size, the
// break-even over batch sizes, the call latency anatomy and the
// host-state judgement of the CPU rows.
package suite
