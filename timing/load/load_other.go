//go:build !linux

package load

// readStat: the load is known on Linux only.
func readStat() (counters, bool) { return counters{}, false }

// readSelf: the load is known on Linux only.
func readSelf() (float64, bool) { return 0, false }
