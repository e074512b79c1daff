// Package errconv states the module's error convention and checks it; the
// public packages' tests call it.
//
// The convention: an error a public package returns reads
// "pkg: Func: detail" ("pkg: Type.Method: detail" for a method), pkg being
// the package's name, so that a message says where it arose once, however
// deep it was wrapped. Sentinel errors (ErrVerify, ErrStopped, …) are
// bare phrases ("result verification failed"), never prefixed, and are
// returned wrapped with %w inside such a message, so that errors.Is finds
// them and the prefix is not doubled.
package errconv

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Prefixed reports whether err's message starts with "pkg: Func: " (or
// "pkg: Type.Method: ", the name possibly followed by a parenthesised
// argument list).
func Prefixed(err error, pkg string) bool {
	return err != nil && prefix(pkg).MatchString(err.Error())
}

// prefix matches the start of a message that follows the convention; in a
// format string the function's name may be a %s verb.
func prefix(pkg string) *regexp.Regexp {
	name := `(%s|[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)?)`
	return regexp.MustCompile(`^` + regexp.QuoteMeta(pkg) + `: ` + name + `(\([^)]*\))?(: |$)`)
}

// Static scans the non-test Go files of the package in dir, named pkg, and
// lists what breaks the convention: a sentinel (a package-level variable
// named Err…) whose text starts with the package's name, and a string
// literal that starts "pkg:" or "pkg." without naming a function the
// convention's way.
func Static(dir, pkg string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		return nil, err
	}
	re := prefix(pkg)
	var bad []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			sentinels := map[*ast.BasicLit]bool{}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if strings.HasPrefix(n.Name, "Err") && i < len(vs.Values) {
							if lit := firstString(vs.Values[i]); lit != nil {
								sentinels[lit] = true
							}
						}
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				at := fset.Position(lit.Pos())
				switch {
				case sentinels[lit] && (strings.HasPrefix(s, pkg+":") || strings.HasPrefix(s, pkg+".")):
					bad = append(bad, fmt.Sprintf("%s:%d: sentinel %q names its package (sentinels are bare)", at.Filename, at.Line, s))
				case dotted(s, pkg):
					bad = append(bad, fmt.Sprintf("%s:%d: %q: want %q", at.Filename, at.Line, s, pkg+": Func: …"))
				case strings.HasPrefix(s, pkg+": ") && s != pkg+": " && !re.MatchString(s):
					bad = append(bad, fmt.Sprintf("%s:%d: %q: want %q", at.Filename, at.Line, s, pkg+": Func: …"))
				}
				return true
			})
		}
	}
	return bad, nil
}

// firstString is the string literal of errors.New("…") or
// fmt.Errorf("…", …), nil for anything else.
func firstString(e ast.Expr) *ast.BasicLit {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "New" && sel.Sel.Name != "Errorf") {
		return nil
	}
	lit, _ := call.Args[0].(*ast.BasicLit)
	return lit
}

// dotted reports whether s starts "pkg.Func:" or "pkg.%s:", the dotted form
// the convention replaces with "pkg: Func:".
func dotted(s, pkg string) bool {
	rest, ok := strings.CutPrefix(s, pkg+".")
	if !ok || rest == "" || !(rest[0] >= 'A' && rest[0] <= 'Z' || strings.HasPrefix(rest, "%s")) {
		return false
	}
	i := strings.IndexAny(rest, ": ")
	return i > 0 && strings.HasPrefix(rest[i:], ": ") || i > 0 && strings.HasPrefix(rest[i:], " (")
}
