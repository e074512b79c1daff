//go:build !windows

package clock

import "time"

// now is time.Now, whose monotonic clock is fine-grained here.
func now() time.Time { return time.Now() }
