/*
 * wgpu_abi.h: the part of wgpu-native's C API that package compute uses,
 * written by hand so that the package builds without wgpu-native's own
 * headers and loads the library at run time (loader.c).
 *
 * It mirrors wgpu-native 29.0.1.1 (webgpu.h and wgpu.h as shipped in the
 * PyPI wheel wgpu 0.32.0, see scripts/wgpu-native.lock). Names are those of
 * the real headers so the Go code reads C.WGPUBufferDescriptor,
 * C.wgpuDeviceCreateBuffer, etc. Only what the Go files and shim.c use is
 * declared; enums list only the constants used, plus _Force32, which is
 * what makes the real enums 32 bits wide.
 *
 * compute/abi_test.go checks this file against the real headers (installed
 * under third_party/wgpu-native/include by scripts/setup.sh): sizes,
 * alignments and field offsets of every struct, every constant's value, and
 * the type of every field, typedef and function. It parses this file, so
 * keep to its layout:
 *   - one struct field per line, "type name;"; a nested union is
 *     "union {", its members, "} name;";
 *   - "typedef struct Name {" ... "} Name;" and "typedef enum Name {" ...
 *     "} Name;", one "Name_Value = number," per line;
 *   - other typedefs, "static const" values and #defines on one line;
 *   - the functions only in the WGPUPROF_FUNCTIONS list at the end.
 */
#ifndef WGPUPROF_WGPU_ABI_H
#define WGPUPROF_WGPU_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- scalars ---------------------------------------------------------- */

typedef uint64_t WGPUFlags;
typedef uint32_t WGPUBool;
typedef uint64_t WGPUSubmissionIndex;

/* StringView.length meaning "up to the terminating NUL". */
#define WGPU_STRLEN SIZE_MAX

/* ---- object handles (opaque pointers) ---------------------------------- */

typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUSamplerImpl *WGPUSampler;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUTextureViewImpl *WGPUTextureView;

/* Descriptors the binding only ever passes as NULL: left incomplete. */
typedef struct WGPUCommandBufferDescriptor WGPUCommandBufferDescriptor;
typedef struct WGPUCommandEncoderDescriptor WGPUCommandEncoderDescriptor;
typedef struct WGPUInstanceEnumerateAdapterOptions WGPUInstanceEnumerateAdapterOptions;
typedef struct WGPUInstanceLimits WGPUInstanceLimits;

/* ---- enums of webgpu.h ------------------------------------------------- */

typedef enum WGPUAdapterType {
    WGPUAdapterType_DiscreteGPU = 0x00000001,
    WGPUAdapterType_IntegratedGPU = 0x00000002,
    WGPUAdapterType_CPU = 0x00000003,
    WGPUAdapterType_Force32 = 0x7FFFFFFF,
} WGPUAdapterType;

typedef enum WGPUBackendType {
    WGPUBackendType_D3D12 = 0x00000004,
    WGPUBackendType_Metal = 0x00000005,
    WGPUBackendType_Vulkan = 0x00000006,
    WGPUBackendType_OpenGL = 0x00000007,
    WGPUBackendType_OpenGLES = 0x00000008,
    WGPUBackendType_Force32 = 0x7FFFFFFF,
} WGPUBackendType;

typedef enum WGPUCallbackMode {
    WGPUCallbackMode_AllowSpontaneous = 0x00000003,
    WGPUCallbackMode_Force32 = 0x7FFFFFFF,
} WGPUCallbackMode;

typedef enum WGPUDeviceLostReason {
    WGPUDeviceLostReason_Unknown = 0x00000001,
    WGPUDeviceLostReason_Destroyed = 0x00000002,
    WGPUDeviceLostReason_CallbackCancelled = 0x00000003,
    WGPUDeviceLostReason_Force32 = 0x7FFFFFFF,
} WGPUDeviceLostReason;

/* The Internal filter is left out on purpose: wgpu-native 29 panics on it. */
typedef enum WGPUErrorFilter {
    WGPUErrorFilter_Validation = 0x00000001,
    WGPUErrorFilter_OutOfMemory = 0x00000002,
    WGPUErrorFilter_Force32 = 0x7FFFFFFF,
} WGPUErrorFilter;

/* The other values are mirrored as plain numbers by errorType (errors.go). */
typedef enum WGPUErrorType {
    WGPUErrorType_NoError = 0x00000001,
    WGPUErrorType_Force32 = 0x7FFFFFFF,
} WGPUErrorType;

