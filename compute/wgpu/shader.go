package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unsafe"
)

// ShaderModule is compiled WGSL.
type ShaderModule struct {
	c     C.WGPUShaderModule
	Label string
	// Warnings from the compiler, if any.
	Warnings []CompilationMessage
	scan     *wgslModule // declarations, for the host-side limit checks of CreatePipeline
}

// CreateShaderModule compiles WGSL. A compilation failure is returned as a
// *ShaderError carrying the line and column of the first error.
func (d *Device) CreateShaderModule(label, wgsl string) (*ShaderModule, error) {
	op := fmt.Sprintf("CreateShaderModule(%q)", label)
	m := &ShaderModule{Label: label, scan: scanWGSL(wgsl)}
	cl, ln := cString(label)
	defer freeC(cl)
	code, cn := cString(d.Impl().dialect(wgsl))
	defer freeC(code)
	scopeErr := d.scoped(op, func() {
		// The chained source must live in C memory: C may not be given a
		// Go pointer to memory holding Go pointers.
		src := (*C.WGPUShaderSourceWGSL)(C.calloc(1, C.size_t(unsafe.Sizeof(C.WGPUShaderSourceWGSL{}))))
		defer C.free(unsafe.Pointer(src))
		src.chain.sType = C.WGPUSType_ShaderSourceWGSL
		src.code = C.shim_sv(code, cn)
		var desc C.WGPUShaderModuleDescriptor
		desc.label = C.shim_sv(cl, ln)
		desc.nextInChain = &src.chain
		m.c = C.wgpuDeviceCreateShaderModule(d.c, &desc)
	})
	// wgpu-native does not implement wgpuShaderModuleGetCompilationInfo
	// (it aborts); naga's diagnostics arrive through the error scope, with
	// the position in their text.
	var msgs []CompilationMessage
	if se := shaderErrorFrom(label, msgs, scopeErr); se != nil {
		if m.c != nil {
			C.wgpuShaderModuleRelease(m.c)
		}
		return nil, fmt.Errorf("wgpu: %s: %w", op, se)
	}
	if m.c == nil {
		return nil, fmt.Errorf("wgpu: %s: wgpu-native returned no module", op)
	}
	for _, msg := range msgs {
		if msg.Type == MessageWarning {
			m.Warnings = append(m.Warnings, msg)
		}
	}
	return m, nil
}

// Release frees the module; idempotent.
func (m *ShaderModule) Release() {
	if m == nil || m.c == nil {
		return
	}
	C.wgpuShaderModuleRelease(m.c)
	m.c = nil
}

// Module returns a cached compiled module for (label, source).
func (d *Device) Module(label, wgsl string) (*ShaderModule, error) {
	if err := d.check("Module(" + label + ")"); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(wgsl))
	key := label + "@" + hex.EncodeToString(sum[:8])
	d.mu.Lock()
	m, ok := d.modules[key]
	d.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := d.CreateShaderModule(label, wgsl)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		m.Release()
		return nil, fmt.Errorf("wgpu: Module(%q): %w", label, ErrReleased)
	}
	if old, ok := d.modules[key]; ok {
		m.Release()
		return old, nil
	}
	d.modules[key] = m
	return m, nil
}
