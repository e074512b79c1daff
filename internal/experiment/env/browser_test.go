package env

import (
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/browser"
)

// The browser's description as a devices report: the default is the
// adapter of requestAdapter() without options, SwiftShader (the fallback
// adapter) is flagged software, limits keep their WebGPU names' values.
func TestBrowserDevicesReport(t *testing.T) {
	yes := true
	d := browser.Description{Browser: "Chromium", Version: "156.0.8078.108", CrossOriginIsolated: true,
		TimerResolution: 5 * time.Microsecond, WebGPU: true,
		Adapters: []browser.Adapter{
			{Request: "high-performance", Vendor: "nvidia", Architecture: "blackwell", Description: "NVIDIA RTX",
				Limits: map[string]uint64{"maxBufferSize": 1 << 34, "maxComputeWorkgroupSizeX": 1 << 40}},
			{Request: "default", Also: []string{"fallback"}, Vendor: "google", Architecture: "swiftshader",
				IsFallbackAdapter: &yes, Limits: map[string]uint64{"maxStorageBufferBindingSize": 1 << 30, "maxBindGroups": 4},
				Timestamps: browser.TimestampProbe{Offered: true, OK: true, Kernel: time.Microsecond, Host: time.Millisecond}},
		}}
	r := BrowserDevicesReport(d, "tool")
	if r.Implementation != ImplBrowser || r.ImplementationVersion != "Chromium 156.0.8078.108" || r.Browser == nil ||
		r.Browser.TimerResolution != 5*time.Microsecond || !r.Browser.CrossOriginIsolated {
		t.Fatalf("report %+v", r)
	}
	hw, sw := r.Adapters[0], r.Adapters[1]
	if hw.Default || !sw.Default || r.NoDefault != "" {
		t.Errorf("default: %v %v (%q)", hw.Default, sw.Default, r.NoDefault)
	}
	if hw.Software != "" || hw.Name != "NVIDIA RTX" || hw.DeviceType != "unknown" {
		t.Errorf("hardware adapter %+v", hw)
	}
	if hw.Limits.MaxBufferSize != 1<<34 || hw.Limits.MaxComputeWorkgroupSizeX != 1<<32-1 {
		t.Errorf("limits %+v", hw.Limits)
	}
	if sw.Software != "SwiftShader" || sw.Name != "swiftshader" || sw.DeviceType != "fallback adapter" ||
		len(sw.Browser.Requests) != 2 || sw.Limits.MaxBindGroups != 4 || !sw.Timestamps.OK {
		t.Errorf("SwiftShader %+v", sw)
	}
}
