package wgpu_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// A device lost mid-run (simulated with wgpuDeviceDestroy) makes every
// later call an error wrapping ErrDeviceLost — never a crash or a hang —
// and Release still works after it.
func TestDeviceLostIsAnError(t *testing.T) {
	d := openDevice(t)
	p, err := d.Pipeline("vecadd", vecAdd, "main", wgpu.Constants{"WG": 64})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]float32, 256)
	bufs := []*wgpu.Buffer{upload(t, d, "a", data, 0), upload(t, d, "b", data, 0), upload(t, d, "c", data, 0)}
	bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: bufs[0]}, {Binding: 1, Buffer: bufs[1]}, {Binding: 2, Buffer: bufs[2]}})
	if err != nil {
		t.Fatal(err)
	}
	pass := wgpu.Pass{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 4, Y: 1, Z: 1}}}
	if _, err := d.Submit([]wgpu.Pass{pass}, nil, nil); err != nil {
		t.Fatal(err)
	}
	d.Destroy()
	out := make([]byte, 1024)
	checks := map[string]error{}
	_, checks["Submit"] = d.Submit([]wgpu.Pass{pass}, nil, nil)
	checks["Read"] = d.Read(bufs[2], 0, out)
	checks["Write"] = d.Write(bufs[0], 0, out)
	_, checks["CreateBuffer"] = d.CreateBuffer("x", 1024, wgpu.UsageStorage)
	checks["Wait"] = d.Wait()
	for op, err := range checks {
		if !errors.Is(err, wgpu.ErrDeviceLost) {
			t.Errorf("%s after the device was lost: err = %v, want ErrDeviceLost", op, err)
		}
	}
	bg.Release()
	for _, b := range bufs {
		b.Release()
		b.Release()
	}
	d.Destroy()
	d.Release()
	d.Release()
	if err := d.Write(bufs[0], 0, out); !errors.Is(err, wgpu.ErrReleased) {
		t.Errorf("Write after Release: err = %v, want ErrReleased", err)
	}
}

// Timestamp ticks become nanoseconds by multiplying with the queue's
// period. lavapipe's period is exactly 1 ns, where * and / agree, so only
// fake periods can tell a wrong conversion.
func TestTicksToDuration(t *testing.T) {
	for _, c := range []struct {
		ticks  uint64
		period float64
		want   time.Duration
	}{
		{1000, 2.5, 2500}, {1000, 0.4, 400}, {3, 83.333, 249}, {0, 7, 0}, {1 << 40, 1, 1 << 40},
	} {
		if got := wgpu.TicksToDuration(c.ticks, c.period); got != c.want {
			t.Errorf("%d ticks × %g ns = %v, want %v", c.ticks, c.period, got, c.want)
		}
	}
}

// Adapter selection never falls back to OpenGL silently, and a backend
// this OS cannot have is named as such (not "install Vulkan").
func TestSelectAdapterExplains(t *testing.T) {
	gl := &wgpu.Adapter{Info: wgpu.AdapterInfo{Name: "llvmpipe GL", Backend: wgpu.BackendOpenGL, Type: wgpu.DeviceCPU}}
	vk := &wgpu.Adapter{Info: wgpu.AdapterInfo{Name: "lavapipe", Backend: wgpu.BackendVulkan, Type: wgpu.DeviceCPU}}
	if _, err := wgpu.SelectAdapter([]*wgpu.Adapter{gl}, wgpu.AdapterQuery{Index: -1}); !errors.Is(err, wgpu.ErrNoAdapter) || !strings.Contains(err.Error(), "only an OpenGL adapter") {
		t.Errorf("GL only, any backend: err = %v", err)
	}
	if a, err := wgpu.SelectAdapter([]*wgpu.Adapter{gl}, wgpu.AdapterQuery{Backend: wgpu.BackendOpenGL, Index: -1}); err != nil || a != gl {
		t.Errorf("GL asked for: %v, %v", a, err)
	}
	if a, err := wgpu.SelectAdapter([]*wgpu.Adapter{gl, vk}, wgpu.AdapterQuery{Index: -1}); err != nil || a != vk {
		t.Errorf("GL and Vulkan: picked %v, %v", a, err)
	}
	if runtime.GOOS != "darwin" {
		_, err := wgpu.SelectAdapter(nil, wgpu.AdapterQuery{Backend: wgpu.BackendMetal, Index: -1})
		if err == nil || !strings.Contains(err.Error(), "only on macOS") || strings.Contains(err.Error(), "install") {
			t.Errorf("metal on %s: err = %v", runtime.GOOS, err)
		}
	}
}
