// Dawn behind wgpu-native's ABI. wgpuprof_dawn_resolve fills a table of
// wgpu_abi.h's functions (wgpu-native's signatures) with Dawn's own
// function where Dawn's ABI is the same and with a translation below where
// it is not (dawn_abi.h lists the differences):
//   - structs: limits (no nextInChain, other fields), adapter info (no
//     subgroup sizes), compute pass timestamp writes (no nextInChain), the
//     device descriptor's required limits;
//   - feature numbers: Dawn numbers the standard features its own way;
//     they are translated to wgpu-native's numbers (the binding's Feature),
//     Dawn's own features keep theirs (0x5xxxx), SubgroupsF16 becomes
//     DAWN_SUBGROUPS_F16;
//   - callback styles: Dawn's functions with userdata1/userdata2 are the
//     "2" variants (wgpuBufferMapAsync2, ...);
//   - functions wgpu-native has and Dawn does not: wgpuDevicePoll (here:
//     wgpuDeviceTick and wgpuInstanceProcessEvents, and for a waiting poll
//     wgpuQueueOnSubmittedWorkDone2 waited on with wgpuInstanceWaitAny),
//     wgpuInstanceEnumerateAdapters (here: wgpuInstanceRequestAdapter2 per
//     backend and power preference, duplicates dropped), wgpuGetVersion
//     (0: library.go names Dawn's version) and wgpuQueueGetTimestampPeriod
//     (1: Dawn resolves timestamps in nanoseconds);
//   - toggles: every device disables timestamp_quantization (full timer
//     resolution, as Chrome's developer mode) and enables
//     allow_unsafe_apis (features Chrome 133 still marks experimental,
//     such as subgroups); a device asked to dump its shaders enables
//     dump_shaders too (below, "shader dumps").
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dawn_abi.h"
#include "loader.h"

// Dawn's feature number for SubgroupsF16, which wgpu-native lacks, as the
// binding sees it (features.go).
#define DAWN_SUBGROUPS_F16 0x00060000u

// Dawn's functions with signatures of their own.
static WGPUInstance (*d_CreateInstance)(DawnInstanceDescriptor const *);
static WGPUFuture (*d_InstanceRequestAdapter2)(WGPUInstance, DawnRequestAdapterOptions const *, DawnRequestAdapterCallbackInfo2);
static DawnWaitStatus (*d_InstanceWaitAny)(WGPUInstance, size_t, DawnFutureWaitInfo *, uint64_t);
static void (*d_InstanceProcessEvents)(WGPUInstance);
static WGPUStatus (*d_AdapterGetInfo)(WGPUAdapter, DawnAdapterInfo *);
static void (*d_AdapterInfoFreeMembers)(DawnAdapterInfo);
static WGPUStatus (*d_AdapterGetLimits)(WGPUAdapter, DawnSupportedLimits *);
static WGPUStatus (*d_DeviceGetLimits)(WGPUDevice, DawnSupportedLimits *);
static void (*d_AdapterGetFeatures)(WGPUAdapter, WGPUSupportedFeatures *);
static void (*d_SupportedFeaturesFreeMembers)(WGPUSupportedFeatures);
static void (*d_AdapterRelease)(WGPUAdapter);
static WGPUFuture (*d_AdapterRequestDevice2)(WGPUAdapter, DawnDeviceDescriptor const *, WGPURequestDeviceCallbackInfo);
static WGPUFuture (*d_BufferMapAsync2)(WGPUBuffer, WGPUMapMode, size_t, size_t, WGPUBufferMapCallbackInfo);
static WGPUFuture (*d_DevicePopErrorScope2)(WGPUDevice, WGPUPopErrorScopeCallbackInfo);
static WGPUComputePassEncoder (*d_CommandEncoderBeginComputePass)(WGPUCommandEncoder, DawnComputePassDescriptor const *);
static void (*d_DeviceTick)(WGPUDevice);
static WGPUQueue (*d_DeviceGetQueue)(WGPUDevice);
static void (*d_QueueRelease)(WGPUQueue);
static WGPUFuture (*d_QueueOnSubmittedWorkDone2)(WGPUQueue, DawnQueueWorkDoneCallbackInfo2);
static void (*d_DeviceSetLoggingCallback)(WGPUDevice, DawnLoggingCallback, void *);

