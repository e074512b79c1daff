package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// trigger is a progress writer that calls fn once, on the first line
// containing on.
type trigger struct {
	on   string
	fn   func()
	once sync.Once
	log  bytes.Buffer
}

func (w *trigger) Write(p []byte) (int, error) {
	w.log.Write(p)
	if strings.Contains(string(p), w.on) {
		w.once.Do(w.fn)
	}
	return len(p), nil
}

// A short run of two workloads; the fault comes at the second.
func twoWorkloadRun(out string) []string {
	args := []string{"run", "--quick", "--workloads", "cosine-single,cosine-topk", "--n", "1024", "--d", "64",
		"--batches", "64,256,1024", "--budget", "5ms", "--format", "json"}
	if out != "" {
		args = append(args, "--out", out)
	}
	return args
}

// checkPartial checks a run that stopped at cosine-topk: the status, and a
// report on stdout with the cosine-single rows, marked INCOMPLETE.
func checkPartial(t *testing.T, stdout string, err error, wantCode int, wantMsg string) *report.Report {
	t.Helper()
	code, msg := exitStatus(err)
	if code != wantCode || !strings.Contains(msg, wantMsg) {
		t.Fatalf("exit %d %q, want %d and a message with %q", code, msg, wantCode, wantMsg)
	}
	rep, derr := report.Decode([]byte(stdout), "stdout")
	if derr != nil {
		t.Fatalf("the finished rows were not reported: %v\n%s", derr, stdout)
	}
	var single, topk int
	for _, m := range rep.Measurements {
		switch m.Workload {
		case "cosine-single":
			single++
		case "cosine-topk":
			topk++
		}
	}
	if single == 0 || topk != 0 {
		t.Errorf("rows: %d cosine-single, %d cosine-topk; want the first workload's only", single, topk)
	}
	marked := false
	for _, w := range rep.Warnings {
		marked = marked || (strings.Contains(w, "INCOMPLETE") && strings.Contains(w, wantMsg))
	}
	if !marked {
		t.Errorf("the report is not marked incomplete with the reason: %q", rep.Warnings)
	}
	return rep
}

// A device lost mid-run (wgpuDeviceDestroy at the second workload) ends
// the run with the rows finished so far reported and marked, a message
// saying the device was lost, and exit status 1; --out gets the same set.
func TestDeviceLostMidRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	testHookOpened = func(env *env.Env) {
		env.Progress = &trigger{on: "gpu  cosine-topk", fn: env.Device.Destroy}
	}
	defer func() { testHookOpened = nil }()
	stdout, _, err := runCmd(twoWorkloadRun(out)...)
	checkPartial(t, stdout, err, 1, "device lost")
	if _, err := report.Read(filepath.Join(out, "report.json")); err != nil {
		t.Errorf("--out has no complete report: %v", err)
	}
}

// A full disk under --out: the report still reaches stdout in full, the
// status is 1 with a message naming --out, and the folder keeps its
// previous contents — no partial set, no staging folder. Needs root to
// mount a tiny tmpfs; report.TestWriteDirFailingWriter covers the same
// with a writer that fails.
func TestDiskFullUnderOut(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer exec.Command("umount", mnt).Run()
	out := filepath.Join(mnt, "out")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "report.json"), []byte("previous"), 0o644)
	// Fill the disk.
	f, _ := os.Create(filepath.Join(mnt, "filler"))
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	saxpy, _ := filepath.Abs("testdata/saxpy.wgsl")
	stdout, _, err := runCmd("kernel", saxpy, "--buffer", "x=f32:4096:rand", "--buffer", "y=f32:4096:rand", "--dispatch", "64",
		"--quick", "--budget", "5ms", "--format", "json", "--out", out, "--force")
	code, msg := exitStatus(err)
	if code != 1 || !strings.Contains(msg, "--out") || !strings.Contains(msg, "no space") {
		t.Fatalf("exit %d %q, want 1 naming --out and the full disk", code, msg)
	}
	if _, err := report.Decode([]byte(stdout), "stdout"); err != nil {
		t.Fatalf("the report did not reach stdout: %v", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 1 || ents[0].Name() != "report.json" {
		t.Errorf("--out holds %v, want only the previous report.json", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "report.json")); string(b) != "previous" {
		t.Errorf("previous report.json changed to %q", b)
	}
	if ents, _ := os.ReadDir(mnt); len(ents) != 2 {
		t.Errorf("staging left behind: %v", ents)
	}
	var ee exitError
	if !errors.As(err, &ee) {
		t.Error("not an exitError")
	}
}

// compare's default threshold is 5%: an 8% slowdown (significant with 1%
// noise and 30 samples) regresses without --threshold, a 3% one does not.
func TestCompareDefaultThreshold(t *testing.T) {
	dir := t.TempDir()
	old := writeReport(t, dir, "old.json", syntheticReport(t, 1, nil))
	slow8 := writeReport(t, dir, "slow8.json", syntheticReport(t, 3, map[string]float64{"cosine-batch/gpu": 1.08}))
	slow3 := writeReport(t, dir, "slow3.json", syntheticReport(t, 4, map[string]float64{"cosine-batch/gpu": 1.03}))
	if _, _, err := runCmd("compare", old, slow8); err == nil {
		t.Error("an 8% slowdown passed the default threshold")
	} else if code, _ := exitStatus(err); code != 1 {
		t.Errorf("an 8%% slowdown: exit %d, want 1", code)
	}
	out, _, err := runCmd("compare", old, slow3)
	if err != nil {
		t.Errorf("a 3%% slowdown failed the default threshold: %v", err)
	}
	if !strings.Contains(out, "cosine-batch") || !strings.Contains(out, "+3") {
		t.Errorf("the 3%% slowdown is not shown as significant:\n%s", out)
	}
}
