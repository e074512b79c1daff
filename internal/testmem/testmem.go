// Package testmem bounds the memory of a test process: Main runs a
// package's tests and fails the run when the process's peak resident set
// (VmHWM of /proc/self/status) passed Limit, so the suite stays inside
// the memory of a small CI machine with other work beside it. It is for
// tests only (a package's TestMain).
package testmem

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Limit is the most a test process may hold resident at its peak.
const Limit = 3 << 30

// PeakRSS returns the process's peak resident set in bytes (VmHWM) and
// whether the OS reports it.
func PeakRSS() (int64, bool) { return field("VmHWM:") }

// RSS returns the process's resident set now in bytes (VmRSS) and
// whether the OS reports it.
func RSS() (int64, bool) { return field("VmRSS:") }

func field(name string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == name {
			kb, err := strconv.ParseInt(fs[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// Check returns an error when peak passed limit.
func Check(peak, limit int64) error {
	if peak > limit {
		return fmt.Errorf("testmem: the test process peaked at %.2f GiB resident (VmHWM), above the %.2f GiB limit",
			float64(peak)/(1<<30), float64(limit)/(1<<30))
	}
	return nil
}

// Main runs m and returns its exit code, 1 when the tests passed but the
// process's peak resident set passed Limit (where the OS reports it).
func Main(m *testing.M) int {
	code := m.Run()
	if peak, ok := PeakRSS(); ok {
		if err := Check(peak, Limit); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}
