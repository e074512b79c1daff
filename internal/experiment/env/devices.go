package env

import (
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// DeviceReport describes one adapter for wgpu-prof devices.
type DeviceReport struct {
	Index      int                 `json:"index"`
	Name       string              `json:"name"`
	Vendor     string              `json:"vendor"`
	VendorID   string              `json:"vendor_id"`
	DeviceID   string              `json:"device_id"`
	Backend    string              `json:"backend"`
	DeviceType string              `json:"device_type"`
	Driver     string              `json:"driver"`
	Features   []string            `json:"features"`
	Limits     wgpu.Limits         `json:"limits"`
	Timestamps wgpu.TimestampProbe `json:"timestamps"`
	Error      string              `json:"error,omitempty"`
	// Default is true for the adapter a run without --adapter or
	// --adapter-name picks (with the same --backend), DefaultReason why.
	Default       bool   `json:"default"`
	DefaultReason string `json:"default_reason,omitempty"`
	// Software names the CPU implementation of the GPU API the adapter is
	// (llvmpipe, SwiftShader, WARP, …); "" for a hardware GPU.
	Software string `json:"software,omitempty"`
	// Browser is what a browser says of the adapter beyond the fields
	// above (--impl browser); nil for the other implementations.
	Browser *BrowserAdapter `json:"browser,omitempty"`
}

// DevicesReport is every adapter of one backend.
type DevicesReport struct {
	Tool              string `json:"tool"`
	WgpuNativeVersion string `json:"wgpu_native_version"`
	// Implementation is the WebGPU implementation listed ("wgpu-native",
	// "dawn") and ImplementationVersion its version.
	Implementation        string         `json:"implementation"`
	ImplementationVersion string         `json:"implementation_version"`
	Adapters              []DeviceReport `json:"adapters"`
	// NoDefault says why a plain run would pick none of them ("" when it
	// picks one).
	NoDefault string `json:"no_default,omitempty"`
	// Browser is the browser the adapters were found through (--impl
	// browser, BrowserDevices); nil for the other implementations.
	Browser *BrowserReport `json:"browser,omitempty"`
}

// Devices lists every adapter of backend ("any" for all) with its limits
// and features, and probes each one's timestamps with a tiny dispatch.
func Devices(backend, tool string) (DevicesReport, error) {
	return DevicesOf("", backend, tool)
}

// DevicesOf is Devices through implementation impl ("wgpu-native", "dawn";
// "": the default).
func DevicesOf(impl, backend, tool string) (DevicesReport, error) {
	b, err := wgpu.ParseBackend(backend)
	if err != nil {
		return DevicesReport{}, err
	}
	im := wgpu.ImplDefault
	if impl != "" {
		if im, err = wgpu.ParseImpl(impl); err != nil {
			return DevicesReport{}, Usage(fmt.Errorf("--impl %q: %w", impl, err))
		}
	}
	inst, err := wgpu.NewInstanceImpl(im, b)
	if err != nil {
		return DevicesReport{}, err
	}
	defer inst.Release()
	adapters, err := inst.Adapters()
	if err != nil {
		return DevicesReport{}, err
	}
	defer func() {
		for _, a := range adapters {
			a.Release()
		}
	}()
	if len(adapters) == 0 {
		_, err := wgpu.SelectAdapter(nil, wgpu.AdapterQuery{Backend: b, Index: -1})
		if hint := inst.Impl().NoAdapterHint(b); hint != "" {
			err = fmt.Errorf("wgpu: %w: %s", wgpu.ErrNoAdapter, hint)
		}
		return DevicesReport{}, err
	}
	out := DevicesReport{Tool: tool, WgpuNativeVersion: wgpu.Version(),
		Implementation: inst.Impl().String(), ImplementationVersion: wgpu.ImplVersionString(inst.Impl())}
	def, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Backend: b, Index: -1})
	if err != nil {
		out.NoDefault = err.Error()
	}
	for _, a := range adapters {
		r := describeAdapter(a)
		if a == def {
			r.Default, r.DefaultReason = true, wgpu.DefaultReason(adapters, a)
		}
		out.Adapters = append(out.Adapters, r)
	}
	return out, nil
}

func describeAdapter(a *wgpu.Adapter) DeviceReport {
	r := DeviceReport{
		Index: a.Index, Name: a.Info.Name, Vendor: a.Info.Vendor,
		VendorID: fmt.Sprintf("0x%04x", a.Info.VendorID), DeviceID: fmt.Sprintf("0x%04x", a.Info.DeviceID),
		Backend: a.Info.Backend.String(), DeviceType: a.Info.Type.String(), Driver: a.Info.Driver,
		Limits: a.Limits, Software: a.Info.Software(),
	}
	for _, f := range a.Features {
		r.Features = append(r.Features, f.String())
	}
	d, err := a.RequestDevice(wgpu.DeviceOptions{WaitTimeout: 30 * time.Second})
	if err != nil {
		r.Error = err.Error()
		r.Timestamps.Reason = "no device: " + err.Error()
		return r
	}
	defer d.Release()
	probe, err := d.ProbeTimestamps()
	if err != nil {
		r.Timestamps.Reason = "probe dispatch failed: " + err.Error()
		return r
	}
	r.Timestamps = probe
	return r
}
