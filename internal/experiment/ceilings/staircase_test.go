package ceilings

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func curve(side string, gbs ...float64) []report.StairPoint {
	var out []report.StairPoint
	for i, g := range gbs {
		out = append(out, report.StairPoint{Side: side, Bytes: float64(stairMin) * math.Pow(2, float64(i)), GBs: g})
	}
	return out
}

// TestFindLevels: a synthetic staircase with noise inside each plateau
// and one transition point between llc and dram gives l1, l2, llc, dram
// with their ranges, a ceiling working set inside each plateau and
// reaches that stop before the next plateau.
func TestFindLevels(t *testing.T) {
	//            16K  32K  64K  128K 256K 512K 1M   2M   4M   8M   16M  32M  64M  128M 256M
	pts := curve("cpu", 440, 460, 450, 230, 210, 225, 200, 110, 100, 105, 98, 60, 33, 31, 32)
	lv := findLevels("cpu", pts)
	names := []string{}
	for _, l := range lv {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "l1,l2,llc,dram" {
		t.Fatalf("levels %v", lv)
	}
	want := [][2]float64{{16 << 10, 64 << 10}, {128 << 10, 1 << 20}, {2 << 20, 16 << 20}, {64 << 20, 256 << 20}}
	for i, l := range lv {
		if l.FromBytes != want[i][0] || l.ToBytes != want[i][1] {
			t.Errorf("%s: %v … %v, want %v", l.Name, l.FromBytes, l.ToBytes, want[i])
		}
		if l.CeilingBytes < l.FromBytes || l.CeilingBytes > l.ToBytes {
			t.Errorf("%s: ceiling working set %v outside its plateau", l.Name, l.CeilingBytes)
		}
		if i+1 < len(lv) && (l.ReachBytes < l.ToBytes || l.ReachBytes >= lv[i+1].FromBytes) {
			t.Errorf("%s: reach %v, want in [%v, %v)", l.Name, l.ReachBytes, l.ToBytes, lv[i+1].FromBytes)
		}
	}
	if lv[3].ReachBytes != 0 {
		t.Errorf("dram has a reach: %v", lv[3].ReachBytes)
	}
	// A flat curve (no cache effect visible) is one level: dram.
	if lv := findLevels("gpu", curve("gpu", 8, 8.4, 8.1, 7.9, 8.2)); len(lv) != 1 || lv[0].Name != "dram" {
		t.Errorf("flat curve: %v", lv)
	}
	// A rise at the smallest sizes (fixed cost per pass) stays in the
	// first plateau.
	if lv := findLevels("gpu", curve("gpu", 5, 7, 8, 8, 4, 4)); len(lv) != 2 || lv[0].FromBytes != stairMin {
		t.Errorf("rising start: %v", lv)
	}
}

func TestStairSizes(t *testing.T) {
	s := stairSizes(256<<20, math.MaxInt64, false)
	if s[0] != 16<<10 || s[len(s)-1] != 256<<20 || len(s) != 15 {
		t.Errorf("full: %v", s)
	}
	q := stairSizes(256<<20, math.MaxInt64, true)
	if len(q) != 8 || q[len(q)-1] < 256<<20 {
		t.Errorf("quick: %v", q)
	}
	if l := stairSizes(256<<20, 128<<20, true); l[len(l)-1] > 128<<20 {
		t.Errorf("limit: %v", l)
	}
}

// TestStairRoofLevels: each side's level is measured inside its own
// plateau and judges working sets up to its own reach; a row past every
// reach is judged against dram.
func TestStairRoofLevels(t *testing.T) {
	st := &report.Staircase{}
	st.Levels = append(findLevels("cpu", curve("cpu", 440, 450, 230, 220, 100, 105, 30, 31)),
		findLevels("gpu", curve("gpu", 20, 21, 10, 10, 10, 10))...)
	lv := stairRoofLevels(st, 2)
	if len(lv) != 2 || lv[0].Name != "l2" || lv[1].Name != "llc" {
		t.Fatalf("%+v", lv)
	}
	for i := range lv {
		lv[i].CPU.BandwidthGBs, lv[i].GPU.BandwidthGBs = 1, 1
	}
	r := experiment.Roofs{Levels: lv}
	if _, name, _ := r.ForBytes(report.SideCPU, 100<<10); name != "l2" {
		t.Errorf("cpu 100 KiB: %s", name)
	}
	if _, name, _ := r.ForBytes(report.SideCPU, 10<<20); name != "dram" {
		t.Errorf("cpu 10 MiB: %s (the cpu llc plateau ends at 256 KiB·2)", name)
	}
	if _, name, _ := r.ForBytes(report.SideGPU, 10<<20); name != "dram" {
		t.Errorf("gpu 10 MiB: %s", name)
	}
}

// TestStreamIntoCPUCeilings: the stream kernels raise a ceiling only
// where they are faster, and add their rates as stream_* keys.
func TestStreamIntoCPUCeilings(t *testing.T) {
	c := hostsimd.Ceilings{Bytes: 4 << 20, Threads: 2, ReadGBs: 1e-3, ReadKernel: "sum4", CopyGBs: 1e9, TriadGBs: 1e-3}
	keys, err := streamIntoCPUCeilings(hostsimd.Host{}, &c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadKernel != "BabelStream Dot" || c.ReadGBs != keys["stream_dot_gbs"] || c.TriadGBs != keys["stream_triad_gbs"] || c.CopyGBs != 1e9 {
		t.Errorf("ceilings %+v, keys %v", c, keys)
	}
	for _, k := range []string{"copy", "mul", "add", "triad", "dot"} {
		if !(keys["stream_"+k+"_gbs"] > 0) {
			t.Errorf("no stream_%s_gbs in %v", k, keys)
		}
	}
}

// TestStreamIntoCPUCeilingsPastTheStreamLimit: ceilings' arrays larger
// than BabelStream's element limit run the stream kernels at the limit
// (not an error that stops the run), and the summary note says so.
func TestStreamIntoCPUCeilingsPastTheStreamLimit(t *testing.T) {
	defer func(n int) { streamMaxElements = n }(streamMaxElements)
	streamMaxElements = 1 << 16
	c := hostsimd.Ceilings{Bytes: 4 << 20, Threads: 1}
	keys, err := streamIntoCPUCeilings(hostsimd.Host{}, &c, nil)
	if err != nil {
		t.Fatalf("ceilings past the stream limit: %v", err)
	}
	if keys["stream_array_bytes"] != 4<<16 {
		t.Errorf("stream_array_bytes = %v, want %d", keys["stream_array_bytes"], 4<<16)
	}
	n := StreamArrayNote(keys, c.Bytes)
	if !strings.Contains(n, "256 KiB per array") || !strings.Contains(n, "65536 elements") || !strings.Contains(n, "ceilings' 4 MiB per array") {
		t.Errorf("note %q", n)
	}
	streamMaxElements = 1 << 30
	if keys, err = streamIntoCPUCeilings(hostsimd.Host{}, &c, nil); err != nil {
		t.Fatal(err)
	}
	if n := StreamArrayNote(keys, c.Bytes); n != "" {
		t.Errorf("within the limit, a note: %q", n)
	}
}

// TestNameByCPUID: plateaus are named after the reported cache nearest
// their last working set, so an L2 merged into the LLC's plateau does not
// turn the L1 plateau into "l2".
func TestNameByCPUID(t *testing.T) {
	caches := cpuidCaches(2)
	if len(caches) < 3 {
		t.Skip("cpuid reports fewer than three cache levels here")
	}
	l1, l3 := caches[0].bytes, caches[2].bytes
	lv := []report.StairLevel{{Name: "l2", ToBytes: l1}, {Name: "llc", ToBytes: l3 / 2}, {Name: "dram"}}
	nameByCPUID(lv, 2)
	if lv[0].Name != "l1" || lv[1].Name != "llc" || lv[2].Name != "dram" {
		t.Errorf("names %s %s %s", lv[0].Name, lv[1].Name, lv[2].Name)
	}
}

// TestFindLevelsMeasuresInsideThePlateau: a level's ceiling is measured
// strictly inside a plateau of three points or more, never at its first
// working set, which may still sit partly in the level below (per-thread
// caches the sweep's steps do not resolve).
func TestFindLevelsMeasuresInsideThePlateau(t *testing.T) {
	//            16K  32K  64K  128K 256K 512K 1M   2M   4M   8M   16M  32M  64M  128M 256M
	pts := curve("cpu", 440, 460, 450, 230, 210, 225, 200, 110, 100, 105, 98, 60, 33, 31, 32)
	for _, l := range findLevels("cpu", pts) {
		if l.ToBytes >= 4*l.FromBytes && !(l.CeilingBytes > l.FromBytes && l.CeilingBytes < l.ToBytes) {
			t.Errorf("%s: ceiling working set %v not strictly inside its plateau %v … %v", l.Name, l.CeilingBytes, l.FromBytes, l.ToBytes)
		}
	}
}

// TestReachCappedByCPUID: a CPU level whose reach runs up to the next
// plateau (the level above it missed by the sweep) judges no working set
// larger than the cache cpuid reports for it, as the threads see it.
func TestReachCappedByCPUID(t *testing.T) {
	caches := cpuidCaches(2)
	size := map[string]float64{}
	for _, c := range caches {
		size[c.level] = c.bytes
	}
	if size["l2"] == 0 {
		t.Skip("cpuid reports no L2 size on this CPU")
	}
	// l1, then one plateau up to the l2 size, then a steady decline (each
	// point its own transition, dropped) down to a dram plateau from 64×
	// past it: no llc plateau, so the l2 plateau's reach would run to
	// dram's.
	var pts []report.StairPoint
	decline := 400.0
	for b := float64(stairMin); b <= 256*size["l2"]; b *= 2 {
		g := 30.0
		switch {
		case b <= size["l1"]:
			g = 800
		case b <= size["l2"]:
			g = 400
		case b < 64*size["l2"]:
			decline *= 0.7
			g = max(decline, 31)
		}
		pts = append(pts, report.StairPoint{Side: "cpu", Bytes: b, GBs: g})
	}
	lv := findLevels("cpu", pts)
	nameByCPUID(lv, 2)
	var l2 *report.StairLevel
	for i := range lv {
		if lv[i].Name == "l2" {
			l2 = &lv[i]
		}
	}
	if l2 == nil {
		t.Fatalf("no l2 level in %+v", lv)
	}
	if l2.ReachBytes <= size["l2"] {
		t.Fatalf("reach %v before the cap: the test's curve does not run past the L2 (%v)", l2.ReachBytes, size["l2"])
	}
	capReachByCPUID(lv, 2)
	if want := max(size["l2"], l2.ToBytes); l2.ReachBytes != want {
		t.Errorf("l2 reach %v after the cap, want %v (cpuid's L2 × 2 threads)", l2.ReachBytes, want)
	}
}
