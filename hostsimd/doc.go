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
// It must not depend on the GPU, on cgo or on any output format: the
// kernels are Go and Go assembly, so the package builds without a C
// compiler (with the noasm tag, as plain Go) and can serve as the CPU
// baseline anywhere.
//
// # Levels
//
// Every kernel exists at several instruction-set levels: Generic (pure
// Go, every architecture), AVX2 and AVX512 on amd64, NEON on arm64. By
// default the highest level runs, except where a kernel has alternatives
// that differ by CPU: CosineSingle runs, per shape class (cache-resident or
// DRAM), the level and row walk that measured fastest on this CPU (see
// Calibrate; the measurement is cached per CPU model in
// os.UserCacheDir()/wgpu-prof/, and Host.SingleChoice says what runs and
// why). A Host that fixes a level runs everything at that level (tests and
// benchmarks use it to compare levels). The amd64
// assembly is generated with avo from the _gen directory:
//
//	cd hostsimd && go generate
//
// and gen_check.sh verifies that the committed files match the generator.
// avo only emits amd64, so the NEON kernels (kernels_arm64.s) are written
// by hand. Building with the noasm tag gives a pure-Go package.
//
// # Int8 vectors
//
// QuantizeInt8 stores each vector as int8 codes with one scale: symmetric
// per-vector (absmax) quantization, s = max|x|/127, c = round(x/s) in
// [−127, 127]. It is not FAISS's SQ8 (a trained [min, max] per
// dimension). CosineSingleInt8 quantizes the query alike and sums q·v and
// v·v exactly in int32 (AVX-512 VNNI VPDPBUSD, AVX2 VPMADDWD, NEON SDOT
// where present, Generic); the scales cancel in a cosine. The int8
// kernels are generated from _gen/quant (quant_amd64.s).
//
// # Settings
//
// The level, the thread count and the one-vs-all-threads break-even are
// fields of a Host value the caller passes (the package-level functions
// use the zero Host, the defaults): there is no package-level setting, so
// two users of the package in one process cannot disturb each other.
// Every function and method is safe for concurrent use.
//
// # Threads
//
// The batch kernels run on a shared pool of persistent worker goroutines,
// each locked to an OS thread, started on demand up to the largest thread
// count a Host asked for (at most MaxThreads, 8 per logical CPU);
// Host.Threads = 1 runs everything on the calling goroutine.
// Streaming kernels (CosineSingle, CosineSingleNorms, CosineSingleF16,
// RowNorms) give each thread one contiguous range of rows, the same range
// on every call, with boundaries on 16-row (64-byte output) multiples, and
// use only as many threads as the size pays for (Host.ThreadsFor, from the
// measured one-vs-all-threads break-even). SplitRows initialises data on
// the threads that will read it (first touch). CosineBatch, Gather and
// SpreadStep hand out chunks dynamically.
//
// MeasureCeilings and MeasureRead measure the machine's read ceiling as
// the best of several readers and thread layouts, at DRAM or at any
// working-set size (cache-resident ceilings).
//
// # Errors
//
// Batch functions return an error naming the bad value for malformed
// shapes. The single-pair functions Dot, L2Squared and Cosine panic on a
// length mismatch, like gonum's floats package.
//
// ExampleCosineSingle (example_test.go) scores one query against stored
// rows and keeps the best with TopK.
package hostsimd

//go:generate sh -c "cd _gen && go run . -out ../kernels_amd64.s -stubs ../kernels_amd64.go -pkg hostsimd"
