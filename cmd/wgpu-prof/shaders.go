package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// shaderDumpFile is the name --dump-shaders writes under --out (prefixed
// with the implementation in a run of several).
const shaderDumpFile = "shaders.txt"

// checkDumpShaders: --dump-shaders writes into --out.
func checkDumpShaders(f *cmdFlags, o *outputFlags) error {
	if f.on("dump-shaders") && o.out == "" {
		return fmt.Errorf("--dump-shaders needs --out DIR")
	}
	return nil
}

// shaderDump is shaders.txt for env's device, read now (the device is
// released before the files are written), and the report line that
// names it: the code the implementation compiled, or why it cannot show
// it (wgpu-native: naga's output is not reachable through its C API).
func shaderDump(env *env.Env) (report.DirFile, string) {
	d := env.Device
	impl := d.Impl().String() + " " + d.ImplVersion()
	var b strings.Builder
	fmt.Fprintf(&b, "# The code %s compiled from the WGSL modules of this run on %s (%s).\n", impl, d.Info.Backend, d.Info.Name)
	text, err := d.ShaderDump()
	var line string
	switch {
	case err != nil:
		fmt.Fprintf(&b, "# Not shown: %v\n", err)
		line = fmt.Sprintf("compiled shaders: %s cannot show them: %v", d.Impl(), err)
	default:
		fmt.Fprintf(&b, "# Dawn's log with its dump_shaders toggle: per module its WGSL, then the code Tint generated for %s (labels and names kept).\n\n", d.Info.Backend)
		b.WriteString(text)
		line = fmt.Sprintf("compiled shaders: %s's WGSL of %d modules and Tint's %s code of %d pipelines in %s",
			d.Impl(), strings.Count(text, "// Dumped WGSL"), d.Info.Backend, strings.Count(text, "/* Dumped generated"), shaderDumpFile)
	}
	s := b.String()
	return report.DirFile{Name: shaderDumpFile, Write: func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}}, line
}
