package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/browser"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// --impl browser is taken by devices only, so far: every other command
// refuses it (alone or in a list) with status 2, naming the commands that
// take it; the browser's flags need --impl browser.
func TestImplBrowserOnlyDevices(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--impl", "browser"},
		{"run", "--impl", "wgpu-native,browser"},
		{"breakeven", "--impl", "browser", "--kernel", "cosine-single"},
		{"sweep", "workgroup", "--impl", "browser", "--kernel", "cosine-single"},
		{"latency", "--impl", "Browser"},
		{"stream", "--impl", "browser"},
	} {
		_, _, err := runCmd(args...)
		code, msg := exitStatus(err)
		if code != 2 || !strings.Contains(msg, "--impl browser: only devices runs through the browser so far") ||
			!strings.Contains(msg, ": use --impl wgpu-native or dawn") {
			t.Errorf("%v: status %d, %q", args, code, msg)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"devices", "--open", "none"}, "--open: only with --impl browser"},
		{[]string{"devices", "--listen", "0.0.0.0:0"}, "--listen: only with --impl browser"},
		{[]string{"devices", "--impl", "dawn,browser"}, "the browser is listed on its own"},
		{[]string{"devices", "--impl", "browser", "--backend", "vulkan"}, "the browser picks its own backend"},
		{[]string{"devices", "--impl", "browser", "--open", "firefox"}, `--open "firefox": want headless or none`},
		{[]string{"devices", "--impl", "browser", "--open-timeout", "0s"}, "want a positive duration"},
		{[]string{"run", "--open", "none"}, "run does not take --open"},
	} {
		_, _, err := runCmd(c.args...)
		code, msg := exitStatus(err)
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: status %d, %q; want 2 and %q", c.args, code, msg, c.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// pageURL waits for the address devices --open none prints.
func pageURL(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[A-Za-z0-9_-]{40,}`)
	for i := 0; i < 200; i++ {
		if u := re.FindString(stderr.String()); u != "" {
			return u
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("no page address on stderr:\n%s", stderr.String())
	return ""
}

// devices --impl browser --open none prints the page's address with its
// token and waits; a page of the person's own (here a fake one in Go that
// speaks the protocol) answers the adapter job, and the report lists its
// adapter within 120 columns, its text cleaned.
func TestDevicesBrowserOpenNone(t *testing.T) {
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(&stdout, stderr, []string{"devices", "--impl", "browser", "--open", "none", "--open-timeout", "30s"})
	}()
	u := pageURL(t, stderr)
	pu, _ := url.Parse(u)
	base, token := "http://"+pu.Host, pu.Query().Get("t")
	call := func(method, path, session string, body any) (int, []byte) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set(browser.TokenHeader, token)
		req.Header.Set(browser.SessionHeader, session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := call("GET", "/", "", nil); code != 200 {
		t.Fatalf("page: %d", code)
	}
	_, b := call("POST", "/api/hello", "", map[string]string{"userAgent": "x"})
	var hello struct{ Session string }
	json.Unmarshal(b, &hello)
	var job struct {
		ID   uint64
		Kind string
	}
	for {
		code, b := call("GET", "/api/job", hello.Session, nil)
		if code == 200 {
			json.Unmarshal(b, &job)
			break
		}
		if code != http.StatusNoContent {
			t.Fatalf("job: %d %s", code, b)
		}
	}
	fallback := true
	call("POST", "/api/result", hello.Session, map[string]any{"id": job.ID, "ok": true, "result": map[string]any{
		"userAgent":           "Mozilla/5.0 (X11; Linux x86_64; rv:141.0) Gecko/20100101 Firefox/141.0 \x1b[2J",
		"crossOriginIsolated": true, "secureContext": true, "timerResolutionMs": 0.02, "webgpu": true,
		"adapters": []map[string]any{{"request": "default", "also": []string{"fallback"}, "vendor": "mesa",
			"architecture": "llvmpipe", "description": "llvmpipe (LLVM 15.0.6, 256 bits)", "isFallbackAdapter": fallback,
			"features":   []string{"timestamp-query", "shader-f16"},
			"limits":     map[string]float64{"maxBufferSize": 1 << 30, "maxComputeWorkgroupSizeX": 256},
			"timestamps": map[string]any{"offered": true, "begin": "1000", "end": "51000", "hostMs": 0.3}}},
	}})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("devices did not end after the result")
	}
	out := stdout.String()
	for _, want := range []string{"1 adapter(s) through the browser\n", "browser: Firefox 141.0, opened by you", "cross-origin isolated  yes",
		"steps of 20.0µs", "[0] llvmpipe (LLVM 15.0.6, 256 bits) (browser)  [default]", "SOFTWARE", "fallback adapter",
		"requests               default, fallback", "timestamps             working: tiny dispatch 50.0µs"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape sequence reached stdout:\n%q", out)
	}
	checkWidth(t, out)
}

func checkWidth(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("line of %d columns: %s", n, l)
		}
	}
}

// --open none with no page: the wait ends at --open-timeout, status 1.
func TestDevicesBrowserNoPage(t *testing.T) {
	start := time.Now()
	_, stderr, err := runCmd("devices", "--impl", "browser", "--open", "none", "--open-timeout", "500ms")
	code, msg := exitStatus(err)
	if code != 1 || !errors.Is(err, browser.ErrNoPage) || !strings.Contains(msg, "no page connected within 500ms") {
		t.Errorf("status %d, %q", code, msg)
	}
	if !strings.Contains(stderr, "?t=") {
		t.Errorf("no address on stderr: %q", stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// devices --impl browser through headless Chromium on SwiftShader: the
// adapter with the browser's version, working timestamps, the isolated
// page's timer; text within 120 columns, and JSON (skipped, with the
// reason, where no Chromium is installed).
func TestDevicesBrowserHeadlessChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	if _, err := browser.FindChromium(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	t.Setenv(browserFlagsEnv, "--use-webgpu-adapter=swiftshader")
	out, stderr, err := runCmd("devices", "--impl", "browser")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Log("\n" + out)
	for _, re := range []string{`\nbrowser: Headless Chromium \d+\.\d+\.\d+\.\d+( on [^,]+)?, headless`, `SOFTWARE +SwiftShader`,
		`cross-origin isolated +yes`, `timer resolution +performance.now\(\) moves in steps of \d`,
		`timestamps +working: tiny dispatch`, `features .*timestamp-query|timestamp-query\n`, `\[0\] swiftshader \(browser\)  \[default\]`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no %s in the output", re)
		}
	}
	checkWidth(t, out)

	js, stderr, err := runCmd("devices", "--impl", "browser", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var r env.DevicesReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.Implementation != "browser" || r.Browser == nil || r.Browser.Version == "" || !r.Browser.CrossOriginIsolated ||
		!r.Browser.Headless || r.Browser.TimerResolution <= 0 || len(r.Adapters) == 0 {
		t.Fatalf("report %+v", r)
	}
	a := r.Adapters[0]
	if a.Software != "SwiftShader" || !a.Timestamps.OK || a.Browser == nil || a.Limits.MaxBufferSize == 0 {
		t.Errorf("adapter %+v", a)
	}
}
