package crossover

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestCappedNote(t *testing.T) {
	res := timing.SearchResult{Points: []timing.SearchPoint{{N: 1}, {N: 2}}}
	if n := cappedNote([]int{1, 2}, res); n != "" {
		t.Errorf("all measured: %q", n)
	}
	if n := cappedNote([]int{1, 2, 3, 3}, res); !strings.Contains(n, "only 2 of the 3 sizes") {
		t.Errorf("capped: %q", n)
	}
}
