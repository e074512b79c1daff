package compute_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// Time a compute shader of your own with GPU timestamps: buffers are
// declared by their WGSL names, the result is checked for repeatability
// and read back, and each Run reports the pass's kernel time and the host
// time around it.
func ExampleUserKernel() {
	const saxpy = `
override WG: u32 = 64;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < arrayLength(&y)) { y[gid.x] = 2.0 * x[gid.x] + y[gid.x]; }
}`
	inst, err := wgpu.NewInstance(wgpu.BackendUndefined)
	if err != nil {
		fmt.Println(err) // e.g. libwgpu_native not found: run scripts/setup.sh
		return
	}
	defer inst.Release()
	adapters, err := inst.Adapters()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		for _, a := range adapters {
			a.Release()
		}
	}()
	a, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Index: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := a.RequestDevice(wgpu.DeviceOptions{WaitTimeout: time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()

	const n = 1 << 16
	k, err := compute.NewUserKernel(d, compute.UserKernelOptions{
		Source:   saxpy,
		Buffers:  []compute.BufferSpec{{Name: "x", Type: "f32", Count: n, Init: "iota"}, {Name: "y", Type: "f32", Count: n, Init: "zero"}},
		Dispatch: [3]uint32{n / 64},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Release()
	if err := k.Check(); err != nil { // twice from the same inputs: bit-identical and finite
		fmt.Println(err)
		return
	}
	timer, err := d.NewTimer(1) // nil when the adapter has no timestamps: host clock only
	if err != nil {
		timer = nil
	}
	defer timer.Release()
	t, err := k.Run(timer)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, _ := k.Read("y")
	last := math.Float32frombits(binary.LittleEndian.Uint32(y[4*(n-1):]))
	fmt.Printf("y[%d] = %v\n", n-1, last)
	fmt.Println("host time measured:", t.EndToEnd > 0)
	fmt.Println("kernel time within host time:", !t.KernelValid || t.Kernel <= t.EndToEnd)
	// Output:
	// y[65535] = 131070
	// host time measured: true
	// kernel time within host time: true
}
