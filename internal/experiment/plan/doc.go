// Package plan turns a CPU profile (pprof) and measured break-evens into
// a decision: which operations to port to the GPU, each priced from its
// batch mix, the launch and transfer taxes of this adapter and the
// roofline; and validates a plan against the profile taken after porting
// (wgpu-prof plan).
package plan
