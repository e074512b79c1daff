// Package hybrid replays a list of dispatch strategies (static threshold,
// oracle by size, adaptive, single sides) over a stream of request sizes
// between two measured sides, with injected faults, and reports each
// strategy's total time, misroutes and recovery (wgpu-prof hybrid).
package hybrid
