package testmem

import (
	"runtime"
	"strings"
	"testing"
)

// The peak is read, it grows with what the process touches, and Check
// fails above the limit only.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	before, ok := PeakRSS()
	if !ok || before <= 0 {
		t.Fatalf("VmHWM not read: %d %v", before, ok)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	after, _ := PeakRSS()
	if after < before+32<<20 {
		t.Errorf("peak %d after touching 64 MiB, %d before", after, before)
	}
	runtime.KeepAlive(b)
	if err := Check(Limit+1, Limit); err == nil || !strings.Contains(err.Error(), "VmHWM") {
		t.Errorf("above the limit: %v", err)
	}
	if err := Check(Limit, Limit); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}
