package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Every output format of an interrupted run says INCOMPLETE; a finished
// run's says nothing of it.
func TestIncompleteMarkedInEveryFormat(t *testing.T) {
	r := New("wgpu-prof test", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	r.Measurements = []Measurement{{Workload: "cosine-single", Side: "cpu", Variant: "v", EndToEnd: timing.Summarize([]float64{1e-3, 1.1e-3, 0.9e-3, 1e-3, 1e-3, 1e-3}), Verified: true}}
	writers := map[string]func(*bytes.Buffer, *Report) error{
		"json":  func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) },
		"text":  func(b *bytes.Buffer, r *Report) error { return WriteText(b, r) },
		"csv":   func(b *bytes.Buffer, r *Report) error { return WriteCSV(b, r) },
		"bench": func(b *bytes.Buffer, r *Report) error { return WriteBench(b, r) },
		"html":  func(b *bytes.Buffer, r *Report) error { return WriteHTML(b, r) },
	}
	for name, w := range writers {
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), IncompleteMark) {
			t.Errorf("%s of a finished run says %s", name, IncompleteMark)
		}
	}
	r.Incomplete = "interrupted by SIGINT"
	r.Warnings = append(r.Warnings, IncompleteMark+": "+r.Incomplete)
	for name, w := range writers {
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), IncompleteMark) {
			t.Errorf("%s of an interrupted run does not say %s:\n%s", name, IncompleteMark, b.String())
		}
	}
	// The JSON round trip keeps it.
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b.Bytes(), "incomplete.json")
	if err != nil {
		t.Fatal(err)
	}
	if why, ok := back.IncompleteReason(); !ok || why != r.Incomplete {
		t.Errorf("decoded IncompleteReason = %q, %v", why, ok)
	}
	// A report written before the field: its warning marks it.
	old := &Report{Warnings: []string{"INCOMPLETE: the run stopped early"}}
	if why, ok := old.IncompleteReason(); !ok || why != "the run stopped early" {
		t.Errorf("warning-only report: %q, %v", why, ok)
	}
	if _, ok := (*Report)(nil).IncompleteReason(); ok {
		t.Error("nil report incomplete")
	}
}
