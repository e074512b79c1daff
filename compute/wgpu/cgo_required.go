//go:build !cgo

package wgpu

// The binding calls webgpu.h through cgo: without cgo (CGO_ENABLED=0, or
// a cross build without a C cross compiler) the package cannot build, and
// this is the first error the build names.
var _ = wgpuBindingNeedsCgo_buildWithCGO_ENABLED1AndACCompiler
