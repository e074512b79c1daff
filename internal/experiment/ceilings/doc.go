// Package ceilings measures the ceilings both sides are judged against:
// the cache staircase of each side, the DRAM-level read, write, copy and
// FMA ceilings (BabelStream's kernels among them), the int8 peaks, and
// the host command's CPU rows judged by the host's state (wgpu-prof host,
// stream).
package ceilings
