package timing

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// maxExported bounds the package's exported surface as `go doc ./timing`
// lists it: each exported function, type, and const or var declaration
// (a parenthesised group counts once), methods and the constructors listed
// under their types excluded.
const maxExported = 60

// exportedSurface counts the top-level entries `go doc` lists for the
// package in dir, and every exported name behind them (methods and struct
// fields excluded).
func exportedSurface(t *testing.T, dir string) (entries, names int, list []string) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range pkgs {
		for _, f := range p.Files {
			files = append(files, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/wgpu-prof/wgpu-prof/timing")
	if err != nil {
		t.Fatal(err)
	}
	values := func(vs []*doc.Value, kind string) {
		for _, v := range vs {
			entries++
			names += len(v.Names)
			list = append(list, kind+" "+strings.Join(v.Names, ","))
		}
	}
	values(p.Consts, "const")
	values(p.Vars, "var")
	for _, f := range p.Funcs {
		entries++
		names++
		list = append(list, "func "+f.Name)
	}
	for _, ty := range p.Types {
		entries++
		names++
		list = append(list, "type "+ty.Name)
		// Constants, variables and constructors grouped under a type are
		// listed with it by go doc: count their names, not their lines.
		for _, vs := range [][]*doc.Value{ty.Consts, ty.Vars} {
			for _, v := range vs {
				entries++
				names += len(v.Names)
			}
		}
		names += len(ty.Funcs)
	}
	return entries, names, list
}

// TestExportedSurface keeps the public API small: thresholds are Policy
// fields, defaults are documented with the fields they fill, helpers are
// unexported.
func TestExportedSurface(t *testing.T) {
	entries, names, list := exportedSurface(t, ".")
	t.Logf("go doc lists %d entries, %d exported names", entries, names)
	if entries > maxExported {
		t.Errorf("go doc ./timing lists %d exported entries, more than %d:\n%s", entries, maxExported, strings.Join(list, "\n"))
	}
}

// The counter counts what go doc lists: a planted package of 61 functions,
// a grouped const block and a type with a constructor gives 63 entries.
func TestExportedSurfaceCounts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\nconst (\n\tA = 1\n\tB = 2\n)\n\ntype T struct{}\n\nfunc NewT() T { return T{} }\n\nfunc (T) M() {}\n\nfunc unexported() {}\n")
	for i := range 61 {
		b.WriteString("func F" + strings.Repeat("x", i) + "() {}\n")
	}
	if err := os.WriteFile(dir+"/p.go", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if entries, names, _ := exportedSurface(t, dir); entries != 63 || names != 65 {
		t.Errorf("planted package: %d entries, %d names; want 63 and 65", entries, names)
	}
}
