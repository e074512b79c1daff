package timing_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// seq returns a fake measured function that replays samples cyclically and
// counts its calls.
func seq(samples []timing.Sample, calls *int) func() (timing.Sample, error) {
	return func() (timing.Sample, error) {
		s := samples[*calls%len(samples)]
		*calls++
		return s, nil
	}
}

func host(ds ...time.Duration) []timing.Sample {
	out := make([]timing.Sample, len(ds))
	for i, d := range ds {
		out[i] = timing.Sample{Host: d}
	}
	return out
}

func TestMeasure(t *testing.T) {
	ms := time.Millisecond
	good := timing.Sample{Host: ms, Kernel: 800 * time.Microsecond, HasKernel: true}
	zero := timing.Sample{Host: ms, Kernel: 0, HasKernel: true}
	tests := []struct {
		name      string
		opts      timing.MeasureOpts
		samples   []timing.Sample
		wantRuns  int
		wantCalls int
		wantStop  string
		wantKern  bool     // Kernel summary present
		wantSusp  []int    // suspicious sample indices
		wantWarn  []string // substrings, one per result warning
	}{
		{
			name:    "constant converges at the default MinRuns",
			samples: host(ms), wantRuns: 10, wantCalls: 12, wantStop: timing.StopConverged,
		},
		{
			name: "constant converges at the 95% CI minimum", opts: timing.MeasureOpts{MinRuns: 3},
			samples: host(ms), wantRuns: 6, wantCalls: 8, wantStop: timing.StopConverged,
		},
		{
			name: "MinRuns above the CI minimum", opts: timing.MeasureOpts{MinRuns: 9, Warmup: 1},
			samples: host(ms), wantRuns: 9, wantCalls: 10, wantStop: timing.StopConverged,
		},
		{
			name: "noisy hits MaxRuns", opts: timing.MeasureOpts{MaxRuns: 20},
			samples: host(ms, 2*ms), wantRuns: 20, wantCalls: 22, wantStop: timing.StopMaxRuns,
			wantWarn: []string{"stopped by max-runs after 20 runs"},
		},
		{
			// Warm-up charges 50+150 ms, then 8 runs bring the total to 1 s.
			name: "noisy hits budget", opts: timing.MeasureOpts{Budget: time.Second, MinRuns: 3},
			samples: host(50*ms, 150*ms), wantRuns: 8, wantCalls: 10, wantStop: timing.StopBudget,
			wantWarn: []string{"stopped by budget after 8 runs"},
		},
		{
			// The budget is spent after 2 runs, but never stops short of
			// MinRuns (default 10) samples.
			name: "budget never stops short of MinRuns", opts: timing.MeasureOpts{Budget: 300 * ms},
			samples: host(50*ms, 150*ms), wantRuns: 10, wantCalls: 12, wantStop: timing.StopBudget,
			wantWarn: []string{"stopped by budget after 10 runs"},
		},
		{
			name: "kernel timestamps kept", samples: []timing.Sample{good},
			wantRuns: 10, wantCalls: 12, wantStop: timing.StopConverged, wantKern: true,
		},
		{
			// 1 of 10 suspicious (10% ≤ 20%): kept, the bad one excluded.
			name: "few suspicious kernel samples", opts: timing.MeasureOpts{MinRuns: 10, MaxRuns: 10},
			samples:  []timing.Sample{good, good, good, good, good, good, good, zero, good, good, good, good},
			wantRuns: 10, wantCalls: 12, wantStop: timing.StopConverged, wantKern: true, wantSusp: []int{5},
		},
		{
			// 3 of 10 suspicious (30% > 20%): kernel clock dropped.
			name: "many suspicious kernel samples", opts: timing.MeasureOpts{MinRuns: 10, MaxRuns: 10},
			samples:  []timing.Sample{good, good, zero, good, zero, good, good, good, good, zero, good, good},
			wantRuns: 10, wantCalls: 12, wantStop: timing.StopConverged, wantSusp: []int{0, 2, 7},
			wantWarn: []string{"timestamp deltas disagree with the host clock; using host clock"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			res, err := timing.Measure(tc.opts, seq(tc.samples, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Samples) != tc.wantRuns || calls != tc.wantCalls || res.Stop != tc.wantStop {
				t.Errorf("runs %d, calls %d, stop %q; want %d, %d, %q",
					len(res.Samples), calls, res.Stop, tc.wantRuns, tc.wantCalls, tc.wantStop)
			}
			if (res.Kernel != nil) != tc.wantKern {
				t.Errorf("Kernel = %+v, want present=%v", res.Kernel, tc.wantKern)
			}
			if res.Kernel != nil && res.Kernel.Median != 800e-6 {
				t.Errorf("kernel median = %v, want 800µs", res.Kernel.Median)
			}
			if tc.wantSusp != nil && !slices.Equal(res.Suspicious, tc.wantSusp) {
				t.Errorf("suspicious = %v, want %v", res.Suspicious, tc.wantSusp)
			}
			if len(res.Warnings) != len(tc.wantWarn) {
				t.Fatalf("warnings %q, want %q", res.Warnings, tc.wantWarn)
			}
			for i, w := range tc.wantWarn {
				if !strings.Contains(res.Warnings[i], w) {
					t.Errorf("warning %q does not contain %q", res.Warnings[i], w)
				}
			}
			if res.Host.Median <= 0 {
				t.Errorf("host median %v", res.Host.Median)
			}
		})
	}
}

func TestMeasureErrors(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	_, err := timing.Measure(timing.MeasureOpts{}, func() (timing.Sample, error) {
		n++
		if n == 4 {
			return timing.Sample{}, boom
		}
		return timing.Sample{Host: time.Millisecond}, nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "run 1") {
		t.Errorf("err = %v, want wrapped boom naming run 1", err)
	}
	for _, o := range []timing.MeasureOpts{{MinRuns: 10, MaxRuns: 5}, {Warmup: -1}, {Budget: -time.Second}} {
		if _, err := timing.Measure(o, seq(host(time.Millisecond), new(int))); !errors.Is(err, timing.ErrBadOpts) {
			t.Errorf("opts %+v: err = %v, want ErrBadOpts", o, err)
		}
	}
	if _, err := timing.Measure(timing.MeasureOpts{}, nil); !errors.Is(err, timing.ErrBadOpts) {
		t.Errorf("nil fn: err = %v", err)
	}
}
