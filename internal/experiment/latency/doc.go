// Package latency measures the anatomy of one GPU call on this adapter
// (wgpu-prof latency): the fixed cost of a submit and wait, the upload
// and readback times over transfer sizes, and the round trip's shares,
// which the suite reports and the plan prices.
package latency
