package wgpu_test

import (
	"encoding/binary"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// loopProbe counts the iterations of two loops run one after the other in
// one invocation.
const loopProbe = `
struct Params {
	a: u32, // iterations of the first loop
	b: u32, // iterations of the second loop
}
@group(0) @binding(0) var<uniform> p: Params;
// out: [2] u32, the iterations each loop ran
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
	var n = 0u;
	for (var i = 0u; i < p.a; i++) { n += 1u; }
	out[0] = n;
	var m = 0u;
	for (var i = 0u; i < p.b; i++) { m += 1u; }
	out[1] = m;
}
`

// Device.LoopBudget models the adapter: within the budget every loop runs
// to the end; past it (where the adapter has one) the loops of an
// invocation are cut short, counted over all of them together. If a driver
// update lifts the limit, this test says so.
func TestLoopBudget(t *testing.T) {
	d := openDevice(t)
	budget := d.LoopBudget()
	t.Logf("%s: loop budget %d", d.Info.Name, budget)
	run := func(a, b uint32) [2]uint32 {
		t.Helper()
		pl, err := d.Pipeline("loop_probe", loopProbe, "main", nil)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := d.CreateBuffer("params", 16, wgpu.UsageUniform|wgpu.UsageCopyDst)
		if err != nil {
			t.Fatal(err)
		}
		defer pb.Release()
		var blk [16]byte
		binary.LittleEndian.PutUint32(blk[0:], a)
		binary.LittleEndian.PutUint32(blk[4:], b)
		if err := d.Write(pb, 0, blk[:]); err != nil {
			t.Fatal(err)
		}
		ob, err := d.CreateBuffer("out", 8, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst)
		if err != nil {
			t.Fatal(err)
		}
		defer ob.Release()
		if err := d.Write(ob, 0, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}); err != nil {
			t.Fatal(err)
		}
		bg, err := d.CreateBindGroup(pl, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: pb}, {Binding: 1, Buffer: ob}})
		if err != nil {
			t.Fatal(err)
		}
		defer bg.Release()
		if _, err := d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: pl, BindGroups: []*wgpu.BindGroup{bg}, X: 1, Y: 1, Z: 1}}}}, nil, nil); err != nil {
			t.Fatal(err)
		}
		var got [2]uint32
		if err := d.Read(ob, 0, wgpu.Bytes(got[:])); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if budget == 0 {
		if got := run(200_000, 200_000); got != [2]uint32{200_000, 200_000} {
			t.Fatalf("no loop budget assumed, but loops of 200,000 iterations ran %v", got)
		}
		return
	}
	// Each loop run costs its iterations + 1.
	half := uint32(budget/2) - 1
	if got := run(half, half); got != [2]uint32{half, half} {
		t.Errorf("within the budget: loops of %d and %d iterations ran %v", half, half, got)
	}
	got := run(uint32(budget)+1000, 0)
	if got[0] == uint32(budget)+1000 {
		t.Fatalf("%s ran %d iterations in one loop: the loop budget of %d is gone; update LoopBudget", d.Info.Name, got[0], budget)
	}
	if got[0] != uint32(budget)-1 {
		t.Errorf("one loop of %d iterations ran %d, want it cut at the budget − 1 = %d", budget+1000, got[0], budget-1)
	}
	// The budget is shared: the second loop gets what the first left.
	if got, want := run(40_000, 40_000), [2]uint32{40_000, uint32(budget) - 40_001 - 1}; got != want {
		t.Errorf("loops of 40,000 and 40,000 ran %v, want %v", got, want)
	}
}
