package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"strings"
	"unsafe"
)

// DeviceType is the kind of adapter.
type DeviceType int

const (
	DeviceUnknown DeviceType = iota
	DeviceDiscreteGPU
	DeviceIntegratedGPU
	DeviceCPU
)

func (t DeviceType) String() string {
	switch t {
	case DeviceDiscreteGPU:
		return "discrete-gpu"
	case DeviceIntegratedGPU:
		return "integrated-gpu"
	case DeviceCPU:
		return "cpu"
	}
	return "unknown"
}

func (t DeviceType) rank() int {
	switch t {
	case DeviceDiscreteGPU:
		return 0
	case DeviceIntegratedGPU:
		return 1
	case DeviceUnknown:
		return 2
	}
	return 3
}

// AdapterInfo describes an adapter.
type AdapterInfo struct {
	Name         string     `json:"name"`
	Vendor       string     `json:"vendor"`
	Architecture string     `json:"architecture,omitempty"`
	Driver       string     `json:"driver"`
	VendorID     uint32     `json:"vendor_id"`
	DeviceID     uint32     `json:"device_id"`
	Backend      Backend    `json:"-"`
	Type         DeviceType `json:"-"`
	SubgroupMin  uint32     `json:"subgroup_min_size,omitempty"`
	SubgroupMax  uint32     `json:"subgroup_max_size,omitempty"`
}

// Limits holds the adapter or device limits that matter for compute.
type Limits struct {
	MaxStorageBufferBindingSize       uint64 `json:"max_storage_buffer_binding_size"`
	MaxBufferSize                     uint64 `json:"max_buffer_size"`
	MaxUniformBufferBindingSize       uint64 `json:"max_uniform_buffer_binding_size"`
	MaxComputeWorkgroupSizeX          uint32 `json:"max_compute_workgroup_size_x"`
	MaxComputeWorkgroupSizeY          uint32 `json:"max_compute_workgroup_size_y"`
	MaxComputeWorkgroupSizeZ          uint32 `json:"max_compute_workgroup_size_z"`
	MaxComputeInvocationsPerWorkgroup uint32 `json:"max_compute_invocations_per_workgroup"`
	MaxComputeWorkgroupStorageSize    uint32 `json:"max_compute_workgroup_storage_size"`
	MaxComputeWorkgroupsPerDimension  uint32 `json:"max_compute_workgroups_per_dimension"`
	MaxStorageBuffersPerShaderStage   uint32 `json:"max_storage_buffers_per_shader_stage"`
	MaxBindGroups                     uint32 `json:"max_bind_groups"`
	MinStorageBufferOffsetAlignment   uint32 `json:"min_storage_buffer_offset_alignment"`
}

func limitsFromC(l *C.WGPULimits) Limits {
	return Limits{
		MaxStorageBufferBindingSize:       uint64(l.maxStorageBufferBindingSize),
		MaxBufferSize:                     uint64(l.maxBufferSize),
		MaxUniformBufferBindingSize:       uint64(l.maxUniformBufferBindingSize),
		MaxComputeWorkgroupSizeX:          uint32(l.maxComputeWorkgroupSizeX),
		MaxComputeWorkgroupSizeY:          uint32(l.maxComputeWorkgroupSizeY),
		MaxComputeWorkgroupSizeZ:          uint32(l.maxComputeWorkgroupSizeZ),
		MaxComputeInvocationsPerWorkgroup: uint32(l.maxComputeInvocationsPerWorkgroup),
		MaxComputeWorkgroupStorageSize:    uint32(l.maxComputeWorkgroupStorageSize),
		MaxComputeWorkgroupsPerDimension:  uint32(l.maxComputeWorkgroupsPerDimension),
		MaxStorageBuffersPerShaderStage:   uint32(l.maxStorageBuffersPerShaderStage),
		MaxBindGroups:                     uint32(l.maxBindGroups),
		MinStorageBufferOffsetAlignment:   uint32(l.minStorageBufferOffsetAlignment),
	}
}

// Feature is an optional WebGPU (or wgpu-native) capability.
type Feature uint32

