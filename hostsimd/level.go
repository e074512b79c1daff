package hostsimd

import (
	"fmt"
	"strings"
)

// Level is an instruction-set level a kernel implementation targets.
type Level int

const (
	// Generic is portable Go, available everywhere.
	Generic Level = iota
	// AVX2 needs AVX2, FMA3, F16C and BMI2 (amd64).
	AVX2
	// AVX512 needs AVX512F, AVX512BW, AVX512VL plus the AVX2 set (amd64);
	// 16-wide vectors with masked tails.
	AVX512
	// NEON is the arm64 level (ASIMD, part of the arm64 baseline).
	NEON
)

var levelNames = [...]string{Generic: "generic", AVX2: "avx2", AVX512: "avx512", NEON: "neon"}

// String returns the lower-case name used by ParseLevel.
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ParseLevel parses "generic", "avx2", "avx512" or "neon" (case-insensitive).
func ParseLevel(s string) (Level, error) {
	for l, name := range levelNames {
		if strings.EqualFold(strings.TrimSpace(s), name) {
			return Level(l), nil
		}
	}
	return Generic, fmt.Errorf("hostsimd: ParseLevel: unknown level %q (want generic, avx2, avx512 or neon)", s)
}

// kernelTable is the dispatch table of one level (its kernels). Slice arguments have
// already been checked by the exported wrappers.
type kernelTable struct {
	level   Level
	dot     func(a, b []float32) float32
	l2      func(a, b []float32) float32
	dotNorm func(a, b []float32) (ab, bb float32)
	dot3    func(a, b []float32) (ab, aa, bb float32)
	// dotNormPF, where a level has it, is dotNorm (bit-identical) with
	// software prefetch (PREFETCHT0) of b's lines pfs bytes ahead; it may
	// prefetch up to pfs bytes past the end of b (prefetches never fault).
	dotNormPF  func(a, b []float32, pfs int) (ab, bb float32)
	dotNormF16 func(a []float32, b []uint16) (ab, bb float32)
	// dotNormRows, where a level has it, writes ab[i] = q·v_i and
	// bb[i] = v_i·v_i for the first n rows of v (stride d, len(q) = d),
	// bit-identical to dotNorm per row. While it runs it may prefetch up
	// to pfs bytes past the row it reads, but never past the end of v, so
	// v may be longer than n rows to let it prefetch the rows that follow.
	// Levels without it (nil) run dotNorm per row.
	dotNormRows func(q, v []float32, d, n int, ab, bb []float32, pfs int)
	// dotNormSeq, where a level has it, has dotNormRows's contract; it
	// reads the n rows one after the other (one stream) in one call.
	dotNormSeq func(q, v []float32, d, n int, ab, bb []float32, pfs int)
	// dotTile4 writes out[i*4+j] = q_j·v_i for 4 queries packed by
	// packQueries4 with width tileW and the n rows in v (len n*d).
	dotTile4 func(q, v []float32, d, n int, out []float32)
	tileW    int
	// cosTile8, where a level has it, writes finished cosines for 8
	// queries packed by packQueries with width tileW: for i < n, j < 8,
	// out[j*ldo+i] = clamp(q_j·v_i*iqs[4j]*iv[i]) (iqs as built by
	// batchGroups). With norms it first sets iv[i] = invNorm(v_i·v_i).
	// pf, if not empty, is prefetched pfs bytes further every two steps
	// of the inner loop. CosineBatch then runs groups of 8 queries.
	cosTile8 func(q, v []float32, d, n int, out []float32, ldo int, iqs, iv []float32, norms bool, pf []float32, pfs int)

	// Ceiling kernels. The NT kernels need ntAlign-float aligned
	// destinations and lengths that are multiples of ntBlock.
	sum func(a []float32) float32
	// sumPF, where a level has it, is sum (bit-identical) with software
	// prefetch (PREFETCHT0) pfs bytes ahead of the lines it reads; it may
	// prefetch up to pfs bytes past the end of a. Nil elsewhere.
	sumPF func(a []float32, pfs int) float32
	// sum2, where a level has it, is a sum with two vector accumulators
	// (the plain reader compilers generate); MeasureCeilings tries it
	// among the read kernels. Nil elsewhere.
	sum2    func(a []float32) float32
	fillNT  func(p []float32, v float32)
	copyNT  func(dst, src []float32)
	triadNT func(a, b, c []float32, s float32)
	// scaleNT (dst = s*src) and addNT (c = a + b) are the Mul and Add
	// kernels of the BabelStream set (RunStream), with the same
	// alignment and length rules as the other NT kernels.
	scaleNT   func(dst, src []float32, s float32)
	addNT     func(c, a, b []float32)
	fmaPeak   func(iters int, m, c float32) float32
	fmaLanes  int // float32 lanes updated per fmaPeak iteration
	ntAlign   int // alignment in floats
	ntBlock   int // length granularity in floats
	nonTempSt bool
}

var (
	tables = map[Level]*kernelTable{Generic: genericKernels()}
	// topTable is the highest level's table (set once at start-up).
	topTable *kernelTable
)

func init() {
	registerArch()
	av := Available()
	topTable = tables[av[len(av)-1]]
}

// Available lists the levels this CPU and build support, in increasing
// order; Generic is always first and the last one is the default.
func Available() []Level {
	var out []Level
	for l := Generic; l <= NEON; l++ {
		if _, ok := tables[l]; ok {
			out = append(out, l)
		}
	}
	return out
}