// ---- which instance an adapter or device belongs to ---------------------
// Dawn waits and processes events per instance; wgpu-native's poll names
// only the device. A small table, written when adapters and devices are
// made, answers it. Entries of released objects are overwritten when the
// address is reused.

#define OWNERS 256
static struct owner {
	void *obj;
	WGPUInstance inst;
} owners[OWNERS];
static int nowners;
static atomic_flag owners_lock = ATOMIC_FLAG_INIT;

static void lock_owners(void) {
	while (atomic_flag_test_and_set_explicit(&owners_lock, memory_order_acquire)) {
	}
}
static void unlock_owners(void) { atomic_flag_clear_explicit(&owners_lock, memory_order_release); }

static void set_owner(void *obj, WGPUInstance inst) {
	lock_owners();
	int i;
	for (i = 0; i < nowners && owners[i].obj != obj; i++) {
	}
	if (i == nowners) {
		if (nowners < OWNERS) {
			nowners++;
		} else {
			// Full: the oldest entry goes (its object is long released
			// in any run that makes this many).
			memmove(&owners[0], &owners[1], sizeof owners[0] * (OWNERS - 1));
			i = OWNERS - 1;
		}
	}
	owners[i].obj = obj;
	owners[i].inst = inst;
	unlock_owners();
}

static WGPUInstance owner_of(void *obj) {
	WGPUInstance inst = NULL;
	lock_owners();
	for (int i = 0; i < nowners; i++) {
		if (owners[i].obj == obj) {
			inst = owners[i].inst;
			break;
		}
	}
	unlock_owners();
	return inst;
}

// The backends an instance was made for (wgpu-native's
// WGPUInstanceExtras.backends bits; 0: all).
#define INSTANCES 64
static struct {
	WGPUInstance inst;
	WGPUInstanceBackend backends;
} instances[INSTANCES];

static void set_backends(WGPUInstance inst, WGPUInstanceBackend b) {
	lock_owners();
	int free_slot = -1;
	for (int i = 0; i < INSTANCES; i++) {
		if (instances[i].inst == inst || (free_slot < 0 && instances[i].inst == NULL)) free_slot = i;
		if (instances[i].inst == inst) break;
	}
	if (free_slot < 0) free_slot = 0;
	instances[free_slot].inst = inst;
	instances[free_slot].backends = b;
	unlock_owners();
}

static WGPUInstanceBackend backends_of(WGPUInstance inst) {
	WGPUInstanceBackend b = 0;
	lock_owners();
	for (int i = 0; i < INSTANCES; i++) {
		if (instances[i].inst == inst) {
			b = instances[i].backends;
			break;
		}
	}
	unlock_owners();
	return b;
}

// ---- features -----------------------------------------------------------

static const struct {
	uint32_t dawn, native;
} feature_map[] = {
	{DawnFeatureName_DepthClipControl, WGPUFeatureName_DepthClipControl},
	{DawnFeatureName_Depth32FloatStencil8, WGPUFeatureName_Depth32FloatStencil8},
	{DawnFeatureName_TimestampQuery, WGPUFeatureName_TimestampQuery},
	{DawnFeatureName_TextureCompressionBC, WGPUFeatureName_TextureCompressionBC},
	{DawnFeatureName_TextureCompressionETC2, WGPUFeatureName_TextureCompressionETC2},
	{DawnFeatureName_TextureCompressionASTC, WGPUFeatureName_TextureCompressionASTC},
	{DawnFeatureName_IndirectFirstInstance, WGPUFeatureName_IndirectFirstInstance},
	{DawnFeatureName_ShaderF16, WGPUFeatureName_ShaderF16},
	{DawnFeatureName_RG11B10UfloatRenderable, WGPUFeatureName_RG11B10UfloatRenderable},
	{DawnFeatureName_BGRA8UnormStorage, WGPUFeatureName_BGRA8UnormStorage},
	{DawnFeatureName_Float32Filterable, WGPUFeatureName_Float32Filterable},
	{DawnFeatureName_Float32Blendable, WGPUFeatureName_Float32Blendable},
	{DawnFeatureName_Subgroups, WGPUFeatureName_Subgroups},
	{DawnFeatureName_SubgroupsF16, DAWN_SUBGROUPS_F16},
	{DawnFeatureName_DualSourceBlending, WGPUFeatureName_DualSourceBlending},
	{DawnFeatureName_ClipDistances, WGPUFeatureName_ClipDistances},
};
#define NFEATURES (sizeof feature_map / sizeof feature_map[0])

