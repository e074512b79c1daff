package wgpu

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kebab turns a wgpu.h enumerator's name into the feature's name:
// TextureAdapterSpecificFormatFeatures → texture-adapter-specific-format-features,
// TextureFormat16bitNorm → texture-format-16bit-norm, ShaderF64 → shader-f64.
func kebab(s string) string {
	s = regexp.MustCompile(`([a-z])(\d+bit)`).ReplaceAllString(s, "$1-$2")
	s = regexp.MustCompile(`([a-z0-9])([A-Z])`).ReplaceAllString(s, "$1-$2")
	return strings.ToLower(s)
}

// TestFeatureNamesMatchHeaders: every feature of webgpu.h and of wgpu.h
// has a name, wgpu-native's own being "native:" and their header name in
// kebab case, so `wgpu-prof devices` never prints a bare number for a
// feature the headers know; and nothing in the table is missing from the
// headers.
func TestFeatureNamesMatchHeaders(t *testing.T) {
	dir := realHeaderDir(t)
	seen := map[Feature]bool{}
	for _, h := range []struct{ file, prefix string }{{"webgpu.h", "WGPUFeatureName_"}, {"wgpu.h", "WGPUNativeFeature_"}} {
		b, err := os.ReadFile(filepath.Join(dir, h.file))
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`(?m)^\s*` + h.prefix + `(\w+) = (0x[0-9A-Fa-f]+),`)
		ms := re.FindAllStringSubmatch(string(b), -1)
		if len(ms) < 10 {
			t.Fatalf("%s: found only %d features", h.file, len(ms))
		}
		for _, m := range ms {
			v, err := strconv.ParseUint(m[2], 0, 32)
			if err != nil {
				t.Fatal(err)
			}
			f := Feature(v)
			seen[f] = true
			name, ok := featureNames[f]
			switch {
			case !ok:
				t.Errorf("%s%s (%s) has no name", h.prefix, m[1], m[2])
			case h.prefix == "WGPUNativeFeature_" && name != "native:"+kebab(m[1]):
				t.Errorf("%s%s is named %q, want %q", h.prefix, m[1], name, "native:"+kebab(m[1]))
			case strings.Contains(f.String(), "0x"):
				t.Errorf("%s%s prints as %q", h.prefix, m[1], f)
			}
		}
	}
	for f, name := range featureNames {
		if !seen[f] {
			t.Errorf("%s (0x%x) is not in the headers", name, uint32(f))
		}
	}
	if got := Feature(0x3ffff).String(); got != "unknown:0x3ffff" {
		t.Errorf("an unknown feature prints as %q", got)
	}
}
