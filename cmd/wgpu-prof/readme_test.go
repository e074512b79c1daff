package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeExamples returns the wgpu-prof command lines of README.md's sh
// blocks.
func readmeExamples(t *testing.T) [][]string {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	inSh := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh && strings.HasPrefix(line, "bin/wgpu-prof "):
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			out = append(out, strings.Fields(line)[1:])
		case inSh && strings.HasPrefix(line, "go run ./examples/"):
			// An example program the next commands read the output of.
			out = append(out, strings.Fields(line))
		}
	}
	return out
}

// TestREADMEExamples runs every example command of the README, in order,
// in a scratch directory: the README cannot drift from the tool.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's measuring commands")
	}
	ex := readmeExamples(t)
	if len(ex) < 10 {
		t.Fatalf("found only %d README examples", len(ex))
	}
	// The examples' shader files come along into the scratch directory.
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.wgsl"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples/*.wgsl (%v)", err)
	}
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "examples", filepath.Base(e)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, args := range ex {
		if args[0] == "go" {
			// Run from the module root, its files written to the scratch
			// directory.
			for i, a := range args {
				if strings.HasSuffix(a, ".pprof") || strings.HasSuffix(a, ".txt") {
					args[i] = filepath.Join(dir, a)
				}
			}
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
			}
			continue
		}
		out, stderr, err := runCmd(args...)
		if err != nil {
			t.Fatalf("wgpu-prof %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		if strings.TrimSpace(out) == "" {
			t.Fatalf("wgpu-prof %s printed nothing", strings.Join(args, " "))
		}
		checkWidths(t, strings.Join(args, " "), out)
	}
	for _, f := range []string{"report.json", "report.txt", "report.csv", "report.bench", "report.html", "trace.json", "roofline.png", "roofline.svg"} {
		if _, err := os.Stat(filepath.Join("results", f)); err != nil {
			t.Errorf("run --out results did not write %s", f)
		}
	}
}
