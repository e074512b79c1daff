package timing_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A tie that stays a tie is measured again for exactly Refines rounds
// (2 when 0), no fewer: each round tightens the CIs,
// and the last may be the one that separates the sides.
func TestSearchRefinesEveryRound(t *testing.T) {
	same := timing.Summary{N: 20, Median: 1e-3, Lo: 0.9e-3, Hi: 1.1e-3, Confidence: 0.95}
	for _, c := range []struct{ refines, want int }{{0, 2}, {1, 1}, {3, 3}} {
		rounds := map[int][]int{}
		_, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 64, Refines: c.refines,
			Refine: func(n, round int) (timing.Summary, timing.Summary, error) {
				rounds[n] = append(rounds[n], round)
				return same, same, nil
			}}, "A", "B", func(int) (timing.Summary, timing.Summary, error) { return same, same, nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(rounds) == 0 {
			t.Fatalf("Refines %d: ties never refined", c.refines)
		}
		for n, rs := range rounds {
			if len(rs) != c.want || rs[0] != 1 || rs[len(rs)-1] != c.want {
				t.Errorf("Refines %d: n=%d refined in rounds %v, want 1 … %d", c.refines, n, rs, c.want)
			}
		}
	}
	// And the last round is used: a tie that only the last round
	// separates gives that round's winner.
	var got []timing.SearchPoint
	res, err := timing.SearchCrossover(timing.SearchOpts{Sizes: []int{1, 4, 16}, Max: 16, Refines: 3,
		Refine: func(n, round int) (timing.Summary, timing.Summary, error) {
			if round < 3 {
				return same, same, nil
			}
			fast := timing.Summary{N: 20, Median: 0.5e-3, Lo: 0.45e-3, Hi: 0.55e-3, Confidence: 0.95}
			return fast, same, nil
		}}, "A", "B", func(int) (timing.Summary, timing.Summary, error) { return same, same, nil })
	if err != nil {
		t.Fatal(err)
	}
	got = res.Points
	for _, p := range got {
		if p.Faster != timing.FasterA {
			t.Errorf("n=%d: faster %d after the third round separated the sides, want A", p.N, p.Faster)
		}
	}
}

// CompareExecutors verifies each executor after timing as well as before:
// one that computes right on its first call and wrong from then on (a
// buffer reused, state left over) is refused, not fitted.
func TestCompareExecutorsVerifiesAfterTiming(t *testing.T) {
	drifting := timing.Executor{Name: "drifting", At: func(n int) (timing.Call, error) {
		calls := 0
		var out int
		return timing.Call{
			Run: func() (timing.Sample, error) {
				calls++
				out = n
				if calls > 1 {
					out = n + 1 // wrong from the second call on
				}
				return timing.Sample{Host: time.Duration(1000+n) * time.Nanosecond}, nil
			},
			Verify: func() error {
				if out != n {
					return fmt.Errorf("got %d, want %d", out, n)
				}
				return nil
			},
		}, nil
	}}
	good := modelled("loop", 200*time.Nanosecond, 2, -1)
	_, err := timing.CompareExecutors(context.Background(), good, drifting, timing.CompareOpts{Sizes: []int{1, 16, 256, 4096}})
	if err == nil || !strings.Contains(err.Error(), "drifting") || !strings.Contains(err.Error(), "wrong result") {
		t.Fatalf("an executor wrong after its first call: %v, want it refused as a wrong result", err)
	}
}
