package hostsimd

import (
	"math"
	"unsafe"
)

// hugePage is the transparent huge page size hugeFloats aligns to.
const hugePage = 2 << 20

// hugeMin is the smallest buffer hugeFloats backs with huge pages: below
// it the alignment would waste more than it saves.
const hugeMin = 8 << 20

// HugeFloats returns n zeroed float32s for a large streaming buffer,
// starting on a 64-byte boundary. On Linux, a buffer of at least 8 MiB
// starts on a 2 MiB boundary and is advised to the kernel as huge-page
// memory (MADV_HUGEPAGE) before it is first touched: under a hypervisor a
// TLB miss is a two-level page walk, so streaming reads run faster on
// 2 MiB pages (docs/results/2026-11-24-epyc-zen4/NOTES.md; compare
// BenchmarkReadCeiling with transparent huge pages on and off). numpy
// advises its large arrays the same way. Where huge pages are not available (another OS, a
// kernel set to never) the buffer is plain memory. Fill it from the
// threads that will read it (SplitRows) to place its pages there. n <= 0,
// or n too large to address in bytes, gives nil.
func HugeFloats(n int) []float32 {
	if n <= 0 || n > (math.MaxInt-hugePage)/4 {
		return nil
	}
	if n*4 < hugeMin {
		return alignedFloats(n)
	}
	buf := make([]float32, n+hugePage/4)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % hugePage; r != 0 {
		off = int((hugePage - r) / 4)
	}
	s := buf[off : off+n : off+n]
	adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), n*4/hugePage*hugePage))
	return s
}