typedef enum WGPUFeatureName {
    WGPUFeatureName_CoreFeaturesAndLimits = 0x00000001,
    WGPUFeatureName_DepthClipControl = 0x00000002,
    WGPUFeatureName_Depth32FloatStencil8 = 0x00000003,
    WGPUFeatureName_TextureCompressionBC = 0x00000004,
    WGPUFeatureName_TextureCompressionBCSliced3D = 0x00000005,
    WGPUFeatureName_TextureCompressionETC2 = 0x00000006,
    WGPUFeatureName_TextureCompressionASTC = 0x00000007,
    WGPUFeatureName_TextureCompressionASTCSliced3D = 0x00000008,
    WGPUFeatureName_TimestampQuery = 0x00000009,
    WGPUFeatureName_IndirectFirstInstance = 0x0000000A,
    WGPUFeatureName_ShaderF16 = 0x0000000B,
    WGPUFeatureName_RG11B10UfloatRenderable = 0x0000000C,
    WGPUFeatureName_BGRA8UnormStorage = 0x0000000D,
    WGPUFeatureName_Float32Filterable = 0x0000000E,
    WGPUFeatureName_Float32Blendable = 0x0000000F,
    WGPUFeatureName_ClipDistances = 0x00000010,
    WGPUFeatureName_DualSourceBlending = 0x00000011,
    WGPUFeatureName_Subgroups = 0x00000012,
    WGPUFeatureName_TextureFormatsTier1 = 0x00000013,
    WGPUFeatureName_TextureFormatsTier2 = 0x00000014,
    WGPUFeatureName_PrimitiveIndex = 0x00000015,
    WGPUFeatureName_TextureComponentSwizzle = 0x00000016,
    WGPUFeatureName_Force32 = 0x7FFFFFFF,
} WGPUFeatureName;

/* Only the element type of InstanceDescriptor.requiredFeatures. */
typedef enum WGPUInstanceFeatureName {
    WGPUInstanceFeatureName_Force32 = 0x7FFFFFFF,
} WGPUInstanceFeatureName;

typedef enum WGPUMapAsyncStatus {
    WGPUMapAsyncStatus_Success = 0x00000001,
    WGPUMapAsyncStatus_Force32 = 0x7FFFFFFF,
} WGPUMapAsyncStatus;

typedef enum WGPUPopErrorScopeStatus {
    WGPUPopErrorScopeStatus_Success = 0x00000001,
    WGPUPopErrorScopeStatus_Force32 = 0x7FFFFFFF,
} WGPUPopErrorScopeStatus;

typedef enum WGPUQueryType {
    WGPUQueryType_Timestamp = 0x00000002,
    WGPUQueryType_Force32 = 0x7FFFFFFF,
} WGPUQueryType;

typedef enum WGPURequestDeviceStatus {
    WGPURequestDeviceStatus_Success = 0x00000001,
    WGPURequestDeviceStatus_Force32 = 0x7FFFFFFF,
} WGPURequestDeviceStatus;

typedef enum WGPUStatus {
    WGPUStatus_Success = 0x00000001,
    WGPUStatus_Force32 = 0x7FFFFFFF,
} WGPUStatus;

typedef enum WGPUSType {
    WGPUSType_ShaderSourceWGSL = 0x00000002,
    WGPUSType_Force32 = 0x7FFFFFFF,
} WGPUSType;

/* ---- enums of wgpu.h (native extensions) ------------------------------- */

/* Chained-struct tags of the native extensions; cast to WGPUSType. */
typedef enum WGPUNativeSType {
    WGPUSType_InstanceExtras = 0x00030004,
    WGPUNativeSType_Force32 = 0x7FFFFFFF,
} WGPUNativeSType;

/* Native features share WGPUFeatureName's number space. */
typedef enum WGPUNativeFeature {
    WGPUNativeFeature_Immediates = 0x00030001,
    WGPUNativeFeature_PipelineStatisticsQuery = 0x00030008,
    WGPUNativeFeature_MappablePrimaryBuffers = 0x0003000E,
    WGPUNativeFeature_ShaderF64 = 0x0003001D,
    WGPUNativeFeature_ShaderI16 = 0x0003001E,
    WGPUNativeFeature_Subgroup = 0x00030021,
    WGPUNativeFeature_SubgroupBarrier = 0x00030023,
    WGPUNativeFeature_TimestampQueryInsideEncoders = 0x00030024,
    WGPUNativeFeature_TimestampQueryInsidePasses = 0x00030025,
    WGPUNativeFeature_ShaderInt64 = 0x00030026,
    WGPUNativeFeature_ShaderFloat32Atomic = 0x00030027,
    WGPUNativeFeature_PipelineCache = 0x0003002B,
    WGPUNativeFeature_CooperativeMatrix = 0x0003003B,
    WGPUNativeFeature_Force32 = 0x7FFFFFFF,
} WGPUNativeFeature;

