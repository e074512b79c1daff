// Package wgsl holds the WGSL compute shaders of wgpu-prof, one kernel per
// file, embedded in the binary. Every binding is commented with its shape
// and layout; workgroup and tile sizes are `override` constants set at
// pipeline creation, never spliced into the text. Variants that differ
// only in a storage type (f32 or f16) or a queue's capacity are one
// `.wgsl.tmpl` file rendered with text/template (missingkey=error) under
// one name per variant.
//
// A design that needs an optional device feature (subgroup operations,
// shader-f16) is a module of its own, listed in needs: a module holds
// either only designs every adapter compiles or only designs of one
// feature, so an adapter without the feature still compiles the rest
// (TestNeeds checks the table against what each module uses).
//
// The package only serves source text: compiling and running belong to
// package compute.
//
// ExampleSource (example_test.go) serves a kernel's text by name.
package wgsl

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

//go:embed *.wgsl *.wgsl.tmpl
var files embed.FS

// variant is a shader rendered from a template; parts are template files
// holding {{define}}d blocks the template includes (text two kernels
// share, each kept in its own file).
type variant struct {
	template string
	data     map[string]string
	parts    []string
}

// variants are the shaders rendered from templates, by name.
var variants = map[string]variant{
	"cosine_single": {"cosine_single.wgsl.tmpl", map[string]string{"Elem": "f32"}, nil},
	// The untiled batch kernel over V stored as f32 or binary16.
	"cosine_batch_naive": {"cosine_batch_naive.wgsl.tmpl", map[string]string{"Elem": "f32"}, nil},
	"cosine_batch_f16":   {"cosine_batch_naive.wgsl.tmpl", map[string]string{"Elem": "f16"}, nil},
	// The candidate gathers over V stored as f32, binary16 (unpacked
	// from u32 words, no shader-f16 needed) or int8 codes.
	"hnsw_distances":      {"hnsw_distances.wgsl.tmpl", map[string]string{"Elem": "f32", "Store": "vec4<f32>", "StoreDoc": "four f32 per element"}, nil},
	"hnsw_distances_f16":  {"hnsw_distances.wgsl.tmpl", map[string]string{"Elem": "f16", "Store": "vec2<u32>", "StoreDoc": "four binary16 per element, low half first"}, nil},
	"hnsw_distances_int8": {"hnsw_distances.wgsl.tmpl", map[string]string{"Elem": "i8", "Store": "u32", "StoreDoc": "four int8 codes per word, byte k is element 4j+k"}, nil},
	"cosine_single_f16":   {"cosine_single.wgsl.tmpl", map[string]string{"Elem": "f16"}, nil},
	"topk_queue":          {"topk_queue.wgsl.tmpl", map[string]string{"KQ": "256", "Regs": ""}, nil},
	// The tiled batch kernel over V stored as f32, binary16 or int8 codes
	// (with the queries' codes).
	"cosine_batch":            {"cosine_batch.wgsl.tmpl", map[string]string{"Elem": "f32"}, nil},
	"cosine_batch_tiled_f16":  {"cosine_batch.wgsl.tmpl", map[string]string{"Elem": "f16"}, nil},
	"cosine_batch_tiled_int8": {"cosine_batch.wgsl.tmpl", map[string]string{"Elem": "i8"}, nil},
	// The register-blocked batch kernels: 16 or 8 queries per invocation,
	// or 16 shared through the subgroup; each over V stored as f32,
	// binary16 or int8 codes.
	"cosine_batch_reg":        {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "", "Elem": "f32"}, nil},
	"cosine_batch_reg8":       {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "8", "Bcast": "", "Elem": "f32"}, nil},
	"cosine_batch_regbc":      {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "yes", "Elem": "f32"}, nil},
	"cosine_batch_reg_f16":    {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "", "Elem": "f16"}, nil},
	"cosine_batch_reg8_f16":   {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "8", "Bcast": "", "Elem": "f16"}, nil},
	"cosine_batch_regbc_f16":  {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "yes", "Elem": "f16"}, nil},
	"cosine_batch_reg_int8":   {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "", "Elem": "i8"}, nil},
	"cosine_batch_reg8_int8":  {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "8", "Bcast": "", "Elem": "i8"}, nil},
	"cosine_batch_regbc_int8": {"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16", "Bcast": "yes", "Elem": "i8"}, nil},
	// The two spreading kernels share their uniform blocks and per-step
	// bindings.
	"spread":           {"spread.wgsl.tmpl", map[string]string{}, []string{"spread_step.wgsl.tmpl"}},
	"spread_vec4":      {"spread_vec4.wgsl.tmpl", map[string]string{}, []string{"spread_step.wgsl.tmpl"}},
	"stream_babel_f32": {"stream_babel.wgsl.tmpl", map[string]string{"Elem": "f32"}, nil},
	"stream_babel_f64": {"stream_babel.wgsl.tmpl", map[string]string{"Elem": "f64"}, nil},
	"topk_queue_r16":   {"topk_queue.wgsl.tmpl", map[string]string{"KQ": "16", "Regs": "yes"}, nil},
}

