package wgpu_test

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// FuzzScanWGSL: the WGSL scanner and its expression evaluator never panic
// on any text.
func FuzzScanWGSL(f *testing.F) {
	f.Add(`override WG: u32 = 64;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
var<workgroup> tile: array<f32, WG * 4u>;
@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = vec4(x[g.x]); }`, "4194304/WG")
	f.Add(`@compute @workgroup_size(1,1,1) fn a() {} @compute @workgroup_size(2) fn b() {}`, "(1+2)*3-4")
	f.Add(`/* unterminated`, "1/0")
	f.Add(`struct S { a: f32, b: array<u32, 3> } @group(0) @binding(0) var<storage> s: S;`, "-9223372036854775808/-1")
	f.Fuzz(func(t *testing.T, src, expr string) {
		info, err := wgpu.ScanWGSL(src)
		if err != nil || info == nil {
			return
		}
		info.EvalInt(expr, map[string]int64{"WG": 64})
		for _, e := range info.Entries {
			for _, b := range info.Bindings {
				info.Uses(e, b.Name)
				b.Scalar()
			}
		}
	})
}
