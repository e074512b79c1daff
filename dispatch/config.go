package dispatch

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Config tunes the dispatcher; zero fields take the defaults.
type Config struct {
	// Hysteresis: a bucket moves a size to another side only when that
	// side's estimate relative to the reference side's moves by more than
	// this factor (default 1.15; TestHysteresisNoFlapping).
	Hysteresis float64
	// ProbeEvery is the fewest calls between two probes (default 32). A
	// side found slower and given no sizes is probed for its recovery on
	// its own budget: every min(ProbeEvery, 2) calls at first and while a
	// recovery is suspected, else every 1/64 of the calls since it was
	// found slower, at most every 256 (TestLastingSlowDownProbedLess).
	ProbeEvery int
	// ProbeShare bounds the probes' extra time (their time over the
	// estimate of the side they replaced) to this share of the time spent
	// (default 0.015; TestProbesBounded, TestWakeUpDoesNotHideTheFasterSide).
	ProbeShare float64
	// RecoveryShare bounds the extra time of the probes that watch a side
	// found slower for its recovery, as a share of the time spent since
	// it was found slower (default 0.2; TestRecoveryWithinFiftyCalls);
	// these do not count against ProbeShare.
	RecoveryShare float64
	// ShockRatio: a side whose latest calls run this factor slower (all
	// but two of 9) or faster (3 of 4) than their estimates is rescaled in
	// every bucket (default 1.6).
	ShockRatio float64
	// RetryAfter is the number of calls after a failure before the failed
	// side is tried again (default 50; doubles on each further failure in
	// a row, up to 64 times the first; TestRetryBackOffDoubles).
	RetryAfter int
	// MinCalls is the number of a side's calls in a size bucket before
	// their median replaces the side's prior there (default 10).
	MinCalls int
	// History is the number of latest switches kept (default 1024); older
	// ones are only counted (SwitchCounts).
	History int
}

// ErrInvalidConfig is wrapped by every *ConfigError.
var ErrInvalidConfig = errors.New("invalid configuration")

// ConfigError names a field of Config, Profile or a Side that New refuses,
// its value and the limit it breaks.
type ConfigError struct {
	Field string
	Value any
	Limit string
}

func (e *ConfigError) Error() string {
	if e == nil {
		return ErrInvalidConfig.Error()
	}
	return fmt.Sprintf("%s = %v: want %s", e.Field, e.Value, e.Limit)
}

// prefixed gives err, an error of the exported function fn, the
// package's prefix "dispatch: fn: " (unless it has one already, from a
// function fn called).
func prefixed(fn string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "dispatch: ") {
		return err
	}
	return fmt.Errorf("dispatch: %s: %w", fn, err)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// withDefaults returns c with its zero fields set to the defaults, or the
// first field out of range.
func (c Config) withDefaults() (Config, error) {
	def := Config{Hysteresis: 1.15, ProbeEvery: 32, ProbeShare: 0.015, RecoveryShare: 0.2, ShockRatio: 1.6, RetryAfter: 50, MinCalls: 10, History: 1024}
	f := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	i := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	f(&c.Hysteresis, def.Hysteresis)
	f(&c.ProbeShare, def.ProbeShare)
	f(&c.RecoveryShare, def.RecoveryShare)
	f(&c.ShockRatio, def.ShockRatio)
	i(&c.ProbeEvery, def.ProbeEvery)
	i(&c.RetryAfter, def.RetryAfter)
	i(&c.MinCalls, def.MinCalls)
	i(&c.History, def.History)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !finite(c.Hysteresis) || c.Hysteresis < 1 || c.Hysteresis > 100:
		return c, &ConfigError{"Config.Hysteresis", c.Hysteresis, "a number in [1, 100]"}
	case c.ProbeEvery < 1 || c.ProbeEvery > 1<<20:
		return c, &ConfigError{"Config.ProbeEvery", c.ProbeEvery, "an integer in [1, 2^20]"}
	case !finite(c.ProbeShare) || c.ProbeShare < 0 || c.ProbeShare > 1:
		return c, &ConfigError{"Config.ProbeShare", c.ProbeShare, "a share in [0, 1]"}
	case !finite(c.RecoveryShare) || c.RecoveryShare < 0 || c.RecoveryShare > 1:
		return c, &ConfigError{"Config.RecoveryShare", c.RecoveryShare, "a share in [0, 1]"}
	case !finite(c.ShockRatio) || c.ShockRatio <= 1 || c.ShockRatio > 100:
		return c, &ConfigError{"Config.ShockRatio", c.ShockRatio, "a number in (1, 100]"}
	case c.RetryAfter < 1 || c.RetryAfter > 1<<24:
		return c, &ConfigError{"Config.RetryAfter", c.RetryAfter, "an integer in [1, 2^24]"}
	case c.MinCalls < 1 || c.MinCalls > ringSize:
		return c, &ConfigError{"Config.MinCalls", c.MinCalls, fmt.Sprintf("an integer in [1, %d]", ringSize)}
	case c.History < 1 || c.History > 1<<20:
		return c, &ConfigError{"Config.History", c.History, "an integer in [1, 2^20]"}
	}
	return c, nil
}
