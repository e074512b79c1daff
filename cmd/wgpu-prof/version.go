package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// toolVersion is the version of wgpu-prof itself when the build carries no
// module version (a build from a checkout reports "(devel)").
const toolVersion = "0.1.0"

// buildCommit is set by scripts/run.sh (-ldflags "-X main.buildCommit=…")
// for builds without Go's VCS stamping.
var buildCommit string

// buildInfo is what `wgpu-prof version` prints and every report's header
// carries: module version, VCS commit (with "+dirty" for uncommitted
// changes) and date, Go version.
type buildInfo struct {
	version, commit, date, goVersion string
	dirty                            bool
}

func readBuildInfo() buildInfo {
	b := buildInfo{version: toolVersion, goVersion: runtime.Version()}
	if c, dirty := strings.CutSuffix(buildCommit, "+dirty"); c != "" {
		b.commit, b.dirty = c, dirty
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.time":
			b.date = s.Value
		case "vcs.modified":
			b.dirty = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) commitString() string {
	if b.commit == "" {
		return "unknown (built without VCS stamping; scripts/run.sh sets it)"
	}
	c := b.commit
	if len(c) > 12 {
		c = c[:12]
	}
	if b.dirty {
		c += "+dirty"
	}
	return c
}

// versionString is the one-line tool identification in every report:
// "wgpu-prof 0.1.0 (commit 468ba29bc1e3, wgpu-native 29.0.1.1, go1.26.0)".
func versionString() string {
	b := readBuildInfo()
	c := b.commitString()
	if b.commit == "" {
		c = "unknown"
	}
	return fmt.Sprintf("wgpu-prof %s (commit %s, wgpu-native %s, %s)",
		b.version, c, env.WgpuNativeVersion(), b.goVersion)
}

func runVersion(stdout, stderr io.Writer, args []string) error {
	f := newFlags("version", stdout, stderr, "usage: wgpu-prof version\nPrints the tool version, the commit it was built from, the wgpu-native\nlibrary it loads, the Dawn library --impl dawn loads and the Go version (also in every report's header).", "")
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if f.NArg() > 0 {
		return fmt.Errorf("version takes no arguments (got %q)", f.Args())
	}
	b := readBuildInfo()
	fmt.Fprintf(stdout, "wgpu-prof %s\n", b.version)
	fmt.Fprintf(stdout, "  commit       %s", b.commitString())
	if b.date != "" {
		fmt.Fprintf(stdout, " (%s)", b.date)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "  wgpu-native  %s\n", env.WgpuNativeVersion())
	fmt.Fprintf(stdout, "  dawn         %s\n", env.DawnVersion())
	fmt.Fprintf(stdout, "  go           %s %s/%s\n", b.goVersion, runtime.GOOS, runtime.GOARCH)
	return nil
}
