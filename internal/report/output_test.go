package report_test

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestWriteBenchParses(t *testing.T) {
	r := fixture()
	// Raw samples on the CPU row: one benchmark line per sample.
	r.Measurements[1].Samples = []float64{10e-3, 10.1e-3, 9.9e-3}
	var buf bytes.Buffer
	if err := report.WriteBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"adapter: Synthetic GPU 9000\n", "backend: vulkan\n", "goos: ",
		"BenchmarkCosineSingle/side=gpu/variant=wg256/d=768/n=100000 1 "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	rd := benchfmt.NewReader(&buf, "bench.txt")
	type line struct {
		name   string
		values map[string]float64
	}
	var got []line
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt cannot parse our output: %v\n%s", rec, text)
		case *benchfmt.Result:
			if rec.GetConfig("adapter") != "Synthetic GPU 9000" || rec.GetConfig("backend") != "vulkan" {
				t.Errorf("config adapter=%q backend=%q", rec.GetConfig("adapter"), rec.GetConfig("backend"))
			}
			l := line{name: rec.Name.String(), values: map[string]float64{}}
			for _, v := range rec.Values {
				l.values[v.Unit] = v.Value
			}
			got = append(got, l)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+3+1 {
		t.Fatalf("%d results, want 5:\n%s", len(got), text)
	}
	// benchfmt tidies ns to sec.
	gpu := got[0].values
	if !near(gpu["e2e-sec/op"], 2.5e-3) || !near(gpu["gpu-sec/op"], 1e-3) || !near(gpu["B/s"], 307.2e9) || !near(gpu["FLOP/s"], 307.2e9) {
		t.Errorf("gpu values = %v", gpu)
	}
	if !near(got[2].values["e2e-sec/op"], 10.1e-3) || got[2].name != "CosineSingle/side=cpu/variant=avx2/d=768/n=100000" {
		t.Errorf("second cpu sample = %+v", got[2])
	}
	if _, ok := got[1].values["gpu-sec/op"]; ok {
		t.Errorf("cpu row has a kernel time: %v", got[1].values)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestCompare(t *testing.T) {
	old := fixture()
	same := report.Compare(old, fixture(), 0.05)
	if same.Regressed || len(same.Rows) != 3 || same.Geomean != 0 || len(same.OnlyOld)+len(same.OnlyNew) != 0 {
		t.Errorf("identical reports: %+v", same)
	}
	for _, r := range same.Rows {
		if r.Significant || r.Delta != 0 {
			t.Errorf("identical row %s: %+v", r.Key, r)
		}
	}

	// Plant a 20% regression in the GPU kernel time.
	slow := fixture()
	slow.Measurements[0].Kernel = ptr(sum(1.2e-3, 0.01))
	slow.Measurements = slow.Measurements[:2] // drop one row
	c := report.Compare(old, slow, 0.05)
	if !c.Regressed {
		t.Errorf("20%% regression not detected: %+v", c)
	}
	row := c.Rows[0]
	if row.Clock != "kernel" || !near(row.Delta, 0.2) || !row.Significant || row.Method != report.MethodCI || !row.Regression {
		t.Errorf("regressed row = %+v", row)
	}
	if len(c.OnlyOld) != 1 || !strings.Contains(c.OnlyOld[0], "generic") {
		t.Errorf("OnlyOld = %v", c.OnlyOld)
	}
	if !near(c.Geomean, math.Sqrt(1.2)-1) {
		t.Errorf("geomean = %v, want %v", c.Geomean, math.Sqrt(1.2)-1)
	}

	// Below the threshold: significant but not a regression.
	c = report.Compare(old, slow, 0.25)
	if c.Regressed || !c.Rows[0].Significant {
		t.Errorf("threshold 25%%: %+v", c.Rows[0])
	}

	// Overlapping CIs: not significant, whatever the delta.
	noisy := fixture()
	noisy.Measurements[1].EndToEnd = sum(11e-3, 0.2)
	c = report.Compare(old, noisy, 0.05)
	if c.Regressed || c.Rows[1].Significant {
		t.Errorf("noisy row = %+v", c.Rows[1])
	}
	var buf bytes.Buffer
	if err := report.WriteCompare(&buf, report.Compare(old, slow, 0.05)); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "+20.0%") || !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "geomean") {
		t.Errorf("WriteCompare output:\n%s", out)
	}
}

func TestCompareUTest(t *testing.T) {
	mk := func(scale float64) *report.Report {
		r := fixture()
		m := &r.Measurements[1]
		m.Samples = nil
		for i := 0; i < 12; i++ {
			m.Samples = append(m.Samples, scale*(10e-3+float64(i%4)*0.1e-3))
		}
		m.EndToEnd = timing.Summarize(m.Samples)
		return r
	}
	c := report.Compare(mk(1), mk(1.2), 0.05)
	row := c.Rows[1]
	if row.Method != report.MethodUTest || !row.Significant || row.P >= 0.05 || !c.Regressed {
		t.Errorf("u-test regression: %+v", row)
	}
	c = report.Compare(mk(1), mk(1), 0.05)
	if c.Rows[1].Significant || c.Regressed {
		t.Errorf("u-test identical: %+v", c.Rows[1])
	}
}

