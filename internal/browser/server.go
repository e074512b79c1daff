package browser

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The headers of the API calls: the token and, after the hello, the
// session.
const (
	TokenHeader   = "X-Wgpu-Prof-Token"
	SessionHeader = "X-Wgpu-Prof-Session"
	tokenQuery    = "t"
)

// Defaults of Options.
const (
	// DefaultHeartbeatTimeout is how long Do waits without a heartbeat
	// before it gives the page up (the page beats every 500 ms).
	DefaultHeartbeatTimeout = 3 * time.Second
	// DefaultConnectTimeout is how long Do waits for a page to connect.
	DefaultConnectTimeout = 2 * time.Minute
	// DefaultMaxBody is the largest request body the server reads.
	DefaultMaxBody = 16 << 20
	// DefaultListen is the address the server listens on by default.
	DefaultListen = "127.0.0.1:0"
)

// jobPoll is how long GET /api/job waits for a job before it answers
// 204 (the page asks again).
const jobPoll = time.Second

var (
	// ErrNoPage: no page connected within Options.ConnectTimeout.
	ErrNoPage = errors.New("browser: no page connected")
	// ErrPageLost: the page stopped sending heartbeats (tab closed,
	// browser hung or exited).
	ErrPageLost = errors.New("browser: the page stopped answering")
	// ErrClosed: the server was closed.
	ErrClosed = errors.New("browser: server closed")
)

// JobError is a job the page ran and reported failed.
type JobError struct {
	Kind string
	Msg  string // cleaned (Clean)
}

func (e *JobError) Error() string {
	return fmt.Sprintf("browser: job %s failed in the page: %s", e.Kind, e.Msg)
}

// Options configure a Server; the zero value is the safe default.
type Options struct {
	// Listen is the address to listen on; "" is 127.0.0.1 on a free port.
	// Any other makes the page reachable from elsewhere (the token still
	// guards it); callers should say so.
	Listen string
	// ConnectTimeout bounds the wait for a page to connect (0: the default).
	ConnectTimeout time.Duration
	// HeartbeatTimeout bounds the time between two heartbeats of a
	// connected page (0: the default).
	HeartbeatTimeout time.Duration
	// MaxBody is the largest request body read (0: the default).
	MaxBody int64
}

// Server serves the page and hands it jobs; see the package doc for the
// protocol. Its methods are safe for concurrent use; Do runs one job at a
// time.
type Server struct {
	opts     Options
	ln       net.Listener
	srv      *http.Server
	token    string
	hosts    []string // Host values accepted (nil: any, off loopback)
	loopback bool
	start    time.Time

	doMu sync.Mutex // one job at a time

	mu        sync.Mutex
	session   string
	userAgent string
	lastBeat  time.Time
	nextID    uint64
	pending   *job
	closing   bool
	wake      chan struct{} // closed (and replaced) when pending or closing changes
	connected chan struct{}
	served    chan struct{}
	serveErr  error
}

type job struct {
	ID     uint64          `json:"id"`
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
	taken  bool
	done   chan jobReply // buffered: the result handler never blocks
}

type jobReply struct {
	result json.RawMessage
	err    error
}

// New listens on opts.Listen (default 127.0.0.1, a free port) and serves
// the page until Close.
func New(opts Options) (*Server, error) {
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.HeartbeatTimeout <= 0 {
		opts.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	tok, err := randomString(32)
	if err != nil {
		return nil, fmt.Errorf("browser: token: %w", err)
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("browser: listen on %s: %w", opts.Listen, err)
	}
	s := &Server{opts: opts, ln: ln, token: tok, start: time.Now(),
		wake: make(chan struct{}), connected: make(chan struct{}), served: make(chan struct{})}
	addr := ln.Addr().(*net.TCPAddr)
	if addr.IP.IsLoopback() {
		s.loopback = true
		port := strconv.Itoa(addr.Port)
		s.hosts = []string{net.JoinHostPort(addr.IP.String(), port), net.JoinHostPort("localhost", port)}
	}
	// ErrorLog discards: the standard logger would print what a client
	// sent in a malformed request.
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		err := s.srv.Serve(ln)
		s.mu.Lock()
		if !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		s.mu.Unlock()
		close(s.served)
	}()
	return s, nil
}

// Loopback reports whether the server listens on a loopback address only.
func (s *Server) Loopback() bool { return s.loopback }

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the page's address with its token. Off loopback its host is the
// listening address (0.0.0.0 or [::] for every interface: the person puts
// the machine's name there).
func (s *Server) URL() string {
	return "http://" + s.Addr() + "/?" + tokenQuery + "=" + s.token
}

// Connected is closed once a page said hello.
func (s *Server) Connected() <-chan struct{} { return s.connected }

// UserAgent is the connected page's navigator.userAgent, cleaned; "" before
// the hello.
func (s *Server) UserAgent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.userAgent
}

// Do hands the page a job of kind with params (marshalled to JSON), waits
// for its result and decodes it into out (nil: discard). It returns
// ErrNoPage when no page connected in time, ErrPageLost when the page
// stopped beating, a *JobError when the page reports the job failed, and
// context.Cause(ctx) when ctx ends first.
func (s *Server) Do(ctx context.Context, kind string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("browser: job %s: params: %w", kind, err)
	}
	s.doMu.Lock()
	defer s.doMu.Unlock()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrClosed
	}
	s.nextID++
	j := &job{ID: s.nextID, Kind: kind, Params: raw, done: make(chan jobReply, 1)}
	s.pending = j
	s.broadcastLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.pending == j {
			s.pending = nil
		}
		s.mu.Unlock()
	}()

	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-j.done:
			if r.err != nil {
				return r.err
			}
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(r.result, out); err != nil {
				return fmt.Errorf("browser: job %s: the page's result: %w", kind, err)
			}
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
			if err := s.alive(); err != nil {
				return fmt.Errorf("job %s: %w", kind, err)
			}
		}
	}
}

