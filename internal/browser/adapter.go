package browser

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JobAdapter is the kind of the job that describes the browser and its
// adapters (Describe).
const JobAdapter = "adapter"

// Description is the browser and its WebGPU adapters as the page saw them.
type Description struct {
	UserAgent string `json:"user_agent"`
	// Browser and Version name the browser (from navigator.userAgentData's
	// full version list where it has one, else from the user agent).
	Browser  string `json:"browser"`
	Version  string `json:"version"`
	Platform string `json:"platform,omitempty"`
	// CrossOriginIsolated is the page's crossOriginIsolated: the server
	// sends COOP and COEP so that it is, and performance.now() has its
	// fine resolution.
	CrossOriginIsolated bool `json:"cross_origin_isolated"`
	SecureContext       bool `json:"secure_context"`
	// TimerResolution is the smallest nonzero step of performance.now()
	// over a 100 ms loop in the page.
	TimerResolution time.Duration `json:"timer_resolution_ns"`
	// WebGPU is false when the page has no navigator.gpu.
	WebGPU   bool      `json:"webgpu"`
	Adapters []Adapter `json:"adapters"`
}

// Adapter is one GPUAdapter: its GPUAdapterInfo, features, limits and a
// tiny dispatch with timestamp writes.
type Adapter struct {
	// Request is the requestAdapter() options that found it first
	// ("default", "high-performance", "low-power", "fallback"), Also the
	// others that found the same adapter.
	Request      string   `json:"request"`
	Also         []string `json:"also,omitempty"`
	Vendor       string   `json:"vendor"`
	Architecture string   `json:"architecture"`
	Device       string   `json:"device"`
	Description  string   `json:"description"`
	// IsFallbackAdapter is nil where the browser does not say.
	IsFallbackAdapter *bool    `json:"is_fallback_adapter,omitempty"`
	SubgroupMinSize   uint32   `json:"subgroup_min_size,omitempty"`
	SubgroupMaxSize   uint32   `json:"subgroup_max_size,omitempty"`
	Features          []string `json:"features"`
	// Limits by their WebGPU names (maxBufferSize, …).
	Limits     map[string]uint64 `json:"limits"`
	Timestamps TimestampProbe    `json:"timestamps"`
}

// TimestampProbe is the tiny dispatch's timing: OK when the timestamps
// gave a duration no longer than the host clock's, else Reason.
type TimestampProbe struct {
	// Offered: the adapter has the timestamp-query feature.
	Offered bool          `json:"offered"`
	OK      bool          `json:"ok"`
	Kernel  time.Duration `json:"kernel_ns"`
	Host    time.Duration `json:"host_ns"`
	Reason  string        `json:"reason,omitempty"`
}

// The page's result, as sent (camelCase, numbers as JavaScript has them).
type pageDescription struct {
	UserAgent           string        `json:"userAgent"`
	Brands              []Brand       `json:"brands"`
	Platform            string        `json:"platform"`
	CrossOriginIsolated bool          `json:"crossOriginIsolated"`
	SecureContext       bool          `json:"secureContext"`
	TimerResolutionMs   float64       `json:"timerResolutionMs"`
	WebGPU              bool          `json:"webgpu"`
	Adapters            []pageAdapter `json:"adapters"`
}

type pageAdapter struct {
	Request           string             `json:"request"`
	Also              []string           `json:"also"`
	Vendor            string             `json:"vendor"`
	Architecture      string             `json:"architecture"`
	Device            string             `json:"device"`
	Description       string             `json:"description"`
	IsFallbackAdapter *bool              `json:"isFallbackAdapter"`
	SubgroupMinSize   float64            `json:"subgroupMinSize"`
	SubgroupMaxSize   float64            `json:"subgroupMaxSize"`
	Features          []string           `json:"features"`
	Limits            map[string]float64 `json:"limits"`
	Timestamps        struct {
		Offered bool    `json:"offered"`
		Begin   string  `json:"begin"`
		End     string  `json:"end"`
		HostMs  float64 `json:"hostMs"`
		Error   string  `json:"error"`
	} `json:"timestamps"`
}

// Brand is one entry of navigator.userAgentData's brand list.
type Brand struct {
	Brand   string `json:"brand"`
	Version string `json:"version"`
}

// The most entries of a list the page sends that Describe keeps.
const maxList = 256

// Describe runs the adapter job: the browser's name and version, its
// clock, and every adapter it offers.
func Describe(ctx context.Context, s Doer) (Description, error) {
	var p pageDescription
	if err := s.Do(ctx, JobAdapter, struct{}{}, &p); err != nil {
		return Description{}, err
	}
	return p.clean(), nil
}

// clean is the page's answer as the caller gets it: every string cleaned,
// lists cut, numbers checked.
func (p pageDescription) clean() Description {
	d := Description{
		UserAgent: Clean(p.UserAgent, maxString), Platform: Clean(p.Platform, 64),
		CrossOriginIsolated: p.CrossOriginIsolated, SecureContext: p.SecureContext,
		TimerResolution: msDuration(p.TimerResolutionMs), WebGPU: p.WebGPU,
	}
	var brands []Brand
	for _, b := range cut(p.Brands) {
		brands = append(brands, Brand{Clean(b.Brand, 64), Clean(b.Version, 64)})
	}
	d.Browser, d.Version = BrowserOf(d.UserAgent, brands)
	for _, a := range cut(p.Adapters) {
		d.Adapters = append(d.Adapters, a.clean())
	}
	return d
}

