// peer.c: the tiny GPU call made directly through wgpu-native's webgpu.h,
// as a lean C application makes it: a 16-byte uniform write (a fresh
// seed), K dispatches of one 64-invocation workgroup in one compute pass,
// a 4-byte copy to a mapped staging buffer, all in one command buffer and
// one submit; then one map and one blocking wgpuDevicePoll; the value read
// back is checked. Used by bench/tinycall.c (a process of its own) and by
// bench/_tinycall (in the same process as wgpu-prof's Go API, call blocks
// interleaved).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "webgpu.h"
#include "wgpu.h"

struct peer {
	WGPUInstance inst;
	WGPUAdapter adapter;
	WGPUDevice dev;
	WGPUQueue q;
	WGPUComputePipeline pipe;
	WGPUBuffer params, out, staging;
	WGPUBindGroup bg;
	unsigned n;
	char name[256];
};

static WGPUStringView sv(const char *s) {
	WGPUStringView v = {s, s ? strlen(s) : 0};
	return v;
}

static void on_adapter(WGPURequestAdapterStatus st, WGPUAdapter a, WGPUStringView msg, void *u1, void *u2) {
	(void)msg; (void)u2;
	if (st == WGPURequestAdapterStatus_Success) *(WGPUAdapter *)u1 = a;
}

static void on_device(WGPURequestDeviceStatus st, WGPUDevice d, WGPUStringView msg, void *u1, void *u2) {
	(void)msg; (void)u2;
	if (st == WGPURequestDeviceStatus_Success) *(WGPUDevice *)u1 = d;
}

static void on_map(WGPUMapAsyncStatus st, WGPUStringView msg, void *u1, void *u2) {
	(void)msg; (void)u2;
	*(int *)u1 = (int)st;
}

peer *peer_open(const char *wgsl_src) {
	peer *p = calloc(1, sizeof *p);
	p->inst = wgpuCreateInstance(NULL);
	WGPURequestAdapterCallbackInfo ai = {0};
	ai.mode = WGPUCallbackMode_AllowSpontaneous;
	ai.callback = on_adapter;
	ai.userdata1 = &p->adapter;
	wgpuInstanceRequestAdapter(p->inst, NULL, ai);
	wgpuInstanceProcessEvents(p->inst);
	if (!p->adapter) return NULL;
	WGPUAdapterInfo info = {0};
	wgpuAdapterGetInfo(p->adapter, &info);
	snprintf(p->name, sizeof p->name, "%.*s", (int)info.device.length, info.device.data);

	WGPURequestDeviceCallbackInfo di = {0};
	di.mode = WGPUCallbackMode_AllowSpontaneous;
	di.callback = on_device;
	di.userdata1 = &p->dev;
	wgpuAdapterRequestDevice(p->adapter, NULL, di);
	wgpuInstanceProcessEvents(p->inst);
	if (!p->dev) return NULL;
	p->q = wgpuDeviceGetQueue(p->dev);

	WGPUShaderSourceWGSL wgsl = {0};
	wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
	wgsl.code = sv(wgsl_src);
	WGPUShaderModuleDescriptor smd = {0};
	smd.nextInChain = &wgsl.chain;
	WGPUShaderModule mod = wgpuDeviceCreateShaderModule(p->dev, &smd);
	WGPUComputePipelineDescriptor pd = {0};
	pd.compute.module = mod;
	pd.compute.entryPoint = sv("main");
	p->pipe = wgpuDeviceCreateComputePipeline(p->dev, &pd);
	if (!p->pipe) return NULL;

	WGPUBufferDescriptor bd = {0};
	bd.size = 16;
	bd.usage = WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst;
	p->params = wgpuDeviceCreateBuffer(p->dev, &bd);
	bd.size = 256;
	bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc;
	p->out = wgpuDeviceCreateBuffer(p->dev, &bd);
	bd.size = 4096;
	bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
	p->staging = wgpuDeviceCreateBuffer(p->dev, &bd);

	WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(p->pipe, 0);
	WGPUBindGroupEntry ent[2] = {{0}, {0}};
	ent[0].binding = 0; ent[0].buffer = p->params; ent[0].size = 16;
	ent[1].binding = 1; ent[1].buffer = p->out; ent[1].size = 256;
	WGPUBindGroupDescriptor bgd = {0};
	bgd.layout = bgl;
	bgd.entryCount = 2;
	bgd.entries = ent;
	p->bg = wgpuDeviceCreateBindGroup(p->dev, &bgd);
	return p;
}

const char *peer_adapter(peer *p) { return p->name; }

int peer_call(peer *p, int k) {
	float seed = (float)(++p->n % (1u << 20) + 1);
	float blk[4] = {seed, 0, 0, 0};
	wgpuQueueWriteBuffer(p->q, p->params, 0, blk, 16);
	WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(p->dev, NULL);
	WGPUComputePassEncoder pe = wgpuCommandEncoderBeginComputePass(enc, NULL);
	for (int j = 0; j < k; j++) {
		wgpuComputePassEncoderSetPipeline(pe, p->pipe);
		wgpuComputePassEncoderSetBindGroup(pe, 0, p->bg, 0, NULL);
		wgpuComputePassEncoderDispatchWorkgroups(pe, 1, 1, 1);
	}
	wgpuComputePassEncoderEnd(pe);
	wgpuComputePassEncoderRelease(pe);
	wgpuCommandEncoderCopyBufferToBuffer(enc, p->out, 0, p->staging, 0, 4);
	WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, NULL);
	wgpuCommandEncoderRelease(enc);
	wgpuQueueSubmit(p->q, 1, &cmd);
	wgpuCommandBufferRelease(cmd);
	int st = 0;
	WGPUBufferMapCallbackInfo mi = {0};
	mi.mode = WGPUCallbackMode_AllowSpontaneous;
	mi.callback = on_map;
	mi.userdata1 = &st;
	wgpuBufferMapAsync(p->staging, WGPUMapMode_Read, 0, 4, mi);
	wgpuDevicePoll(p->dev, 1, NULL);
	while (!st) wgpuDevicePoll(p->dev, 0, NULL);
	if (st != WGPUMapAsyncStatus_Success) return -1;
	float got;
	memcpy(&got, wgpuBufferGetConstMappedRange(p->staging, 0, 4), 4);
	wgpuBufferUnmap(p->staging);
	return got == seed ? 0 : -2;
}