int wgpuprof_dawn_feature_pair(size_t i, uint32_t *dawn, uint32_t *native) {
	if (i >= NFEATURES) return 0;
	*dawn = feature_map[i].dawn;
	*native = feature_map[i].native;
	return 1;
}

// feature_to_native: Dawn's number as the binding sees it.
static uint32_t feature_to_native(uint32_t f) {
	for (size_t i = 0; i < NFEATURES; i++)
		if (feature_map[i].dawn == f) return feature_map[i].native;
	return f;
}

// feature_to_dawn: the binding's number as Dawn knows it; 0 for a feature
// Dawn lacks (a wgpu-native extension).
static uint32_t feature_to_dawn(uint32_t f) {
	for (size_t i = 0; i < NFEATURES; i++)
		if (feature_map[i].native == f) return feature_map[i].dawn;
	if (f >= 0x00050000u && f < 0x00060000u) return f;
	return 0;
}

// ---- limits -------------------------------------------------------------

#define LIMITS_COMMON(X) \
	X(maxTextureDimension1D) X(maxTextureDimension2D) X(maxTextureDimension3D) X(maxTextureArrayLayers) \
	X(maxBindGroups) X(maxBindGroupsPlusVertexBuffers) X(maxBindingsPerBindGroup) \
	X(maxDynamicUniformBuffersPerPipelineLayout) X(maxDynamicStorageBuffersPerPipelineLayout) \
	X(maxSampledTexturesPerShaderStage) X(maxSamplersPerShaderStage) X(maxStorageBuffersPerShaderStage) \
	X(maxStorageTexturesPerShaderStage) X(maxUniformBuffersPerShaderStage) X(maxUniformBufferBindingSize) \
	X(maxStorageBufferBindingSize) X(minUniformBufferOffsetAlignment) X(minStorageBufferOffsetAlignment) \
	X(maxVertexBuffers) X(maxBufferSize) X(maxVertexAttributes) X(maxVertexBufferArrayStride) \
	X(maxInterStageShaderVariables) X(maxColorAttachments) X(maxColorAttachmentBytesPerSample) \
	X(maxComputeWorkgroupStorageSize) X(maxComputeInvocationsPerWorkgroup) X(maxComputeWorkgroupSizeX) \
	X(maxComputeWorkgroupSizeY) X(maxComputeWorkgroupSizeZ) X(maxComputeWorkgroupsPerDimension)

static void limits_to_native(const DawnLimits *d, WGPULimits *n) {
	WGPUChainedStruct *next = n->nextInChain;
	memset(n, 0, sizeof *n);
	n->nextInChain = next;
#define TO_NATIVE(f) n->f = d->f;
	LIMITS_COMMON(TO_NATIVE)
#undef TO_NATIVE
}

static void limits_to_dawn(const WGPULimits *n, DawnLimits *d) {
	// Dawn's limits that wgpu-native lacks stay undefined (all ones).
	memset(d, 0xff, sizeof *d);
#define TO_DAWN(f) d->f = n->f;
	LIMITS_COMMON(TO_DAWN)
#undef TO_DAWN
}

// ---- translations -------------------------------------------------------

static WGPUInstance t_CreateInstance(WGPUInstanceDescriptor const *desc) {
	WGPUInstanceBackend backends = 0;
	for (const WGPUChainedStruct *c = desc ? desc->nextInChain : NULL; c; c = c->next) {
		if ((uint32_t)c->sType == (uint32_t)WGPUSType_InstanceExtras)
			backends = ((const WGPUInstanceExtras *)c)->backends;
	}
	DawnInstanceDescriptor d;
	memset(&d, 0, sizeof d);
	d.features.timedWaitAnyEnable = 1;
	WGPUInstance inst = d_CreateInstance(&d);
	if (inst) set_backends(inst, backends);
	return inst;
}

struct adapter_answer {
	int done;
	DawnRequestAdapterStatus status;
	WGPUAdapter adapter;
};

static void on_adapter(DawnRequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView msg, void *u1, void *u2) {
	(void)msg;
	(void)u2;
	struct adapter_answer *a = u1;
	a->done = 1;
	a->status = status;
	a->adapter = adapter;
}