func (a pageAdapter) clean() Adapter {
	out := Adapter{
		Request: Clean(a.Request, 32), Vendor: Clean(a.Vendor, 128), Architecture: Clean(a.Architecture, 128),
		Device: Clean(a.Device, 128), Description: Clean(a.Description, maxString),
		IsFallbackAdapter: a.IsFallbackAdapter,
		SubgroupMinSize:   u32(a.SubgroupMinSize), SubgroupMaxSize: u32(a.SubgroupMaxSize),
		Limits: map[string]uint64{},
	}
	for _, s := range cut(a.Also) {
		out.Also = append(out.Also, Clean(s, 32))
	}
	for _, f := range cut(a.Features) {
		out.Features = append(out.Features, Clean(f, 64))
	}
	sort.Strings(out.Features)
	n := 0
	for k, v := range a.Limits {
		if n == maxList {
			break
		}
		if v >= 0 && v <= math.MaxInt64 && v == math.Trunc(v) {
			out.Limits[Clean(k, 64)] = uint64(v)
			n++
		}
	}
	out.Timestamps = a.probe()
	return out
}

// probe classifies the page's timestamp probe as wgpu's ProbeTimestamps
// does: a valid begin/end pair no longer than the host clock's time.
func (a pageAdapter) probe() TimestampProbe {
	t := a.Timestamps
	p := TimestampProbe{Offered: t.Offered, Host: msDuration(t.HostMs)}
	begin, errB := strconv.ParseUint(t.Begin, 10, 64)
	end, errE := strconv.ParseUint(t.End, 10, 64)
	switch {
	case !t.Offered:
		p.Reason = "adapter does not offer timestamp-query; kernel timing falls back to the host clock"
	case t.Error != "":
		p.Reason = "probe dispatch failed: " + Clean(t.Error, maxString)
	case errB != nil || errE != nil:
		p.Reason = "the page returned no timestamps"
	case begin == 0 || end <= begin:
		p.Reason = fmt.Sprintf("timestamps returned begin=%d end=%d ns", begin, end)
	default:
		p.Kernel = time.Duration(end - begin)
		if p.Host > 0 && p.Kernel > p.Host {
			p.Reason = fmt.Sprintf("timestamp delta %v exceeds the host clock's %v", p.Kernel, p.Host)
		} else {
			p.OK = true
		}
	}
	return p
}

func cut[T any](s []T) []T {
	if len(s) > maxList {
		return s[:maxList]
	}
	return s
}

// msDuration is a JavaScript time in ms (a double) as a Duration, rounded
// to the ns; 0 for what is not a time.
func msDuration(ms float64) time.Duration {
	if !(ms > 0) || ms > 1e9 {
		return 0
	}
	return time.Duration(math.Round(ms * 1e6))
}

func u32(v float64) uint32 {
	if !(v > 0) || v > math.MaxUint32 || v != math.Trunc(v) {
		return 0
	}
	return uint32(v)
}

// uaProducts are the browsers BrowserOf recognises in a user agent, most
// specific first (Edge and Opera say Chrome too; Chrome says Safari).
var uaProducts = []struct {
	name string
	re   *regexp.Regexp
}{
	{"Edge", regexp.MustCompile(`\bEdg(?:e|A|iOS)?/([\d.]+)`)},
	{"Opera", regexp.MustCompile(`\bOPR/([\d.]+)`)},
	{"Firefox", regexp.MustCompile(`\bFirefox/([\d.]+)`)},
	{"Headless Chrome", regexp.MustCompile(`\bHeadlessChrome/([\d.]+)`)},
	{"Chrome", regexp.MustCompile(`\bChrome/([\d.]+)`)},
	{"Safari", regexp.MustCompile(`\bVersion/([\d.]+).*\bSafari/`)},
}

// BrowserOf names the browser and its version: from the brand list
// (navigator.userAgentData) where it has a real brand, the most specific
// (Chrome or Edge over Chromium), else from the user agent; "" where
// neither says.
func BrowserOf(userAgent string, brands []Brand) (name, version string) {
	rank := func(b string) int {
		switch {
		case strings.Contains(strings.ToLower(b), "not") && strings.ContainsAny(b, ";:=()?._-/ "):
			return -1 // GREASE ("Not)A;Brand", "Not.A/Brand")
		case b == "Chromium":
			return 1
		}
		return 2
	}
	best := -1
	for _, b := range brands {
		if r := rank(b.Brand); r > best && b.Brand != "" {
			best, name, version = r, b.Brand, b.Version
		}
	}
	if best >= 0 {
		if strings.Contains(userAgent, "HeadlessChrome/") {
			name = "Headless " + name
		}
		return name, version
	}
	for _, p := range uaProducts {
		if m := p.re.FindStringSubmatch(userAgent); m != nil {
			return p.name, m[1]
		}
	}
	return "", ""
}
