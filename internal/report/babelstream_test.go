package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/stream"
)

// TestStreamOutputs: the CSV has BabelStream's header and C++'s default
// number format; the table its fixed-width columns.
func TestStreamOutputs(t *testing.T) {
	times := []time.Duration{time.Second, 2 * time.Millisecond, 4 * time.Millisecond, 3 * time.Millisecond}
	st, err := stream.Summarize(stream.Triad, times, 1<<20, 4)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteStreamCSV(&buf, 4, 1<<20, 4, []stream.Stats{st}); err != nil {
		t.Fatal(err)
	}
	want := StreamCSVHeader + "\nTriad,4,1048576,4,6291.46,0.002,0.004,0.003\n"
	if buf.String() != want {
		t.Fatalf("CSV:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := WriteStreamTable(&buf, []stream.Stats{st}, "", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "Function    MBytes/sec  Min (sec)   Max         Average") || !strings.Contains(buf.String(), "Triad       6291.456    0.00200     0.00400     0.00300") {
		t.Fatalf("table:\n%s", buf.String())
	}
}

// TestStateDiff: compare warns when the two reports saw different host
// states, and not when they saw the same or one has none.
func TestStateDiff(t *testing.T) {
	mk := func(labels ...string) *Report {
		r := &Report{}
		for _, l := range labels {
			r.CeilingPasses = append(r.CeilingPasses, CeilingPass{Key: "read_gbs", State: HostState{Label: l}})
		}
		return r
	}
	if w := StateDiff(mk("shared-llc"), mk("split-llc")); !strings.Contains(w, "shared-llc vs split-llc") {
		t.Errorf("different states: %q", w)
	}
	if w := StateDiff(mk("shared-llc"), mk("shared-llc", StateChanged)); w != "" {
		t.Errorf("same state: %q", w)
	}
	if w := StateDiff(mk(), mk("split-llc")); w != "" {
		t.Errorf("one report without states: %q", w)
	}
}

// TestStaircasePlotInHTML: a report with a staircase has the staircase
// figure (an inline SVG) in report.html, and the JSON round-trips it.
func TestStaircasePlotInHTML(t *testing.T) {
	r := New("wgpu-prof test", time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	st := &Staircase{}
	for i, g := range []float64{400, 410, 200, 190, 100, 95, 30, 31} {
		b := float64(16<<10) * float64(int(1)<<i)
		st.Points = append(st.Points, StairPoint{Side: SideCPU, Bytes: b, GBs: g}, StairPoint{Side: SideGPU, Bytes: b, GBs: g / 20})
	}
	st.Levels = []StairLevel{{Side: SideCPU, Name: "l2", FromBytes: 64 << 10, ToBytes: 128 << 10, GBs: 195}, {Side: SideCPU, Name: "dram", FromBytes: 1 << 20, ToBytes: 2 << 20, GBs: 30}}
	r.Staircase = st
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	h := buf.String()
	i := strings.Index(h, "Cache staircase")
	if i < 0 || !strings.Contains(h[i:], "<svg") {
		t.Fatal("report.html has no staircase plot")
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(js.Bytes(), "staircase test")
	if err != nil {
		t.Fatal(err)
	}
	if back.Staircase == nil || len(back.Staircase.Points) != 16 || back.Staircase.Levels[0].Name != "l2" {
		t.Errorf("staircase after a JSON round trip: %+v", back.Staircase)
	}
}
