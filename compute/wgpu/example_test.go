package wgpu_test

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// ScanWGSL reads what a caller needs to bind and dispatch a shader it did
// not write, without a GPU: the resource bindings, the compute entry points
// and the override constants with their defaults.
func ExampleScanWGSL() {
	const saxpy = `
override WG: u32 = 64;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&y)) { y[id.x] = 2.0 * x[id.x] + y[id.x]; }
}
`
	info, err := wgpu.ScanWGSL(saxpy)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range info.Bindings {
		fmt.Printf("@group(%d) @binding(%d) %s: %s %s %s\n", b.Group, b.Binding, b.Name, b.Space, b.Access, b.Type)
	}
	fmt.Println("entries:", info.Entries)
	fmt.Println("WG defaults to", info.Overrides["WG"])
	groups, err := info.EvalInt("(1000000 + WG - 1) / WG", map[string]int64{"WG": 256})
	fmt.Println("workgroups for 1e6 elements at WG=256:", groups, err)
	// Output:
	// @group(0) @binding(0) x: storage read array<f32>
	// @group(0) @binding(1) y: storage read_write array<f32>
	// entries: [main]
	// WG defaults to 64
	// workgroups for 1e6 elements at WG=256: 3907 <nil>
}
