// Package wgsl holds the WGSL compute shaders of wgpu-prof, one kernel per
// file, embedded in the binary. Every binding is commented with its shape
// and layout; workgroup and tile sizes are `override` constants set at
// pipeline creation, never spliced into the text.
//
// The package only serves source text: compiling and running belong to
// package compute.
package wgsl

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

// Source returns the text of the shader file name (e.g. "cosine_single").
func Source(name string) (string, error) {
	b, err := files.ReadFile(strings.TrimSuffix(name, ".wgsl") + ".wgsl")
	if err != nil {
		return "", fmt.Errorf("wgsl: no shader %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
}

// MustSource is Source for names fixed in the program; it panics on a
// missing file (a build error, not user input).
func MustSource(name string) string {
	s, err := Source(name)
	if err != nil {
		panic(err)
	}
	return s
}

// Names lists the shader files without their extension, sorted.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".wgsl"))
	}
	sort.Strings(out)
	return out
}
