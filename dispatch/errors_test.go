package dispatch_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/errconv"
)

// Every error of the package reads "dispatch: Func: …" and wraps the
// sentinel (or the *ConfigError) of its cause, once.
func TestErrorConvention(t *testing.T) {
	fail := dispatch.Func(func(int) (time.Duration, error) { return 0, errors.New("device lost") })
	twoFailing := []dispatch.Side{{Name: "a", Exec: fail, Model: dispatch.Linear(1e-6, 1e-9)}, {Name: "b", Exec: fail, Model: dispatch.Linear(2e-6, 1e-9)}}
	var nilRoute *dispatch.Route[int]
	for _, c := range []struct {
		name string
		err  func() error
		want error
	}{
		{"Func.Run", func() error { _, err := dispatch.Func(nil).Run(1); return err }, dispatch.ErrNoExecutor},
		{"Dispatcher.Do", func() error { _, err := (&dispatch.Dispatcher{}).Do(1); return err }, dispatch.ErrNoExecutor},
		{"Route.Do", func() error { _, err := nilRoute.Do(1); return err }, dispatch.ErrNoExecutor},
		{"New", func() error { _, err := dispatch.New(nil, dispatch.Profile{}, dispatch.Config{}); return err }, dispatch.ErrInvalidConfig},
		{"New", func() error {
			_, err := dispatch.New(twoFailing, dispatch.Profile{}, dispatch.Config{Hysteresis: -1})
			return err
		}, dispatch.ErrInvalidConfig},
		{"NewRoute", func() error {
			_, err := dispatch.NewRoute[int](nil, nil, dispatch.Profile{}, dispatch.Config{})
			return err
		}, dispatch.ErrInvalidConfig},
		{"Dispatcher.Do", func() error {
			d, err := dispatch.New(twoFailing, dispatch.Profile{}, dispatch.Config{})
			if err != nil {
				return err
			}
			_, err = d.Do(10)
			return err
		}, dispatch.ErrBothFailed},
		{"LoadRoute", func() error { _, err := dispatch.LoadRoute(filepath.Join(t.TempDir(), "none.json"), "op"); return err }, nil},
	} {
		err := c.err()
		if !errconv.Prefixed(err, "dispatch") || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v; want \"dispatch: Func: …\" wrapping %v", c.name, err, c.want)
		}
	}
	var ce *dispatch.ConfigError
	if _, err := dispatch.New(twoFailing, dispatch.Profile{}, dispatch.Config{Hysteresis: -1}); !errors.As(err, &ce) || ce.Field != "Config.Hysteresis" {
		t.Errorf("New with a bad Hysteresis: %v, want a *ConfigError naming Config.Hysteresis", err)
	}
}
