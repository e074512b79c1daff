package buildcheck

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const modulePath = "github.com/wgpu-prof/wgpu-prof"

// TestBuildWithoutSetup copies the repository's tracked and untracked
// (not ignored) files into a temporary folder, so there is no third_party
// there, and builds in it, with every CGO_*FLAGS cleared: every package
// (go build ./...), and a separate module that requires this one through a
// replace directive and blank-imports each of its importable packages, the
// way a user of the module would. The resulting program must also start
// with no wgpu-native anywhere it could find one.
func TestBuildWithoutSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole module from a copy (tens of seconds)")
	}
	start := time.Now()
	root := strings.TrimSpace(run(t, ".", nil, "git", "rev-parse", "--show-toplevel"))
	src := filepath.Join(t.TempDir(), "wgpu-prof")
	copyRepo(t, root, src)
	if _, err := os.Stat(filepath.Join(src, "third_party")); !os.IsNotExist(err) {
		t.Fatalf("the copy has a third_party folder (%v): it must be git-ignored", err)
	}

	env := buildEnv(t)
	run(t, src, env, "go", "build", "./...")

	var imports []string
	for _, line := range strings.Split(run(t, src, env, "go", "list", "-f", "{{.ImportPath}} {{.Name}}", "./..."), "\n") {
		path, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || name == "main" || path == modulePath+"/internal" ||
			strings.Contains(path, "/internal/") {
			continue
		}
		imports = append(imports, path)
	}
	if len(imports) == 0 {
		t.Fatal("go list found no importable package")
	}

	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(goMod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	user := filepath.Join(t.TempDir(), "user")
	if err := os.Mkdir(user, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "go.mod"), fmt.Sprintf("module example.com/user\n\n%s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n",
		goLine, modulePath, modulePath, src))
	var main bytes.Buffer
	main.WriteString("// Command user imports every package of " + modulePath + ".\npackage main\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&main, "\t_ %q\n", p)
	}
	main.WriteString(")\n\nfunc main() {}\n")
	write(t, filepath.Join(user, "main.go"), main.String())
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "go.sum"), string(sum))
	exe := filepath.Join(user, "user")
	run(t, user, env, "go", "build", "-o", exe, ".")

	// It starts (package inits run) with no library next to it, none in an
	// empty cache folder and WGPU_NATIVE_LIB unset: nothing is linked.
	home := t.TempDir()
	var runEnv []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "WGPU_NATIVE_LIB" && k != "HOME" && k != "XDG_CACHE_HOME" && k != "LD_LIBRARY_PATH" {
			runEnv = append(runEnv, kv)
		}
	}
	run(t, user, append(runEnv, "HOME="+home, "XDG_CACHE_HOME="+home), exe)
	t.Logf("built %d packages from a copy without third_party, and a program importing %d of them, in %v",
		strings.Count(run(t, src, env, "go", "list", "./..."), "\n"), len(imports), time.Since(start).Round(time.Second))
}

// buildEnv is this environment without anything set-up could have
// provided to the C compiler or linker, in module mode.
func buildEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "CGO_ENABLED",
			"GOFLAGS", "GOWORK", "LIBRARY_PATH", "C_INCLUDE_PATH", "CPATH",
			"WGPU_NATIVE_LIB", "WGPU_NATIVE_INCLUDE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CGO_ENABLED=1", "CGO_CFLAGS=", "CGO_CPPFLAGS=", "CGO_LDFLAGS=", "GOFLAGS=-mod=mod", "GOWORK=off")
}

// copyRepo copies the files git would show in a commit of the working tree
// (tracked and untracked, ignored ones left out) from root to dst.
func copyRepo(t *testing.T, root, dst string) {
	t.Helper()
	list := run(t, root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	n := 0
	for _, rel := range strings.Split(list, "\x00") {
		if rel == "" {
			continue
		}
		from := filepath.Join(root, rel)
		fi, err := os.Lstat(from)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(from)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		copyFile(t, from, to, fi.Mode().Perm())
		n++
	}
	if n == 0 {
		t.Fatal("git ls-files listed no file")
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir (with env, or this environment if nil) and
// returns its standard output; it fails the test with all output if the
// command fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s%s", name, strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