static WGPUAdapter request_adapter(WGPUInstance inst, WGPUBackendType backend, DawnPowerPreference power) {
	DawnRequestAdapterOptions o;
	memset(&o, 0, sizeof o);
	o.featureLevel = DawnFeatureLevel_Core;
	o.powerPreference = power;
	o.backendType = backend;
	struct adapter_answer a = {0};
	DawnRequestAdapterCallbackInfo2 cb;
	memset(&cb, 0, sizeof cb);
	cb.mode = (WGPUCallbackMode)DawnCallbackMode_WaitAnyOnly;
	cb.callback = on_adapter;
	cb.userdata1 = &a;
	DawnFutureWaitInfo w;
	memset(&w, 0, sizeof w);
	w.future = d_InstanceRequestAdapter2(inst, &o, cb);
	if (d_InstanceWaitAny(inst, 1, &w, UINT64_MAX) != DawnWaitStatus_Success || !a.done) return NULL;
	if (a.status != DawnRequestAdapterStatus_Success) return NULL;
	return a.adapter;
}

static int same_adapter(WGPUAdapter a, WGPUAdapter b) {
	DawnAdapterInfo ia, ib;
	memset(&ia, 0, sizeof ia);
	memset(&ib, 0, sizeof ib);
	if (d_AdapterGetInfo(a, &ia) != WGPUStatus_Success) return 0;
	if (d_AdapterGetInfo(b, &ib) != WGPUStatus_Success) {
		d_AdapterInfoFreeMembers(ia);
		return 0;
	}
	int same = ia.backendType == ib.backendType && ia.vendorID == ib.vendorID && ia.deviceID == ib.deviceID &&
	           ia.adapterType == ib.adapterType && ia.device.length == ib.device.length &&
	           (ia.device.length == 0 || (ia.device.data && ib.device.data &&
	                                      strncmp(ia.device.data, ib.device.data, ia.device.length == SIZE_MAX ? 4096 : ia.device.length) == 0));
	d_AdapterInfoFreeMembers(ia);
	d_AdapterInfoFreeMembers(ib);
	return same;
}

static size_t t_InstanceEnumerateAdapters(WGPUInstance inst, WGPUInstanceEnumerateAdapterOptions const *options, WGPUAdapter *out) {
	(void)options;
	WGPUInstanceBackend mask = backends_of(inst);
	// wgpu-native's backend bits (instance.go's instanceMask) and the
	// backend types Dawn is asked for under each.
	static const struct {
		WGPUInstanceBackend bit;
		WGPUBackendType type;
	} order[] = {
		{1u << 3, WGPUBackendType_D3D12}, {1u << 2, WGPUBackendType_Metal}, {1u << 0, WGPUBackendType_Vulkan},
		{1u << 1, WGPUBackendType_OpenGL}, {1u << 1, WGPUBackendType_OpenGLES},
	};
	static const DawnPowerPreference powers[] = {DawnPowerPreference_HighPerformance, DawnPowerPreference_LowPower};
	WGPUAdapter found[16];
	size_t n = 0;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (mask != 0 && !(mask & order[i].bit)) continue;
		for (size_t p = 0; p < 2; p++) {
			WGPUAdapter a = request_adapter(inst, order[i].type, powers[p]);
			if (!a) continue;
			int dup = 0;
			for (size_t j = 0; j < n && !dup; j++) dup = same_adapter(found[j], a);
			if (dup || n == sizeof found / sizeof found[0]) {
				d_AdapterRelease(a);
				continue;
			}
			found[n++] = a;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (out) {
			out[i] = found[i];
			set_owner(found[i], inst);
		} else {
			d_AdapterRelease(found[i]);
		}
	}
	return n;
}

static WGPUStatus t_AdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo *info) {
	DawnAdapterInfo d;
	memset(&d, 0, sizeof d);
	WGPUStatus s = d_AdapterGetInfo(adapter, &d);
	if (s != WGPUStatus_Success) return s;
	// The strings stay Dawn's; wgpuAdapterInfoFreeMembers (Dawn's, the
	// same by-value layout) frees them.
	memset(info, 0, sizeof *info);
	info->vendor = d.vendor;
	info->architecture = d.architecture;
	info->device = d.device;
	info->description = d.description;
	info->backendType = d.backendType;
	info->adapterType = d.adapterType;
	info->vendorID = d.vendorID;
	info->deviceID = d.deviceID;
	return s;
}

