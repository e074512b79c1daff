// peer.c: plain C/OpenMP readers to compare wgpu-prof's host kernels with,
// on the same sizes, in the same run. Built by bench/build.sh with
// gcc -O3 -march=native -fopenmp; the loops are plain C that the compiler
// vectorizes (two accumulators, each a GCC vector of 16 floats), no intrinsics.
//
//   peer sum    BYTES  [RUNS]   two-accumulator sum over one buffer
//   peer cosine N D    [RUNS]   cosine of one query against N rows of D
//
// Threads: OMP_NUM_THREADS (default all cores). Data is first touched by
// the thread that reads it (the same static schedule). Each mode prints
// the median and best of RUNS timed runs after one warm-up, in GB/s
// (10^9 bytes of input read per second).
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// bigalloc returns bytes of memory; from 8 MiB up it starts on a 2 MiB
// boundary and is advised as huge-page memory before it is touched, as
// numpy does for its large arrays and hostsimd.HugeFloats for wgpu-prof's
// (under a hypervisor 4 KiB pages cost this sum 29 of 33 GB/s on a 2-vCPU
// Zen 4): the peers and wgpu-prof read the same kind of memory.
static void *bigalloc(size_t bytes) {
	if (bytes < (8u << 20)) return aligned_alloc(64, (bytes + 63) / 64 * 64);
	size_t hp = 2u << 20, sz = (bytes + hp - 1) / hp * hp;
	void *p = aligned_alloc(hp, sz);
	if (p) madvise(p, sz, MADV_HUGEPAGE);
	return p;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// A GCC vector of W floats (vector extension, not intrinsics): the
// compiler picks the instructions (-march=native). W is the machine's
// vector width: a 16-float vector on an AVX2-only CPU is split into ymm
// halves that GCC moves through the stack (the sum read 6.8 GB/s on one
// core of a Zen 3, where the 8-float vector reads ~17).
#ifdef __AVX512F__
#define W 16
#else
#define W 8
#endif
typedef float vf __attribute__((vector_size(4 * W), aligned(4)));

static float hsum(vf x) {
	float s = 0;
	for (int j = 0; j < W; j++) s += x[j];
	return s;
}

// sum2 sums a[0:n] with two vector accumulators of W lanes.
static float sum2(const float *restrict a, size_t n) {
	vf s0 = {0}, s1 = {0};
	size_t i = 0;
	for (; i + 2 * W <= n; i += 2 * W) {
		s0 += *(const vf *)(a + i);
		s1 += *(const vf *)(a + i + W);
	}
	float s = hsum(s0 + s1);
	for (; i < n; i++) s += a[i];
	return s;
}

// dotnorm returns q·v and writes v·v, two vector accumulators each.
static float dotnorm(const float *restrict q, const float *restrict v, int d, float *vv) {
	vf a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
	int i = 0;
	for (; i + 2 * W <= d; i += 2 * W) {
		vf x0 = *(const vf *)(v + i), x1 = *(const vf *)(v + i + W);
		a0 += *(const vf *)(q + i) * x0;
		b0 += x0 * x0;
		a1 += *(const vf *)(q + i + W) * x1;
		b1 += x1 * x1;
	}
	float ab = hsum(a0 + a1), bb = hsum(b0 + b1);
	for (; i < d; i++) {
		ab += q[i] * v[i];
		bb += v[i] * v[i];
	}
	*vv = bb;
	return ab;
}

static void report(const char *what, double bytes, double *t, int runs) {
	qsort(t, runs, sizeof t[0], cmp);
	double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
	printf("%s threads=%d bytes=%.0f median=%.2f GB/s best=%.2f GB/s worst=%.2f GB/s runs=%d\n", what,
	       omp_get_max_threads(), bytes, bytes / med / 1e9, bytes / t[0] / 1e9, bytes / t[runs - 1] / 1e9, runs);
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: peer sum BYTES [RUNS] | peer cosine N D [RUNS]\n");
		return 2;
	}
	volatile float sink = 0;
	if (strcmp(argv[1], "sum") == 0) {
		size_t n = (size_t)(atof(argv[2]) / 4);
		int runs = argc > 3 ? atoi(argv[3]) : 11;
		if (n == 0 || runs < 1) {
			fprintf(stderr, "peer sum: BYTES must be >= 4 and RUNS >= 1\n");
			return 2;
		}
		float *a = bigalloc(n * 4);
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < n; i++) a[i] = 1.0f;
		// Cache-sized buffers are read several times per run (>= 256 MiB), as
		// hostsimd.MeasureRead does.
		int passes = n * 4 < (256u << 20) ? (int)((256u << 20) / (n * 4)) : 1;
		double t[101];
		for (int r = 0; r <= runs && r < 101; r++) {
			double t0 = now();
			float s = 0;
#pragma omp parallel reduction(+ : s)
			{
				int th = omp_get_thread_num(), nt = omp_get_num_threads();
				size_t lo = n * th / nt, hi = n * (th + 1) / nt;
				for (int p = 0; p < passes; p++) s += sum2(a + lo, hi - lo);
			}
			double dt = now() - t0;
			sink += s;
			if (r > 0) t[r - 1] = dt;
		}
		report("c-openmp-sum2", (double)n * 4 * passes, t, runs);
		return 0;
	}
	if (strcmp(argv[1], "cosine") == 0 && argc >= 4) {
		size_t n = (size_t)atol(argv[2]);
		int d = atoi(argv[3]);
		int runs = argc > 4 ? atoi(argv[4]) : 11;
		if (n == 0 || d <= 0 || runs < 1) {
			fprintf(stderr, "peer cosine: N and D must be positive, RUNS >= 1\n");
			return 2;
		}
		float *v = bigalloc(n * d * 4);
		float *q = malloc(d * 4), *out = malloc(n * 4);
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < n; i++)
			for (int j = 0; j < d; j++) v[i * d + j] = (float)((i * 7919 + j * 104729) % 2001) / 1000.0f - 1.0f;
		for (int j = 0; j < d; j++) q[j] = (float)(j % 17) / 8.0f - 1.0f;
		float qq = 0;
		for (int j = 0; j < d; j++) qq += q[j] * q[j];
		int passes = n * d * 4 < (32u << 20) ? (int)((32u << 20) / (n * d * 4)) : 1;
		double t[101];
		for (int r = 0; r <= runs && r < 101; r++) {
			double t0 = now();
			for (int p = 0; p < passes; p++) {
#pragma omp parallel for schedule(static)
				for (size_t i = 0; i < n; i++) {
					float vv, ab = dotnorm(q, v + i * d, d, &vv);
					float den = sqrtf(qq * vv);
					out[i] = den > 0 ? ab / den : 0;
				}
			}
			double dt = now() - t0;
			sink += out[n / 2];
			if (r > 0) t[r - 1] = dt;
		}
		report("c-openmp-cosine", (double)n * d * 4 * passes, t, runs);
		return 0;
	}
	fprintf(stderr, "peer: unknown mode %s\n", argv[1]);
	return 2;
}
