//go:build unix

package browser_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/browser"
)

// openChromium launches headless Chromium on SwiftShader (skipping the
// test, with the reason, where there is none) and waits for its page.
func openChromium(t *testing.T) *browser.Session {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	if _, err := browser.FindChromium(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	s, err := browser.Open(browser.SessionOptions{Launch: browser.LaunchOptions{Adapter: "swiftshader"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	select {
	case <-s.Connected():
	case <-s.Browser().Exited():
		t.Fatal(s.Browser().ExitError())
	case <-time.After(90 * time.Second):
		t.Fatal("headless Chromium's page did not connect within 90 s")
	}
	return s
}

// groupGone reports whether no process of group pgid is left.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// Headless Chromium lists SwiftShader with its version, a cross-origin
// isolated page with a fine timer, and working timestamps; Close ends
// every process of the browser and removes its profile.
func TestChromiumDescribesSwiftShader(t *testing.T) {
	s := openChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := browser.Describe(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s, isolated %v, timer %v, %d adapter(s)", d.Browser, d.Version, d.CrossOriginIsolated, d.TimerResolution, len(d.Adapters))
	if !strings.Contains(d.Browser, "Chrom") || strings.Count(d.Version, ".") != 3 {
		t.Errorf("browser %q version %q", d.Browser, d.Version)
	}
	if !d.CrossOriginIsolated || !d.SecureContext {
		t.Errorf("crossOriginIsolated %v, isSecureContext %v: want both", d.CrossOriginIsolated, d.SecureContext)
	}
	if d.TimerResolution <= 0 || d.TimerResolution > 20*time.Microsecond {
		t.Errorf("timer resolution %v: want the isolated page's few µs", d.TimerResolution)
	}
	found := false
	for _, a := range d.Adapters {
		t.Logf("  %s: %s %s %q, fallback %v, timestamps %+v", a.Request, a.Vendor, a.Architecture, a.Description, a.IsFallbackAdapter != nil && *a.IsFallbackAdapter, a.Timestamps)
		if strings.Contains(strings.ToLower(a.Architecture+a.Description+a.Device), "swiftshader") {
			found = true
			if !a.Timestamps.OK || a.Limits["maxBufferSize"] == 0 || len(a.Features) == 0 {
				t.Errorf("SwiftShader: timestamps %+v, %d limits, features %v", a.Timestamps, len(a.Limits), a.Features)
			}
		}
	}
	if !found {
		t.Errorf("no SwiftShader among %+v", d.Adapters)
	}
	pid, profile := s.Browser().Pid(), s.Browser().Profile()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !groupGone(pid) {
		t.Errorf("processes of the browser's group %d are left", pid)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("profile %s left (%v)", profile, err)
	}
}

// A hung browser (its processes stopped) ends the job within 5 s.
func TestHungChromium(t *testing.T) {
	s := openChromium(t)
	pid := s.Browser().Pid()
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-pid, syscall.SIGCONT)
	start := time.Now()
	_, err := browser.Describe(context.Background(), s)
	if !errors.Is(err, browser.ErrPageLost) {
		t.Fatalf("Describe: %v, want ErrPageLost", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v, want < 5 s", d)
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// A browser that exits ends the job at once, saying so.
func TestChromiumExits(t *testing.T) {
	s := openChromium(t)
	pid := s.Browser().Pid()
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := browser.Describe(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "Chromium ended early") {
		t.Fatalf("Describe: %v, want the browser's end", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v, want < 5 s", d)
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
}