/* Field types of WGPUInstanceExtras that the binding leaves zero. */
typedef enum WGPUDx12Compiler {
    WGPUDx12Compiler_Force32 = 0x7FFFFFFF,
} WGPUDx12Compiler;

typedef enum WGPUGles3MinorVersion {
    WGPUGles3MinorVersion_Force32 = 0x7FFFFFFF,
} WGPUGles3MinorVersion;

typedef enum WGPUGLFenceBehaviour {
    WGPUGLFenceBehaviour_Force32 = 0x7FFFFFFF,
} WGPUGLFenceBehaviour;

typedef enum WGPUDxcMaxShaderModel {
    WGPUDxcMaxShaderModel_Force32 = 0x7FFFFFFF,
} WGPUDxcMaxShaderModel;

typedef enum WGPUDx12SwapchainKind {
    WGPUDx12SwapchainKind_Force32 = 0x7FFFFFFF,
} WGPUDx12SwapchainKind;

typedef enum WGPUNativeDisplayHandleType {
    WGPUNativeDisplayHandleType_Force32 = 0x7FFFFFFF,
} WGPUNativeDisplayHandleType;

/* ---- flag sets (64-bit) ------------------------------------------------ */

/* Buffer usage bits are mirrored in Go (BufferUsage, buffer.go). */
typedef WGPUFlags WGPUBufferUsage;
typedef WGPUFlags WGPUMapMode;
/* Backend bits are mirrored in Go (Backend.instanceMask, instance.go). */
typedef WGPUFlags WGPUInstanceBackend;
typedef WGPUFlags WGPUInstanceFlag;

static const WGPUMapMode WGPUMapMode_Read = 0x0000000000000001;
static const WGPUInstanceFlag WGPUInstanceFlag_Default = 0x0000000001000000;

/* ---- structs ----------------------------------------------------------- */

typedef struct WGPUStringView {
    char const *data;
    size_t length;
} WGPUStringView;

typedef struct WGPUChainedStruct {
    struct WGPUChainedStruct *next;
    WGPUSType sType;
} WGPUChainedStruct;

typedef struct WGPUFuture {
    uint64_t id;
} WGPUFuture;

typedef struct WGPUAdapterInfo {
    WGPUChainedStruct *nextInChain;
    WGPUStringView vendor;
    WGPUStringView architecture;
    WGPUStringView device;
    WGPUStringView description;
    WGPUBackendType backendType;
    WGPUAdapterType adapterType;
    uint32_t vendorID;
    uint32_t deviceID;
    uint32_t subgroupMinSize;
    uint32_t subgroupMaxSize;
} WGPUAdapterInfo;

typedef struct WGPULimits {
    WGPUChainedStruct *nextInChain;
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
    uint32_t maxInterStageShaderVariables;
    uint32_t maxColorAttachments;
    uint32_t maxColorAttachmentBytesPerSample;
    uint32_t maxComputeWorkgroupStorageSize;
    uint32_t maxComputeInvocationsPerWorkgroup;
    uint32_t maxComputeWorkgroupSizeX;
    uint32_t maxComputeWorkgroupSizeY;
    uint32_t maxComputeWorkgroupSizeZ;
    uint32_t maxComputeWorkgroupsPerDimension;
    uint32_t maxImmediateSize;
} WGPULimits;

typedef struct WGPUSupportedFeatures {
    size_t featureCount;
    WGPUFeatureName const *features;
} WGPUSupportedFeatures;

typedef struct WGPUBufferDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUBufferUsage usage;
    uint64_t size;
    WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

typedef struct WGPUBindGroupEntry {
    WGPUChainedStruct *nextInChain;
    uint32_t binding;
    WGPUBuffer buffer;
    uint64_t offset;
    uint64_t size;
    WGPUSampler sampler;
    WGPUTextureView textureView;
} WGPUBindGroupEntry;

