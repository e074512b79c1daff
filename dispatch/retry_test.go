package dispatch_test

import (
	"errors"
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// failCalls runs calls of size n through a dispatcher whose side B (the
// faster at n) fails on every call, and returns the indices of the calls
// that reached B.
func failCalls(t *testing.T, n, calls int, cfg dispatch.Config) []int {
	t.Helper()
	a, b := pair(21)
	b.fail = true
	d := newDC(t, a, b, cfg)
	var at []int
	for i := range calls {
		before := b.calls
		o, err := d.Do(n)
		if err != nil {
			t.Fatalf("call %d lost: %v", i, err)
		}
		if o.Side != 0 {
			t.Fatalf("call %d answered by the failing side", i)
		}
		if b.calls > before {
			at = append(at, i)
		}
	}
	return at
}

// A side that fails is called again once its time-out (RetryAfter calls)
// is over, not before and not much later.
func TestFailedSideRetriedAfterTimeOut(t *testing.T) {
	at := failCalls(t, 5000, 400, dispatch.Config{RetryAfter: 50})
	if len(at) < 2 {
		t.Fatalf("B called at %v: never retried after its first failure", at)
	}
	if gap := at[1] - at[0]; gap < 50 || gap > 52 {
		t.Errorf("B failed at call %d and was retried at %d: want 50 calls later", at[0], at[1])
	}
}

// Each failure in a row doubles the time-out, up to 64 times the first.
func TestRetryBackOffDoubles(t *testing.T) {
	at := failCalls(t, 5000, 20000, dispatch.Config{RetryAfter: 10})
	want := []int{10, 20, 40, 80, 160, 320, 640, 640, 640}
	if len(at) < len(want)+1 {
		t.Fatalf("B called at %v: want at least %d retries", at, len(want))
	}
	for i, w := range want {
		if gap := at[i+1] - at[i]; gap < w || gap > w+2 {
			t.Errorf("retry %d came %d calls after the failure before, want %d (calls %v)", i+1, gap, w, at[:len(want)+1])
		}
	}
}

// newDC is newD with a configuration.
func newDC(t *testing.T, a, b modeled, cfg dispatch.Config) *dispatch.Dispatcher {
	t.Helper()
	d, err := new2(a, b, [2]string{"A", "B"}, a.model(), b.model(), 0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// New refuses configurations and profiles it cannot route with, naming
// the field.
func TestNewRefusesInvalidConfig(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	a, b := pair(1)
	cases := []struct {
		field     string
		cfg       dispatch.Config
		crossover float64
	}{
		{"Config.Hysteresis", dispatch.Config{Hysteresis: nan}, 0},
		{"Config.Hysteresis", dispatch.Config{Hysteresis: 0.5}, 0},
		{"Config.ProbeShare", dispatch.Config{ProbeShare: inf}, 0},
		{"Config.ProbeShare", dispatch.Config{ProbeShare: nan}, 0},
		{"Config.ProbeShare", dispatch.Config{ProbeShare: -0.1}, 0},
		{"Config.RecoveryShare", dispatch.Config{RecoveryShare: nan}, 0},
		{"Config.ShockRatio", dispatch.Config{ShockRatio: 1}, 0},
		{"Config.ProbeEvery", dispatch.Config{ProbeEvery: -1}, 0},
		{"Config.RetryAfter", dispatch.Config{RetryAfter: -3}, 0},
		{"Config.MinCalls", dispatch.Config{MinCalls: 1000}, 0},
		{"Config.History", dispatch.Config{History: -1}, 0},
		{"Profile.Crossover", dispatch.Config{}, nan},
		{"Profile.Crossover", dispatch.Config{}, -5},
		{"Profile.Crossover", dispatch.Config{}, inf},
	}
	for _, c := range cases {
		_, err := new2(a, b, [2]string{"A", "B"}, a.model(), b.model(), c.crossover, c.cfg)
		var ce *dispatch.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || !errors.Is(err, dispatch.ErrInvalidConfig) {
			t.Errorf("%+v crossover %v: error %v, want a ConfigError naming %s", c.cfg, c.crossover, err, c.field)
		}
	}
	bad := []struct {
		field string
		sides []dispatch.Side
	}{
		{"sides", nil},
		{"sides[0].Exec", []dispatch.Side{{Name: "A", Model: a.model()}}},
		{"sides[1].Model", []dispatch.Side{{Name: "A", Exec: a, Model: a.model()}, {Name: "B", Exec: b}}},
		{"sides[0].Model", []dispatch.Side{{Name: "A", Exec: a, Model: func(float64) float64 { return nan }}}},
		{"sides[0].UploadRate/ReadbackRate", []dispatch.Side{{Name: "A", Exec: a, Model: a.model(), Bytes: func(int) (float64, float64) { return 1, 1 }}}},
	}
	for _, c := range bad {
		_, err := dispatch.New(c.sides, dispatch.Profile{}, dispatch.Config{})
		var ce *dispatch.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%s: error %v, want a ConfigError naming it", c.field, err)
		}
	}
}

// The exported methods of a Dispatcher not made by New, and a nil Func,
// return errors or zero values instead of panicking.
func TestZeroValuesDoNotPanic(t *testing.T) {
	var d *dispatch.Dispatcher
	var z dispatch.Dispatcher
	for _, x := range []*dispatch.Dispatcher{d, &z} {
		if _, err := x.Do(5); !errors.Is(err, dispatch.ErrNoExecutor) {
			t.Errorf("Do on a Dispatcher not made by New: %v", err)
		}
		_, _, _, _, _, _ = x.Choose(5), x.Share(), x.Switches(), x.SwitchCounts(), x.LastError(0), x.Lost()
		_ = x.Sides()
	}
	if _, err := dispatch.Func(nil).Run(1); !errors.Is(err, dispatch.ErrNoExecutor) {
		t.Errorf("nil Func: %v", err)
	}
	_ = (*dispatch.ConfigError)(nil).Error()
	_ = dispatch.Static{At: math.NaN(), Above: 7}.Side(-1)
}
