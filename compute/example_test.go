package compute_test

import (
	"context"
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
	dev, err := compute.Open(context.Background(), compute.Options{Device: wgpu.DeviceOptions{WaitTimeout: time.Minute}})
	if err != nil {
		fmt.Println(err) // e.g. libwgpu_native not found: run scripts/setup.sh
		return
	}
	defer dev.Release()
	d := dev.Device

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
	t, err := k.Run(dev.Timer) // Timer is nil without working timestamps: host clock only
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

// Open the default adapter in one call and see what it is: the device is
// ready for the runners of this package, with a Timer when timestamps work.
func ExampleOpen() {
	dev, err := compute.Open(context.Background(), compute.Options{})
	if err != nil {
		fmt.Println(err) // no adapter, or wgpu-native not installed
		return
	}
	defer dev.Release()
	fmt.Println("device ready:", dev.Device != nil)
	fmt.Println("timer iff timestamps work:", (dev.Timer != nil) == dev.Timestamps.OK)
	// Output:
	// device ready: true
	// timer iff timestamps work: true
}
