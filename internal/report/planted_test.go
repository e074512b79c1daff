package report_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func noisyRow(seed uint64, median float64) report.Measurement {
	r := rand.New(rand.NewPCG(seed, 1))
	var s []float64
	for i := 0; i < 30; i++ {
		s = append(s, median*(1+0.01*r.NormFloat64()))
	}
	return report.Measurement{Workload: "w", Side: "gpu", Variant: "v", EndToEnd: timing.Summarize(s), Samples: s, Verified: true}
}

// A significant improvement is never a regression (a |delta| test would
// flag it), and a significant slowdown past the threshold is one.
func TestCompareImprovementIsNotARegression(t *testing.T) {
	old := &report.Report{Measurements: []report.Measurement{noisyRow(1, 1e-3)}}
	faster := &report.Report{Measurements: []report.Measurement{noisyRow(2, 0.8e-3)}}
	slower := &report.Report{Measurements: []report.Measurement{noisyRow(3, 1.2e-3)}}
	c := report.Compare(old, faster, 0.05)
	if c.Regressed || c.Rows[0].Regression || !c.Rows[0].Improvement || !c.Rows[0].Significant {
		t.Errorf("20%% faster: %+v", c.Rows[0])
	}
	c = report.Compare(old, slower, 0.05)
	if !c.Regressed || !c.Rows[0].Regression || c.Rows[0].Improvement {
		t.Errorf("20%% slower: %+v", c.Rows[0])
	}
	// Past a 30% threshold a 20% slowdown is not a regression.
	if c := report.Compare(old, slower, 0.30); c.Regressed {
		t.Errorf("20%% slower against a 30%% threshold: regression")
	}
}

// The reader refuses a report that holds the same measurement twice.
func TestReadRefusesDuplicateMeasurements(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Decode(buf.Bytes(), "ok.json"); err != nil {
		t.Fatalf("the fixture does not read: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ms := doc["measurements"].([]any)
	doc["measurements"] = append(ms, ms[0])
	dup, _ := json.Marshal(doc)
	_, err := report.Decode(dup, "dup.json")
	if err == nil || !strings.Contains(err.Error(), "duplicates") {
		t.Errorf("a duplicated measurement: err = %v", err)
	}
}
