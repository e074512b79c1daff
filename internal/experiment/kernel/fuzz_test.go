package kernel

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// FuzzParseBufferSpec: --buffer specs never panic; an accepted one has a
// name, a positive count and names itself in any later error.
func FuzzParseBufferSpec(f *testing.F) {
	for _, s := range []string{"x=f32:1024", "y=u32:16:rand", "z=f16:8:iota", "=f32:1", "a=f32:-1", "a=f64:1", "a=f32:1:bogus", "a=f32:99999999999999999999", "a:b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBufferSpec(s)
		if err != nil {
			var pe *env.ParamError
			if !errors.As(err, &pe) || pe.Name != "buffer" {
				t.Fatalf("error is not a ParamError naming buffer: %v", err)
			}
			return
		}
		if b.Name == "" || b.Count <= 0 {
			t.Fatalf("%q accepted as %+v", s, b)
		}
	})
}

// FuzzParseWorkloads: workload lists never panic.
func FuzzParseWorkloads(f *testing.F) {
	for _, s := range []string{"all", "cosine-single,hnsw", "", ",", "bogus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := experiment.ParseWorkloads(s)
		if err == nil && len(ws) == 0 {
			t.Fatalf("%q accepted as no workloads", s)
		}
	})
}

// FuzzCheckConfig: a user's shader with its dispatch expressions and
// constants is checked before a device opens, and never panics.
func FuzzCheckConfig(f *testing.F) {
	f.Add("override WG: u32 = 64;\n@group(0) @binding(0) var<storage, read_write> x: array<f32>;\n@compute @workgroup_size(WG) fn main() { x[0] = 1.0; }", "1024/WG", "WG", 128.0)
	f.Add("@compute @workgroup_size(1) fn a() {}", "(1", "", 0.0)
	f.Add("override N = 0; @compute @workgroup_size(N) fn a() {}", "1/N", "N", -1.0)
	f.Fuzz(func(t *testing.T, src, dispatch, cname string, cval float64) {
		cfg := Config{File: "fuzz.wgsl", Source: src, Dispatch: strings.Split(dispatch, ","), Constants: map[string]float64{}}
		if cname != "" {
			cfg.Constants[cname] = cval
		}
		CheckConfig(cfg)
	})
}
