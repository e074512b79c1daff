package wgpu

/*
#include <stdlib.h>
#include "loader.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// ErrNoShaderDump: the device cannot show the code its implementation
// compiled from WGSL.
var ErrNoShaderDump = errors.New("no shader dump")

// NagaNotShown is why a wgpu-native device shows no compiled shaders.
const NagaNotShown = "wgpu-native's C API does not expose the code naga generates from WGSL (no function of webgpu.h or wgpu.h returns it, and wgpuShaderModuleGetCompilationInfo aborts in wgpu-native 29)"

// shaderDump is what a device made with DeviceOptions.DumpShaders has
// logged of its shaders so far.
type shaderDump struct {
	mu   sync.Mutex
	text []byte
}

// requestDumping makes the next device request on this thread, through
// Dawn, one that dumps its shaders; it runs the request (req) with the
// thread locked so that dawn.c sees the request on the thread that asked.
func requestDumping(impl Impl, on bool, req func()) {
	if !on || impl != ImplDawn {
		req()
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.wgpuprof_dawn_dump_next(1)
	req()
	C.wgpuprof_dawn_dump_next(0)
}

// collect moves what Dawn logged for d since the last call into d's dump;
// stop ends the log (before the device is released).
func (d *Device) collectShaders(stop bool) {
	if d == nil || d.c == nil || d.shaders == nil {
		return
	}
	var logged C.int
	stopC := C.int(0)
	if stop {
		stopC = 1
	}
	p := C.wgpuprof_dawn_take_log(d.c, stopC, &logged)
	if p == nil {
		return
	}
	defer C.free(unsafe.Pointer(p))
	d.shaders.mu.Lock()
	d.shaders.text = append(d.shaders.text, C.GoString(p)...)
	d.shaders.mu.Unlock()
}

// ShaderDump is the code d's implementation compiled from every WGSL
// module the device has made so far, as the implementation shows it.
// Dawn, for a device made with DeviceOptions.DumpShaders, logs each
// module's WGSL and the code Tint generated from it for the backend
// (SPIR-V disassembly on Vulkan, MSL on Metal, HLSL on D3D12), with the
// modules' labels kept. wgpu-native cannot show naga's output: the error
// wraps ErrNoShaderDump and says so (NagaNotShown), as it does for a Dawn
// device made without DumpShaders.
func (d *Device) ShaderDump() (string, error) {
	if d == nil || d.c == nil {
		return "", fmt.Errorf("wgpu: ShaderDump: %w", ErrReleased)
	}
	if d.Impl() != ImplDawn {
		return "", fmt.Errorf("wgpu: ShaderDump: %w: %s", ErrNoShaderDump, NagaNotShown)
	}
	if d.shaders == nil {
		return "", fmt.Errorf("wgpu: ShaderDump: %w: the Dawn device was made without DeviceOptions.DumpShaders", ErrNoShaderDump)
	}
	d.pollOnce(false)
	d.collectShaders(false)
	d.shaders.mu.Lock()
	defer d.shaders.mu.Unlock()
	return string(d.shaders.text), nil
}
