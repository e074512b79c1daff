package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// Constants are WGSL override constants, by name, set at pipeline creation.
type Constants map[string]float64

// Key is a canonical text form of the constants, sorted by name.
func (c Constants) Key() string {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(c[k], 'g', -1, 64))
	}
	return b.String()
}

// Pipeline is a compute pipeline with an automatic layout.
type Pipeline struct {
	c         C.WGPUComputePipeline
	Label     string
	Entry     string
	Constants Constants
	layouts   map[uint32]C.WGPUBindGroupLayout
	cached    bool
}

// CreatePipeline creates a compute pipeline for entry in m with override
// constants; invalid constants (unknown names, workgroup sizes past the
// limits) come back as errors. Workgroup size and workgroup memory are
// checked on the host against d.Limits first (ErrLimit), because
// wgpu-native 29 does not re-check them after overrides are applied.
func (d *Device) CreatePipeline(m *ShaderModule, entry string, consts Constants) (*Pipeline, error) {
	if m == nil || m.c == nil {
		return nil, fmt.Errorf("wgpu: CreatePipeline(%q): shader module: %w", entry, ErrReleased)
	}
	op := fmt.Sprintf("CreatePipeline(%q, %q, {%s})", m.Label, entry, consts.Key())
	if err := m.scan.checkLimits(d.Limits, entry, consts); err != nil {
		return nil, fmt.Errorf("wgpu: %s: %w", op, err)
	}
	p := &Pipeline{Label: m.Label, Entry: entry, Constants: consts, layouts: map[uint32]C.WGPUBindGroupLayout{}}
	ce, cn := cString(entry)
	defer freeC(ce)
	names := make([]string, 0, len(consts))
	for k := range consts {
		if _, declared := m.scan.overrides[k]; declared && d.Impl() == ImplDawn && !m.scan.entryUses(entry, k) {
			// Dawn refuses a module's override its entry point does not
			// use; a name the module does not declare goes on, for Dawn
			// to refuse as wgpu-native does.
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	var centries *C.WGPUConstantEntry
	if len(names) > 0 {
		centries = (*C.WGPUConstantEntry)(C.calloc(C.size_t(len(names)), C.size_t(unsafe.Sizeof(C.WGPUConstantEntry{}))))
		defer C.free(unsafe.Pointer(centries))
		for i, k := range names {
			e := &unsafe.Slice(centries, len(names))[i]
			ck, kn := cString(k)
			defer freeC(ck)
			e.key = C.shim_sv(ck, kn)
			e.value = C.double(consts[k])
		}
	}
	cl, ln := cString(m.Label + ":" + entry)
	defer freeC(cl)
	err := d.scoped(op, func() {
		var desc C.WGPUComputePipelineDescriptor
		desc.label = C.shim_sv(cl, ln)
		desc.compute.module = m.c
		desc.compute.entryPoint = C.shim_sv(ce, cn)
		desc.compute.constantCount = C.size_t(len(names))
		desc.compute.constants = centries
		p.c = C.wgpuDeviceCreateComputePipeline(d.c, &desc)
	})
	if err != nil {
		if p.c != nil {
			C.wgpuComputePipelineRelease(p.c)
		}
		return nil, err
	}
	if p.c == nil {
		return nil, fmt.Errorf("wgpu: %s: wgpu-native returned no pipeline", op)
	}
	return p, nil
}

// Pipeline returns a cached pipeline for (module label and source, entry,
// constants), compiling what is missing. Cached pipelines belong to the
// device: their Release is a no-op and the device releases them.
func (d *Device) Pipeline(label, wgsl, entry string, consts Constants) (*Pipeline, error) {
	m, err := d.Module(label, wgsl)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%p|%s|%s", m, entry, consts.Key())
	d.mu.Lock()
	p, ok := d.pipelines[key]
	d.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err = d.CreatePipeline(m, entry, consts)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.pipelines[key]; ok {
		p.Release()
		return old, nil
	}
	p.cached = true
	d.pipelines[key] = p
	return p, nil
}

func (p *Pipeline) layout(group uint32) C.WGPUBindGroupLayout {
	if l, ok := p.layouts[group]; ok {
		return l
	}
	l := C.wgpuComputePipelineGetBindGroupLayout(p.c, C.uint32_t(group))
	p.layouts[group] = l
	return l
}

// Release frees an uncached pipeline; idempotent. For pipelines from the
// device cache it does nothing (the device owns them).
func (p *Pipeline) Release() {
	if p == nil || p.c == nil {
		return
	}
	if p.cached {
		return
	}
	p.free()
}

func (p *Pipeline) free() {
	for _, l := range p.layouts {
		C.wgpuBindGroupLayoutRelease(l)
	}
	p.layouts = nil
	C.wgpuComputePipelineRelease(p.c)
	p.c = nil
}

// BufferBinding binds a range of a buffer to a binding slot.
type BufferBinding struct {
	Binding uint32
	Buffer  *Buffer
	Offset  uint64
	Size    uint64 // 0: to the end of the buffer
}

// BindGroup is a set of bound buffers for one group of a pipeline.
type BindGroup struct {
	c C.WGPUBindGroup
}

// CreateBindGroup binds buffers to group of p. A binding larger than the
// device's maxStorageBufferBindingSize is refused with ErrLimit.
func (d *Device) CreateBindGroup(p *Pipeline, group uint32, bindings []BufferBinding) (*BindGroup, error) {
	if p == nil || p.c == nil {
		return nil, fmt.Errorf("wgpu: CreateBindGroup(group %d): pipeline: %w", group, ErrReleased)
	}
	op := fmt.Sprintf("CreateBindGroup(%q, group %d)", p.Label, group)
	ents := (*C.WGPUBindGroupEntry)(C.calloc(C.size_t(len(bindings)+1), C.size_t(unsafe.Sizeof(C.WGPUBindGroupEntry{}))))
	defer C.free(unsafe.Pointer(ents))
	es := unsafe.Slice(ents, len(bindings))
	for i, bb := range bindings {
		if bb.Buffer == nil || bb.Buffer.c == nil {
			return nil, fmt.Errorf("wgpu: %s: binding %d: %w", op, bb.Binding, ErrReleased)
		}
		size := bb.Size
		if size == 0 {
			size = bb.Buffer.Size - bb.Offset
		}
		if bb.Offset+size > bb.Buffer.Size {
			return nil, fmt.Errorf("wgpu: %s: binding %d: range %d+%d past buffer %q of %d bytes", op, bb.Binding, bb.Offset, size, bb.Buffer.Label, bb.Buffer.Size)
		}
		if bb.Buffer.Usage&UsageStorage != 0 && size > d.Limits.MaxStorageBufferBindingSize {
			return nil, fmt.Errorf("wgpu: %s: binding %d of %d bytes > maxStorageBufferBindingSize %d: %w", op, bb.Binding, size, d.Limits.MaxStorageBufferBindingSize, ErrLimit)
		}
		es[i].binding = C.uint32_t(bb.Binding)
		es[i].buffer = bb.Buffer.c
		es[i].offset = C.uint64_t(bb.Offset)
		es[i].size = C.uint64_t(size)
	}
	bg := &BindGroup{}
	err := d.scoped(op, func() {
		var desc C.WGPUBindGroupDescriptor
		desc.layout = p.layout(group)
		desc.entryCount = C.size_t(len(bindings))
		desc.entries = ents
		bg.c = C.wgpuDeviceCreateBindGroup(d.c, &desc)
	})
	if err != nil {
		if bg.c != nil {
			C.wgpuBindGroupRelease(bg.c)
		}
		return nil, err
	}
	return bg, nil
}

// Release frees the bind group; idempotent.
func (b *BindGroup) Release() {
	if b == nil || b.c == nil {
		return
	}
	C.wgpuBindGroupRelease(b.c)
	b.c = nil
}
