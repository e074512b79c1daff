package errconv

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// publicPackages lists the directories of the module's public packages
// (outside internal/, cmd/, examples/, bench/, third_party/ and hidden or
// underscore folders) with their package names.
func publicPackages(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		switch {
		case rel == ".":
			return nil
		case top == "internal" || top == "cmd" || top == "examples" || top == "bench" || top == "third_party",
			strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata":
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for name := range pkgs {
			if name != "main" {
				out[path] = name
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPublicPackages holds every public package to the convention: no
// sentinel names its package, and every message that starts with the
// package's name names the function after it ("pkg: Func: …").
func TestPublicPackages(t *testing.T) {
	pkgs := publicPackages(t, "../..")
	for _, want := range []string{"timing", "compute", "hostsimd", "dispatch"} {
		found := false
		for _, name := range pkgs {
			found = found || name == want
		}
		if !found {
			t.Errorf("package %s not found among %v", want, pkgs)
		}
	}
	for dir, name := range pkgs {
		bad, err := Static(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}
