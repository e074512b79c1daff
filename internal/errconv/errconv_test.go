package errconv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrefixed(t *testing.T) {
	for _, c := range []struct {
		pkg, msg string
		want     bool
	}{
		{"timing", "timing: FitModel: invalid threshold", true},
		{"compute", "compute: CosineBatch.Run: result verification failed", true},
		{"compute", `compute: MemCompute.Run("full"): use of released object`, true},
		{"timing", "timing: FitModel", true},
		{"timing", "timing: invalid threshold", false},      // no function
		{"hostsimd", "hostsimd.Spread: nil graph", false},   // dot form
		{"compute", "result verification failed", false},    // bare
		{"timing", "timing: fitModel: x", false},            // unexported name
		{"dispatch", "dispatch: dispatch: no route", false}, // doubled
	} {
		if got := Prefixed(errors.New(c.msg), c.pkg); got != c.want {
			t.Errorf("Prefixed(%q, %q) = %v, want %v", c.msg, c.pkg, got, c.want)
		}
	}
	if Prefixed(nil, "timing") {
		t.Error("nil accepted")
	}
}

// Static finds each kind of drift in a planted package, and nothing in a
// clean one.
func TestStatic(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"errors"
)

var ErrBad = errors.New("p: bad thing")
var ErrGood = errors.New("good thing")

func F() error { return fmt.Errorf("p.F: %w", ErrGood) }
func G() error { return fmt.Errorf("p: no function named") }
func H() error { return fmt.Errorf("p: H: %w", ErrGood) }
func I(fn string) error { return fmt.Errorf("p: %s: x", fn) }
func J(fn string) error { return fmt.Errorf("p.%s: x", fn) }
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := Static(dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sentinel \"p: bad thing\"", "\"p.F: %w\"", "\"p: no function named\"", "\"p.%s: x\""}
	if len(bad) != len(want) {
		t.Fatalf("found %d, want %d:\n%s", len(bad), len(want), strings.Join(bad, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(bad[i], w) {
			t.Errorf("finding %d: %s, want it to name %s", i, bad[i], w)
		}
	}
}
