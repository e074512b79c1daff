package browser

import (
	"context"
	"fmt"
)

// Doer runs one job in a page: a Server, or a Session (a Server and the
// browser it launched).
type Doer interface {
	Do(ctx context.Context, kind string, params, out any) error
}

// How a Session's page is opened.
const (
	// OpenHeadless launches headless Chromium on the page (Launch).
	OpenHeadless = "headless"
	// OpenNone launches nothing: a person opens Session.URL in a browser
	// of their own.
	OpenNone = "none"
)

// SessionOptions configure Open.
type SessionOptions struct {
	Server Options
	// Open is OpenHeadless ("": the default) or OpenNone.
	Open   string
	Launch LaunchOptions
}

// Session is a page server and, with OpenHeadless, the browser it
// launched on the page.
type Session struct {
	*Server
	browser *Chromium // nil with OpenNone
}

// Open starts the server and, with OpenHeadless, the browser.
func Open(o SessionOptions) (*Session, error) {
	if o.Open == "" {
		o.Open = OpenHeadless
	}
	if o.Open != OpenHeadless && o.Open != OpenNone {
		return nil, fmt.Errorf("browser: open %q: want %s or %s", o.Open, OpenHeadless, OpenNone)
	}
	var path string
	if o.Open == OpenHeadless && o.Launch.Path == "" {
		// Before listening: a missing browser is the first thing to say.
		p, err := FindChromium()
		if err != nil {
			return nil, err
		}
		path = p
	}
	srv, err := New(o.Server)
	if err != nil {
		return nil, err
	}
	s := &Session{Server: srv}
	if o.Open == OpenHeadless {
		if path != "" {
			o.Launch.Path = path
		}
		b, err := Launch(srv.URL(), o.Launch)
		if err != nil {
			srv.Close()
			return nil, err
		}
		s.browser = b
	}
	return s, nil
}

// Browser is the launched browser; nil with OpenNone.
func (s *Session) Browser() *Chromium { return s.browser }

// Do is Server.Do that also ends, with the browser's exit status and last
// output, when the launched browser exits.
func (s *Session) Do(ctx context.Context, kind string, params, out any) error {
	if s.browser == nil {
		return s.Server.Do(ctx, kind, params, out)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-s.browser.Exited():
			cancel(fmt.Errorf("job %s: %w", kind, s.browser.ExitError()))
		case <-ctx.Done():
		}
	}()
	return s.Server.Do(ctx, kind, params, out)
}

// Close closes the server (the page is told it is done) and ends the
// browser, removing its profile.
func (s *Session) Close() error {
	err := s.Server.Close()
	if s.browser != nil {
		if berr := s.browser.Close(); err == nil {
			err = berr
		}
	}
	return err
}