static WGPUStatus t_AdapterGetLimits(WGPUAdapter adapter, WGPULimits *limits) {
	DawnSupportedLimits d;
	memset(&d, 0, sizeof d);
	WGPUStatus s = d_AdapterGetLimits(adapter, &d);
	if (s == WGPUStatus_Success) limits_to_native(&d.limits, limits);
	return s;
}

static WGPUStatus t_DeviceGetLimits(WGPUDevice device, WGPULimits *limits) {
	DawnSupportedLimits d;
	memset(&d, 0, sizeof d);
	WGPUStatus s = d_DeviceGetLimits(device, &d);
	if (s == WGPUStatus_Success) limits_to_native(&d.limits, limits);
	return s;
}

// The features array handed out is the binding's own copy, in the
// binding's numbers; t_SupportedFeaturesFreeMembers frees it.
static void t_AdapterGetFeatures(WGPUAdapter adapter, WGPUSupportedFeatures *features) {
	WGPUSupportedFeatures d;
	memset(&d, 0, sizeof d);
	d_AdapterGetFeatures(adapter, &d);
	WGPUFeatureName *copy = calloc(d.featureCount + 1, sizeof *copy);
	size_t n = 0;
	if (copy) {
		for (size_t i = 0; i < d.featureCount; i++) copy[n++] = (WGPUFeatureName)feature_to_native((uint32_t)d.features[i]);
	}
	d_SupportedFeaturesFreeMembers(d);
	features->featureCount = n;
	features->features = copy;
}

static void t_SupportedFeaturesFreeMembers(WGPUSupportedFeatures features) { free((void *)features.features); }

// ---- shader dumps -----------------------------------------------------------
// On request (wgpuprof_dawn_dump_next, then a device request on the same
// thread) a device is made with the dump_shaders toggle, which has Dawn
// log each module's WGSL and the backend code Tint made of it (SPIR-V
// disassembly on Vulkan, MSL on Metal, HLSL on D3D12), and
// use_user_defined_labels_in_backend and disable_symbol_renaming, which
// keep the module's labels and names in that code. Its log goes to a
// buffer of its own, which wgpuprof_dawn_take_log empties.

#define LOGS 16
static struct shader_log {
	WGPUDevice dev;
	char *buf;
	size_t len, cap;
} logs[LOGS];
static atomic_flag logs_lock = ATOMIC_FLAG_INIT;
static _Thread_local int dump_next;

static void lock_logs(void) {
	while (atomic_flag_test_and_set_explicit(&logs_lock, memory_order_acquire)) {
	}
}
static void unlock_logs(void) { atomic_flag_clear_explicit(&logs_lock, memory_order_release); }

void wgpuprof_dawn_dump_next(int on) { dump_next = on; }

static void on_log(DawnLoggingType type, WGPUStringView msg, void *u) {
	(void)type;
	struct shader_log *l = u;
	size_t n = msg.data ? (msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
	lock_logs();
	if (l->dev && l->len + n + 2 > l->cap) {
		size_t cap = (l->len + n + 2) * 2;
		char *b = realloc(l->buf, cap);
		if (b) {
			l->buf = b;
			l->cap = cap;
		}
	}
	if (l->dev && l->len + n + 2 <= l->cap) {
		memcpy(l->buf + l->len, msg.data, n);
		l->len += n;
		l->buf[l->len++] = '\n';
		l->buf[l->len] = 0;
	}
	unlock_logs();
}

// Starts logging device's messages; 0 when all slots are taken.
static int log_device(WGPUDevice device) {
	struct shader_log *slot = NULL;
	lock_logs();
	for (int i = 0; i < LOGS && !slot; i++) {
		if (!logs[i].dev) {
			slot = &logs[i];
			slot->dev = device;
			slot->len = 0;
		}
	}
	unlock_logs();
	if (!slot) return 0;
	d_DeviceSetLoggingCallback(device, on_log, slot);
	return 1;
}

// wgpuprof_dawn_take_log returns what device logged since the last call
// (malloc'd, for the caller to free; NULL when nothing) and, when stop,
// stops logging it (before the device is released). *logged says whether
// the device was logging at all.
char *wgpuprof_dawn_take_log(WGPUDevice device, int stop, int *logged) {
	char *out = NULL;
	*logged = 0;
	lock_logs();
	for (int i = 0; i < LOGS; i++) {
		struct shader_log *l = &logs[i];
		if (l->dev != device || !device) continue;
		*logged = 1;
		if (l->len > 0) {
			out = l->buf;
			l->buf = NULL;
			l->len = l->cap = 0;
		}
		if (stop) {
			l->dev = NULL;
			free(l->buf);
			l->buf = NULL;
			l->len = l->cap = 0;
		}
		break;
	}
	unlock_logs();
	if (stop && *logged) d_DeviceSetLoggingCallback(device, NULL, NULL);
	return out;
}

// The request's own callback, wrapped to note which instance the new
// device belongs to, and to start its log when asked, before handing it
// on.
struct device_request {
	WGPURequestDeviceCallback callback;
	void *userdata1, *userdata2;
	WGPUInstance inst;
	int dump;
};

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView msg, void *u1, void *u2) {
	(void)u2;
	struct device_request r = *(struct device_request *)u1;
	free(u1);
	if (device) set_owner(device, r.inst);
	if (device && r.dump && !log_device(device)) {
		// More dumping devices at once than slots: the device is
		// refused rather than made without the log it was asked for.
		r.callback((WGPURequestDeviceStatus)3 /* webgpu.h: Error */, NULL,
		           (WGPUStringView){"shader dump: too many devices dump their shaders at once", WGPU_STRLEN}, r.userdata1, r.userdata2);
		wgpuDeviceRelease(device);
		return;
	}
	r.callback(status, device, msg, r.userdata1, r.userdata2);
}

