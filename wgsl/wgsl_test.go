package wgsl

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every name renders; template variants differ only where their data
// says, and no template text is left behind.
func TestSources(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no shaders")
	}
	for _, n := range names {
		src, err := Source(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if strings.Contains(src, "{{") || strings.Contains(src, "}}") || strings.Contains(src, "<no value>") {
			t.Errorf("%s: template text left in the source", n)
		}
		if !strings.Contains(src, "@compute") {
			t.Errorf("%s: no @compute entry point", n)
		}
	}
	f32, f16 := MustSource("cosine_single"), MustSource("cosine_single_f16")
	if strings.Contains(f32, "enable f16") || strings.Contains(f32, "vec4<f16>") || !strings.HasPrefix(f16, "enable f16;") {
		t.Errorf("cosine_single must not mention f16, cosine_single_f16 must enable it")
	}
	if !strings.Contains(f32, "array<vec4<f32>>;") || !strings.Contains(f16, "var<storage, read> v: array<vec4<f16>>;") {
		t.Error("V's storage type is not the variant's")
	}
	if _, err := Source("no_such_shader"); err == nil || !strings.Contains(err.Error(), "cosine_single") {
		t.Errorf("a missing shader must be an error listing the names, got %v", err)
	}
	// Every template is used by a variant.
	used := map[string]bool{}
	for _, v := range variants {
		used[v.template] = true
		for _, p := range v.parts {
			used[p] = true
		}
	}
	ents, _ := fs.ReadDir(files, ".")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmpl") && !used[e.Name()] {
			t.Errorf("%s renders no variant", e.Name())
		}
	}
}

// A variant missing a key is an error, not "<no value>" in the WGSL.
func TestMissingKey(t *testing.T) {
	if _, err := render("broken", variant{"cosine_single.wgsl.tmpl", map[string]string{}, nil}); err == nil {
		t.Error("rendering without Elem succeeded")
	}
	if _, err := render("broken", variant{"cosine_batch_reg.wgsl.tmpl", map[string]string{"QB": "16"}, nil}); err == nil {
		t.Error("rendering without Bcast succeeded")
	}
	if _, err := render("broken", variant{"spread.wgsl.tmpl", map[string]string{}, nil}); err == nil {
		t.Error("rendering spread without its shared part succeeded")
	}
}

// usedFeatures scans a module's text for the optional features it uses:
// an `enable f16` directive, or a subgroup builtin or function.
func usedFeatures(src string) []string {
	var out []string
	if regexp.MustCompile(`(?m)^\s*enable\s+[^;]*\bf16\b`).MatchString(src) {
		out = append(out, FeatureShaderF16)
	}
	code := regexp.MustCompile(`//[^\n]*`).ReplaceAllString(src, "")
	if regexp.MustCompile(`\bf64\b`).MatchString(code) {
		out = append(out, FeatureShaderF64)
	}
	if regexp.MustCompile(`\b(subgroup[A-Z]\w*\s*\(|subgroup_(id|size|invocation_id)\b|num_subgroups\b)`).MatchString(code) {
		out = append(out, FeatureSubgroups)
	}
	if regexp.MustCompile(`\b(subgroup_id|num_subgroups)\b`).MatchString(code) {
		out = append(out, FeatureSubgroupID)
	}
	return out
}

// TestNeeds: the needs table says exactly what each module uses, so a
// module every adapter is expected to compile holds no design that needs
// an optional feature (a subgroup entry point beside plain ones made the
// whole module fail on adapters without subgroups).
func TestNeeds(t *testing.T) {
	for _, n := range Names() {
		got, want := usedFeatures(MustSource(n)), Needs(n)
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s uses %v but the needs table says %v", n, got, want)
		}
	}
	for n := range needs {
		if _, err := Source(n); err != nil {
			t.Errorf("needs lists %q: %v", n, err)
		}
	}
	if usedFeatures("fn f() { let x = subgroupAdd(1.0); }") == nil || usedFeatures("// subgroupAdd(x) in a comment") != nil {
		t.Error("the scan of subgroup use is wrong")
	}
}

// The register-blocked batch variants come from one template: each holds
// its number of accumulators, stores and (not the broadcast one) query
// offsets, and only the broadcast one uses subgroupBroadcast; each stored
// type reads V as its own type and int8 sums with dot4I8Packed into i32;
// the tiled kernel's types likewise; the two spreading kernels include the
// same step bindings.
func TestGeneratedVariants(t *testing.T) {
	elems := []struct{ suffix, acc, v string }{
		{"", "vec4<f32>(0.0);", "array<vec4<f32>>;"},
		{"_f16", "vec4<f32>(0.0);", "array<vec2<u32>>;"},
		{"_int8", "vec4<i32>(0);", "var<storage, read> v: array<u32>;"},
	}
	for _, e := range elems {
		for _, c := range []struct {
			name  string
			qb    int
			bcast bool
		}{{"cosine_batch_reg", 16, false}, {"cosine_batch_reg8", 8, false}, {"cosine_batch_regbc", 16, true}} {
			name := c.name + e.suffix
			src := MustSource(name)
			if n := strings.Count(src, e.acc); n != c.qb {
				t.Errorf("%s: %d accumulators, want %d", name, n, c.qb)
			}
			if n := strings.Count(src, "    store(q0 + "); n != c.qb {
				t.Errorf("%s: %d stores, want %d", name, n, c.qb)
			}
			if n := strings.Count(src, "subgroupBroadcast(y"); (n == c.qb) != c.bcast || (n != 0) != c.bcast {
				t.Errorf("%s: %d broadcasts", name, n)
			}
			if !strings.Contains(src, fmt.Sprintf("const QB: u32 = %du;", c.qb)) {
				t.Errorf("%s: QB is not %d", name, c.qb)
			}
			if !strings.Contains(src, e.v) || strings.Contains(src, "dot4I8Packed") != (e.suffix == "_int8") {
				t.Errorf("%s: V is not stored as %s", name, e.v)
			}
		}
	}
	for _, c := range []struct{ name, v string }{
		{"cosine_batch", "array<vec4<f32>>;"}, {"cosine_batch_tiled_f16", "array<vec2<u32>>;"}, {"cosine_batch_tiled_int8", "var<storage, read> v: array<u32>;"},
	} {
		src := MustSource(c.name)
		if !strings.Contains(src, c.v) || strings.Contains(src, "dot4I8Packed") != strings.HasSuffix(c.name, "_int8") ||
			strings.Contains(src, "unpack2x16float") != strings.HasSuffix(c.name, "_f16") {
			t.Errorf("%s: V is not stored as %s", c.name, c.v)
		}
	}
	for _, n := range []string{"spread", "spread_vec4"} {
		if src := MustSource(n); !strings.Contains(src, "struct Params {") || !strings.Contains(src, "@group(0) @binding(3) var<storage, read_write> counters") {
			t.Errorf("%s lacks the shared step bindings", n)
		}
	}
}
