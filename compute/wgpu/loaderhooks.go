package wgpu

/*
#include "loader.h"
*/
import "C"

// dawnFeaturePairs is dawn.c's feature table as it is compiled: each
// standard feature's number in Dawn's webgpu.h and the binding's
// (wgpu-native's) number it is translated to (TestDawnFeatureTable checks
// it against both headers by name).
func dawnFeaturePairs() [][2]uint32 {
	var out [][2]uint32
	for i := 0; ; i++ {
		var d, n C.uint32_t
		if C.wgpuprof_dawn_feature_pair(C.size_t(i), &d, &n) == 0 {
			return out
		}
		out = append(out, [2]uint32{uint32(d), uint32(n)})
	}
}

// submitCount is how many queue submissions the binding has made, with
// any implementation (TestRunReadsBackInOneSubmit holds a call to one).
func submitCount() uint64 { return uint64(C.wgpuprof_submits()) }
