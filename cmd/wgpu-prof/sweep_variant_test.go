package main

import (
	"strings"
	"testing"
)

// sweep variant times every GPU design of a kernel side by side, each
// verified, and names the best; an unknown kernel is refused early.
func TestSweepVariant(t *testing.T) {
	out, _, err := runCmd("sweep", "variant", "--kernel", "hnsw", "--quick", "--n", "2048", "--d", "64", "--q", "4", "--c", "8", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"variant"`, "l2sq-lanes-wg64", "l2sq-per-pair-wg64", "variant sweep: best"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out[:min(len(out), 2000)])
		}
	}
	if _, _, err := runCmd("sweep", "variant", "--kernel", "bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown kernel: %v", err)
	}
}
