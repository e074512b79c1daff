package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/browser"
)

// newServer is a Server on loopback, closed with the test.
func newServer(t *testing.T, o browser.Options) *browser.Server {
	t.Helper()
	s, err := browser.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tokenOf is the token in s's URL.
func tokenOf(t *testing.T, s *browser.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("t")
}

// fakePage speaks the page's side of the protocol from Go.
type fakePage struct {
	t       *testing.T
	base    string
	token   string
	session string
	client  *http.Client
}

func newFakePage(t *testing.T, s *browser.Server) *fakePage {
	return &fakePage{t: t, base: "http://" + s.Addr(), token: tokenOf(t, s), client: &http.Client{Timeout: 10 * time.Second}}
}

// call sends a request with the page's token and session; body is
// marshalled to JSON unless nil.
func (p *fakePage) call(method, path string, body any) (int, []byte) {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			p.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set(browser.TokenHeader, p.token)
	if p.session != "" {
		req.Header.Set(browser.SessionHeader, p.session)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Errorf("%s %s: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (p *fakePage) hello() {
	p.t.Helper()
	code, b := p.call("POST", "/api/hello", map[string]string{"userAgent": "fake/1.0"})
	if code != 200 {
		p.t.Fatalf("hello: %d %s", code, b)
	}
	var r struct{ Session string }
	if err := json.Unmarshal(b, &r); err != nil || r.Session == "" {
		p.t.Fatalf("hello: %s (%v)", b, err)
	}
	p.session = r.Session
}

type pageJob struct {
	ID     uint64          `json:"id"`
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
}

// job polls until a job comes (or the server answers other than 204).
func (p *fakePage) job() (int, pageJob) {
	p.t.Helper()
	for {
		code, b := p.call("GET", "/api/job", nil)
		if code == http.StatusNoContent {
			continue
		}
		var j pageJob
		if code == 200 {
			if err := json.Unmarshal(b, &j); err != nil {
				p.t.Fatalf("job: %s: %v", b, err)
			}
		}
		return code, j
	}
}

// beat sends heartbeats every 500 ms until stop is closed.
func (p *fakePage) beat(stop <-chan struct{}) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			p.call("POST", "/api/beat", nil)
		}
	}
}

// doAsync runs s.Do in the background; the channel gets its error.
func doAsync(s browser.Doer, kind string, params, out any) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- s.Do(context.Background(), kind, params, out) }()
	return ch
}

// Every request without the server's token, with another, or from a
// foreign Host or Origin, is refused with 403 on every path, and nothing
// happens: no tab connects, the pending job stays pending and is handed
// to the right page afterwards.
func TestTokenRefused(t *testing.T) {
	s := newServer(t, browser.Options{})
	other := newServer(t, browser.Options{})
	good := tokenOf(t, s)
	page := newFakePage(t, s)
	page.hello() // a connected tab, so that job and result would act
	stop := make(chan struct{})
	defer close(stop)
	go page.beat(stop)
	var res struct{ X int }
	done := doAsync(s, "echo", map[string]int{"x": 1}, &res)
	time.Sleep(50 * time.Millisecond) // the job is pending

	type attempt struct {
		name         string
		query, token string
		host, origin string
	}
	attempts := []attempt{
		{name: "no token"},
		{name: "wrong token", query: "x" + good[1:], token: "x" + good[1:]},
		{name: "another server's token", query: tokenOf(t, other), token: tokenOf(t, other)},
		{name: "token with a suffix", query: good + "A", token: good + "A"},
		{name: "token prefix", query: good[:len(good)-1], token: good[:len(good)-1]},
		{name: "empty token", query: "", token: ""},
		{name: "foreign Host (DNS rebinding)", query: good, token: good, host: "attacker.example:80"},
		{name: "foreign Origin", query: good, token: good, origin: "http://attacker.example"},
	}
	paths := []struct{ method, path, body string }{
		{"GET", "/", ""}, {"GET", "/page.js", ""}, {"POST", "/api/hello", `{"userAgent":"x"}`},
		{"POST", "/api/beat", ""}, {"GET", "/api/job", ""},
		{"POST", "/api/result", `{"id":1,"ok":true,"result":{"X":666}}`}, {"GET", "/missing", ""},
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, a := range attempts {
		for _, p := range paths {
			u := "http://" + s.Addr() + p.path
			if a.query != "" {
				u += "?t=" + url.QueryEscape(a.query)
			}
			req, _ := http.NewRequest(p.method, u, strings.NewReader(p.body))
			if a.token != "" {
				req.Header.Set(browser.TokenHeader, a.token)
			}
			req.Header.Set(browser.SessionHeader, page.session)
			if a.host != "" {
				req.Host = a.host
			}
			if a.origin != "" {
				req.Header.Set("Origin", a.origin)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s %s: %v", a.name, p.method, p.path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %s %s: status %d, want 403", a.name, p.method, p.path, resp.StatusCode)
			}
			if bytes.Contains(body, []byte("<script")) || bytes.Contains(body, []byte("echo")) {
				t.Errorf("%s: %s %s: the body gives something away: %q", a.name, p.method, p.path, body)
			}
		}
	}
	select {
	case err := <-done:
		t.Fatalf("a refused request ended the job: %v (result %+v)", err, res)
	default:
	}
	// The right page still gets the job, untouched, and completes it.
	code, j := page.job()
	if code != 200 || j.Kind != "echo" || string(j.Params) != `{"x":1}` {
		t.Fatalf("job after the refusals: %d %+v", code, j)
	}
	if code, b := page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true, "result": map[string]int{"X": 7}}); code != 204 {
		t.Fatalf("result: %d %s", code, b)
	}
	if err := <-done; err != nil || res.X != 7 {
		t.Fatalf("Do: %v, result %+v", err, res)
	}
}

