//go:build unix

package main

// The tests that signal the test process itself: syscall.Kill and SIGTERM
// exist only on Unix.

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
)

// SIGINT stops the run cleanly: the current measurement ends, the rows
// finished are reported and marked, the status is 130.
func TestInterruptStopsCleanly(t *testing.T) {
	testHookOpened = func(env *experiment.Env) {
		env.Progress = &trigger{on: "gpu  cosine-topk", fn: func() {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			time.Sleep(20 * time.Millisecond)
		}}
	}
	defer func() { testHookOpened = nil }()
	stdout, _, err := runCmd(twoWorkloadRun("")...)
	checkPartial(t, stdout, err, 130, "interrupted")
}

// SIGTERM during hybrid's replay stops it at the next chunk with status
// 130 and no report: the replay loop checks the interrupt between chunks
// rather than running every replay to the end (minutes on a slow adapter).
func TestHybridStopsOnSIGTERM(t *testing.T) {
	testHookOpened = func(env *experiment.Env) {
		env.Progress = &trigger{on: "hybrid: building", fn: func() {
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(20 * time.Millisecond)
		}}
	}
	defer func() { testHookOpened = nil }()
	_, _, err := runCmd("hybrid", "--kernel", "cosine-single", "--sides", "cpu:threads=1,cpu:threads=2",
		"--quick", "--requests", "20000", "--search-budget", "5s", "--format", "json")
	if code, msg := exitStatus(err); code != 130 || !strings.Contains(msg, "interrupted") {
		t.Fatalf("exit %d %q, want 130 and a message with \"interrupted\"", code, msg)
	}
}
