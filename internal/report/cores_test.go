package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// The header counts the host's cores in good grammar: a run with
// --threads 1 says "1 core", in the text (short and verbose) and the
// HTML report alike, and the noise line does the same.
func TestHeaderCoresGrammar(t *testing.T) {
	for _, c := range []struct {
		cores     int
		want, not string
	}{{1, "1 core,", "1 cores"}, {2, "2 cores,", "2 core,"}} {
		r := fixture()
		r.Host.Cores = c.cores
		for _, opts := range []report.TextOptions{{}, {Verbose: true}} {
			var b bytes.Buffer
			if err := report.WriteTextOpts(&b, r, opts); err != nil {
				t.Fatal(err)
			}
			if s := b.String(); !strings.Contains(s, c.want) || strings.Contains(s, c.not) {
				t.Errorf("%d cores, verbose %v: text header lacks %q:\n%s", c.cores, opts.Verbose, c.want, s[:min(len(s), 400)])
			}
		}
		var h bytes.Buffer
		if err := report.WriteHTML(&h, r); err != nil {
			t.Fatal(err)
		}
		if s := h.String(); !strings.Contains(s, c.want) || strings.Contains(s, c.not) {
			t.Errorf("%d cores: HTML lacks %q", c.cores, c.want)
		}
	}
	n := &report.Noise{Tentative: true, Noisy: 3, Measurements: 4, CILimit: 0.1, Load: 1.5, Cores: 1}
	if s := report.NoiseLine(n); !strings.Contains(s, "load 1.5 on 1 core ") {
		t.Errorf("noise line %q, want \"load 1.5 on 1 core\"", s)
	}
	if got := report.Cores(1) + "|" + report.Cores(0) + "|" + report.Cores(16); got != "1 core|0 cores|16 cores" {
		t.Errorf("Cores: %q", got)
	}
}