typedef struct WGPUBindGroupDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUBindGroupLayout layout;
    size_t entryCount;
    WGPUBindGroupEntry const *entries;
} WGPUBindGroupDescriptor;

typedef struct WGPUPassTimestampWrites {
    WGPUChainedStruct *nextInChain;
    WGPUQuerySet querySet;
    uint32_t beginningOfPassWriteIndex;
    uint32_t endOfPassWriteIndex;
} WGPUPassTimestampWrites;

typedef struct WGPUComputePassDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUPassTimestampWrites const *timestampWrites;
} WGPUComputePassDescriptor;

typedef struct WGPUConstantEntry {
    WGPUChainedStruct *nextInChain;
    WGPUStringView key;
    double value;
} WGPUConstantEntry;

typedef struct WGPUComputeState {
    WGPUChainedStruct *nextInChain;
    WGPUShaderModule module;
    WGPUStringView entryPoint;
    size_t constantCount;
    WGPUConstantEntry const *constants;
} WGPUComputeState;

typedef struct WGPUComputePipelineDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUPipelineLayout layout;
    WGPUComputeState compute;
} WGPUComputePipelineDescriptor;

typedef struct WGPUQuerySetDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUQueryType type;
    uint32_t count;
} WGPUQuerySetDescriptor;

typedef struct WGPUShaderModuleDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUShaderModuleDescriptor;

/* Chained into ShaderModuleDescriptor.nextInChain. */
typedef struct WGPUShaderSourceWGSL {
    WGPUChainedStruct chain;
    WGPUStringView code;
} WGPUShaderSourceWGSL;

typedef struct WGPUQueueDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUQueueDescriptor;

/* ---- callbacks (userdata1/2 are the caller's, passed back unchanged) --- */

typedef void (*WGPUBufferMapCallback)(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUDeviceLostCallback)(WGPUDevice const *device, WGPUDeviceLostReason reason, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPURequestDeviceCallback)(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUUncapturedErrorCallback)(WGPUDevice const *device, WGPUErrorType type, WGPUStringView message, void *userdata1, void *userdata2);

typedef struct WGPUBufferMapCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    WGPUBufferMapCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUBufferMapCallbackInfo;

typedef struct WGPUDeviceLostCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    WGPUDeviceLostCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUDeviceLostCallbackInfo;

typedef struct WGPUPopErrorScopeCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    WGPUPopErrorScopeCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUPopErrorScopeCallbackInfo;

typedef struct WGPURequestDeviceCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUCallbackMode mode;
    WGPURequestDeviceCallback callback;
    void *userdata1;
    void *userdata2;
} WGPURequestDeviceCallbackInfo;

/* No mode field: the uncaptured-error callback may fire at any time. */
typedef struct WGPUUncapturedErrorCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUUncapturedErrorCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUDeviceDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    size_t requiredFeatureCount;
    WGPUFeatureName const *requiredFeatures;
    WGPULimits const *requiredLimits;
    WGPUQueueDescriptor defaultQueue;
    WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
    WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef struct WGPUInstanceDescriptor {
    WGPUChainedStruct *nextInChain;
    size_t requiredFeatureCount;
    WGPUInstanceFeatureName const *requiredFeatures;
    WGPUInstanceLimits const *requiredLimits;
} WGPUInstanceDescriptor;

/* ---- wgpu.h's instance extension (chained into InstanceDescriptor) ----- */

typedef struct WGPUXlibDisplayHandle {
    void *display;
    int screen;
} WGPUXlibDisplayHandle;

typedef struct WGPUXcbDisplayHandle {
    void *connection;
    int screen;
} WGPUXcbDisplayHandle;

typedef struct WGPUWaylandDisplayHandle {
    void *display;
} WGPUWaylandDisplayHandle;

typedef struct WGPUNativeDisplayHandle {
    WGPUNativeDisplayHandleType type;
    union {
        WGPUXlibDisplayHandle xlib;
        WGPUXcbDisplayHandle xcb;
        WGPUWaylandDisplayHandle wayland;
    } data;
} WGPUNativeDisplayHandle;