// alive is nil while a page is connected and beating, or none has
// connected yet within the connect timeout.
func (s *Server) alive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrClosed
	}
	if s.session == "" {
		if time.Since(s.start) > s.opts.ConnectTimeout {
			return fmt.Errorf("%w within %v", ErrNoPage, s.opts.ConnectTimeout)
		}
		return nil
	}
	if since := time.Since(s.lastBeat); since > s.opts.HeartbeatTimeout {
		return fmt.Errorf("%w: no heartbeat for %v (the tab was closed, or the browser hung or exited)",
			ErrPageLost, since.Round(100*time.Millisecond))
	}
	return nil
}

// Close tells a polling page the work is done (410), stops the server and
// waits briefly for the requests in flight. Later calls do nothing.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		<-s.served
		return nil
	}
	s.closing = true
	s.broadcastLocked()
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.served
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}

func (s *Server) broadcastLocked() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// ServeHTTP is the whole server: the token first, then the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if !s.authorized(r) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Embedder-Policy", "require-corp")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; img-src data:; "+
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	switch r.URL.Path {
	case "/":
		if !method(w, r, http.MethodGet) {
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		pageTemplate.Execute(w, struct{ Token string }{s.token})
	case "/page.js":
		if !method(w, r, http.MethodGet) {
			return
		}
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write(pageJS)
	case "/api/hello":
		if method(w, r, http.MethodPost) {
			s.hello(w, r)
		}
	case "/api/beat":
		if method(w, r, http.MethodPost) && s.inSession(w, r) {
			w.WriteHeader(http.StatusNoContent)
		}
	case "/api/job":
		if method(w, r, http.MethodGet) && s.inSession(w, r) {
			s.nextJob(w, r)
		}
	case "/api/result":
		if method(w, r, http.MethodPost) && s.inSession(w, r) {
			s.result(w, r)
		}
	default:
		http.NotFound(w, r)
	}
}

// authorized: the token (header or query) in constant time; on loopback
// the Host the server listens as (no DNS rebinding); an Origin, when
// sent, the server's own.
func (s *Server) authorized(r *http.Request) bool {
	tok := r.Header.Get(TokenHeader)
	if tok == "" {
		tok = r.URL.Query().Get(tokenQuery)
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
		return false
	}
	if s.hosts != nil {
		ok := false
		for _, h := range s.hosts {
			ok = ok || r.Host == h
		}
		if !ok {
			return false
		}
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return false
	}
	return true
}

func method(w http.ResponseWriter, r *http.Request, m string) bool {
	if r.Method != m {
		w.Header().Set("Allow", m)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return false
	}
	return true
}

// inSession checks the session header against the connected tab's and
// counts the request as a heartbeat.
func (s *Server) inSession(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get(SessionHeader)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.session)) != 1 {
		http.Error(w, "not the connected tab", http.StatusConflict)
		return false
	}
	s.lastBeat = time.Now()
	return true
}

// hello makes the caller the one tab the server talks to.
func (s *Server) hello(w http.ResponseWriter, r *http.Request) {
	var req struct {
		UserAgent string `json:"userAgent"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		http.Error(w, "bad hello", http.StatusBadRequest)
		return
	}
	id, err := randomString(16)
	if err != nil {
		http.Error(w, "no session", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	if s.session != "" {
		s.mu.Unlock()
		http.Error(w, "another tab is already connected to this wgpu-prof", http.StatusConflict)
		return
	}
	if s.closing {
		s.mu.Unlock()
		http.Error(w, "wgpu-prof is done", http.StatusGone)
		return
	}
	s.session, s.userAgent, s.lastBeat = id, Clean(req.UserAgent, maxString), time.Now()
	close(s.connected)
	s.mu.Unlock()
	writeJSON(w, map[string]string{"session": id})
}

// nextJob answers the pending job, or 204 after jobPoll, or 410 once the
// server closes.
func (s *Server) nextJob(w http.ResponseWriter, r *http.Request) {
	timer := time.NewTimer(jobPoll)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			http.Error(w, "wgpu-prof is done", http.StatusGone)
			return
		}
		if j := s.pending; j != nil && !j.taken {
			j.taken = true
			s.mu.Unlock()
			writeJSON(w, j)
			return
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			w.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			return
		}
	}
}

// result takes the page's answer to the job it was handed.
func (s *Server) result(w http.ResponseWriter, r *http.Request) {
	var res struct {
		ID     uint64          `json:"id"`
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.opts.MaxBody)).Decode(&res); err != nil {
		http.Error(w, "bad result", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	j := s.pending
	if j == nil || !j.taken || j.ID != res.ID {
		s.mu.Unlock()
		http.Error(w, "no such job", http.StatusConflict)
		return
	}
	s.pending = nil
	s.mu.Unlock()
	if res.OK {
		j.done <- jobReply{result: res.Result}
	} else {
		j.done <- jobReply{err: &JobError{Kind: j.Kind, Msg: Clean(res.Error, maxString)}}
	}
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// randomString is n bytes from crypto/rand, URL-safe.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))
