package wgpu_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// tinyKernel writes seed + i to element i of out (64 invocations).
const tinyKernel = `
struct Params { seed: f32, }
@group(0) @binding(0) var<uniform> p: Params;
// out: [64] f32
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	out[g.x] = p.seed + f32(g.x);
}
`

type tiny struct {
	d          *wgpu.Device
	params     *wgpu.Buffer
	out, other *wgpu.Buffer
	pass       wgpu.Pass
}

func newTiny(t testing.TB, d *wgpu.Device, k int) *tiny {
	t.Helper()
	p, err := d.Pipeline("tiny", tinyKernel, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	x := &tiny{d: d}
	if x.params, err = d.CreateBuffer("tiny params", 16, wgpu.UsageUniform|wgpu.UsageCopyDst); err != nil {
		t.Fatal(err)
	}
	if x.out, err = d.CreateBuffer("tiny out", 256, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		t.Fatal(err)
	}
	if x.other, err = d.CreateBuffer("tiny other", 256, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst); err != nil {
		t.Fatal(err)
	}
	bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: x.params, Size: 16}, {Binding: 1, Buffer: x.out}})
	if err != nil {
		t.Fatal(err)
	}
	for range k {
		x.pass.Dispatches = append(x.pass.Dispatches, wgpu.Dispatch{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 1, Y: 1, Z: 1})
	}
	t.Cleanup(func() { bg.Release(); x.params.Release(); x.out.Release(); x.other.Release() })
	return x
}

func (x *tiny) write(seed float32) error {
	var blk [16]byte
	binary.LittleEndian.PutUint32(blk[:], math.Float32bits(seed))
	return x.d.Write(x.params, 0, blk[:])
}

// call is the tiny call: write the seed, one submit of the dispatches and
// the readback copy, one wait, and a check of the 4 bytes read back.
func (x *tiny) call(seed float32, got []float32) error {
	if err := x.write(seed); err != nil {
		return err
	}
	if _, err := x.d.Run(wgpu.Call{Passes: []wgpu.Pass{x.pass}, Reads: []wgpu.Readback{{Src: x.out, Dst: wgpu.Bytes(got)}}}); err != nil {
		return err
	}
	if got[0] != seed {
		return fmt.Errorf("read back %v, want %v", got[0], seed)
	}
	return nil
}

// Run records the passes, copies and several readbacks (with a timer) in
// one submission: every readback sees the work before it, the copy lands
// before the readback of its destination, and the pass is timed.
func TestRunReadsBackInOneSubmit(t *testing.T) {
	d := openDevice(t)
	x := newTiny(t, d, 3)
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		var err error
		if timer, err = d.NewTimer(1); err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
	}
	r := rand.New(rand.NewPCG(7, 44))
	for i := range 5 {
		seed := float32(r.IntN(1000) + 1)
		if err := x.write(seed); err != nil {
			t.Fatal(err)
		}
		// Poison what is read back, and the copy's destination.
		a, b, c := make([]float32, 64), make([]float32, 8), make([]float32, 64)
		for j := range a {
			a[j], c[j] = float32(math.NaN()), float32(math.NaN())
		}
		for j := range b {
			b[j] = float32(math.NaN())
		}
		if err := d.Write(x.other, 0, wgpu.Bytes(c)); err != nil {
			t.Fatal(err)
		}
		before := wgpu.SubmitCount()
		times, err := d.Run(wgpu.Call{
			Passes: []wgpu.Pass{x.pass},
			Copies: []wgpu.Copy{{Src: x.out, Dst: x.other, Size: 256}},
			Reads:  []wgpu.Readback{{Src: x.out, Dst: wgpu.Bytes(a)}, {Src: x.out, Offset: 32, Dst: wgpu.Bytes(b)}, {Src: x.other, Dst: wgpu.Bytes(c)}},
			Timer:  timer,
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := wgpu.SubmitCount() - before; n != 1 {
			t.Errorf("call %d: %d queue submissions, want 1 (the passes, copies, readbacks and timer in one)", i, n)
		}
		for j := range 64 {
			if want := seed + float32(j); a[j] != want || c[j] != want {
				t.Fatalf("call %d: element %d read back %v and (copied) %v, want %v", i, j, a[j], c[j], want)
			}
		}
		for j := range b {
			if want := seed + float32(8+j); b[j] != want {
				t.Fatalf("call %d: offset read element %d = %v, want %v", i, j, b[j], want)
			}
		}
		if timer != nil && i > 0 {
			if len(times) != 1 || !times[0].Valid {
				t.Errorf("call %d: pass times %+v, want one valid", i, times)
			}
		}
	}
}

// A readback past its buffer or of a released buffer is refused before
// anything is recorded.
func TestRunRefusesBadReadbacks(t *testing.T) {
	d := openDevice(t)
	x := newTiny(t, d, 1)
	if _, err := d.Run(wgpu.Call{Reads: []wgpu.Readback{{Src: x.out, Offset: 252, Dst: make([]byte, 8)}}}); err == nil {
		t.Error("a readback past the buffer's end was accepted")
	}
	if _, err := d.Run(wgpu.Call{Reads: []wgpu.Readback{{Src: x.out, Dst: make([]byte, 6)}}}); err == nil {
		t.Error("a 6-byte readback was accepted")
	}
	b, err := d.CreateBuffer("gone", 16, wgpu.UsageCopySrc)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if _, err := d.Run(wgpu.Call{Reads: []wgpu.Readback{{Src: b, Dst: make([]byte, 4)}}}); !errors.Is(err, wgpu.ErrReleased) {
		t.Errorf("a readback of a released buffer: err = %v, want ErrReleased", err)
	}
	// The device still works.
	if err := x.call(3, make([]float32, 1)); err != nil {
		t.Fatal(err)
	}
}

// Every wait mode gives the same, checked result.
func TestWaitModes(t *testing.T) {
	d := openDevice(t)
	x := newTiny(t, d, 2)
	got := make([]float32, 1)
	for _, m := range []wgpu.WaitMode{wgpu.WaitAuto, wgpu.WaitSpinThenBlock, wgpu.WaitBlockHelper, wgpu.WaitBlockCaller, wgpu.WaitBlockLocked} {
		d.SetWaitMode(m)
		for i := range 3 {
			if err := x.call(float32(10*int(m)+i+1), got); err != nil {
				t.Fatalf("wait mode %d: %v", m, err)
			}
		}
	}
	d.SetWaitMode(wgpu.WaitAuto)
}

// BenchmarkWaitModes times the tiny call (write 16 bytes, K dispatches
// and a 4-byte readback in one submit, one wait) with each way of
// waiting; WaitAuto must be as fast as the fastest. bench/_tinycall makes
// the same comparison interleaved with a C peer.
func BenchmarkWaitModes(b *testing.B) {
	d := openDevice(b)
	for _, k := range []int{1, 16} {
		x := newTiny(b, d, k)
		got := make([]float32, 1)
		for _, m := range []struct {
			name string
			mode wgpu.WaitMode
		}{{"auto", wgpu.WaitAuto}, {"spin-then-block", wgpu.WaitSpinThenBlock}, {"block-helper", wgpu.WaitBlockHelper}, {"block-caller", wgpu.WaitBlockCaller}, {"block-locked", wgpu.WaitBlockLocked}} {
			b.Run(fmt.Sprintf("K=%d/%s", k, m.name), func(b *testing.B) {
				d.SetWaitMode(m.mode)
				defer d.SetWaitMode(wgpu.WaitAuto)
				for i := 0; b.Loop(); i++ {
					if err := x.call(float32(i%1000+1), got); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