// A second server's hello with the first's token is refused: tokens are
// per server, fresh every time.
func TestTokensDiffer(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		s := newServer(t, browser.Options{})
		tok := tokenOf(t, s)
		if len(tok) < 40 || seen[tok] {
			t.Fatalf("token %q: short or repeated", tok)
		}
		seen[tok] = true
	}
}

// The page and its script come with the token, cross-origin isolation
// headers and a CSP that allows only the server's own script.
func TestPageHeaders(t *testing.T) {
	s := newServer(t, browser.Options{})
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || !s.Loopback() {
		t.Fatalf("default address %s: want 127.0.0.1", s.Addr())
	}
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	want := map[string]string{
		"Cross-Origin-Opener-Policy":   "same-origin",
		"Cross-Origin-Embedder-Policy": "require-corp",
		"Referrer-Policy":              "no-referrer",
		"Cache-Control":                "no-store",
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	script := fmt.Sprintf(`src="page.js?t=%s"`, tokenOf(t, s))
	if !bytes.Contains(body, []byte(script)) {
		t.Errorf("page has no %s:\n%s", script, body)
	}
	js, err := http.Get("http://" + s.Addr() + "/page.js?t=" + tokenOf(t, s))
	if err != nil {
		t.Fatal(err)
	}
	jsBody, _ := io.ReadAll(js.Body)
	js.Body.Close()
	if js.StatusCode != 200 || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") || !bytes.Contains(jsBody, []byte("'adapter'")) {
		t.Errorf("page.js: %d %s, %d bytes", js.StatusCode, js.Header.Get("Content-Type"), len(jsBody))
	}
	// localhost is the same server.
	_, port, _ := strings.Cut(s.Addr(), ":")
	r2, err := http.Get("http://localhost:" + port + "/?t=" + tokenOf(t, s))
	if err == nil {
		r2.Body.Close()
		if r2.StatusCode != 200 {
			t.Errorf("http://localhost:%s: %d", port, r2.StatusCode)
		}
	}
}

// The server talks to one tab: a second hello, and API calls without the
// tab's session, are refused with 409; methods other than the route's 405.
func TestOneTab(t *testing.T) {
	s := newServer(t, browser.Options{})
	a := newFakePage(t, s)
	a.hello()
	b := newFakePage(t, s)
	if code, _ := b.call("POST", "/api/hello", map[string]string{"userAgent": "second"}); code != http.StatusConflict {
		t.Errorf("second hello: %d, want 409", code)
	}
	for _, p := range []struct{ m, path string }{{"POST", "/api/beat"}, {"GET", "/api/job"}, {"POST", "/api/result"}} {
		if code, _ := b.call(p.m, p.path, nil); code != http.StatusConflict {
			t.Errorf("%s %s without the session: %d, want 409", p.m, p.path, code)
		}
	}
	if code, _ := a.call("GET", "/api/hello", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/hello: %d, want 405", code)
	}
	if code, _ := a.call("POST", "/", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", code)
	}
	if got := s.UserAgent(); got != "fake/1.0" {
		t.Errorf("UserAgent %q", got)
	}
}

