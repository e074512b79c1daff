/*
 * dawn_abi.h: where Dawn's C API (the webgpu.h of Chromium 133.0.6940.0,
 * as built into the pinned dawn-python wheel, scripts/dawn.lock) differs
 * from wgpu-native's, as far as the binding uses it. The Go code speaks
 * wgpu-native's ABI (wgpu_abi.h) only; dawn.c translates each call whose
 * structs, enum values, callback styles or functions differ, and passes
 * the others straight to Dawn.
 *
 * Names are Dawn's with "WGPU" replaced by "Dawn" (DawnLimits is Dawn's
 * WGPULimits), so both can be declared in one file; field names are
 * Dawn's. dawn_abi_test.go checks every struct's size and field offsets
 * and every constant here against webgpu.py, the ctypes description of
 * Dawn's webgpu.h that ships in the same wheel (third_party/dawn/webgpu.py
 * from scripts/setup-dawn.sh). Layout rules as in wgpu_abi.h: one field
 * per line, one "Name_Value = number," per line.
 *
 * The same as wgpu-native's (and so not declared here): the object
 * handles, WGPUStringView, WGPUChainedStruct, WGPUFuture, the buffer,
 * bind group, shader module, WGSL source, query set, compute state and
 * compute pipeline descriptors, WGPUSupportedFeatures, the callback info
 * structs of the "2" functions, and the enum values of wgpu_abi.h other
 * than WGPUFeatureName (dawn_abi_test.go checks these too).
 */
#ifndef WGPUPROF_DAWN_ABI_H
#define WGPUPROF_DAWN_ABI_H

#include "wgpu_abi.h"

typedef enum DawnFeatureName {
    DawnFeatureName_DepthClipControl = 1,
    DawnFeatureName_Depth32FloatStencil8 = 2,
    DawnFeatureName_TimestampQuery = 3,
    DawnFeatureName_TextureCompressionBC = 4,
    DawnFeatureName_TextureCompressionETC2 = 5,
    DawnFeatureName_TextureCompressionASTC = 6,
    DawnFeatureName_IndirectFirstInstance = 7,
    DawnFeatureName_ShaderF16 = 8,
    DawnFeatureName_RG11B10UfloatRenderable = 9,
    DawnFeatureName_BGRA8UnormStorage = 10,
    DawnFeatureName_Float32Filterable = 11,
    DawnFeatureName_Float32Blendable = 12,
    DawnFeatureName_Subgroups = 13,
    DawnFeatureName_SubgroupsF16 = 14,
    DawnFeatureName_DualSourceBlending = 327688,
    DawnFeatureName_ClipDistances = 327734,
    DawnFeatureName_Force32 = 0x7FFFFFFF,
} DawnFeatureName;

typedef enum DawnSType {
    DawnSType_DawnTogglesDescriptor = 327690,
    DawnSType_Force32 = 0x7FFFFFFF,
} DawnSType;

typedef enum DawnLoggingType {
    DawnLoggingType_Verbose = 1,
    DawnLoggingType_Info = 2,
    DawnLoggingType_Warning = 3,
    DawnLoggingType_Error = 4,
    DawnLoggingType_Force32 = 0x7FFFFFFF,
} DawnLoggingType;

/* wgpuDeviceSetLoggingCallback's callback (Dawn's own; wgpu-native has no
 * per-device log). */
typedef void (*DawnLoggingCallback)(DawnLoggingType type, WGPUStringView message, void *userdata);

typedef enum DawnCallbackMode {
    DawnCallbackMode_WaitAnyOnly = 1,
    DawnCallbackMode_Force32 = 0x7FFFFFFF,
} DawnCallbackMode;

typedef enum DawnWaitStatus {
    DawnWaitStatus_Success = 1,
    DawnWaitStatus_TimedOut = 2,
    DawnWaitStatus_Force32 = 0x7FFFFFFF,
} DawnWaitStatus;

typedef enum DawnRequestAdapterStatus {
    DawnRequestAdapterStatus_Success = 1,
    DawnRequestAdapterStatus_Force32 = 0x7FFFFFFF,
} DawnRequestAdapterStatus;

typedef enum DawnPowerPreference {
    DawnPowerPreference_LowPower = 1,
    DawnPowerPreference_HighPerformance = 2,
    DawnPowerPreference_Force32 = 0x7FFFFFFF,
} DawnPowerPreference;

typedef enum DawnFeatureLevel {
    DawnFeatureLevel_Core = 2,
    DawnFeatureLevel_Force32 = 0x7FFFFFFF,
} DawnFeatureLevel;

typedef enum DawnQueueWorkDoneStatus {
    DawnQueueWorkDoneStatus_Success = 1,
    DawnQueueWorkDoneStatus_Force32 = 0x7FFFFFFF,
} DawnQueueWorkDoneStatus;

