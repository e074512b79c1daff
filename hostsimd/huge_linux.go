package hostsimd

import "syscall"

// adviseHuge asks for transparent huge pages over b (page-aligned); a
// kernel that refuses (THP set to never) leaves it as plain memory.
func adviseHuge(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}