func TestPlots(t *testing.T) {
	r := fixture()
	roofs := []report.RoofSeries{
		{Label: "GPU", Roof: timing.Roof{PeakGFLOPs: 12000, BandwidthGBs: 400}},
		{Label: "CPU", Roof: timing.Roof{PeakGFLOPs: 600, BandwidthGBs: 40}},
	}
	points := []report.RoofPoint{
		{Label: "cosine gpu", Point: timing.Point{Flops: r.Measurements[0].Flops, Bytes: r.Measurements[0].Bytes, Seconds: 1e-3}},
		{Label: "cosine cpu", Point: timing.Point{Flops: r.Measurements[1].Flops, Bytes: r.Measurements[1].Bytes, Seconds: 10e-3}},
		{Label: "copy", Point: timing.Point{Flops: 0, Bytes: 1e9, Seconds: 0.01}}, // skipped on log axes
	}
	plots := map[string]func(w io.Writer, format string) error{
		"roofline":  func(w io.Writer, f string) error { return report.PlotRoofline(w, roofs, points, f) },
		"breakeven": func(w io.Writer, f string) error { return report.PlotBreakEven(w, r.BreakEvens[0], f) },
		"sweep":     func(w io.Writer, f string) error { return report.PlotSweep(w, r.Sweeps[0], f) },
	}
	for name, plot := range plots {
		var p bytes.Buffer
		if err := plot(&p, "png"); err != nil {
			t.Fatalf("%s png: %v", name, err)
		}
		img, err := png.Decode(&p)
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s: invalid PNG: %v", name, err)
		}
		var s bytes.Buffer
		if err := plot(&s, "svg"); err != nil {
			t.Fatalf("%s svg: %v", name, err)
		}
		head := strings.TrimSpace(s.String())
		if !(strings.HasPrefix(head, "<?xml") || strings.HasPrefix(head, "<svg")) || !strings.Contains(head, "</svg>") {
			t.Errorf("%s: not SVG: %.80q", name, head)
		}
		if err := plot(io.Discard, "gif"); !errors.Is(err, report.ErrPlot) {
			t.Errorf("%s: format gif: err = %v", name, err)
		}
	}
}

func TestPlotsRejectBadInput(t *testing.T) {
	be := fixture().BreakEvens[0]
	be.GPU = be.GPU[:2]
	cases := map[string]error{
		"roofline bad point": report.PlotRoofline(io.Discard, nil, []report.RoofPoint{{Label: "x", Point: timing.Point{Flops: 1, Bytes: 0, Seconds: 1}}}, "png"),
		"roofline bad roof":  report.PlotRoofline(io.Discard, []report.RoofSeries{{Label: "x"}}, nil, "png"),
		"roofline empty":     report.PlotRoofline(io.Discard, nil, nil, "png"),
		"breakeven lengths":  report.PlotBreakEven(io.Discard, be, "png"),
		"breakeven empty":    report.PlotBreakEven(io.Discard, report.BreakEven{}, "png"),
		"sweep empty":        report.PlotSweep(io.Discard, report.Sweep{}, "svg"),
	}
	for name, err := range cases {
		if !errors.Is(err, report.ErrPlot) {
			t.Errorf("%s: err = %v, want ErrPlot", name, err)
		}
	}
	// A sweep with an invalid point still plots (zero-height bar).
	s := fixture().Sweeps[0]
	s.Points = append(s.Points, report.SweepPoint{Label: "wg=512"})
	if err := report.PlotSweep(io.Discard, s, "png"); err != nil {
		t.Errorf("sweep with invalid point: %v", err)
	}
}

// TestPlotTickLabels: human tick labels with units, never raw floats.
func TestPlotTickLabels(t *testing.T) {
	be := fixture().BreakEvens[0]
	var buf bytes.Buffer
	if err := report.PlotBreakEven(&buf, be, "svg"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	if m := regexp.MustCompile(`>[^<]*\d\.\d{6,}[^<]*<|>[^<]*\de[-+]\d+[^<]*<`).FindString(svg); m != "" {
		t.Errorf("a raw float in a label: %s", m)
	}
	for _, want := range []string{"µs", "batch size", "95% CI"} {
		if !strings.Contains(svg, want) {
			t.Errorf("break-even plot lacks %q", want)
		}
	}
	// Okabe–Ito orange (GPU) and blue (CPU), not plotutil's red/green.
	for _, c := range []string{"#E69F00", "#0072B2"} {
		if !strings.Contains(strings.ToUpper(svg), c) {
			t.Errorf("break-even plot lacks the colour %s", c)
		}
	}
}