typedef struct WGPUInstanceExtras {
    WGPUChainedStruct chain;
    WGPUInstanceBackend backends;
    WGPUInstanceFlag flags;
    WGPUDx12Compiler dx12ShaderCompiler;
    WGPUGles3MinorVersion gles3MinorVersion;
    WGPUGLFenceBehaviour glFenceBehaviour;
    WGPUStringView dxcPath;
    WGPUDxcMaxShaderModel dxcMaxShaderModel;
    WGPUDx12SwapchainKind dx12PresentationSystem;
    uint8_t const *budgetForDeviceCreation;
    uint8_t const *budgetForDeviceLoss;
    WGPUNativeDisplayHandle displayHandle;
} WGPUInstanceExtras;

/* ---- functions ---------------------------------------------------------
 * Every library function the binding calls, once:
 *   R(return type, name, (parameters), (arguments))  returns a value
 *   V(name, (parameters), (arguments))               returns void
 * loader.c expands the list into function pointers, forwarders with these
 * names and the dlsym table; abi_test.go into type checks against the real
 * declarations. Known wgpu-native 29 traps, not in the list on purpose:
 * wgpuShaderModuleGetCompilationInfo aborts; wgpuQuerySetDestroy followed
 * by wgpuQuerySetRelease frees twice.
 */
