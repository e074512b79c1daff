package report_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func content(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// failingWriter writes half its content, then fails as a full disk does.
func failingWriter(w io.Writer) error {
	io.WriteString(w, strings.Repeat("x", 100000))
	return errors.New("no space left on device")
}

func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

func keys(m map[string]string) string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

// WriteDir leaves either the previous contents or the complete new set:
// a writer failing at any position of the set changes nothing and leaves
// no staging folder; success replaces the set and keeps foreign files.
func TestWriteDirFailingWriter(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")

	// A new folder: all or nothing.
	for fail := 0; fail < 3; fail++ {
		files := []report.DirFile{{"a.json", content("A1")}, {"b.txt", content("B1")}, {"c.csv", content("C1")}}
		files[fail].Write = failingWriter
		if err := report.WriteDir(dir, files); err == nil || !strings.Contains(err.Error(), "no space") {
			t.Fatalf("failing writer %d: err = %v", fail, err)
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Fatalf("failing writer %d in a new folder left %v", fail, ents)
		}
	}
	if err := report.WriteDir(dir, []report.DirFile{{"a.json", content("A1")}, {"b.txt", content("B1")}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("user"), 0o644)
	want := map[string]string{"a.json": "A1", "b.txt": "B1", "mine.txt": "user"}

	// An existing folder: a failure anywhere keeps the previous set.
	for fail := 0; fail < 3; fail++ {
		files := []report.DirFile{{"a.json", content("A2")}, {"b.txt", content("B2")}, {"c.csv", content("C2")}}
		files[fail].Write = failingWriter
		if err := report.WriteDir(dir, files); err == nil {
			t.Fatalf("failing writer %d: no error", fail)
		}
		if got := dirState(t, dir); keys(got) != keys(want) || got["a.json"] != "A1" || got["b.txt"] != "B1" {
			t.Fatalf("failing writer %d changed the folder: %v", fail, got)
		}
		if ents, _ := os.ReadDir(root); len(ents) != 1 {
			t.Fatalf("staging left behind: %v", ents)
		}
	}
	// Success: the complete new set, the foreign file kept, no staging.
	if err := report.WriteDir(dir, []report.DirFile{{"a.json", content("A3")}, {"c.csv", content("C3")}}); err != nil {
		t.Fatal(err)
	}
	got := dirState(t, dir)
	if got["a.json"] != "A3" || got["c.csv"] != "C3" || got["mine.txt"] != "user" || got["b.txt"] != "B1" || len(got) != 4 {
		t.Fatalf("after a successful write: %v", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.json")); err != nil || fi.Mode().Perm()&0o444 != 0o444 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	// Bad names are refused before anything is written.
	for _, name := range []string{"", "..", "sub/x", "a.json"} {
		files := []report.DirFile{{"a.json", content("A4")}, {name, content("X")}}
		if err := report.WriteDir(dir, files); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if got := dirState(t, dir); got["a.json"] != "A3" {
		t.Errorf("a refused set changed a.json to %q", got["a.json"])
	}
	// A path under a regular file can never be created.
	if err := report.WriteDir(filepath.Join(dir, "mine.txt", "sub"), []report.DirFile{{"a", content("x")}}); err == nil {
		t.Error("folder under a regular file accepted")
	}
}
