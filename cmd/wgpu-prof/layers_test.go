package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The CLI talks to package experiment and its rooms and prints through package report;
// it never reaches into the kernels, the binding, hostsimd or timing.
func TestCLIImportsOnlyExperimentAndReport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/wgpu-prof/wgpu-prof/"
	allowed := map[string]bool{mod + "internal/experiment": true, mod + "internal/report": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, mod) && !allowed[p] && !strings.HasPrefix(p, mod+"internal/experiment/") {
				t.Errorf("%s imports %s: the CLI goes through experiment (and report for output)", f, p)
			}
		}
	}
}
