package machine

import (
	"strings"
	"testing"
)

// The budget is --max-memory when set, else a quarter of MemAvailable
// (of 4 GiB when unknown), at most QuickCap for a quick look, never below
// MinBudget; BudgetSource names where it comes from.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		m     Machine
		quick bool
		want  int64
		src   string
	}{
		{Machine{MemAvailable: 16 << 30}, false, 4 << 30, "25% of MemAvailable 16 GiB"},
		{Machine{MemAvailable: 16 << 30}, true, QuickCap, "capped at 1 GiB for --quick"},
		{Machine{MemAvailable: 2 << 30}, true, 512 << 20, "25% of MemAvailable 2 GiB"},
		{Machine{}, false, 1 << 30, "MemAvailable unknown"},
		{Machine{MemAvailable: 100 << 20}, false, MinBudget, "25%"},
		{Machine{MemAvailable: 16 << 30, MaxMemory: 3 << 30}, true, 3 << 30, "--max-memory"},
		{Machine{MemAvailable: 16 << 30, Quick: true}, false, QuickCap, "capped at 1 GiB for --quick"},
	} {
		if got := c.m.Budget(c.quick); got != c.want {
			t.Errorf("%+v quick=%v: budget %d, want %d", c.m, c.quick, got, c.want)
		}
		if s := c.m.BudgetSource(c.quick); !strings.Contains(s, c.src) {
			t.Errorf("%+v quick=%v: source %q, want it to say %q", c.m, c.quick, s, c.src)
		}
	}
}

// Plan keeps what is wanted when it fits and cuts it to the budget's
// share per array otherwise, saying so.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		want, budget int64
		arrays       int
		got          int64
		capped       bool
	}{
		{256 << 20, 1 << 30, 3, 256 << 20, false},
		{512 << 20, 1 << 30, 3, (1 << 30) / 3, true},
		{4 << 30, 64 << 20, 3, (64 << 20) / 3, true},
		{1 << 20, 1 << 10, 3, 4 << 10, true},
	} {
		got, capped := Plan(c.want, c.arrays, c.budget)
		if got != c.got || capped != c.capped {
			t.Errorf("Plan(%d, %d, %d) = %d, %v; want %d, %v", c.want, c.arrays, c.budget, got, capped, c.got, c.capped)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "2GB": 2e9, "1.5G": 3 << 29, "1073741824": 1 << 30, "64 MiB": 64 << 20, "1gib": 1 << 30} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GiB", "-1GiB", "0", "1XB", "NaN", "1e30"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

// Caches as threads see them: per-core levels times the threads, the
// L3 once; a level not reported is 0 and reaches nothing.
func TestCacheBytes(t *testing.T) {
	m := Machine{L1D: 32 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 4}
	if m.CacheBytes(L2, 0) != 4<<20 || m.CacheBytes(L2, 2) != 2<<20 || m.CacheBytes(LLC, 8) != 32<<20 || m.CacheBytes(DRAM, 2) != 0 {
		t.Errorf("cache bytes: %d %d %d", m.CacheBytes(L2, 0), m.CacheBytes(L2, 2), m.CacheBytes(LLC, 8))
	}
	if (Machine{Cores: 2}).LevelOf(1, 2, nil) != DRAM {
		t.Error("a host with no cache reported places a working set in a cache")
	}
	if w := (Machine{L3: 480 << 20, Cores: 2}).DRAMWant(2); w != 8*(480<<20) {
		t.Errorf("DRAMWant for a 480 MiB L3: %d", w)
	}
}

// BudgetSource's exact words: the quick look's cap is named only where it
// lowers the budget; where a quarter of MemAvailable is at most the cap
// (2 GiB and 4 GiB here, or an unknown amount), the line says the
// quarter alone.
func TestBudgetSourceWords(t *testing.T) {
	for _, c := range []struct {
		m     Machine
		quick bool
		want  string
	}{
		{Machine{MemAvailable: 16 << 30}, true, "25% of MemAvailable 16 GiB, capped at 1 GiB for --quick"},
		{Machine{MemAvailable: 16 << 30, Quick: true}, false, "25% of MemAvailable 16 GiB, capped at 1 GiB for --quick"},
		{Machine{MemAvailable: 16 << 30}, false, "25% of MemAvailable 16 GiB"},
		{Machine{MemAvailable: 2 << 30}, true, "25% of MemAvailable 2 GiB"},
		{Machine{MemAvailable: 4 << 30}, true, "25% of MemAvailable 4 GiB"},
		{Machine{}, true, "25% of an assumed 4 GiB (MemAvailable unknown)"},
		{Machine{MemAvailable: 16 << 30, MaxMemory: 3 << 30}, true, "--max-memory"},
		{Machine{MemAvailable: 128 << 20}, false, "the 64 MiB floor (25% of MemAvailable 128 MiB is less)"},
	} {
		if got := c.m.BudgetSource(c.quick); got != c.want {
			t.Errorf("%+v quick=%v: %q, want %q", c.m, c.quick, got, c.want)
		}
	}
}
