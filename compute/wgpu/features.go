package wgpu

import "fmt"

// featureNames names every feature of the webgpu.h and wgpu.h this build
// is checked against (TestFeatureNamesMatchHeaders): the standard ones as
// WebGPU spells them (GPUFeatureName), wgpu-native's own as "native:"
// followed by their wgpu.h name in kebab case
// (WGPUNativeFeature_TextureAdapterSpecificFormatFeatures is
// "native:texture-adapter-specific-format-features").
var featureNames = map[Feature]string{
	0x00000001: "core-features-and-limits",                                             // WGPUFeatureName_CoreFeaturesAndLimits
	0x00000002: "depth-clip-control",                                                   // WGPUFeatureName_DepthClipControl
	0x00000003: "depth32float-stencil8",                                                // WGPUFeatureName_Depth32FloatStencil8
	0x00000004: "texture-compression-bc",                                               // WGPUFeatureName_TextureCompressionBC
	0x00000005: "texture-compression-bc-sliced-3d",                                     // WGPUFeatureName_TextureCompressionBCSliced3D
	0x00000006: "texture-compression-etc2",                                             // WGPUFeatureName_TextureCompressionETC2
	0x00000007: "texture-compression-astc",                                             // WGPUFeatureName_TextureCompressionASTC
	0x00000008: "texture-compression-astc-sliced-3d",                                   // WGPUFeatureName_TextureCompressionASTCSliced3D
	0x00000009: "timestamp-query",                                                      // WGPUFeatureName_TimestampQuery
	0x0000000A: "indirect-first-instance",                                              // WGPUFeatureName_IndirectFirstInstance
	0x0000000B: "shader-f16",                                                           // WGPUFeatureName_ShaderF16
	0x0000000C: "rg11b10ufloat-renderable",                                             // WGPUFeatureName_RG11B10UfloatRenderable
	0x0000000D: "bgra8unorm-storage",                                                   // WGPUFeatureName_BGRA8UnormStorage
	0x0000000E: "float32-filterable",                                                   // WGPUFeatureName_Float32Filterable
	0x0000000F: "float32-blendable",                                                    // WGPUFeatureName_Float32Blendable
	0x00000010: "clip-distances",                                                       // WGPUFeatureName_ClipDistances
	0x00000011: "dual-source-blending",                                                 // WGPUFeatureName_DualSourceBlending
	0x00000012: "subgroups",                                                            // WGPUFeatureName_Subgroups
	0x00000013: "texture-formats-tier1",                                                // WGPUFeatureName_TextureFormatsTier1
	0x00000014: "texture-formats-tier2",                                                // WGPUFeatureName_TextureFormatsTier2
	0x00000015: "primitive-index",                                                      // WGPUFeatureName_PrimitiveIndex
	0x00000016: "texture-component-swizzle",                                            // WGPUFeatureName_TextureComponentSwizzle
	0x00030001: "native:immediates",                                                    // WGPUNativeFeature_Immediates
	0x00030002: "native:texture-adapter-specific-format-features",                      // WGPUNativeFeature_TextureAdapterSpecificFormatFeatures
	0x00030004: "native:multi-draw-indirect-count",                                     // WGPUNativeFeature_MultiDrawIndirectCount
	0x00030005: "native:vertex-writable-storage",                                       // WGPUNativeFeature_VertexWritableStorage
	0x00030006: "native:texture-binding-array",                                         // WGPUNativeFeature_TextureBindingArray
	0x00030007: "native:sampled-texture-and-storage-buffer-array-non-uniform-indexing", // WGPUNativeFeature_SampledTextureAndStorageBufferArrayNonUniformIndexing
	0x00030008: "native:pipeline-statistics-query",                                     // WGPUNativeFeature_PipelineStatisticsQuery
	0x00030009: "native:storage-resource-binding-array",                                // WGPUNativeFeature_StorageResourceBindingArray
	0x0003000A: "native:partially-bound-binding-array",                                 // WGPUNativeFeature_PartiallyBoundBindingArray
	0x0003000B: "native:texture-format-16bit-norm",                                     // WGPUNativeFeature_TextureFormat16bitNorm
	0x0003000C: "native:texture-compression-astc-hdr",                                  // WGPUNativeFeature_TextureCompressionAstcHdr
	0x0003000E: "native:mappable-primary-buffers",                                      // WGPUNativeFeature_MappablePrimaryBuffers
	0x0003000F: "native:buffer-binding-array",                                          // WGPUNativeFeature_BufferBindingArray
	0x00030010: "native:storage-texture-array-non-uniform-indexing",                    // WGPUNativeFeature_StorageTextureArrayNonUniformIndexing
	0x00030011: "native:address-mode-clamp-to-zero",                                    // WGPUNativeFeature_AddressModeClampToZero
	0x00030012: "native:address-mode-clamp-to-border",                                  // WGPUNativeFeature_AddressModeClampToBorder
	0x00030013: "native:polygon-mode-line",                                             // WGPUNativeFeature_PolygonModeLine
	0x00030014: "native:polygon-mode-point",                                            // WGPUNativeFeature_PolygonModePoint
	0x00030015: "native:conservative-rasterization",                                    // WGPUNativeFeature_ConservativeRasterization
	0x00030016: "native:clear-texture",                                                 // WGPUNativeFeature_ClearTexture
	0x00030018: "native:multiview",                                                     // WGPUNativeFeature_Multiview
	0x00030019: "native:vertex-attribute-64bit",                                        // WGPUNativeFeature_VertexAttribute64bit
	0x0003001A: "native:texture-format-nv12",                                           // WGPUNativeFeature_TextureFormatNv12
	0x0003001C: "native:ray-query",                                                     // WGPUNativeFeature_RayQuery
	0x0003001D: "native:shader-f64",                                                    // WGPUNativeFeature_ShaderF64
	0x0003001E: "native:shader-i16",                                                    // WGPUNativeFeature_ShaderI16
	0x00030020: "native:shader-early-depth-test",                                       // WGPUNativeFeature_ShaderEarlyDepthTest
	0x00030021: "native:subgroup",                                                      // WGPUNativeFeature_Subgroup
	0x00030022: "native:subgroup-vertex",                                               // WGPUNativeFeature_SubgroupVertex
	0x00030023: "native:subgroup-barrier",                                              // WGPUNativeFeature_SubgroupBarrier
	0x00030024: "native:timestamp-query-inside-encoders",                               // WGPUNativeFeature_TimestampQueryInsideEncoders
	0x00030025: "native:timestamp-query-inside-passes",                                 // WGPUNativeFeature_TimestampQueryInsidePasses
	0x00030026: "native:shader-int64",                                                  // WGPUNativeFeature_ShaderInt64
	0x00030027: "native:shader-float32-atomic",                                         // WGPUNativeFeature_ShaderFloat32Atomic
	0x00030028: "native:texture-atomic",                                                // WGPUNativeFeature_TextureAtomic
	0x00030029: "native:texture-format-p010",                                           // WGPUNativeFeature_TextureFormatP010
	0x0003002B: "native:pipeline-cache",                                                // WGPUNativeFeature_PipelineCache
	0x0003002C: "native:shader-int64-atomic-min-max",                                   // WGPUNativeFeature_ShaderInt64AtomicMinMax
	0x0003002D: "native:shader-int64-atomic-all-ops",                                   // WGPUNativeFeature_ShaderInt64AtomicAllOps
	0x00030030: "native:texture-int64-atomic",                                          // WGPUNativeFeature_TextureInt64Atomic
	0x00030037: "native:shader-barycentrics",                                           // WGPUNativeFeature_ShaderBarycentrics
	0x00030038: "native:selective-multiview",                                           // WGPUNativeFeature_SelectiveMultiview
	0x0003003A: "native:multisample-array",                                             // WGPUNativeFeature_MultisampleArray
	0x0003003B: "native:cooperative-matrix",                                            // WGPUNativeFeature_CooperativeMatrix
	0x0003003C: "native:shader-per-vertex",                                             // WGPUNativeFeature_ShaderPerVertex
	0x0003003D: "native:shader-draw-index",                                             // WGPUNativeFeature_ShaderDrawIndex
	0x0003003E: "native:acceleration-structure-binding-array",                          // WGPUNativeFeature_AccelerationStructureBindingArray
	0x0003003F: "native:memory-decoration-coherent",                                    // WGPUNativeFeature_MemoryDecorationCoherent
	0x00030040: "native:memory-decoration-volatile",                                    // WGPUNativeFeature_MemoryDecorationVolatile
}

