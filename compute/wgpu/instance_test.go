package wgpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// An instance made for one backend is asked for that backend by the
// default query: NewInstance(BackendOpenGL) with SelectAdapter's default
// query picks its OpenGL adapter; where there is none, a query for gl
// says so, never blaming a missing Vulkan, Metal or D3D12 driver, and the
// implementation names its reason (noGLAdapter); a query for another
// backend than the instance's names the mismatch.
func TestInstanceBackendIsTheQuerys(t *testing.T) {
	inst, err := wgpu.NewInstance(wgpu.BackendOpenGL)
	if err != nil {
		t.Skip(err)
	}
	defer inst.Release()
	if inst.Backend() != wgpu.BackendOpenGL {
		t.Fatalf("instance backend %v", inst.Backend())
	}
	adapters, err := inst.Adapters()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, a := range adapters {
			a.Release()
		}
	}()
	a, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Index: -1})
	switch {
	case len(adapters) > 0 && err != nil:
		t.Errorf("GL instance, default query: %v", err)
	case len(adapters) > 0 && a.Info.Backend != wgpu.BackendOpenGL:
		t.Errorf("GL instance picked a %v adapter", a.Info.Backend)
	case len(adapters) == 0 && err == nil:
		t.Errorf("GL instance without adapters: SelectAdapter picked one")
	}
	if len(adapters) == 0 {
		// An empty list does not say which instance it came from: the
		// query names the backend, and the reason is the implementation's.
		noGLAdapter(t, inst)
		return
	}
	_, err = wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Backend: wgpu.BackendVulkan, Index: -1})
	if !errors.Is(err, wgpu.ErrNoAdapter) || !strings.Contains(err.Error(), "instance made for gl") || strings.Contains(err.Error(), "driver is missing") {
		t.Errorf("vulkan asked of a GL instance: %v", err)
	}
}

// The default adapter's reason names the rule that decided it, and
// software adapters are recognised by name whatever type they report.
func TestDefaultReasonAndSoftware(t *testing.T) {
	gpu := &wgpu.Adapter{Index: 0, Info: wgpu.AdapterInfo{Name: "NVIDIA H100", Backend: wgpu.BackendVulkan, Type: wgpu.DeviceDiscreteGPU}}
	lvp := &wgpu.Adapter{Index: 1, Info: wgpu.AdapterInfo{Name: "llvmpipe (LLVM 15)", Backend: wgpu.BackendVulkan, Type: wgpu.DeviceCPU}}
	gl := &wgpu.Adapter{Index: 2, Info: wgpu.AdapterInfo{Name: "llvmpipe (LLVM 15)", Backend: wgpu.BackendOpenGL, Type: wgpu.DeviceCPU}}
	list := []*wgpu.Adapter{lvp, gl, gpu}
	a, err := wgpu.SelectAdapter(list, wgpu.AdapterQuery{Index: -1})
	if err != nil || a != gpu {
		t.Fatalf("picked %v, %v", a, err)
	}
	if why := wgpu.DefaultReason(list, a); !strings.Contains(why, "discrete") || !strings.Contains(why, "[1] cpu") {
		t.Errorf("reason %q", why)
	}
	if why := wgpu.DefaultReason([]*wgpu.Adapter{lvp, gl}, lvp); !strings.Contains(why, "vulkan ranks before [2] gl") {
		t.Errorf("reason %q", why)
	}
	for _, c := range []struct {
		info wgpu.AdapterInfo
		want string
	}{
		{gpu.Info, ""},
		{lvp.Info, "llvmpipe"},
		{wgpu.AdapterInfo{Name: "SwiftShader Device (Subzero)", Type: wgpu.DeviceCPU}, "SwiftShader"},
		{wgpu.AdapterInfo{Name: "Microsoft Basic Render Driver", Type: wgpu.DeviceCPU}, "WARP"},
		{wgpu.AdapterInfo{Name: "Some CPU device", Type: wgpu.DeviceCPU}, "a CPU implementation"},
	} {
		if got := c.info.Software(); got != c.want {
			t.Errorf("%q: Software() = %q, want %q", c.info.Name, got, c.want)
		}
	}
}