// Optional device features a module may need (their WebGPU names).
const (
	FeatureSubgroups = "subgroups"
	FeatureShaderF16 = "shader-f16"
	// FeatureShaderF64 is wgpu-native's float64 in shaders (not part of
	// WebGPU).
	FeatureShaderF64 = "shader-f64"
	// FeatureSubgroupID is the subgroup_id and num_subgroups builtins,
	// which wgpu-native's WGSL offers with subgroups and Dawn's (of
	// Chromium 133) does not.
	FeatureSubgroupID = "subgroup-id"
)

// needs are the optional features each module needs; a module not listed
// needs none.
var needs = map[string][]string{
	"cosine_single_f16":       {FeatureShaderF16},
	"cosine_single_subgroup":  {FeatureSubgroups, FeatureSubgroupID},
	"cosine_batch_regbc":      {FeatureSubgroups},
	"cosine_batch_regbc_f16":  {FeatureSubgroups},
	"cosine_batch_regbc_int8": {FeatureSubgroups},
	"stream_babel_f64":        {FeatureShaderF64},
}

// Needs returns the optional device features the shader name needs to
// compile (nil: none, it compiles on every WebGPU adapter).
func Needs(name string) []string {
	return needs[strings.TrimSuffix(name, ".wgsl")]
}

// Source returns the text of the shader name (e.g. "cosine_single").
func Source(name string) (string, error) {
	name = strings.TrimSuffix(name, ".wgsl")
	if v, ok := variants[name]; ok {
		return render(name, v)
	}
	b, err := files.ReadFile(name + ".wgsl")
	if err != nil {
		return "", fmt.Errorf("wgsl: Source: no shader %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
}

func render(name string, v variant) (string, error) {
	b, err := files.ReadFile(v.template)
	if err != nil {
		return "", fmt.Errorf("wgsl: %s: %w", name, err)
	}
	t, err := template.New(v.template).Option("missingkey=error").Funcs(funcs).Parse(string(b))
	if err != nil {
		return "", fmt.Errorf("wgsl: %s: %w", name, err)
	}
	for _, part := range v.parts {
		pb, err := files.ReadFile(part)
		if err != nil {
			return "", fmt.Errorf("wgsl: %s: %w", name, err)
		}
		if _, err := t.New(part).Parse(string(pb)); err != nil {
			return "", fmt.Errorf("wgsl: %s: %w", name, err)
		}
	}
	var out strings.Builder
	if err := t.Execute(&out, v.data); err != nil {
		return "", fmt.Errorf("wgsl: %s: %w", name, err)
	}
	return out.String(), nil
}

// funcs are the templates' helpers for unrolled lines: seq "4" is
// 0, 1, 2, 3; sub a b is a − b.
var funcs = template.FuncMap{
	"seq": func(n string) ([]int, error) {
		k, err := strconv.Atoi(n)
		if err != nil || k < 0 || k > 64 {
			return nil, fmt.Errorf("seq %q: want a count 0…64", n)
		}
		out := make([]int, k)
		for i := range out {
			out[i] = i
		}
		return out, nil
	},
	"sub": func(a, b int) int { return a - b },
}

// MustSource is Source for names fixed in the program; it panics on a
// missing file or a template that does not render (a build error, not
// user input).
func MustSource(name string) string {
	s, err := Source(name)
	if err != nil {
		panic(err)
	}
	return s
}

// Names lists the shaders, files and rendered variants, without
// extension, sorted.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".wgsl"); ok {
			out = append(out, n)
		}
	}
	for n := range variants {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