// dawnFeatureNames names Dawn's own features as dawn.c hands them on: in
// Dawn's numbers (0x5xxxx, disjoint from wgpu-native's 0x3xxxx), as "dawn:"
// and their webgpu.h name in kebab case, plus SubgroupsF16, a standard
// feature of Dawn's webgpu.h that wgpu-native's lacks, under 0x60000
// (DAWN_SUBGROUPS_F16 in dawn.c). Dawn's other standard features arrive
// under wgpu-native's numbers (TestDawnFeatureNames).
var dawnFeatureNames = map[Feature]string{
	0x00050000: "dawn:dawn-internal-usages",                                // WGPUFeatureName_DawnInternalUsages
	0x00050001: "dawn:dawn-multi-planar-formats",                           // WGPUFeatureName_DawnMultiPlanarFormats
	0x00050002: "dawn:dawn-native",                                         // WGPUFeatureName_DawnNative
	0x00050003: "dawn:chromium-experimental-timestamp-query-inside-passes", // WGPUFeatureName_ChromiumExperimentalTimestampQueryInsidePasses
	0x00050004: "dawn:implicit-device-synchronization",                     // WGPUFeatureName_ImplicitDeviceSynchronization
	0x00050005: "dawn:chromium-experimental-immediate-data",                // WGPUFeatureName_ChromiumExperimentalImmediateData
	0x00050006: "dawn:transient-attachments",                               // WGPUFeatureName_TransientAttachments
	0x00050007: "dawn:msaarender-to-single-sampled",                        // WGPUFeatureName_MSAARenderToSingleSampled
	0x00050009: "dawn:d3-d11-multithread-protected",                        // WGPUFeatureName_D3D11MultithreadProtected
	0x0005000A: "dawn:angletexture-sharing",                                // WGPUFeatureName_ANGLETextureSharing
	0x0005000B: "dawn:pixel-local-storage-coherent",                        // WGPUFeatureName_PixelLocalStorageCoherent
	0x0005000C: "dawn:pixel-local-storage-non-coherent",                    // WGPUFeatureName_PixelLocalStorageNonCoherent
	0x0005000D: "dawn:unorm16-texture-formats",                             // WGPUFeatureName_Unorm16TextureFormats
	0x0005000E: "dawn:snorm16-texture-formats",                             // WGPUFeatureName_Snorm16TextureFormats
	0x0005000F: "dawn:multi-planar-format-extended-usages",                 // WGPUFeatureName_MultiPlanarFormatExtendedUsages
	0x00050010: "dawn:multi-planar-format-p010",                            // WGPUFeatureName_MultiPlanarFormatP010
	0x00050011: "dawn:host-mapped-pointer",                                 // WGPUFeatureName_HostMappedPointer
	0x00050012: "dawn:multi-planar-render-targets",                         // WGPUFeatureName_MultiPlanarRenderTargets
	0x00050013: "dawn:multi-planar-format-nv12a",                           // WGPUFeatureName_MultiPlanarFormatNv12a
	0x00050014: "dawn:framebuffer-fetch",                                   // WGPUFeatureName_FramebufferFetch
	0x00050015: "dawn:buffer-map-extended-usages",                          // WGPUFeatureName_BufferMapExtendedUsages
	0x00050016: "dawn:adapter-properties-memory-heaps",                     // WGPUFeatureName_AdapterPropertiesMemoryHeaps
	0x00050017: "dawn:adapter-properties-d3-d",                             // WGPUFeatureName_AdapterPropertiesD3D
	0x00050018: "dawn:adapter-properties-vk",                               // WGPUFeatureName_AdapterPropertiesVk
	0x00050019: "dawn:r8-unorm-storage",                                    // WGPUFeatureName_R8UnormStorage
	0x0005001A: "dawn:format-capabilities",                                 // WGPUFeatureName_FormatCapabilities
	0x0005001B: "dawn:drm-format-capabilities",                             // WGPUFeatureName_DrmFormatCapabilities
	0x0005001C: "dawn:norm16-texture-formats",                              // WGPUFeatureName_Norm16TextureFormats
	0x0005001D: "dawn:multi-planar-format-nv16",                            // WGPUFeatureName_MultiPlanarFormatNv16
	0x0005001E: "dawn:multi-planar-format-nv24",                            // WGPUFeatureName_MultiPlanarFormatNv24
	0x0005001F: "dawn:multi-planar-format-p210",                            // WGPUFeatureName_MultiPlanarFormatP210
	0x00050020: "dawn:multi-planar-format-p410",                            // WGPUFeatureName_MultiPlanarFormatP410
	0x00050021: "dawn:shared-texture-memory-vk-dedicated-allocation",       // WGPUFeatureName_SharedTextureMemoryVkDedicatedAllocation
	0x00050022: "dawn:shared-texture-memory-ahardware-buffer",              // WGPUFeatureName_SharedTextureMemoryAHardwareBuffer
	0x00050023: "dawn:shared-texture-memory-dma-buf",                       // WGPUFeatureName_SharedTextureMemoryDmaBuf
	0x00050024: "dawn:shared-texture-memory-opaque-fd",                     // WGPUFeatureName_SharedTextureMemoryOpaqueFD
	0x00050025: "dawn:shared-texture-memory-zircon-handle",                 // WGPUFeatureName_SharedTextureMemoryZirconHandle
	0x00050026: "dawn:shared-texture-memory-dxgishared-handle",             // WGPUFeatureName_SharedTextureMemoryDXGISharedHandle
	0x00050027: "dawn:shared-texture-memory-d3-d11-texture2-d",             // WGPUFeatureName_SharedTextureMemoryD3D11Texture2D
	0x00050028: "dawn:shared-texture-memory-iosurface",                     // WGPUFeatureName_SharedTextureMemoryIOSurface
	0x00050029: "dawn:shared-texture-memory-eglimage",                      // WGPUFeatureName_SharedTextureMemoryEGLImage
	0x0005002A: "dawn:shared-fence-vk-semaphore-opaque-fd",                 // WGPUFeatureName_SharedFenceVkSemaphoreOpaqueFD
	0x0005002B: "dawn:shared-fence-sync-fd",                                // WGPUFeatureName_SharedFenceSyncFD
	0x0005002C: "dawn:shared-fence-vk-semaphore-zircon-handle",             // WGPUFeatureName_SharedFenceVkSemaphoreZirconHandle
	0x0005002D: "dawn:shared-fence-dxgishared-handle",                      // WGPUFeatureName_SharedFenceDXGISharedHandle
	0x0005002E: "dawn:shared-fence-mtlshared-event",                        // WGPUFeatureName_SharedFenceMTLSharedEvent
	0x0005002F: "dawn:shared-buffer-memory-d3-d12-resource",                // WGPUFeatureName_SharedBufferMemoryD3D12Resource
	0x00050030: "dawn:static-samplers",                                     // WGPUFeatureName_StaticSamplers
	0x00050031: "dawn:ycb-cr-vulkan-samplers",                              // WGPUFeatureName_YCbCrVulkanSamplers
	0x00050032: "dawn:shader-module-compilation-options",                   // WGPUFeatureName_ShaderModuleCompilationOptions
	0x00050033: "dawn:dawn-load-resolve-texture",                           // WGPUFeatureName_DawnLoadResolveTexture
	0x00050034: "dawn:dawn-partial-load-resolve-texture",                   // WGPUFeatureName_DawnPartialLoadResolveTexture
	0x00050035: "dawn:multi-draw-indirect",                                 // WGPUFeatureName_MultiDrawIndirect
	0x00050037: "dawn:dawn-texel-copy-buffer-row-alignment",                // WGPUFeatureName_DawnTexelCopyBufferRowAlignment
	0x00050038: "dawn:flexible-texture-views",                              // WGPUFeatureName_FlexibleTextureViews
	0x00060000: "dawn:subgroups-f16",                                       // WGPUFeatureName_SubgroupsF16
}

// String is the feature's name (featureNames, dawnFeatureNames); a value
// this build's headers do not know (a newer library) is "unknown:0x…", its
// number.
func (f Feature) String() string {
	if s, ok := featureNames[f]; ok {
		return s
	}
	if s, ok := dawnFeatureNames[f]; ok {
		return s
	}
	return fmt.Sprintf("unknown:0x%x", uint32(f))
}
