// Package ops defines the values wgpu-prof's operations exchange, once
// for every layer: a top-k result Pair, the distance Metric of HNSW
// candidate batches, the CSR graph of spreading activation (with its
// validation), and IEEE binary16 conversion for f16 storage.
//
// It is a leaf: it imports nothing of this module, and holds no kernels,
// no GPU code and no measurement.
//
// The examples in example_test.go validate a CSR graph, round-trip
// binary16 values and parse a metric.
package ops
