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

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// SIGINT stops the run cleanly: the current measurement ends, the rows
// finished are reported and marked, the status is 130.
func TestInterruptStopsCleanly(t *testing.T) {
	testHookOpened = func(env *env.Env) {
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
	testHookOpened = func(env *env.Env) {
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

// SIGINT before the first row (while the ceilings are measured) still
// reports what was measured, marked INCOMPLETE, on stdout and in every
// file of --out.
func TestInterruptDuringCeilingsReports(t *testing.T) {
	testHookOpened = func(env *env.Env) {
		env.Progress = &trigger{on: "cpu ceilings (read, write", fn: func() {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			time.Sleep(20 * time.Millisecond)
		}}
	}
	defer func() { testHookOpened = nil }()
	out := t.TempDir() + "/d"
	stdout, _, err := runCmd(twoWorkloadRun(out)...)
	if code, msg := exitStatus(err); code != 130 || !strings.Contains(msg, "interrupted") {
		t.Fatalf("exit %d %q, want 130 and a message with \"interrupted\"", code, msg)
	}
	rep, derr := report.Decode([]byte(stdout), "stdout")
	if derr != nil {
		t.Fatalf("nothing reported: %v\n%s", derr, stdout)
	}
	if len(rep.Ceilings.CPU)+len(rep.Ceilings.GPU) == 0 || len(rep.Measurements) != 0 || rep.Incomplete == "" {
		t.Errorf("%d ceilings, %d rows, incomplete %q: want the ceilings measured, no row, marked",
			len(rep.Ceilings.CPU)+len(rep.Ceilings.GPU), len(rep.Measurements), rep.Incomplete)
	}
	for _, f := range []string{"report.json", "report.txt", "report.csv", "report.bench", "report.html"} {
		b, err := os.ReadFile(out + "/" + f)
		if err != nil {
			t.Errorf("--out: %v", err)
			continue
		}
		if !strings.Contains(string(b), "INCOMPLETE") && !strings.Contains(strings.ToLower(string(b)), "incomplete") {
			t.Errorf("%s is not marked incomplete", f)
		}
	}
}

// SIGINT stops host at its next call wherever it lands (here: its first
// row), and what finished is reported marked INCOMPLETE, exit status 130.
// Uninterrupted, the row would run its whole budget (wall-clock time,
// whatever the machine's load): the return must come within half of it.
func TestHostInterruptReportsIncomplete(t *testing.T) {
	const budget = 4 * time.Second
	var at time.Time
	testHookHostStep = func(step string) {
		if strings.HasPrefix(step, "cpu auto:") && at.IsZero() {
			at = time.Now()
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
	}
	defer func() { testHookHostStep = nil }()
	stdout, _, err := runCmd("host", "--cpu-levels", "generic", "--d", "64", "--n", "200000", "--n-cached", "500",
		"--q", "8", "--budget", budget.String(), "--max-memory", "256MiB", "--format", "json")
	took := time.Since(at)
	if at.IsZero() {
		t.Fatalf("host never started a row (%v)", err)
	}
	if code, msg := exitStatus(err); code != 130 || !strings.Contains(msg, "interrupted") {
		t.Fatalf("exit %d %q, want 130 and a message with \"interrupted\"", code, msg)
	}
	if took > budget/2 {
		t.Errorf("host returned %v after SIGINT, within a row of budget %v", took, budget)
	}
	rep, derr := report.Decode([]byte(stdout), "stdout")
	if derr != nil {
		t.Fatalf("nothing reported: %v\n%s", derr, stdout)
	}
	if len(rep.Ceilings.CPU) == 0 || rep.Incomplete == "" {
		t.Fatalf("%d ceilings, incomplete %q: want the ceilings measured and the report marked", len(rep.Ceilings.CPU), rep.Incomplete)
	}
	marked := false
	for _, w := range rep.Warnings {
		marked = marked || strings.Contains(w, "INCOMPLETE")
	}
	if !marked {
		t.Errorf("warnings %q: none marks the report INCOMPLETE", rep.Warnings)
	}
}

// SIGTERM while hnsw's index is being built (minutes at this ef) stops
// the build at its next insert, with status 130: within the time the run
// took to reach the build (opening the adapter, generating the rows: this
// machine's speed and load now), or 1.5 s if that was shorter.
func TestIndexBuildStopsOnSIGTERM(t *testing.T) {
	var signalled time.Time
	testHookOpened = func(env *env.Env) {
		env.Progress = &trigger{on: "data hnsw", fn: func() {
			signalled = time.Now()
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}}
	}
	defer func() { testHookOpened = nil }()
	start := time.Now()
	_, _, err := runCmd("breakeven", "--kernel", "hnsw", "--candidates", "hnsw", "--ef", "3000", "--n", "20000",
		"--quick", "--format", "json")
	took := time.Since(signalled)
	if code, msg := exitStatus(err); code != 130 || !strings.Contains(msg, "interrupted") {
		t.Fatalf("exit %d %q, want 130 and a message with \"interrupted\"", code, msg)
	}
	if signalled.IsZero() {
		t.Fatal("the build was never announced: no signal sent")
	}
	if reach := signalled.Sub(start); took > max(reach, 1500*time.Millisecond) {
		t.Errorf("returned %v after the signal, the run took %v to reach the build", took, reach)
	}
}