static WGPUFuture t_AdapterRequestDevice(WGPUAdapter adapter, WGPUDeviceDescriptor const *desc, WGPURequestDeviceCallbackInfo info) {
	static const char *const enabled[] = {"allow_unsafe_apis", "dump_shaders", "use_user_defined_labels_in_backend", "disable_symbol_renaming"};
	static const char *const disabled[] = {"timestamp_quantization"};
	int dump = dump_next;
	dump_next = 0;
	DawnTogglesDescriptor toggles;
	memset(&toggles, 0, sizeof toggles);
	toggles.chain.sType = (WGPUSType)DawnSType_DawnTogglesDescriptor;
	toggles.enabledToggleCount = dump ? 4 : 1;
	toggles.enabledToggles = enabled;
	toggles.disabledToggleCount = 1;
	toggles.disabledToggles = disabled;

	DawnDeviceDescriptor d;
	memset(&d, 0, sizeof d);
	d.nextInChain = &toggles.chain;
	d.label = desc->label;
	DawnFeatureName feats[64];
	size_t nf = 0;
	for (size_t i = 0; i < desc->requiredFeatureCount && nf < 64; i++) {
		uint32_t f = feature_to_dawn((uint32_t)desc->requiredFeatures[i]);
		if (f) feats[nf++] = (DawnFeatureName)f;
	}
	d.requiredFeatureCount = nf;
	d.requiredFeatures = feats;
	DawnRequiredLimits limits;
	memset(&limits, 0, sizeof limits);
	if (desc->requiredLimits) {
		limits_to_dawn(desc->requiredLimits, &limits.limits);
		d.requiredLimits = &limits;
	}
	d.defaultQueue = desc->defaultQueue;
	d.deviceLostCallbackInfo2 = desc->deviceLostCallbackInfo;
	d.uncapturedErrorCallbackInfo2 = desc->uncapturedErrorCallbackInfo;

	struct device_request *r = malloc(sizeof *r);
	if (r) {
		r->callback = info.callback;
		r->userdata1 = info.userdata1;
		r->userdata2 = info.userdata2;
		r->inst = owner_of(adapter);
		r->dump = dump;
		info.callback = on_device;
		info.userdata1 = r;
		info.userdata2 = NULL;
	}
	return d_AdapterRequestDevice2(adapter, &d, info);
}

static WGPUFuture t_BufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size, WGPUBufferMapCallbackInfo info) {
	return d_BufferMapAsync2(buffer, mode, offset, size, info);
}

static WGPUFuture t_DevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo info) {
	return d_DevicePopErrorScope2(device, info);
}

