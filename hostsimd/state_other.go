//go:build !linux

package hostsimd

import "errors"

// allowedCPUs is not known here: the probe's threads run unpinned.
func allowedCPUs() []int { return nil }

func pinThread(int) error { return errors.New("hostsimd: ProbeState: pinning is Linux-only") }
