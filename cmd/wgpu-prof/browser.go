package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// browserCommands are the commands that run through --impl browser so
// far: the browser as a third WebGPU implementation grows command by command.
var browserCommands = []string{"devices"}

// browserFlags are the flags that mean something only with --impl browser.
var browserFlags = []string{"open", "listen", "open-timeout"}

// checkBrowserImpl refuses --impl browser (alone or in a list) for a
// command that cannot run through the browser yet, naming those that can,
// and the browser's flags without it.
func checkBrowserImpl(f *cmdFlags) error {
	if !f.takes("impl") {
		return nil
	}
	impl := f.str("impl")
	for _, part := range strings.Split(impl, ",") {
		if !isBrowserImpl(part) {
			continue
		}
		if !slices.Contains(browserCommands, f.cmd) {
			return fmt.Errorf("--impl browser: only %s runs through the browser so far; %s: use --impl wgpu-native or dawn",
				strings.Join(browserCommands, ", "), f.cmd)
		}
		if !isBrowserImpl(impl) {
			return fmt.Errorf("--impl %s: the browser is listed on its own (%s --impl browser)", impl, f.cmd)
		}
		return nil
	}
	for _, name := range browserFlags {
		if f.takes(name) && f.changed(name) {
			return fmt.Errorf("--%s: only with --impl browser", name)
		}
	}
	return nil
}

func isBrowserImpl(impl string) bool {
	return strings.EqualFold(strings.TrimSpace(impl), env.ImplBrowser)
}

// runBrowserDevices is devices --impl browser: the page server, the
// browser (headless Chromium, or the person's own with --open none), the
// adapter job, the report.
func runBrowserDevices(stdout, stderr io.Writer, f *cmdFlags, format string) error {
	if f.changed("backend") {
		return fmt.Errorf("--backend with --impl browser: the browser picks its own backend")
	}
	open := f.str("open")
	if open != env.BrowserOpenHeadless && open != env.BrowserOpenNone {
		return fmt.Errorf("--open %q: want %s or %s", open, env.BrowserOpenHeadless, env.BrowserOpenNone)
	}
	wait := f.duration("open-timeout")
	if wait <= 0 {
		return fmt.Errorf("--open-timeout %v: want a positive duration", wait)
	}
	sess, err := env.OpenBrowser(f.str("listen"), wait, open, strings.Fields(os.Getenv(browserFlagsEnv)))
	if err != nil {
		return err
	}
	defer sess.Close()
	if !sess.Loopback() {
		for _, l := range report.WrapBullet("wgpu-prof: warning: ", fmt.Sprintf("--listen %s: the page server is reachable from "+
			"other machines; the one-time token in its address is all that guards it", sess.Addr()), maxErrLine) {
			fmt.Fprintln(stderr, l)
		}
	}
	if open == env.BrowserOpenNone {
		fmt.Fprintf(stderr, "wgpu-prof: open this address in a browser with WebGPU within %v (it carries a one-time token):\n  %s\n",
			wait, sess.URL())
		if host, _, _ := net.SplitHostPort(sess.Addr()); net.ParseIP(host).IsUnspecified() {
			fmt.Fprintf(stderr, "  (from another machine: with this machine's name or address in place of %s)\n", host)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := env.BrowserDevices(ctx, sess, open == env.BrowserOpenHeadless, versionString())
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("devices --impl browser: %w", env.ErrInterrupted)
		return exitError{code: 130, msg: err.Error(), err: err}
	}
	if cerr := sess.Close(); cerr != nil {
		fmt.Fprintf(stderr, "wgpu-prof: warning: %v\n", cerr)
	}
	// From here an error is a failure of the browser or its page (exit 1).
	err = failed(err)
	if out.Browser == nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(out); jerr != nil {
			return jerr
		}
	} else {
		writeDevicesText(stdout, out)
	}
	return err
}

// browserFlagsEnv names more Chromium switches for the headless browser
// (space-separated; e.g. --use-webgpu-adapter=swiftshader or
// --enable-features=Vulkan).
const browserFlagsEnv = "WGPU_PROF_CHROMIUM_FLAGS"

// writeBrowserText is the browser block of devices --impl browser.
func writeBrowserText(w io.Writer, b *env.BrowserReport) {
	how := "opened by you (--open none)"
	if b.Headless {
		how = "headless, launched by wgpu-prof"
	}
	fmt.Fprintf(w, "browser: %s %s", orDash(b.Name), b.Version)
	if b.Platform != "" {
		fmt.Fprintf(w, " on %s", b.Platform)
	}
	fmt.Fprintf(w, ", %s\n", how)
	for i, l := range report.WrapBullet("", b.UserAgent, 90) {
		name := "user agent"
		if i > 0 {
			name = ""
		}
		fmt.Fprintf(w, "  %-23s%s\n", name, l)
	}
	iso := "no: the page is not cross-origin isolated (COOP/COEP not in force)"
	if b.CrossOriginIsolated {
		iso = "yes (COOP/COEP)"
	}
	fmt.Fprintf(w, "  %-23s%s\n", "cross-origin isolated", iso)
	res := "not measured (performance.now() did not move)"
	if b.TimerResolution > 0 {
		res = "performance.now() moves in steps of " + report.FormatDuration(b.TimerResolution)
	}
	fmt.Fprintf(w, "  %-23s%s\n", "timer resolution", res)
}