#define WGPUPROF_FUNCTIONS(R, V) \
    V(wgpuAdapterGetFeatures, (WGPUAdapter adapter, WGPUSupportedFeatures *features), (adapter, features)) \
    R(WGPUStatus, wgpuAdapterGetInfo, (WGPUAdapter adapter, WGPUAdapterInfo *info), (adapter, info)) \
    R(WGPUStatus, wgpuAdapterGetLimits, (WGPUAdapter adapter, WGPULimits *limits), (adapter, limits)) \
    V(wgpuAdapterInfoFreeMembers, (WGPUAdapterInfo adapterInfo), (adapterInfo)) \
    V(wgpuAdapterRelease, (WGPUAdapter adapter), (adapter)) \
    R(WGPUFuture, wgpuAdapterRequestDevice, (WGPUAdapter adapter, WGPUDeviceDescriptor const *descriptor, WGPURequestDeviceCallbackInfo callbackInfo), (adapter, descriptor, callbackInfo)) \
    V(wgpuBindGroupLayoutRelease, (WGPUBindGroupLayout bindGroupLayout), (bindGroupLayout)) \
    V(wgpuBindGroupRelease, (WGPUBindGroup bindGroup), (bindGroup)) \
    V(wgpuBufferDestroy, (WGPUBuffer buffer), (buffer)) \
    R(void const *, wgpuBufferGetConstMappedRange, (WGPUBuffer buffer, size_t offset, size_t size), (buffer, offset, size)) \
    R(WGPUFuture, wgpuBufferMapAsync, (WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size, WGPUBufferMapCallbackInfo callbackInfo), (buffer, mode, offset, size, callbackInfo)) \
    V(wgpuBufferRelease, (WGPUBuffer buffer), (buffer)) \
    V(wgpuBufferUnmap, (WGPUBuffer buffer), (buffer)) \
    V(wgpuCommandBufferRelease, (WGPUCommandBuffer commandBuffer), (commandBuffer)) \
    R(WGPUComputePassEncoder, wgpuCommandEncoderBeginComputePass, (WGPUCommandEncoder commandEncoder, WGPUComputePassDescriptor const *descriptor), (commandEncoder, descriptor)) \
    V(wgpuCommandEncoderCopyBufferToBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer source, uint64_t sourceOffset, WGPUBuffer destination, uint64_t destinationOffset, uint64_t size), (commandEncoder, source, sourceOffset, destination, destinationOffset, size)) \
    R(WGPUCommandBuffer, wgpuCommandEncoderFinish, (WGPUCommandEncoder commandEncoder, WGPUCommandBufferDescriptor const *descriptor), (commandEncoder, descriptor)) \
    V(wgpuCommandEncoderRelease, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
    V(wgpuCommandEncoderResolveQuerySet, (WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t firstQuery, uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset), (commandEncoder, querySet, firstQuery, queryCount, destination, destinationOffset)) \
    V(wgpuComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder computePassEncoder, uint32_t workgroupCountX, uint32_t workgroupCountY, uint32_t workgroupCountZ), (computePassEncoder, workgroupCountX, workgroupCountY, workgroupCountZ)) \
    V(wgpuComputePassEncoderEnd, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
    V(wgpuComputePassEncoderRelease, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
    V(wgpuComputePassEncoderSetBindGroup, (WGPUComputePassEncoder computePassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, uint32_t const *dynamicOffsets), (computePassEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
    V(wgpuComputePassEncoderSetPipeline, (WGPUComputePassEncoder computePassEncoder, WGPUComputePipeline pipeline), (computePassEncoder, pipeline)) \
    R(WGPUBindGroupLayout, wgpuComputePipelineGetBindGroupLayout, (WGPUComputePipeline computePipeline, uint32_t groupIndex), (computePipeline, groupIndex)) \
    V(wgpuComputePipelineRelease, (WGPUComputePipeline computePipeline), (computePipeline)) \
    R(WGPUInstance, wgpuCreateInstance, (WGPUInstanceDescriptor const *descriptor), (descriptor)) \
    R(WGPUBindGroup, wgpuDeviceCreateBindGroup, (WGPUDevice device, WGPUBindGroupDescriptor const *descriptor), (device, descriptor)) \
    R(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice device, WGPUBufferDescriptor const *descriptor), (device, descriptor)) \
    R(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder, (WGPUDevice device, WGPUCommandEncoderDescriptor const *descriptor), (device, descriptor)) \
    R(WGPUComputePipeline, wgpuDeviceCreateComputePipeline, (WGPUDevice device, WGPUComputePipelineDescriptor const *descriptor), (device, descriptor)) \
    R(WGPUQuerySet, wgpuDeviceCreateQuerySet, (WGPUDevice device, WGPUQuerySetDescriptor const *descriptor), (device, descriptor)) \
    R(WGPUShaderModule, wgpuDeviceCreateShaderModule, (WGPUDevice device, WGPUShaderModuleDescriptor const *descriptor), (device, descriptor)) \
    V(wgpuDeviceDestroy, (WGPUDevice device), (device)) \
    R(WGPUStatus, wgpuDeviceGetLimits, (WGPUDevice device, WGPULimits *limits), (device, limits)) \
    R(WGPUQueue, wgpuDeviceGetQueue, (WGPUDevice device), (device)) \
    R(WGPUBool, wgpuDevicePoll, (WGPUDevice device, WGPUBool wait, WGPUSubmissionIndex const *submissionIndex), (device, wait, submissionIndex)) \
    R(WGPUFuture, wgpuDevicePopErrorScope, (WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo), (device, callbackInfo)) \
    V(wgpuDevicePushErrorScope, (WGPUDevice device, WGPUErrorFilter filter), (device, filter)) \
    V(wgpuDeviceRelease, (WGPUDevice device), (device)) \
    R(uint32_t, wgpuGetVersion, (void), ()) \
    R(size_t, wgpuInstanceEnumerateAdapters, (WGPUInstance instance, WGPUInstanceEnumerateAdapterOptions const *options, WGPUAdapter *adapters), (instance, options, adapters)) \
    V(wgpuInstanceProcessEvents, (WGPUInstance instance), (instance)) \
    V(wgpuInstanceRelease, (WGPUInstance instance), (instance)) \
    V(wgpuQuerySetRelease, (WGPUQuerySet querySet), (querySet)) \
    R(float, wgpuQueueGetTimestampPeriod, (WGPUQueue queue), (queue)) \
    V(wgpuQueueRelease, (WGPUQueue queue), (queue)) \
    V(wgpuQueueSubmit, (WGPUQueue queue, size_t commandCount, WGPUCommandBuffer const *commands), (queue, commandCount, commands)) \
    V(wgpuQueueWriteBuffer, (WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, void const *data, size_t size), (queue, buffer, bufferOffset, data, size)) \
    V(wgpuShaderModuleRelease, (WGPUShaderModule shaderModule), (shaderModule)) \
    V(wgpuSupportedFeaturesFreeMembers, (WGPUSupportedFeatures supportedFeatures), (supportedFeatures))

/* The declarations, with the library's names; loader.c defines them. */
#define WGPUPROF_DECLARE_R(ret, name, params, args) ret name params;
#define WGPUPROF_DECLARE_V(name, params, args) void name params;
WGPUPROF_FUNCTIONS(WGPUPROF_DECLARE_R, WGPUPROF_DECLARE_V)
#undef WGPUPROF_DECLARE_R
#undef WGPUPROF_DECLARE_V

/* Loads implementation impl's library (loader.h) from path and resolves
 * every function of the list. Returns 0 on success; otherwise writes why
 * (the loader's message, or the first missing function) to err and
 * returns -1. */
int wgpuprof_load(int impl, const char *path, char *err, size_t errlen);

#endif
