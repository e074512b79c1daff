package report_test

import (
	"bytes"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// FuzzDecode: the report reader never panics; a report it accepts
// validates and survives a write and a second read.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, fixture()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"schema": "wgpu-prof/v1", "measurements": [`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := report.Decode(data, "fuzz.json")
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Decode accepted a report Validate refuses: %v", err)
		}
		var out bytes.Buffer
		if err := report.WriteJSON(&out, r); err != nil {
			t.Fatalf("an accepted report does not write: %v", err)
		}
		if _, err := report.Decode(out.Bytes(), "again.json"); err != nil {
			t.Fatalf("an accepted report does not read back: %v", err)
		}
		report.Compare(r, r, 0.05)
		report.WriteText(&out, r)
		report.WriteCSV(&out, r)
		report.WriteBench(&out, r)
	})
}