// The fake page runs a job: Do gets its result; a result for another job
// id is refused and changes nothing; a failed job is a *JobError whose
// message is cleaned of escape sequences.
func TestFakePageRunsJobs(t *testing.T) {
	s := newServer(t, browser.Options{})
	page := newFakePage(t, s)
	stop := make(chan struct{})
	defer close(stop)
	page.hello()
	go page.beat(stop)

	var out map[string]int
	done := doAsync(s, "sum", []int{1, 2}, &out)
	code, j := page.job()
	if code != 200 || j.Kind != "sum" || string(j.Params) != "[1,2]" {
		t.Fatalf("job: %d %+v", code, j)
	}
	if code, _ := page.call("POST", "/api/result", map[string]any{"id": j.ID + 1, "ok": true, "result": map[string]int{"sum": 0}}); code != http.StatusConflict {
		t.Errorf("result for another id: %d, want 409", code)
	}
	page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true, "result": map[string]int{"sum": 3}})
	if err := <-done; err != nil || out["sum"] != 3 {
		t.Fatalf("Do: %v %v", err, out)
	}
	if code, _ := page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true}); code != http.StatusConflict {
		t.Errorf("a second result for a finished job: %d, want 409", code)
	}

	done = doAsync(s, "boom", nil, nil)
	_, j = page.job()
	page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": false, "error": "bad \x1b[31mred\x1b[0m\nline\u202e"})
	err := <-done
	var je *browser.JobError
	if !errors.As(err, &je) || je.Kind != "boom" {
		t.Fatalf("Do: %v, want a *JobError", err)
	}
	if strings.ContainsAny(je.Msg, "\x1b\n\u202e") || !strings.Contains(je.Msg, "red") {
		t.Errorf("job error not cleaned: %q", je.Msg)
	}
}

// A page that beats, takes the job and then falls silent (a closed tab,
// a hung browser) ends Do with ErrPageLost within 5 s of its last beat.
func TestSilentPageEndsWithin5s(t *testing.T) {
	s := newServer(t, browser.Options{})
	page := newFakePage(t, s)
	page.hello()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); page.beat(stop) }()
	done := doAsync(s, "never", nil, nil)
	if code, _ := page.job(); code != 200 {
		t.Fatalf("job: %d", code)
	}
	time.Sleep(1500 * time.Millisecond) // beats while "running"
	select {
	case err := <-done:
		t.Fatalf("Do ended while the page beat: %v", err)
	default:
	}
	close(stop)
	wg.Wait()
	silent := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, browser.ErrPageLost) {
			t.Fatalf("Do: %v, want ErrPageLost", err)
		}
		if d := time.Since(silent); d > 5*time.Second {
			t.Errorf("Do ended %v after the last beat, want < 5s", d)
		}
		t.Logf("Do ended %v after the last beat: %v", time.Since(silent).Round(time.Millisecond), err)
	case <-time.After(6 * time.Second):
		t.Fatal("Do still waiting 6 s after the page fell silent")
	}
}

// No page: Do ends with ErrNoPage after the connect timeout.
func TestNoPage(t *testing.T) {
	s := newServer(t, browser.Options{ConnectTimeout: 300 * time.Millisecond})
	start := time.Now()
	err := s.Do(context.Background(), "x", nil, nil)
	if !errors.Is(err, browser.ErrNoPage) {
		t.Fatalf("Do: %v, want ErrNoPage", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}

// The caller's context ends Do with its cause.
func TestDoContext(t *testing.T) {
	s := newServer(t, browser.Options{})
	ctx, cancel := context.WithCancelCause(context.Background())
	why := errors.New("stop")
	time.AfterFunc(100*time.Millisecond, func() { cancel(why) })
	if err := s.Do(ctx, "x", nil, nil); !errors.Is(err, why) {
		t.Fatalf("Do: %v, want the cause", err)
	}
}

// Close answers the polling page 410 (so that it says it is done) and
// ends a waiting Do with ErrClosed.
func TestClose(t *testing.T) {
	s, err := browser.New(browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := newFakePage(t, s)
	page.hello()
	got := make(chan int, 1)
	go func() {
		code, _ := page.call("GET", "/api/job", nil)
		got <- code
	}()
	time.Sleep(100 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code := <-got; code != http.StatusGone {
		t.Errorf("job poll at close: %d, want 410", code)
	}
	if err := s.Do(context.Background(), "x", nil, nil); !errors.Is(err, browser.ErrClosed) {
		t.Errorf("Do after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A body past MaxBody is refused and the job stays pending.
func TestMaxBody(t *testing.T) {
	s := newServer(t, browser.Options{MaxBody: 1 << 10})
	page := newFakePage(t, s)
	page.hello()
	stop := make(chan struct{})
	defer close(stop)
	go page.beat(stop)
	done := doAsync(s, "big", nil, nil)
	_, j := page.job()
	big := strings.Repeat("a", 4<<10)
	if code, _ := page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true, "result": big}); code != http.StatusBadRequest {
		t.Errorf("big result: %d, want 400", code)
	}
	page.call("POST", "/api/result", map[string]any{"id": j.ID, "ok": true, "result": 1})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
