#include "shim.h"
#include "_cgo_export.h"

WGPUStringView shim_sv(const char *s, size_t n) {
	WGPUStringView v;
	v.data = s;
	v.length = n;
	return v;
}

WGPUInstance shim_create_instance(uint64_t backends) {
	WGPUInstanceExtras extras = {0};
	extras.chain.sType = (WGPUSType)WGPUSType_InstanceExtras;
	extras.backends = backends;
	extras.flags = WGPUInstanceFlag_Default;
	extras.dxcPath = shim_sv(NULL, WGPU_STRLEN);
	WGPUInstanceDescriptor desc = {0};
	desc.nextInChain = &extras.chain;
	return wgpuCreateInstance(&desc);
}

static void on_request_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView msg, void *u1, void *u2) {
	(void)u2;
	goRequestDeviceDone((uintptr_t)u1, (int)status, device, (char *)msg.data, msg.data ? msg.length : 0);
}

static void on_device_lost(WGPUDevice const *device, WGPUDeviceLostReason reason, WGPUStringView msg, void *u1, void *u2) {
	(void)device; (void)u2;
	goDeviceLost((uintptr_t)u1, (int)reason, (char *)msg.data, msg.data ? msg.length : 0);
}

static void on_uncaptured_error(WGPUDevice const *device, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2) {
	(void)device; (void)u2;
	goUncapturedError((uintptr_t)u1, (int)type, (char *)msg.data, msg.data ? msg.length : 0);
}

WGPUFuture shim_request_device(WGPUAdapter adapter, WGPUDeviceDescriptor *desc, uintptr_t reqHandle, uintptr_t devID) {
	desc->deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
	desc->deviceLostCallbackInfo.callback = on_device_lost;
	desc->deviceLostCallbackInfo.userdata1 = (void *)devID;
	desc->uncapturedErrorCallbackInfo.callback = on_uncaptured_error;
	desc->uncapturedErrorCallbackInfo.userdata1 = (void *)devID;
	WGPURequestDeviceCallbackInfo info = {0};
	info.mode = WGPUCallbackMode_AllowSpontaneous;
	info.callback = on_request_device;
	info.userdata1 = (void *)reqHandle;
	return wgpuAdapterRequestDevice(adapter, desc, info);
}

static void on_map_slot(WGPUMapAsyncStatus status, WGPUStringView msg, void *u1, void *u2) {
	(void)msg; (void)u2;
	__atomic_store_n((int32_t *)u1, (int32_t)status + 1, __ATOMIC_RELEASE);
}

WGPUFuture shim_buffer_map_read_slot(WGPUBuffer buf, size_t offset, size_t size, int32_t *slot) {
	WGPUBufferMapCallbackInfo info = {0};
	info.mode = WGPUCallbackMode_AllowSpontaneous;
	info.callback = on_map_slot;
	info.userdata1 = slot;
	return wgpuBufferMapAsync(buf, WGPUMapMode_Read, offset, size, info);
}

void shim_push_error_scopes(WGPUDevice dev) {
	wgpuDevicePushErrorScope(dev, WGPUErrorFilter_Validation);
	wgpuDevicePushErrorScope(dev, WGPUErrorFilter_OutOfMemory);
}

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2) {
	(void)u2;
	goPopErrorScopeDone((uintptr_t)u1, (int)status, (int)type, (char *)msg.data, msg.data ? msg.length : 0);
}

void shim_pop_error_scope(WGPUDevice dev, uintptr_t h) {
	WGPUPopErrorScopeCallbackInfo info = {0};
	info.mode = WGPUCallbackMode_AllowSpontaneous;
	info.callback = on_pop;
	info.userdata1 = (void *)h;
	wgpuDevicePopErrorScope(dev, info);
}
