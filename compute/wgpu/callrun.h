// The C side of Device.Run (callrun.c). Every array is read during the
// call only; the map status slots (C memory) are written by the map
// callbacks until the maps complete.
#ifndef WGPU_PROF_CALLRUN_H
#define WGPU_PROF_CALLRUN_H

#include "shim.h"

typedef struct {
	WGPUComputePipeline pipe;
	uint32_t bg, nbg; // bind groups bgs[bg] … bgs[bg+nbg-1], group g at bgs[bg+g]
	uint32_t x, y, z;
} shim_dispatch;

typedef struct {
	WGPUBuffer src, dst;
	uint64_t src_off, dst_off, size;
} shim_copy;

typedef struct {
	WGPUQuerySet qs;
	WGPUBuffer resolve, staging;
	uint32_t n; // timestamps: two per pass
} shim_timer;

typedef struct {
	WGPUBuffer buf;
	uint64_t size;
	int32_t *slot; // map status + 1, 0 while pending
} shim_map;

// shim_call_submit records npass passes (pass i has pass_n[i] of the
// dispatches ds, in order) and then the copies in one command buffer, a
// timer's resolve in a second when tm is set, submits them once and maps
// every buffer of maps for reading. 0, or -1 when encoding failed
// (nothing was submitted).
int shim_call_submit(WGPUDevice dev, WGPUQueue q, uint32_t npass, const uint32_t *pass_n,
	const shim_dispatch *ds, const WGPUBindGroup *bgs, uint32_t ncopy, const shim_copy *copies,
	const shim_timer *tm, uint32_t nmap, const shim_map *maps);

// shim_call_wait blocks in wgpuDevicePoll until the queue is empty, then
// polls without blocking up to polls times until every map has
// completed: 1 when they have, else 0.
int shim_call_wait(WGPUDevice dev, uint32_t nmap, const shim_map *maps, uint32_t polls);

// shim_read_mapped copies n bytes of the mapped buf to dst and unmaps it:
// 0, or -1 when the mapped range was null.
int shim_read_mapped(WGPUBuffer buf, void *dst, size_t n);

#endif
