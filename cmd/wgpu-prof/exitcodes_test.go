package main

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// failed marks a failure during a measurement for exit status 1, but an
// interrupt it is handed still exits 130 (wrapped or as the host kernels'
// ErrStopped) and a usage error the experiment's validation found still
// exits 2; a status already chosen is kept.
func TestFailedExitStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code int
	}{
		{"interrupt", fmt.Errorf("the latency anatomy: %w", env.ErrInterrupted), 130},
		{"host kernels stopped", fmt.Errorf("cpu ceilings: %w", hostsimd.ErrStopped), 130},
		{"usage error", env.Usage(errors.New("--max-bytes 9: above the adapter's maxBufferSize 8")), 2},
		{"wrapped usage error", fmt.Errorf("latency anatomy: %w", env.Usage(errors.New("--rounds 2"))), 2},
		{"device lost", errors.New("device lost"), 1},
		{"status chosen", exitError{code: 130, msg: "stopped", err: env.ErrInterrupted}, 130},
	} {
		code, msg := exitStatus(failed(c.err))
		if code != c.code {
			t.Errorf("%s: failed(%v) exits %d, want %d", c.name, c.err, code, c.code)
		}
		if msg == "" {
			t.Errorf("%s: no message", c.name)
		}
	}
	if failed(nil) != nil {
		t.Error("failed(nil) is not nil")
	}
}

// A usage error found once the adapter is open exits 2, not 1: latency's
// --max-bytes past the adapter's maxBufferSize (found by the experiment's
// validation and handed to failed), and an implementation or backend the
// flags name that cannot be used here.
func TestLatencyUsageErrorsExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--impl", "metal"}, `unknown implementation "metal"`},
		{[]string{"--backend", "metal"}, "metal"},
		{[]string{"--max-bytes", "4611686018427387904"}, "--max-bytes 4611686018427387904: above the adapter's maxBufferSize"},
	} {
		if runtime.GOOS == "darwin" && c.args[1] == "metal" && c.args[0] == "--backend" {
			continue // Metal exists there
		}
		stdout, _, err := runCmd(append([]string{"latency", "--rounds", "3"}, c.args...)...)
		code, msg := exitStatus(err)
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("latency %v: exit %d %q, want 2 and %q", c.args, code, msg, c.want)
		}
		if stdout != "" {
			t.Errorf("latency %v wrote to stdout: %q", c.args, stdout)
		}
	}
}
