package hostsimd

import (
	"sync"
	"time"
)

// Level choice by measurement for the stored precisions.
//
// As CosineSingle's level is chosen by measurement (calibrate.go), the
// int8 and f16 kernels of a Host that does not fix a level run at the
// level whose kernel measured fastest on this CPU, once per process: each
// level's int8 kernel (dots) and f16 kernel (dotNormF16) over the same
// cache-resident block of rows (where the instructions, not the memory,
// set the rate), interleaved over several rounds, the best round kept.
// A Host that fixes a level runs that level's kernels.

// choiceRows × choiceDim is the block each candidate scores a round.
const (
	choiceRows   = 256
	choiceDim    = 768
	choiceRounds = 7
)

var (
	choiceOnce            sync.Once
	int8Choice, f16Choice Level
)

// chooseLevels measures the int8 and f16 kernels of every available level
// (once per process).
func chooseLevels() {
	choiceOnce.Do(func() {
		levels := Available()
		codes, halves, q := make([]int8, choiceRows*choiceDim), make([]uint16, choiceRows*choiceDim), make([]float32, choiceDim)
		for i := range codes {
			codes[i], halves[i] = int8(i*37%255-127), uint16(0x3000+i%0x0c00)
		}
		for i := range q {
			q[i] = float32(i%7) - 3
		}
		qq := newInt8Query(codes[:choiceDim])
		var dot, ss [choiceRows]int32
		int8Choice = fastest(levels, func(l Level) {
			quantFor(l).dots(qq, codes, choiceRows, dot[:], ss[:])
		})
		f16Choice = fastest(levels, func(l Level) {
			k := tables[l]
			for i := 0; i < choiceRows; i++ {
				k.dotNormF16(q, halves[i*choiceDim:(i+1)*choiceDim])
			}
		})
	})
}

// fastest runs fn for every level, interleaved over choiceRounds rounds,
// and returns the level with the shortest round (ties: the higher level).
func fastest(levels []Level, fn func(Level)) Level {
	best := make([]time.Duration, len(levels))
	for r := 0; r < choiceRounds; r++ {
		for i, l := range levels {
			t0 := time.Now()
			fn(l)
			if d := time.Since(t0); r == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	pick := len(levels) - 1
	for i := range levels {
		if best[i] < best[pick] {
			pick = i
		}
	}
	return levels[pick]
}

// int8Level is the level of the int8 kernel r runs: its fixed level, else
// the measured choice.
func (r run) int8Level() Level {
	if r.fixed {
		return r.k.level
	}
	chooseLevels()
	return int8Choice
}

// f16Table is the kernel table of the f16 kernels r runs: its fixed
// level's, else the measured choice's.
func (r run) f16Table() *kernelTable {
	if r.fixed {
		return r.k
	}
	chooseLevels()
	return tables[f16Choice]
}

// StoredLevels names the levels the int8 and f16 kernels of h run at:
// h's fixed level, else the measured choice.
func (h Host) StoredLevels() (i8, h16 Level) {
	r := h.mustResolve()
	return r.int8Level(), r.f16Table().level
}
