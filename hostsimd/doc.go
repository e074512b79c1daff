// Package hostsimd holds the best CPU implementation of each GPU workload
// of wgpu-prof: dot products and distances, cosine similarity (one query
// against many rows, batches of queries, float16 storage), top-k
// selection, gathered distances and spreading activation over a CSR
// graph. It is the CPU side of GPU-vs-CPU comparisons and the numerical
// reference the GPU results are checked against.
//
// It also measures CPU ceilings (STREAM-style memory bandwidth and the
// peak FMA rate, see MeasureCeilings) so CPU kernel throughput can be
// reported as a fraction of what the machine can do.
//
// # Levels
//
// Every kernel exists at several instruction-set levels: Generic (pure
// Go, every architecture), AVX2 and AVX512 on amd64, NEON on arm64. The
// best available level is chosen at start-up; SetLevel switches, which
// tests and benchmarks use to compare levels. The amd64 assembly is
// generated with avo from the _gen directory:
//
//	cd hostsimd && go generate
//
// and gen_check.sh verifies that the committed files match the generator.
// avo only emits amd64, so the NEON kernels (kernels_arm64.s) are written
// by hand. Building with the noasm tag gives a pure-Go package.
//
// # Threads
//
// The batch kernels (CosineSingle, CosineBatch, GatherDistances,
// SpreadStep) split their rows over a package-level pool of persistent
// worker goroutines, sized from GOMAXPROCS; SetThreads changes it (1 runs
// everything on the calling goroutine). Small inputs always run inline.
//
// # Errors
//
// Batch functions return an error naming the bad value for malformed
// shapes. The single-pair functions Dot, L2Squared and Cosine panic on a
// length mismatch, like gonum's floats package.
package hostsimd

//go:generate sh -c "cd _gen && go run . -out ../kernels_amd64.s -stubs ../kernels_amd64.go -pkg hostsimd"
