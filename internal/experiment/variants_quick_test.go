package experiment

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// A quick selection takes the cached choice of the same designs and
// knobs on this adapter at the nearest batch size (by ratio), from a
// full selection or a quick one; a choice of another adapter, another
// family of designs or another dimension is not near.
func TestNearestChoice(t *testing.T) {
	w := workload.CosineSingle
	k := workload.Knobs{}
	full := variantKeySuffix(w, k, []int{64, 32, 128, 256})
	quick := variantKeySuffix(w, k, []int{64})
	prefix := "adapter|" + w.Name + "|"
	label := func(d, n, at string) string {
		return "d=" + d + " n=" + n + " wg=0 precision=f32 vectors= queries= at=" + at
	}
	cache := variantCache{
		prefix + "d=256 n=2048" + full:              {Chosen: "wg-per-row", Shape: "d=256 n=2048", Config: label("256", "2048", "2048")},
		prefix + "d=256 n=131072" + quick:           {Chosen: "row-per-inv", Shape: "d=256 n=131072", Config: label("256", "131072", "131072")},
		prefix + "d=128 n=32768" + full:             {Chosen: "subgroup-per-row", Shape: "d=128 n=32768", Config: label("128", "32768", "32768")},
		"other|" + w.Name + "|d=256 n=32768" + full: {Chosen: "subgroup-per-row", Shape: "d=256 n=32768", Config: label("256", "32768", "32768")},
	}
	ch, ok := nearestChoice(cache, w, prefix, []string{full, quick}, label("256", "32768", "32768"))
	if !ok || ch.Chosen != "row-per-inv" {
		t.Fatalf("nearest of 2048 and 131072 to 32768: %+v, %v; want 131072's (4× against 16×)", ch, ok)
	}
	if ch, ok := nearestChoice(cache, w, prefix, []string{full}, label("256", "32768", "32768")); !ok || ch.Chosen != "wg-per-row" {
		t.Fatalf("full selections only: %+v, %v", ch, ok)
	}
	if ch, ok := nearestChoice(cache, w, prefix, []string{full, quick}, label("64", "32768", "32768")); ok {
		t.Fatalf("no choice at d=64, got %+v", ch)
	}
}
