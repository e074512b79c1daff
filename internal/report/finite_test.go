package report_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// WriteJSON refuses a report holding NaN or ±Inf, naming each value's
// JSON path (a row's field, a ceiling's key), and writes nothing; a
// finite report passes.
func TestWriteJSONNamesNonFiniteFields(t *testing.T) {
	r := fixture()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, r); err != nil {
		t.Fatalf("a finite report: %v", err)
	}
	r.Measurements[1].GBs = math.Inf(1)
	if r.Ceilings.CPU == nil {
		r.Ceilings.CPU = map[string]float64{}
	}
	r.Ceilings.CPU["copy_gbs"] = math.NaN()
	buf.Reset()
	err := report.WriteJSON(&buf, r)
	if !errors.Is(err, report.ErrNonFinite) {
		t.Fatalf("err = %v, want ErrNonFinite", err)
	}
	for _, want := range []string{"measurements[1].gbs = +Inf", "ceilings.cpu[copy_gbs] = NaN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q does not name %q", err, want)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written before the refusal", buf.Len())
	}
}