// Features the tool uses or reports.
const (
	FeatureTimestampQuery Feature = C.WGPUFeatureName_TimestampQuery
	FeatureShaderF16      Feature = C.WGPUFeatureName_ShaderF16
	FeatureSubgroups      Feature = C.WGPUFeatureName_Subgroups
	// FeatureNativeSubgroup is wgpu-native's subgroup operations feature
	// (adapters such as lavapipe expose it without the standard one).
	FeatureNativeSubgroup             Feature = C.WGPUNativeFeature_Subgroup
	FeatureTimestampQueryInsidePasses Feature = C.WGPUNativeFeature_TimestampQueryInsidePasses
	FeatureTimestampQueryInsideEnc    Feature = C.WGPUNativeFeature_TimestampQueryInsideEncoders
	FeatureShaderF64                  Feature = C.WGPUNativeFeature_ShaderF64
	FeaturePipelineStatisticsQuery    Feature = C.WGPUNativeFeature_PipelineStatisticsQuery
)

// Adapter is a physical device (or a software one such as lavapipe) seen
// through one backend.
type Adapter struct {
	c        C.WGPUAdapter
	inst     *Instance
	Index    int
	Info     AdapterInfo
	Limits   Limits
	Features []Feature
	cLimits  C.WGPULimits
}

func newAdapter(inst *Instance, c C.WGPUAdapter, index int) (*Adapter, error) {
	a := &Adapter{c: c, inst: inst, Index: index}
	var info C.WGPUAdapterInfo
	if C.wgpuAdapterGetInfo(c, &info) != C.WGPUStatus_Success {
		C.wgpuAdapterRelease(c)
		return nil, fmt.Errorf("wgpu: Adapters: AdapterGetInfo failed for adapter %d", index)
	}
	a.Info = AdapterInfo{
		Name:         svString(info.device),
		Vendor:       svString(info.vendor),
		Architecture: svString(info.architecture),
		Driver:       svString(info.description),
		VendorID:     uint32(info.vendorID),
		DeviceID:     uint32(info.deviceID),
		Backend:      backendFromC(info.backendType),
		SubgroupMin:  uint32(info.subgroupMinSize),
		SubgroupMax:  uint32(info.subgroupMaxSize),
	}
	switch info.adapterType {
	case C.WGPUAdapterType_DiscreteGPU:
		a.Info.Type = DeviceDiscreteGPU
	case C.WGPUAdapterType_IntegratedGPU:
		a.Info.Type = DeviceIntegratedGPU
	case C.WGPUAdapterType_CPU:
		a.Info.Type = DeviceCPU
	}
	C.wgpuAdapterInfoFreeMembers(info)
	if C.wgpuAdapterGetLimits(c, &a.cLimits) != C.WGPUStatus_Success {
		C.wgpuAdapterRelease(c)
		return nil, fmt.Errorf("wgpu: Adapters: AdapterGetLimits failed for adapter %d (%s)", index, a.Info.Name)
	}
	a.cLimits.nextInChain = nil
	a.Limits = limitsFromC(&a.cLimits)
	var feats C.WGPUSupportedFeatures
	C.wgpuAdapterGetFeatures(c, &feats)
	for _, f := range unsafe.Slice(feats.features, int(feats.featureCount)) {
		a.Features = append(a.Features, Feature(f))
	}
	C.wgpuSupportedFeaturesFreeMembers(feats)
	sort.Slice(a.Features, func(i, j int) bool { return a.Features[i] < a.Features[j] })
	return a, nil
}

// HasFeature reports whether the adapter offers f.
func (a *Adapter) HasFeature(f Feature) bool {
	if a == nil {
		return false
	}
	for _, g := range a.Features {
		if g == f {
			return true
		}
	}
	return false
}

// Release frees the adapter; idempotent.
func (a *Adapter) Release() {
	if a == nil || a.c == nil {
		return
	}
	C.wgpuAdapterRelease(a.c)
	a.c = nil
}

// softwareNames are substrings of the names of adapters that implement
// the GPU API in software on the CPU: Mesa's llvmpipe (its Vulkan driver
// is lavapipe), Google's SwiftShader and Microsoft's WARP (the "Microsoft
// Basic Render Driver").
var softwareNames = []string{"llvmpipe", "lavapipe", "swiftshader", "microsoft basic render driver", "warp"}

// Software names the software implementation the adapter is ("llvmpipe",
// "SwiftShader", …), "" for a hardware GPU. An adapter of type cpu that is
// none of the known ones is "a CPU implementation".
func (i AdapterInfo) Software() string {
	name := strings.ToLower(i.Name + " " + i.Driver)
	for _, s := range softwareNames {
		if strings.Contains(name, s) {
			switch s {
			case "swiftshader":
				return "SwiftShader"
			case "microsoft basic render driver", "warp":
				return "WARP"
			}
			return s
		}
	}
	if i.Type == DeviceCPU {
		return "a CPU implementation"
	}
	return ""
}
