// Package sidebyside runs a command once per WebGPU implementation
// (wgpu-native, Dawn) or per backend (Vulkan, GL, ...) and merges the
// runs into one report, side by side.
package sidebyside
