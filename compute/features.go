package compute

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// HasFeature reports whether d has the optional feature named as in
// wgsl.Needs ("subgroups", "shader-f16"). Subgroups count when either the
// standard feature or wgpu-native's own is present (adapters such as
// lavapipe expose only the latter).
func HasFeature(d *wgpu.Device, feature string) bool {
	switch feature {
	case wgsl.FeatureSubgroups:
		return d.HasFeature(wgpu.FeatureSubgroups) || d.HasFeature(wgpu.FeatureNativeSubgroup)
	case wgsl.FeatureSubgroupID:
		return d.Impl() != wgpu.ImplDawn && (d.HasFeature(wgpu.FeatureSubgroups) || d.HasFeature(wgpu.FeatureNativeSubgroup))
	case wgsl.FeatureShaderF16:
		return d.HasFeature(wgpu.FeatureShaderF16)
	}
	return false
}

// checkNeeds returns an error wrapping ErrUnsupported, naming the shader,
// the missing features and the adapter, when d lacks a feature shader
// needs; nil when it has them all. Runners call it before compiling, so a
// design the adapter cannot run is reported as unsupported, never as a
// compile error or a wrong result.
func checkNeeds(d *wgpu.Device, shader string) error {
	var missing []string
	for _, f := range wgsl.Needs(shader) {
		if !HasFeature(d, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s needs %s, which %s (%s) lacks: %w", shader, strings.Join(missing, " and "), d.Info.Name, d.Info.Backend, ErrUnsupported)
}
