// Package sweeps sweeps one knob or design of a workload's GPU side:
// workgroup size, tile, every GPU variant side by side, and memory-
// versus compute-bound shapes (wgpu-prof sweep), and the stored
// precisions of the vector workloads (wgpu-prof experiment quantization).
package sweeps
