package env

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
)

// UsageError marks an error in what the caller asked for (a flag, a size,
// a combination), found before anything is measured, as opposed to a
// failure during the measurement. The CLI exits 2 on it, 1 on the others.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// ParamError is a parameter out of its range: its name, value and limit
// (compute.ParamError). The command line maps the name to its flag.
type ParamError = workload.ParamError

// Invalid returns a *ParamError for name at value v (formatted with %v,
// strings with %q; "" leaves the value to the limit) breaking limit (a
// format with args).
func Invalid(name string, v any, limit string, args ...any) *ParamError {
	val := fmt.Sprint(v)
	if s, ok := v.(string); ok && s != "" {
		val = strconv.Quote(s)
	}
	return &ParamError{Name: name, Value: val, Limit: fmt.Sprintf(limit, args...)}
}

// Usage wraps err (nil stays nil) as a UsageError.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	return &UsageError{Err: err}
}

// IsUsage reports whether err is (or wraps) a UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// CheckHostMemory refuses a plan of need bytes (what names the sizes that
// make it) past the memory budget (machine.Machine.Budget: --max-memory,
// else a share of the host's available memory), naming the need and the
// budget. Where the host's memory is unknown and no budget was set,
// nothing is refused.
func CheckHostMemory(what string, need float64) error { return CheckMemory(what, need, false) }

// CheckMemory is CheckHostMemory with the budget of a quick look
// when quick.
func CheckMemory(what string, need float64, quick bool) error {
	m := machine.Current()
	if m.MemAvailable == 0 && m.MaxMemory <= 0 {
		return nil
	}
	if limit := m.Budget(quick); need > float64(limit) {
		src := m.BudgetSource(quick)
		if m.MaxMemory <= 0 {
			src += "; --max-memory sets it"
		}
		return Usage(fmt.Errorf("%s needs about %s of host memory; the memory budget is %s (%s)",
			what, iec(need), iec(float64(limit)), src))
	}
	return nil
}

func iec(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}