/* No nextInChain: Dawn wraps it in DawnSupportedLimits/DawnRequiredLimits. */
typedef struct DawnLimits {
    uint32_t maxTextureDimension1D;
    uint32_t maxTextureDimension2D;
    uint32_t maxTextureDimension3D;
    uint32_t maxTextureArrayLayers;
    uint32_t maxBindGroups;
    uint32_t maxBindGroupsPlusVertexBuffers;
    uint32_t maxBindingsPerBindGroup;
    uint32_t maxDynamicUniformBuffersPerPipelineLayout;
    uint32_t maxDynamicStorageBuffersPerPipelineLayout;
    uint32_t maxSampledTexturesPerShaderStage;
    uint32_t maxSamplersPerShaderStage;
    uint32_t maxStorageBuffersPerShaderStage;
    uint32_t maxStorageTexturesPerShaderStage;
    uint32_t maxUniformBuffersPerShaderStage;
    uint64_t maxUniformBufferBindingSize;
    uint64_t maxStorageBufferBindingSize;
    uint32_t minUniformBufferOffsetAlignment;
    uint32_t minStorageBufferOffsetAlignment;
    uint32_t maxVertexBuffers;
    uint64_t maxBufferSize;
    uint32_t maxVertexAttributes;
    uint32_t maxVertexBufferArrayStride;
    uint32_t maxInterStageShaderComponents;
    uint32_t maxInterStageShaderVariables;
    uint32_t maxColorAttachments;
    uint32_t maxColorAttachmentBytesPerSample;
    uint32_t maxComputeWorkgroupStorageSize;
    uint32_t maxComputeInvocationsPerWorkgroup;
    uint32_t maxComputeWorkgroupSizeX;
    uint32_t maxComputeWorkgroupSizeY;
    uint32_t maxComputeWorkgroupSizeZ;
    uint32_t maxComputeWorkgroupsPerDimension;
    uint32_t maxStorageBuffersInVertexStage;
    uint32_t maxStorageTexturesInVertexStage;
    uint32_t maxStorageBuffersInFragmentStage;
    uint32_t maxStorageTexturesInFragmentStage;
} DawnLimits;

typedef struct DawnSupportedLimits {
    WGPUChainedStruct *nextInChain;
    DawnLimits limits;
} DawnSupportedLimits;

typedef struct DawnRequiredLimits {
    WGPUChainedStruct const *nextInChain;
    DawnLimits limits;
} DawnRequiredLimits;

/* compatibilityMode where wgpu-native has subgroupMinSize; nothing after. */
typedef struct DawnAdapterInfo {
    WGPUChainedStruct *nextInChain;
    WGPUStringView vendor;
    WGPUStringView architecture;
    WGPUStringView device;
    WGPUStringView description;
    WGPUBackendType backendType;
    WGPUAdapterType adapterType;
    uint32_t vendorID;
    uint32_t deviceID;
    WGPUBool compatibilityMode;
} DawnAdapterInfo;

/* No nextInChain, unlike wgpu-native's WGPUPassTimestampWrites. */
typedef struct DawnComputePassTimestampWrites {
    WGPUQuerySet querySet;
    uint32_t beginningOfPassWriteIndex;
    uint32_t endOfPassWriteIndex;
} DawnComputePassTimestampWrites;

typedef struct DawnComputePassDescriptor {
    WGPUChainedStruct const *nextInChain;
    WGPUStringView label;
    DawnComputePassTimestampWrites const *timestampWrites;
} DawnComputePassDescriptor;

typedef struct DawnDeviceDescriptor {
    WGPUChainedStruct const *nextInChain;
    WGPUStringView label;
    size_t requiredFeatureCount;
    DawnFeatureName const *requiredFeatures;
    DawnRequiredLimits const *requiredLimits;
    WGPUQueueDescriptor defaultQueue;
    WGPUDeviceLostCallbackInfo deviceLostCallbackInfo2;
    WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo2;
} DawnDeviceDescriptor;

typedef struct DawnTogglesDescriptor {
    WGPUChainedStruct chain;
    size_t enabledToggleCount;
    const char *const *enabledToggles;
    size_t disabledToggleCount;
    const char *const *disabledToggles;
} DawnTogglesDescriptor;

typedef struct DawnInstanceFeatures {
    WGPUChainedStruct *nextInChain;
    WGPUBool timedWaitAnyEnable;
    size_t timedWaitAnyMaxCount;
} DawnInstanceFeatures;

typedef struct DawnInstanceDescriptor {
    WGPUChainedStruct const *nextInChain;
    DawnInstanceFeatures features;
} DawnInstanceDescriptor;

typedef struct DawnRequestAdapterOptions {
    WGPUChainedStruct const *nextInChain;
    void *compatibleSurface;
    DawnFeatureLevel featureLevel;
    DawnPowerPreference powerPreference;
    WGPUBackendType backendType;
    WGPUBool forceFallbackAdapter;
    WGPUBool compatibilityMode;
} DawnRequestAdapterOptions;

typedef void (*DawnRequestAdapterCallback2)(DawnRequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*DawnQueueWorkDoneCallback2)(DawnQueueWorkDoneStatus status, void *userdata1, void *userdata2);

typedef struct DawnRequestAdapterCallbackInfo2 {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    DawnRequestAdapterCallback2 callback;
    void *userdata1;
    void *userdata2;
} DawnRequestAdapterCallbackInfo2;

typedef struct DawnQueueWorkDoneCallbackInfo2 {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    DawnQueueWorkDoneCallback2 callback;
    void *userdata1;
    void *userdata2;
} DawnQueueWorkDoneCallbackInfo2;

typedef struct DawnFutureWaitInfo {
    WGPUFuture future;
    WGPUBool completed;
} DawnFutureWaitInfo;

/* Fills table (a struct wgpuprof_table, loader.c) from the Dawn library h
 * (a dlopen/LoadLibrary handle): Dawn's own function where the ABI is the
 * same, a translation of dawn.c where it is not. 0 on success, else -1
 * with the first missing function in err. */
int wgpuprof_dawn_resolve(void *(*sym)(void *h, const char *name), void *h, void *table, char *err, size_t errlen);

#endif
