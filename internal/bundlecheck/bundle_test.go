package bundlecheck

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const bundleName = "wgpu-prof-linux-amd64"

// tools are the programs the bundle's run.sh and the test's shell may use;
// the test's PATH holds links to these alone (optional ones when present),
// so a hidden need for go, python or anything else fails the test.
var (
	tools    = []string{"bash", "sh", "env", "cat", "date", "tee", "sed", "awk", "grep", "ls", "head", "tail", "cut", "sort", "mkdir", "mv", "rm", "dirname", "basename", "uname", "nproc", "timeout", "tar", "gzip", "stat", "split", "wc"}
	optional = []string{"ldd", "ldconfig"}
)

// TestBundleRunsOutsideTheRepository builds the bundle into a temporary
// folder, unpacks its .tar.gz into another, and there, with env -i and a
// PATH of links to the tools above: `wgpu-prof devices` must list an
// adapter with working timestamps, and so must `devices --impl dawn`
// through the Dawn beside the binary, with its version; `run --quick` on one workload must
// write a report naming the adapter, with verified rows; run.sh must stop
// after devices on a CPU adapter unless --allow-cpu, and with it run a
// phase and pack the results. The first workload comes from the binary's
// own listing.
func TestBundleRunsOutsideTheRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bundle and runs it (tens of seconds)")
	}
	root := strings.TrimSpace(cmd(t, ".", nil, "git", "rev-parse", "--show-toplevel"))
	dist := t.TempDir()
	cmd(t, root, nil, filepath.Join(root, "scripts", "bundle.sh"), "--dist", dist)
	dir := filepath.Join(dist, bundleName)
	for _, f := range []string{"wgpu-prof", "libwgpu_native.so", "lib/libwebgpu_dawn.so", "lib/VERSION", "run.sh", "README.txt", "BUILD.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the bundle lacks %s: %v", f, err)
		}
	}
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	if size >= 64<<20 {
		t.Errorf("the bundle is %d bytes, over 64 MiB", size)
	}

	// Unpack outside the repository, with a HOME of its own (no user cache
	// holding the library).
	home := t.TempDir()
	if strings.HasPrefix(home, root) {
		t.Fatalf("temporary folder %s is inside the repository", home)
	}
	cmd(t, home, nil, "tar", "-xzf", filepath.Join(dist, bundleName+".tar.gz"))
	pathDir := filepath.Join(home, "tools")
	if err := os.Mkdir(pathDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, list := range [][]string{tools, optional} {
		for _, name := range list {
			p, err := exec.LookPath(name)
			if err != nil {
				if i == 0 {
					t.Fatalf("this machine has no %s: %v", name, err)
				}
				continue
			}
			if err := os.Symlink(p, filepath.Join(pathDir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := []string{"PATH=" + pathDir, "HOME=" + home}
	sh := func(script string) (string, error) {
		c := exec.Command("/usr/bin/env", "-i", env[0], env[1], "bash", "-c", script)
		c.Dir = home
		out, err := c.CombinedOutput()
		// A tool missing from PATH, or a shell error, shows up here even
		// when the script goes on.
		for _, bad := range []string{"command not found", "No such file", "expression expected", "unbound variable", "syntax error"} {
			if strings.Contains(string(out), bad) {
				t.Errorf("%s: the output says %q:\n%s", script, bad, out)
			}
		}
		return string(out), err
	}

	if out, err := sh("command -v go || command -v python3 || command -v python || echo none"); err != nil || strings.TrimSpace(out) != "none" {
		t.Fatalf("the test's PATH reaches go or python: %q %v", out, err)
	}
	b := "./" + bundleName + "/wgpu-prof"
	out, err := sh(b + " devices")
	if err != nil {
		t.Fatalf("wgpu-prof devices: %v\n%s", err, out)
	}
	if !strings.Contains(out, "timestamps             working") {
		t.Errorf("wgpu-prof devices shows no adapter with working timestamps:\n%s", out)
	}
	// Dawn, beside the binary, with its version (no user cache here).
	out, err = sh(b + " devices --impl dawn")
	if err != nil {
		t.Fatalf("wgpu-prof devices --impl dawn: %v\n%s", err, out)
	}
	if !strings.Contains(out, "through dawn 1") || !strings.Contains(out, "timestamps             working") {
		t.Errorf("wgpu-prof devices --impl dawn shows no adapter through a versioned Dawn with working timestamps:\n%s", out)
	}
	out, err = sh(b + " workloads --has all")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("wgpu-prof workloads --has all: %v\n%s", err, out)
	}
	first := strings.Fields(out)[0]

	start := time.Now()
	out, err = sh(b + " run --quick --workloads " + first + " --out res-run")
	if err != nil {
		t.Fatalf("wgpu-prof run --quick --workloads %s: %v\n%s", first, err, out)
	}
	t.Logf("run --quick --workloads %s from the bundle: %v", first, time.Since(start).Round(time.Millisecond))
	var rep struct {
		Tool    string `json:"tool"`
		Adapter struct {
			Name       string `json:"name"`
			Backend    string `json:"backend"`
			DeviceType string `json:"device_type"`
		} `json:"adapter"`
		Measurements []struct {
			Workload string `json:"workload"`
			Verified bool   `json:"verified"`
		} `json:"measurements"`
	}
	raw, err := os.ReadFile(filepath.Join(home, "res-run", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Adapter.Name == "" || rep.Adapter.Backend == "" || rep.Adapter.DeviceType == "" {
		t.Errorf("report.json does not name its adapter: %+v", rep.Adapter)
	}
	rows := 0
	for _, m := range rep.Measurements {
		if m.Workload == first {
			rows++
			if !m.Verified {
				t.Errorf("report.json has an unverified %s row", first)
			}
		}
	}
	if rows == 0 {
		t.Errorf("report.json has no %s rows", first)
	}

	// run.sh: on a CPU adapter it stops after devices (status 3) and still
	// packs what it wrote; with --allow-cpu a phase runs and is packed.
	cpu := rep.Adapter.DeviceType == "cpu"
	out, err = sh("./" + bundleName + "/run.sh --out gate --phases devices,memory-compute --quick")
	if cpu {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(out, "stopping") {
			t.Errorf("run.sh on a CPU adapter without --allow-cpu: %v, want exit status 3 and a reason\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(home, "gate.tar.gz")); err != nil {
			t.Errorf("run.sh stopped without packing its results: %v", err)
		}
	}
	mc, err := sh(b + " workloads --has memory-compute")
	if err != nil || strings.TrimSpace(mc) == "" {
		t.Fatalf("wgpu-prof workloads --has memory-compute: %v\n%s", err, mc)
	}
	w := strings.Fields(mc)[0]
	// RUN_SH_SPLIT_KIB=1 makes run.sh split its tar into 1 KiB pieces, the
	// way it splits one over 15 MiB.
	out, err = sh("RUN_SH_SPLIT_KIB=1 ./" + bundleName + "/run.sh --out job --tar packed/job.tar.gz --allow-cpu --quick --phases memory-compute --workloads " + w)
	if err != nil {
		t.Fatalf("run.sh --phases memory-compute: %v\n%s", err, out)
	}
	for _, f := range []string{"job/job.log", "job/machine.txt", "job/devices.txt", "job/devices.json", "job/devices-dawn.txt",
		"job/memory-compute-" + w + ".txt", "job/memory-compute-" + w + "/report.json", "packed/job.tar.gz.00", "packed/job.tar.gz.01"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Errorf("run.sh did not write %s: %v", f, err)
		}
	}
	list, err := sh("cat packed/job.tar.gz.?? | tar -tzf -")
	if err != nil || !strings.Contains(list, "job/memory-compute-"+w+"/report.json") {
		t.Errorf("the packed results, joined, lack the report (%v):\n%s", err, list)
	}
}

func cmd(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	if env != nil {
		c.Env = env
	}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestRemoteCommandsDocumented: the remote commands docs/GPU.md gives are
// the ones scripts/remote-job.sh prints (and files with the results), so
// the two cannot drift apart.
func TestRemoteCommandsDocumented(t *testing.T) {
	root := strings.TrimSpace(cmd(t, ".", nil, "git", "rev-parse", "--show-toplevel"))
	out := cmd(t, root, nil, "bash", filepath.Join(root, "scripts", "remote-job.sh"), "commands")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "GPU.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		c, ok := strings.CutPrefix(strings.TrimSpace(line), "command: ")
		if !ok {
			continue
		}
		n++
		if !strings.Contains(string(doc), "\n"+c+"\n") {
			t.Errorf("docs/GPU.md does not give this remote command of scripts/remote-job.sh verbatim:\n%s", c)
		}
	}
	if n < 2 {
		t.Errorf("scripts/remote-job.sh commands printed %d commands, want 2:\n%s", n, out)
	}
}
