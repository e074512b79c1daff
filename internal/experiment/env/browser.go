package env

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/browser"
)

// ImplBrowser is the name of the third WebGPU implementation: a web
// browser's, reached through a page (internal/browser).
const ImplBrowser = "browser"

// BrowserReport is the browser behind a devices report of --impl browser.
type BrowserReport struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	UserAgent string `json:"user_agent"`
	Platform  string `json:"platform,omitempty"`
	// CrossOriginIsolated is the page's crossOriginIsolated, and
	// TimerResolution the step of performance.now() it measured (5 µs
	// isolated, 100 µs not, in Chromium).
	CrossOriginIsolated bool          `json:"cross_origin_isolated"`
	TimerResolution     time.Duration `json:"timer_resolution_ns"`
	// Headless is true when wgpu-prof launched the browser.
	Headless bool `json:"headless"`
}

// BrowserAdapter is what the browser says of an adapter beyond the
// common fields.
type BrowserAdapter struct {
	Architecture string `json:"architecture,omitempty"`
	Description  string `json:"description,omitempty"`
	// IsFallbackAdapter is nil where the browser does not say.
	IsFallbackAdapter *bool `json:"is_fallback_adapter,omitempty"`
	// Requests are the requestAdapter() options that return it
	// ("default", "high-performance", "low-power", "fallback").
	Requests        []string          `json:"requests"`
	SubgroupMinSize uint32            `json:"subgroup_min_size,omitempty"`
	SubgroupMaxSize uint32            `json:"subgroup_max_size,omitempty"`
	Limits          map[string]uint64 `json:"limits"`
}

// BrowserDevices lists the adapters of the browser behind page (a
// browser.Session), like DevicesOf does for the other implementations.
func BrowserDevices(ctx context.Context, page browser.Doer, headless bool, tool string) (DevicesReport, error) {
	d, err := browser.Describe(ctx, page)
	if err != nil {
		return DevicesReport{}, err
	}
	out := BrowserDevicesReport(d, tool)
	out.Browser.Headless = headless
	if !d.WebGPU {
		return out, fmt.Errorf("%s %s has no WebGPU (navigator.gpu is missing): turn it on, or use a browser that has it",
			orUnknown(d.Browser), d.Version)
	}
	if len(d.Adapters) == 0 {
		return out, fmt.Errorf("wgpu: %w: %s %s offers none to requestAdapter()", wgpu.ErrNoAdapter, orUnknown(d.Browser), d.Version)
	}
	return out, nil
}

// BrowserDevicesReport is the devices report of the browser the page
// described: its first adapter (requestAdapter() without options) is the
// default.
func BrowserDevicesReport(d browser.Description, tool string) DevicesReport {
	out := DevicesReport{Tool: tool, Implementation: ImplBrowser,
		ImplementationVersion: strings.TrimSpace(d.Browser + " " + d.Version),
		Browser: &BrowserReport{Name: d.Browser, Version: d.Version, UserAgent: d.UserAgent, Platform: d.Platform,
			CrossOriginIsolated: d.CrossOriginIsolated, TimerResolution: d.TimerResolution}}
	found := false
	for i, a := range d.Adapters {
		r := browserAdapter(i, a)
		if a.Request == "default" {
			r.Default, r.DefaultReason = true, "what the browser's requestAdapter() returns without options"
			found = true
		}
		out.Adapters = append(out.Adapters, r)
	}
	if len(out.Adapters) > 0 && !found {
		out.NoDefault = "requestAdapter() without options returned none"
	}
	return out
}

func browserAdapter(i int, a browser.Adapter) DeviceReport {
	name := a.Device
	for _, s := range []string{a.Description, a.Architecture, a.Vendor} {
		if name == "" {
			name = s
		}
	}
	info := wgpu.AdapterInfo{Name: name + " " + a.Architecture, Driver: a.Description}
	typ := "unknown"
	if a.IsFallbackAdapter != nil && *a.IsFallbackAdapter {
		// WebGPU's fallback adapter is the browser's software one.
		info.Type, typ = wgpu.DeviceCPU, "fallback adapter"
	}
	r := DeviceReport{
		Index: i, Name: orUnknown(name), Vendor: a.Vendor, Backend: "", DeviceType: typ, Driver: a.Description,
		Features: a.Features, Limits: browserLimits(a.Limits), Software: info.Software(),
		Timestamps: wgpu.TimestampProbe{OK: a.Timestamps.OK, Kernel: a.Timestamps.Kernel, Host: a.Timestamps.Host, Reason: a.Timestamps.Reason},
		Browser: &BrowserAdapter{Architecture: a.Architecture, Description: a.Description,
			IsFallbackAdapter: a.IsFallbackAdapter, Requests: append([]string{a.Request}, a.Also...),
			SubgroupMinSize: a.SubgroupMinSize, SubgroupMaxSize: a.SubgroupMaxSize, Limits: a.Limits},
	}
	return r
}

// browserLimits are the limits of wgpu.Limits from their WebGPU names.
func browserLimits(m map[string]uint64) wgpu.Limits {
	u32 := func(k string) uint32 {
		if v := m[k]; v <= 1<<32-1 {
			return uint32(v)
		}
		return 1<<32 - 1
	}
	return wgpu.Limits{
		MaxStorageBufferBindingSize:       m["maxStorageBufferBindingSize"],
		MaxBufferSize:                     m["maxBufferSize"],
		MaxUniformBufferBindingSize:       m["maxUniformBufferBindingSize"],
		MaxComputeWorkgroupSizeX:          u32("maxComputeWorkgroupSizeX"),
		MaxComputeWorkgroupSizeY:          u32("maxComputeWorkgroupSizeY"),
		MaxComputeWorkgroupSizeZ:          u32("maxComputeWorkgroupSizeZ"),
		MaxComputeInvocationsPerWorkgroup: u32("maxComputeInvocationsPerWorkgroup"),
		MaxComputeWorkgroupStorageSize:    u32("maxComputeWorkgroupStorageSize"),
		MaxComputeWorkgroupsPerDimension:  u32("maxComputeWorkgroupsPerDimension"),
		MaxStorageBuffersPerShaderStage:   u32("maxStorageBuffersPerShaderStage"),
		MaxBindGroups:                     u32("maxBindGroups"),
		MinStorageBufferOffsetAlignment:   u32("minStorageBufferOffsetAlignment"),
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "the browser"
	}
	return s
}

// The ways a browser session opens its page (browser.OpenHeadless,
// browser.OpenNone), for the command line.
const (
	BrowserOpenHeadless = browser.OpenHeadless
	BrowserOpenNone     = browser.OpenNone
)

// BrowserSession is a page server with its browser (browser.Session).
type BrowserSession = browser.Session

// OpenBrowser starts the page server on listen ("" : loopback, a free
// port), waiting up to wait for the page to connect, and, when open is
// BrowserOpenHeadless, headless Chromium on it with args as more
// switches (browser.Open).
func OpenBrowser(listen string, wait time.Duration, open string, args []string) (*BrowserSession, error) {
	return browser.Open(browser.SessionOptions{
		Server: browser.Options{Listen: listen, ConnectTimeout: wait},
		Open:   open,
		Launch: browser.LaunchOptions{Args: args},
	})
}
