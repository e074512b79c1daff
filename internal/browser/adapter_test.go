package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/browser"
)

func TestClean(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain text", 100, "plain text"},
		{"  trimmed\t", 100, "trimmed"},
		{"esc \x1b[2Jcleared", 100, "esc \uFFFD[2Jcleared"},
		{"new\nline\rx", 100, "new\uFFFDline\uFFFDx"},
		{"bidi \u202eevil", 100, "bidi \uFFFDevil"},
		{"bad \xff utf8", 100, "bad \uFFFD utf8"},
		{"µs and 日本", 100, "µs and 日本"},
		{"aaaaaaaaaaaa", 10, "aaaaaaaaaa…"},
		{"日本日本", 2, "日本…"},
	} {
		if got := browser.Clean(c.in, c.max); got != c.want {
			t.Errorf("Clean(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestBrowserOf(t *testing.T) {
	grease := browser.Brand{Brand: "Not:A-Brand", Version: "8.0.0.0"}
	for _, c := range []struct {
		ua            string
		brands        []browser.Brand
		name, version string
	}{
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
			[]browser.Brand{grease, {"Chromium", "156.0.8078.108"}}, "Headless Chromium", "156.0.8078.108"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36",
			[]browser.Brand{{"Chromium", "140.0.7339.80"}, {"Google Chrome", "140.0.7339.80"}, {"Not=A?Brand", "24.0.0.0"}},
			"Google Chrome", "140.0.7339.80"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0",
			nil, "Edge", "140.0.0.0"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:141.0) Gecko/20100101 Firefox/141.0", nil, "Firefox", "141.0"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15",
			nil, "Safari", "26.0"},
		{"something else", nil, "", ""},
	} {
		name, version := browser.BrowserOf(c.ua, c.brands)
		if name != c.name || version != c.version {
			t.Errorf("BrowserOf(%q, %v) = %q %q, want %q %q", c.ua, c.brands, name, version, c.name, c.version)
		}
	}
}

// Describe through a fake page that answers with hostile and odd values:
// strings are cleaned, non-integer limits dropped, timestamps classified.
func TestDescribeCleansThePage(t *testing.T) {
	s := newServer(t, browser.Options{})
	page := newFakePage(t, s)
	page.hello()
	stop := make(chan struct{})
	defer close(stop)
	go page.beat(stop)
	type res struct {
		d   browser.Description
		err error
	}
	got := make(chan res, 1)
	go func() {
		d, err := browser.Describe(context.Background(), s)
		got <- res{d, err}
	}()
	code, j := page.job()
	if code != 200 || j.Kind != browser.JobAdapter {
		t.Fatalf("job %d %+v", code, j)
	}
	page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true, "result": map[string]any{
		"userAgent": "Evil/1.0 \x1b]0;pwned\x07", "brands": []map[string]string{{"brand": "Evil\x1b[31m", "version": "1"}},
		"crossOriginIsolated": false, "timerResolutionMs": 0.1, "webgpu": true,
		"adapters": []map[string]any{
			{"request": "default", "vendor": "v\nx", "architecture": "a", "description": "d", "isFallbackAdapter": false,
				"features": []string{"timestamp-query", "b\x1b"},
				"limits":   map[string]any{"maxBufferSize": 4294967296.0, "maxBindGroups": 4, "odd": 1.5, "neg": -1},
				"timestamps": map[string]any{"offered": true, "begin": "18446744073709551000", "end": "18446744073709551615",
					"hostMs": 0.25}},
			{"request": "fallback", "timestamps": map[string]any{"offered": true, "begin": "5", "end": "5", "hostMs": 1}},
			{"request": "low-power", "timestamps": map[string]any{"offered": true, "begin": "1000", "end": "1001000", "hostMs": 0.5}},
			{"request": "high-performance", "timestamps": map[string]any{"offered": false}},
		},
	}})
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	d := r.d
	for _, s := range []string{d.UserAgent, d.Browser, d.Adapters[0].Vendor, strings.Join(d.Adapters[0].Features, ",")} {
		if strings.ContainsAny(s, "\x1b\x07\n") {
			t.Errorf("not cleaned: %q", s)
		}
	}
	if d.TimerResolution != 100*time.Microsecond {
		t.Errorf("timer resolution %v", d.TimerResolution)
	}
	a := d.Adapters[0]
	if a.Limits["maxBufferSize"] != 1<<32 || a.Limits["maxBindGroups"] != 4 || len(a.Limits) != 2 {
		t.Errorf("limits %v", a.Limits)
	}
	if a.IsFallbackAdapter == nil || *a.IsFallbackAdapter {
		t.Errorf("isFallbackAdapter %v", a.IsFallbackAdapter)
	}
	if ts := a.Timestamps; !ts.OK || ts.Kernel != 615 || ts.Host != 250*time.Microsecond {
		t.Errorf("timestamps past 2^53: %+v", ts)
	}
	if ts := d.Adapters[1].Timestamps; ts.OK || !strings.Contains(ts.Reason, "begin=5 end=5") {
		t.Errorf("equal timestamps: %+v", ts)
	}
	if ts := d.Adapters[2].Timestamps; ts.OK || !strings.Contains(ts.Reason, "exceeds the host clock") {
		t.Errorf("a kernel longer than the host's time: %+v", ts)
	}
	if ts := d.Adapters[3].Timestamps; ts.OK || ts.Offered || !strings.Contains(ts.Reason, "does not offer timestamp-query") {
		t.Errorf("no timestamp-query: %+v", ts)
	}
	if d.Adapters[1].IsFallbackAdapter != nil {
		t.Errorf("isFallbackAdapter unsaid, got %v", *d.Adapters[1].IsFallbackAdapter)
	}
}
