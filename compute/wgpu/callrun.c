// The path of one GPU call (Device.Run) in C: recording, submitting and
// mapping in one crossing from Go, waiting in another, and each
// readback's copy out in one more, so a call costs the Go side a handful
// of cgo crossings whatever its number of dispatches.
#include <string.h>

#include "callrun.h"

int shim_call_submit(WGPUDevice dev, WGPUQueue q, uint32_t npass, const uint32_t *pass_n,
	const shim_dispatch *ds, const WGPUBindGroup *bgs, uint32_t ncopy, const shim_copy *copies,
	const shim_timer *tm, uint32_t nmap, const shim_map *maps) {
	WGPUCommandBuffer cmds[2] = {NULL, NULL};
	int ncmd = tm ? 2 : 1;
	WGPUPassTimestampWrites tw = {0};
	WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(dev, NULL);
	for (uint32_t i = 0; i < npass; i++) {
		WGPUComputePassDescriptor desc = {0};
		if (tm) {
			tw.querySet = tm->qs;
			tw.beginningOfPassWriteIndex = 2 * i;
			tw.endOfPassWriteIndex = 2 * i + 1;
			desc.timestampWrites = &tw;
		}
		WGPUComputePassEncoder pe = wgpuCommandEncoderBeginComputePass(enc, &desc);
		for (uint32_t j = 0; j < pass_n[i]; j++, ds++) {
			wgpuComputePassEncoderSetPipeline(pe, ds->pipe);
			for (uint32_t g = 0; g < ds->nbg; g++)
				wgpuComputePassEncoderSetBindGroup(pe, g, bgs[ds->bg + g], 0, NULL);
			wgpuComputePassEncoderDispatchWorkgroups(pe, ds->x, ds->y, ds->z);
		}
		wgpuComputePassEncoderEnd(pe);
		wgpuComputePassEncoderRelease(pe);
	}
	for (uint32_t i = 0; i < ncopy; i++)
		wgpuCommandEncoderCopyBufferToBuffer(enc, copies[i].src, copies[i].src_off, copies[i].dst, copies[i].dst_off, copies[i].size);
	cmds[0] = wgpuCommandEncoderFinish(enc, NULL);
	wgpuCommandEncoderRelease(enc);
	if (tm) {
		// The resolve has returned zeros on Vulkan when recorded in the
		// encoder of the passes: a second command buffer of the same
		// submission.
		enc = wgpuDeviceCreateCommandEncoder(dev, NULL);
		wgpuCommandEncoderResolveQuerySet(enc, tm->qs, 0, tm->n, tm->resolve, 0);
		wgpuCommandEncoderCopyBufferToBuffer(enc, tm->resolve, 0, tm->staging, 0, 8 * (uint64_t)tm->n);
		cmds[1] = wgpuCommandEncoderFinish(enc, NULL);
		wgpuCommandEncoderRelease(enc);
	}
	if (!cmds[0] || (tm && !cmds[1])) {
		for (int i = 0; i < ncmd; i++)
			if (cmds[i]) wgpuCommandBufferRelease(cmds[i]);
		return -1;
	}
	wgpuQueueSubmit(q, (size_t)ncmd, cmds);
	for (int i = 0; i < ncmd; i++)
		wgpuCommandBufferRelease(cmds[i]);
	for (uint32_t i = 0; i < nmap; i++) {
		*maps[i].slot = 0;
		shim_buffer_map_read_slot(maps[i].buf, 0, (size_t)maps[i].size, maps[i].slot);
	}
	return 0;
}

static int maps_done(const shim_map *maps, uint32_t n) {
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(maps[i].slot, __ATOMIC_ACQUIRE) == 0) return 0;
	return 1;
}

int shim_call_wait(WGPUDevice dev, uint32_t nmap, const shim_map *maps, uint32_t polls) {
	wgpuDevicePoll(dev, 1, NULL);
	for (uint32_t i = 0;; i++) {
		if (maps_done(maps, nmap)) return 1;
		if (i >= polls) return 0;
		wgpuDevicePoll(dev, 0, NULL);
	}
}

int shim_read_mapped(WGPUBuffer buf, void *dst, size_t n) {
	const void *p = wgpuBufferGetConstMappedRange(buf, 0, n);
	if (p) memcpy(dst, p, n); // mapped memory may be uncached: one bulk copy
	wgpuBufferUnmap(buf);
	return p ? 0 : -1;
}
