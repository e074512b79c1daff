// C glue between Go and wgpu-native's C API. Callbacks are fixed C functions
// that forward to Go (//export in callbacks.go); Go values cross as integer
// handles (runtime/cgo.Handle or a device registry id), never as pointers.
#ifndef WGPU_PROF_SHIM_H
#define WGPU_PROF_SHIM_H

#include <stdint.h>
#include <stdlib.h>
#include "wgpu_abi.h"

WGPUInstance shim_create_instance(uint64_t backends);
WGPUFuture shim_request_device(WGPUAdapter adapter, WGPUDeviceDescriptor *desc, uintptr_t reqHandle, uintptr_t devID);
// shim_buffer_map_read_slot maps for reading and, from C, stores the map
// status + 1 into *slot when the map completes (0 = pending).
WGPUFuture shim_buffer_map_read_slot(WGPUBuffer buf, size_t offset, size_t size, int32_t *slot);
void shim_push_error_scopes(WGPUDevice dev);
void shim_pop_error_scope(WGPUDevice dev, uintptr_t h);
WGPUStringView shim_sv(const char *s, size_t n);

#endif