static WGPUComputePassEncoder t_CommandEncoderBeginComputePass(WGPUCommandEncoder enc, WGPUComputePassDescriptor const *desc) {
	if (!desc) return d_CommandEncoderBeginComputePass(enc, NULL);
	DawnComputePassDescriptor d;
	DawnComputePassTimestampWrites tw;
	memset(&d, 0, sizeof d);
	d.nextInChain = desc->nextInChain;
	d.label = desc->label;
	if (desc->timestampWrites) {
		tw.querySet = desc->timestampWrites->querySet;
		tw.beginningOfPassWriteIndex = desc->timestampWrites->beginningOfPassWriteIndex;
		tw.endOfPassWriteIndex = desc->timestampWrites->endOfPassWriteIndex;
		d.timestampWrites = &tw;
	}
	return d_CommandEncoderBeginComputePass(enc, &d);
}

static void on_work_done(DawnQueueWorkDoneStatus status, void *u1, void *u2) {
	(void)status;
	(void)u1;
	(void)u2;
}

// wgpu-native's poll: without wait, make progress and deliver the
// callbacks that are due; with wait, also block until the work submitted
// so far is done. Returns whether it waited for everything (wgpu-native:
// "the queue is empty").
static WGPUBool t_DevicePoll(WGPUDevice device, WGPUBool wait, WGPUSubmissionIndex const *index) {
	(void)index;
	WGPUInstance inst = owner_of(device);
	WGPUBool done = 0;
	d_DeviceTick(device);
	if (wait && inst) {
		WGPUQueue q = d_DeviceGetQueue(device);
		DawnQueueWorkDoneCallbackInfo2 cb;
		memset(&cb, 0, sizeof cb);
		cb.mode = (WGPUCallbackMode)DawnCallbackMode_WaitAnyOnly;
		cb.callback = on_work_done;
		DawnFutureWaitInfo w;
		memset(&w, 0, sizeof w);
		w.future = d_QueueOnSubmittedWorkDone2(q, cb);
		done = d_InstanceWaitAny(inst, 1, &w, UINT64_MAX) == DawnWaitStatus_Success;
		d_QueueRelease(q);
	}
	if (inst) d_InstanceProcessEvents(inst);
	return done;
}

static uint32_t t_GetVersion(void) { return 0; }

static float t_QueueGetTimestampPeriod(WGPUQueue queue) {
	(void)queue;
	return 1.0f;
}

// ---- resolving ------------------------------------------------------------

