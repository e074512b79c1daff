package ceilings

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// run's duration estimate includes the GPU variant selections the cache
// does not hold: with a cold cache it names each workload that has
// designs to choose among, counts at least the configurations the
// selection then tries, and adds their time to the total; once the
// selection has run (cached for this adapter at this configuration) it
// adds none; at another configuration, or with --retune, it counts the
// selection again.
func TestDurationEstimateCoversVariantSelection(t *testing.T) {
	e := openEnv(t) // before the cache moves: the library is found there
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	w := workload.CosineSingle
	if len(w.Variants) < 2 {
		t.Fatalf("%s lists %d GPU variants; the test needs a workload with a selection", w.Name, len(w.Variants))
	}
	cfg := experiment.RunConfig{Workloads: []string{w.Name}}
	cfg.Dim, cfg.N, cfg.Seed = 64, 1024, 7
	cfg.Defaults()
	ds, err := cfg.Validate(e.Device)
	if err != nil {
		t.Fatal(err)
	}

	cold := estimateOf(e, cfg, ds)
	if len(cold.selecting) != 1 || cold.selecting[0] != w.Name || cold.tuneConfigs == 0 || cold.tuneSeconds <= 0 {
		t.Fatalf("cold cache: selecting %q, %d configurations, %.1f s; want %s's selection counted", cold.selecting, cold.tuneConfigs, cold.tuneSeconds, w.Name)
	}
	if got, want := cold.total(), cold.streamSeconds+cold.measSeconds+cold.tuneSeconds; got != want || cold.tuneSeconds >= got {
		t.Fatalf("cold cache: total %.1f s, parts %.1f s; the selection's %.1f s must be a part of it", got, want, cold.tuneSeconds)
	}
	if line := durationLine(e, cfg, ds); !strings.Contains(line, "GPU variant selection for "+w.Name) {
		t.Fatalf("cold cache: the estimate %q does not name the variant selection", line)
	}

	// The selection run prepares: what it tries is within the estimate.
	pr, err := w.Prepare(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	knobs := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
	_, ch, err := experiment.SelectVariant(e, w, cfg.Config, pr, pr.Size, knobs, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Cached || len(ch.Times) == 0 {
		t.Fatalf("the first selection was served from a cold cache: %+v", ch)
	}
	if len(ch.Times) > cold.tuneConfigs {
		t.Fatalf("the selection tried %d configurations; the estimate counted %d", len(ch.Times), cold.tuneConfigs)
	}

	warm := estimateOf(e, cfg, ds)
	if len(warm.selecting) != 0 || warm.tuneSeconds != 0 {
		t.Fatalf("after the selection: estimate still selects %q (%.1f s)", warm.selecting, warm.tuneSeconds)
	}
	if warm.total() >= cold.total() {
		t.Fatalf("cached: total %.1f s, not below the cold %.1f s", warm.total(), cold.total())
	}
	if line := durationLine(e, cfg, ds); !strings.Contains(line, "GPU variants from the cache") {
		t.Fatalf("warm cache: the estimate %q does not say the variants are cached", line)
	}

	retune := cfg
	retune.Retune = true
	if r := estimateOf(e, retune, ds); len(r.selecting) != 1 {
		t.Fatalf("--retune: selecting %q; want %s measured again", r.selecting, w.Name)
	}
	other := cfg
	other.N = 2048
	if r := estimateOf(e, other, ds); len(r.selecting) != 1 {
		t.Fatalf("another size: selecting %q; want %s measured again", r.selecting, w.Name)
	}
}
