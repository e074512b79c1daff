package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ciRow is a row without raw samples (the CI-overlap path) whose median is
// m and whose 95% interval is [m·0.99, m·1.01].
func ciRow(m float64) report.Measurement {
	return report.Measurement{Workload: "w", Side: "gpu", Variant: "v", Verified: true,
		EndToEnd: timing.Summary{N: 10, Median: m, Lo: m * 0.99, Hi: m * 1.01, Confidence: 0.98, Mean: m, Min: m * 0.99, Max: m * 1.01}}
}

// A significant slowdown of exactly the threshold is not a regression: the
// rule is delta > threshold (a 25% threshold with new/old = 1.25 exactly).
func TestCompareDeltaAtThresholdIsNotARegression(t *testing.T) {
	old := &report.Report{Measurements: []report.Measurement{ciRow(1)}}
	at := &report.Report{Measurements: []report.Measurement{ciRow(1.25)}}
	c := report.Compare(old, at, 0.25)
	r := c.Rows[0]
	if r.Delta != 0.25 || !r.Significant {
		t.Fatalf("set-up: delta %v significant %v", r.Delta, r.Significant)
	}
	if r.Regression || c.Regressed {
		t.Errorf("delta exactly at the 25%% threshold counted as a regression")
	}
	// Just past it, it is one.
	past := &report.Report{Measurements: []report.Measurement{ciRow(1.2500001)}}
	if c := report.Compare(old, past, 0.25); !c.Regressed {
		t.Errorf("delta just past the threshold not a regression")
	}
}

// On the CI-overlap path an invalid summary (no samples: Lo = Hi = 0) is
// never significant, however far the other row's interval lies.
func TestCompareInvalidSummaryIsNotSignificant(t *testing.T) {
	invalid := report.Measurement{Workload: "w", Side: "gpu", Variant: "v", EndToEnd: timing.Summary{}}
	old := &report.Report{Measurements: []report.Measurement{invalid}}
	cur := &report.Report{Measurements: []report.Measurement{ciRow(1)}}
	for _, c := range []report.CompareResult{report.Compare(old, cur, 0.05), report.Compare(cur, old, 0.05)} {
		if r := c.Rows[0]; r.Significant || r.Regression || r.Improvement || c.Regressed {
			t.Errorf("an invalid summary compared significant: %+v", r)
		}
	}
}

// A negative threshold counts as 0: a significant improvement is then
// still not a regression, and a significant slowdown is one.
func TestCompareNegativeThresholdClamped(t *testing.T) {
	old := &report.Report{Measurements: []report.Measurement{ciRow(1)}}
	faster := &report.Report{Measurements: []report.Measurement{ciRow(0.9)}}
	c := report.Compare(old, faster, -0.5)
	if c.Threshold != 0 {
		t.Errorf("threshold -0.5 kept as %v, want 0", c.Threshold)
	}
	if c.Regressed || c.Rows[0].Regression || !c.Rows[0].Improvement {
		t.Errorf("10%% faster against threshold -0.5: %+v", c.Rows[0])
	}
	slower := &report.Report{Measurements: []report.Measurement{ciRow(1.1)}}
	if c := report.Compare(faster, slower, -0.5); !c.Regressed || c.Rows[0].Improvement {
		t.Errorf("a slowdown against threshold -0.5: %+v", c.Rows[0])
	}
}

// Only this build's schema version is read: another version with the same
// "wgpu-prof/" prefix is refused with ErrSchema.
func TestDecodeRefusesOtherSchemaVersions(t *testing.T) {
	r := report.New("wgpu-prof test", time.Time{})
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Decode(buf.Bytes(), "ok.json"); err != nil {
		t.Fatalf("this version: %v", err)
	}
	for _, v := range []string{"wgpu-prof/v2", "wgpu-prof/v0", "wgpu-prof/", "wgpu-prof/v1.1", "other/v1"} {
		data := bytes.Replace(buf.Bytes(), []byte(`"`+report.SchemaVersion+`"`), []byte(`"`+v+`"`), 1)
		if !strings.Contains(string(data), v) {
			t.Fatalf("set-up: version not replaced")
		}
		// Decode checks the version before anything else (so a future
		// file is reported as such, not as unknown fields) ...
		if _, err := report.Decode(data, "other.json"); !errors.Is(err, report.ErrSchema) || !strings.Contains(err.Error(), "this build reads") {
			t.Errorf("schema %q: err = %v, want ErrSchema from the version check", v, err)
		}
		// ... and Validate refuses it too.
		other := *r
		other.Schema = v
		if err := other.Validate(); !errors.Is(err, report.ErrSchema) {
			t.Errorf("Validate of schema %q: %v, want ErrSchema", v, err)
		}
	}
}