int wgpuprof_dawn_resolve(void *(*sym)(void *h, const char *name), void *h, void *table, char *err, size_t errlen) {
	struct wgpuprof_table *t = table;
	memset(t, 0, sizeof *t);
	const char *missing = NULL;
	void *p;
	// Dawn's functions with wgpu-native's signature go into the table as
	// they are; those with their own into d_*.
#define DIRECT(name) \
	if (!missing) { \
		if ((p = sym(h, #name)) != NULL) memcpy(&t->name, &p, sizeof p); \
		else missing = #name; \
	}
#define OWN(var, name) \
	if (!missing) { \
		if ((p = sym(h, #name)) != NULL) memcpy(&var, &p, sizeof p); \
		else missing = #name; \
	}
	DIRECT(wgpuAdapterInfoFreeMembers)
	DIRECT(wgpuAdapterRelease)
	DIRECT(wgpuBindGroupLayoutRelease)
	DIRECT(wgpuBindGroupRelease)
	DIRECT(wgpuBufferDestroy)
	DIRECT(wgpuBufferGetConstMappedRange)
	DIRECT(wgpuBufferRelease)
	DIRECT(wgpuBufferUnmap)
	DIRECT(wgpuCommandBufferRelease)
	DIRECT(wgpuCommandEncoderCopyBufferToBuffer)
	DIRECT(wgpuCommandEncoderFinish)
	DIRECT(wgpuCommandEncoderRelease)
	DIRECT(wgpuCommandEncoderResolveQuerySet)
	DIRECT(wgpuComputePassEncoderDispatchWorkgroups)
	DIRECT(wgpuComputePassEncoderEnd)
	DIRECT(wgpuComputePassEncoderRelease)
	DIRECT(wgpuComputePassEncoderSetBindGroup)
	DIRECT(wgpuComputePassEncoderSetPipeline)
	DIRECT(wgpuComputePipelineGetBindGroupLayout)
	DIRECT(wgpuComputePipelineRelease)
	DIRECT(wgpuDeviceCreateBindGroup)
	DIRECT(wgpuDeviceCreateBuffer)
	DIRECT(wgpuDeviceCreateCommandEncoder)
	DIRECT(wgpuDeviceCreateComputePipeline)
	DIRECT(wgpuDeviceCreateQuerySet)
	DIRECT(wgpuDeviceCreateShaderModule)
	DIRECT(wgpuDeviceDestroy)
	DIRECT(wgpuDeviceGetQueue)
	DIRECT(wgpuDevicePushErrorScope)
	DIRECT(wgpuDeviceRelease)
	DIRECT(wgpuInstanceProcessEvents)
	DIRECT(wgpuInstanceRelease)
	DIRECT(wgpuQuerySetRelease)
	DIRECT(wgpuQueueRelease)
	DIRECT(wgpuQueueSubmit)
	DIRECT(wgpuQueueWriteBuffer)
	DIRECT(wgpuShaderModuleRelease)
	OWN(d_CreateInstance, wgpuCreateInstance)
	OWN(d_InstanceRequestAdapter2, wgpuInstanceRequestAdapter2)
	OWN(d_InstanceWaitAny, wgpuInstanceWaitAny)
	OWN(d_InstanceProcessEvents, wgpuInstanceProcessEvents)
	OWN(d_AdapterGetInfo, wgpuAdapterGetInfo)
	OWN(d_AdapterInfoFreeMembers, wgpuAdapterInfoFreeMembers)
	OWN(d_AdapterGetLimits, wgpuAdapterGetLimits)
	OWN(d_DeviceGetLimits, wgpuDeviceGetLimits)
	OWN(d_AdapterGetFeatures, wgpuAdapterGetFeatures)
	OWN(d_SupportedFeaturesFreeMembers, wgpuSupportedFeaturesFreeMembers)
	OWN(d_AdapterRelease, wgpuAdapterRelease)
	OWN(d_AdapterRequestDevice2, wgpuAdapterRequestDevice2)
	OWN(d_BufferMapAsync2, wgpuBufferMapAsync2)
	OWN(d_DevicePopErrorScope2, wgpuDevicePopErrorScope2)
	OWN(d_CommandEncoderBeginComputePass, wgpuCommandEncoderBeginComputePass)
	OWN(d_DeviceTick, wgpuDeviceTick)
	OWN(d_DeviceGetQueue, wgpuDeviceGetQueue)
	OWN(d_QueueRelease, wgpuQueueRelease)
	OWN(d_QueueOnSubmittedWorkDone2, wgpuQueueOnSubmittedWorkDone2)
	OWN(d_DeviceSetLoggingCallback, wgpuDeviceSetLoggingCallback)
#undef DIRECT
#undef OWN
	if (missing) {
		snprintf(err, errlen, "no function %s (not Dawn, or a version without it)", missing);
		return -1;
	}
	t->wgpuAdapterGetFeatures = t_AdapterGetFeatures;
	t->wgpuAdapterGetInfo = t_AdapterGetInfo;
	t->wgpuAdapterGetLimits = t_AdapterGetLimits;
	t->wgpuAdapterRequestDevice = t_AdapterRequestDevice;
	t->wgpuBufferMapAsync = t_BufferMapAsync;
	t->wgpuCommandEncoderBeginComputePass = t_CommandEncoderBeginComputePass;
	t->wgpuCreateInstance = t_CreateInstance;
	t->wgpuDeviceGetLimits = t_DeviceGetLimits;
	t->wgpuDevicePoll = t_DevicePoll;
	t->wgpuDevicePopErrorScope = t_DevicePopErrorScope;
	t->wgpuGetVersion = t_GetVersion;
	t->wgpuInstanceEnumerateAdapters = t_InstanceEnumerateAdapters;
	t->wgpuQueueGetTimestampPeriod = t_QueueGetTimestampPeriod;
	t->wgpuSupportedFeaturesFreeMembers = t_SupportedFeaturesFreeMembers;
	// Every slot is filled: a function added to WGPUPROF_FUNCTIONS without
	// a line here is reported, not called through a null pointer.
	void *const *slots = (void *const *)t;
	for (size_t i = 0; i < sizeof *t / sizeof(void *); i++) {
		if (!slots[i]) {
			snprintf(err, errlen, "dawn.c has no entry for function %zu of WGPUPROF_FUNCTIONS (wgpu_abi.h)", i);
			return -1;
		}
	}
	return 0;
}
