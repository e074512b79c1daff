// tinycall.c: the C peer of the tiny GPU call (bench/_tinycall/peer.c)
// as a program of its own, for bench/callpath.py's process rounds.
// Built by bench/build.sh against third_party/wgpu-native.
//
//   tinycall WGSL CALLS K...
//   tinycall WGSL serve
//
// For each K, after CALLS/4 warm-up calls, CALLS calls are timed one by
// one; each K prints "K <k> median_us <m> min_us <lo> calls <n>". With
// serve, it reads "K N" lines from stdin and answers each with the
// median and the minimum of N timed calls ("<median_us> <min_us>"), so a
// driver can interleave blocks of calls with other processes.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_tinycall/peer.c"

static double now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static char *slurp(const char *path) {
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n) return NULL;
	s[n] = 0;
	fclose(f);
	return s;
}

int main(int argc, char **argv) {
	if (argc < 3 || (argc < 4 && strcmp(argv[2], "serve") != 0)) {
		fprintf(stderr, "usage: tinycall WGSL CALLS K...\n");
		return 2;
	}
	int serve = strcmp(argv[2], "serve") == 0;
	int calls = serve ? 1 : atoi(argv[2]);
	char *src = slurp(argv[1]);
	if (!src || calls < 1) {
		fprintf(stderr, "tinycall: cannot read %s, or CALLS %s < 1\n", argv[1], argv[2]);
		return 2;
	}
	peer *p = peer_open(src);
	if (!p) {
		fprintf(stderr, "tinycall: no adapter, device or pipeline\n");
		return 1;
	}
	fprintf(stderr, "tinycall: adapter %s\n", peer_adapter(p));
	if (serve) {
		int k, n;
		while (scanf("%d %d", &k, &n) == 2) {
			if (k < 1 || n < 1) return 2;
			double *t = malloc(sizeof(double) * n);
			for (int i = 0; i < n; i++) {
				double t0 = now_us();
				int rc = peer_call(p, k);
				t[i] = now_us() - t0;
				if (rc != 0) {
					fprintf(stderr, "tinycall: call failed (%d)\n", rc);
					return 1;
				}
			}
			qsort(t, n, sizeof(double), cmp);
			printf("%.3f %.3f\n", t[n / 2], t[0]);
			fflush(stdout);
			free(t);
		}
		return 0;
	}
	double *t = malloc(sizeof(double) * calls);
	for (int a = 3; a < argc; a++) {
		int k = atoi(argv[a]);
		if (k < 1) {
			fprintf(stderr, "tinycall: K %s < 1\n", argv[a]);
			return 2;
		}
		for (int i = -(calls / 4 + 1); i < calls; i++) {
			double t0 = now_us();
			int rc = peer_call(p, k);
			double dt = now_us() - t0;
			if (rc != 0) {
				fprintf(stderr, "tinycall: call failed (%d)\n", rc);
				return 1;
			}
			if (i >= 0) t[i] = dt;
		}
		qsort(t, calls, sizeof(double), cmp);
		printf("K %d median_us %.2f min_us %.2f calls %d\n", k, t[calls / 2], t[0], calls);
		fflush(stdout);
	}
	return 0;
}
