package compute_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

const twoGroups = `
override WG: u32 = 32;
// a: [N] f32 input; idx: [N] u32 in [0, N)
@group(0) @binding(3) var<storage, read> a: array<vec4<f32>>;
@group(1) @binding(0) var<storage, read> idx: array<u32>;
@group(1) @binding(2) var<storage, read_write> out: array<f32>;
@group(2) @binding(0) var<storage, read_write> unused: array<f32>;
@group(0) @binding(0) var<uniform> u: vec4<f32>;

fn pick(i: u32) -> f32 { return a[idx[i] / 4u][idx[i] % 4u]; }

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < arrayLength(&out)) { out[gid.x] = pick(gid.x); }
}

@compute @workgroup_size(1)
fn other() { unused[0] = u.x; }
`

func TestScanWGSL(t *testing.T) {
	info, err := wgpu.ScanWGSL(twoGroups)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range info.Bindings {
		s, w, _ := b.Scalar()
		got = append(got, strings.Join([]string{b.Name, b.Space, b.Access, s}, ":")+string(rune('0'+w)))
	}
	want := "u:uniform::0 a:storage:read:f324 idx:storage:read:u321 out:storage:read_write:f321 unused:storage:read_write:f321"
	if strings.Join(got, " ") != want {
		t.Fatalf("bindings %v, want %s", got, want)
	}
	if strings.Join(info.Entries, ",") != "main,other" {
		t.Fatalf("entries %v", info.Entries)
	}
	if !info.Uses("main", "a") || !info.Uses("main", "idx") || info.Uses("main", "unused") || info.Uses("main", "u") {
		t.Fatal("main reaches a and idx through pick(), and neither unused nor u")
	}
	if v, err := info.EvalInt("4096/WG", map[string]int64{"WG": 64}); err != nil || v != 64 {
		t.Fatalf("EvalInt = %d, %v", v, err)
	}
	if v, err := info.EvalInt("4096/WG", nil); err != nil || v != 128 {
		t.Fatalf("EvalInt with the default WG = %d, %v", v, err)
	}
	if _, err := wgpu.ScanWGSL("@group(0) @binding(0) var<storage> a: array<f32>;\n@group(0) @binding(0) var<storage> b: array<f32>;"); err == nil {
		t.Fatal("two variables at one binding were accepted")
	}
}

// Two bind groups, a gather through idx (rand: valid indices), group 2
// and the uniform unused by main: the kernel runs and reads back what
// the host computes.
func TestUserKernelGather(t *testing.T) {
	d := openDevice(t)
	const n = 1000
	k, err := compute.NewUserKernel(d, compute.UserKernelOptions{
		Source: twoGroups, Entry: "main", Dispatch: [3]uint32{(n + 31) / 32},
		Buffers: []compute.BufferSpec{{Name: "a", Type: "f32", Count: n, Init: "iota"}, {Name: "idx", Type: "u32", Count: n, Init: "rand"}, {Name: "out", Type: "f32", Count: n}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if err := k.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(nil); err != nil {
		t.Fatal(err)
	}
	idx, _ := k.Read("idx")
	out, _ := k.Read("out")
	for i := 0; i < n; i++ {
		id := uint32(idx[4*i]) | uint32(idx[4*i+1])<<8 | uint32(idx[4*i+2])<<16 | uint32(idx[4*i+3])<<24
		got := math.Float32frombits(uint32(out[4*i]) | uint32(out[4*i+1])<<8 | uint32(out[4*i+2])<<16 | uint32(out[4*i+3])<<24)
		if id >= n || got != float32(id) {
			t.Fatalf("out[%d] = %v, idx %d", i, got, id)
		}
	}
	k.Release()
	if _, err := k.Run(nil); err == nil {
		t.Fatal("Run after Release did not fail")
	}
}

func TestUserKernelRefusesNaN(t *testing.T) {
	d := openDevice(t)
	const src = `@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { let z = y[g.x]; y[g.x] = z / z; }`
	k, err := compute.NewUserKernel(d, compute.UserKernelOptions{Source: src, Dispatch: [3]uint32{1}, Buffers: []compute.BufferSpec{{Name: "y", Type: "f32", Count: 64}}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if err := k.Check(); !errors.Is(err, compute.ErrVerify) {
		t.Fatalf("0/0 passed the check: %v", err)
	}
}

// On an adapter with a loop budget (lavapipe) a user kernel's declared
// loop bound is checked as the built-in kernels' are, and a shader with
// loops and no declared bound is flagged (LoopRisk): a loop the driver
// cut short gives repeatable, finite, wrong output.
func TestUserKernelLoopBudget(t *testing.T) {
	d := openDevice(t)
	src := `@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(1) fn main() {
	var s = 0.0;
	for (var i = 0u; i < 100000u; i++) { s += 1.0; }
	y[0] = s;
}`
	noLoop := `@group(0) @binding(0) var<storage, read_write> y: array<f32>;
// a comment that says for (;;) and loop and while
@compute @workgroup_size(1) fn main() { y[0] = 1.0; }`
	opts := func(src string, iters uint64) compute.UserKernelOptions {
		return compute.UserKernelOptions{Source: src, Dispatch: [3]uint32{1}, LoopIterations: iters,
			Buffers: []compute.BufferSpec{{Name: "y", Type: "f32", Count: 4}}}
	}
	budget := d.LoopBudget()
	k, err := compute.NewUserKernel(d, opts(src, 0))
	if err != nil {
		t.Fatal(err)
	}
	if (k.LoopRisk != "") != (budget > 0) {
		t.Errorf("loops, no bound, adapter budget %d: LoopRisk %q", budget, k.LoopRisk)
	}
	k.Release()
	k, err = compute.NewUserKernel(d, opts(noLoop, 0))
	if err != nil {
		t.Fatal(err)
	}
	if k.LoopRisk != "" {
		t.Errorf("no loops (only in a comment): LoopRisk %q", k.LoopRisk)
	}
	k.Release()
	if budget == 0 {
		t.Skip("adapter has no loop budget")
	}
	if _, err := compute.NewUserKernel(d, opts(src, 100001)); !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), "loop-iterations") {
		t.Errorf("a declared bound past the budget: err = %v, want ErrLimit naming loop-iterations", err)
	}
	k, err = compute.NewUserKernel(d, opts(src, budget))
	if err != nil {
		t.Fatalf("a declared bound within the budget: %v", err)
	}
	if k.LoopRisk != "" {
		t.Errorf("declared bound: LoopRisk %q", k.LoopRisk)
	}
	k.Release()
}
