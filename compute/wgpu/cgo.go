// Package wgpu is a thin cgo binding of the compute subset of
// wgpu-native's C API (webgpu.h and wgpu.h, as shipped in the pinned wgpu
// wheel): instance, adapter, device, buffer, shader module, pipeline,
// compute pass, timestamps and error scopes, plus pooled readback,
// pipeline caching, host-side limit checks (workgroup sizes, workgroup
// memory, lavapipe's loop budget) and a scanner of WGSL declarations.
//
// It knows nothing of workloads (their runners are in package compute)
// and nothing about statistics or reports: it returns raw durations
// (GPU timestamp ticks converted with the queue's timestamp period, and host
// clock times) and leaves their interpretation to package timing.
//
// Every GPU object has an explicit, idempotent Release. C never holds a Go
// pointer: callbacks carry integer handles. Waits on the GPU have timeouts,
// and a device lost or an uncaptured error surfaces as a Go error.
//
// Concurrency: a Device may be used from several goroutines at once (its
// caches are locked; the queue and device calls of wgpu-native are
// thread-safe); a Buffer, Pipeline or BindGroup may be shared by calls
// that do not write the same buffer at the same time. A Timer is not safe
// for concurrent use: one Submit at a time per Timer. Every method of a
// nil or released handle returns an error wrapping ErrReleased (or a zero
// value), never panics (TestNilReceiversAndArguments).
//
// Build: nothing to set up. The C declarations come from the committed
// wgpu_abi.h, and libwgpu_native is loaded at run time (library.go,
// loader.c), so `go build` needs only a C compiler; running needs the
// library, which scripts/setup.sh installs.
//
// ExampleScanWGSL (example_test.go) reads a shader's bindings, entry
// points and override constants without a GPU; compute.Open is the
// one-call way to a ready device.
package wgpu

/*
#cgo CFLAGS: -O2
#cgo linux LDFLAGS: -ldl
#include "shim.h"
*/
import "C"

import "unsafe"

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// goString copies a C string view into Go memory.
func goString(p *C.char, n C.size_t) string {
	if p == nil || n == 0 {
		return ""
	}
	if uint64(n) == ^uint64(0) { // WGPU_STRLEN: null-terminated
		return C.GoString(p)
	}
	return C.GoStringN(p, C.int(n))
}

func svString(v C.WGPUStringView) string { return goString(v.data, v.length) }

// cString allocates a C copy of s; the caller frees it with C.free.
func cString(s string) (*C.char, C.size_t) {
	return C.CString(s), C.size_t(len(s))
}

func freeC(p *C.char) { C.free(unsafe.Pointer(p)) }
