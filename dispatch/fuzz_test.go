package dispatch_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// FuzzDispatch drives New, Do, Choose, Share, Switches, SwitchCounts and
// LastError with arbitrary configurations, models, queue and transfer
// terms, executor times and errors, and sizes: New either refuses with a
// *ConfigError or returns a dispatcher that never panics, answers every
// call from a side in range or reports every side failed, and keeps at
// most History switches.
func FuzzDispatch(f *testing.F) {
	f.Add(uint8(2), 1.15, 0.015, 0.0, 0.0, 1e-6, 1e-8, []byte{1, 2, 3, 200, 7, 9, 0, 255})
	f.Add(uint8(3), math.NaN(), math.Inf(1), -5.0, 1.0, -1.0, math.NaN(), []byte{0, 0, 0, 0})
	f.Add(uint8(1), 2.0, 0.5, 17.0, 0.5, 0.0, 1e300, []byte("some sizes and times"))
	f.Fuzz(func(t *testing.T, nsides uint8, hyst, share, crossover, retry, a, b float64, ops []byte) {
		// An input that runs for long is a hang: crash so the fuzzer keeps it.
		watchdog := time.AfterFunc(30*time.Second, func() { panic("dispatch: one fuzz input ran for 30 s") })
		defer watchdog.Stop()
		k := int(nsides%5) + 0 // 0 sides is refused too
		sides := make([]dispatch.Side, k)
		pos := 0
		next := func() uint64 {
			var buf [8]byte
			for i := range buf {
				if len(ops) > 0 {
					buf[i] = ops[pos%len(ops)]
				}
				pos++
			}
			return binary.LittleEndian.Uint64(buf[:])
		}
		for s := range sides {
			s := s
			sides[s] = dispatch.Side{Name: "s", Model: dispatch.Linear(a*float64(s+1), b), Exec: dispatch.Func(func(n int) (time.Duration, error) {
				v := next()
				if v%7 == 0 {
					return time.Duration(v), errors.New("fail")
				}
				return time.Duration(int64(v) >> (v % 64)), nil
			})}
			if s == 1 {
				sides[s].Queue = func() time.Duration { return time.Duration(int64(next())) }
			}
			if s == 2 {
				sides[s].Bytes = func(n int) (float64, float64) { return float64(n) * a, b }
				sides[s].UploadRate, sides[s].ReadbackRate = math.Abs(a)+1, math.Abs(b)+1
			}
		}
		cfg := dispatch.Config{Hysteresis: hyst, ProbeShare: share, RetryAfter: int(retry), History: 16}
		d, err := dispatch.New(sides, dispatch.Profile{Crossover: crossover}, cfg)
		if err != nil {
			var ce *dispatch.ConfigError
			if !errors.As(err, &ce) || ce.Field == "" {
				t.Fatalf("New refused with %v, want a *ConfigError naming the field", err)
			}
			return
		}
		for i := 0; i < 3*len(ops)+10; i++ {
			n := int(int64(next()) >> (next() % 64))
			o, err := d.Do(n)
			if err == nil && (o.Side < 0 || o.Side >= k) {
				t.Fatalf("Do(%d) answered by side %d of %d", n, o.Side, k)
			}
			if err != nil && !errors.Is(err, dispatch.ErrBothFailed) {
				t.Fatalf("Do(%d): %v", n, err)
			}
			if c := d.Choose(n); c < 0 || c >= k {
				t.Fatalf("Choose(%d) = %d of %d sides", n, c, k)
			}
		}
		_ = d.Share()
		_ = d.LastError(-1)
		_ = d.LastError(k)
		if len(d.Switches()) > 16 {
			t.Fatalf("%d switches kept, History 16", len(d.Switches()))
		}
		_ = d.SwitchCounts()
	})
}
