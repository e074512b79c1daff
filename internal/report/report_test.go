package report_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./report -update` to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run `go test ./report -update` after checking):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestWriteTextGolden checks both text forms: the verbose one (every
// section and warning) and the short one (verdicts, the table, warnings
// one line per kind).
func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteTextOpts(&buf, fixture(), report.TextOptions{Verbose: true, EveryWarning: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", buf.Bytes())
	buf.Reset()
	if err := report.WriteText(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report-short.txt", buf.Bytes())
}

func TestJSONRoundTrip(t *testing.T) {
	r := fixture()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := report.WriteAtomic(path, func(w io.Writer) error { return report.WriteJSON(w, r) }); err != nil {
		t.Fatal(err)
	}
	got, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(r)
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
}

func TestReadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := report.WriteJSON(&good, fixture()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    string
		want    error
		message string // substring of the error
	}{
		{"future schema", strings.Replace(good.String(), `"wgpu-prof/v1"`, `"wgpu-prof/v9"`, 1), report.ErrSchema, `"wgpu-prof/v9"`},
		{"no schema", `{"tool": "x"}`, report.ErrSchema, "no \"schema\""},
		{"syntax", "{\n  \"schema\": \"wgpu-prof/v1\",\n  \"tool\": oops\n}", report.ErrCorrupt, "line 3, column"},
		{"truncated", good.String()[:200], report.ErrCorrupt, "bad.json"},
		{"wrong type", `{"schema": "wgpu-prof/v1", "host": {"cores": "eight"}}`, report.ErrCorrupt, "line 1, column"},
		{"unknown field", `{"schema": "wgpu-prof/v1", "bogus": 1}`, report.ErrCorrupt, "bogus"},
		{"trailing data", `{"schema": "wgpu-prof/v1"} {}`, report.ErrCorrupt, "after top-level value"},
		{"bad side", `{"schema": "wgpu-prof/v1", "measurements": [{"workload": "w", "side": "tpu",
			"end_to_end": {"n": 1, "median": 1, "lo": 1, "hi": 1}}]}`, report.ErrInvalid, `side "tpu"`},
		{"empty summary", `{"schema": "wgpu-prof/v1", "measurements": [{"workload": "w", "side": "cpu"}]}`, report.ErrInvalid, "no samples"},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := report.Read(path)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.message) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: err = %v; want %v mentioning %q and the file", tc.name, err, tc.want, tc.message)
		}
	}
	if _, err := report.Read(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestWriteJSONRejectsNaN(t *testing.T) {
	r := fixture()
	r.Measurements[0].GBs = math.NaN()
	if err := report.WriteJSON(io.Discard, r); err == nil {
		t.Error("WriteJSON accepted NaN")
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := report.WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := report.WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half a")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Errorf("failed write changed the file to %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp file left behind: %v", entries)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v", fi.Mode(), err)
	}

	// Folders no file can be created in: a missing one, one under a
	// regular file (refused even to root), and a read-only one (only for
	// a non-root user; root writes anyway).
	file := filepath.Join(dir, "regular")
	os.WriteFile(file, []byte("x"), 0o644)
	paths := []string{filepath.Join(dir, "nope", "x.json"), filepath.Join(file, "x.json")}
	if os.Geteuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(ro, "x.json"))
	}
	for _, p := range paths {
		err := report.WriteAtomic(p, func(w io.Writer) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "cannot create a file in") {
			t.Errorf("%s: err = %v", p, err)
		}
	}
}

func TestWriteCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteCSV(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || !reflect.DeepEqual(rows[0], report.CSVHeader) {
		t.Fatalf("rows = %q", rows)
	}
	if rows[1][0] != "cosine-single" || rows[1][1] != "gpu" || rows[1][3] != "d=768;n=100000" || rows[1][5] != "0.0025" || rows[1][10] != "0.001" {
		t.Errorf("gpu row = %q", rows[1])
	}
	if rows[2][10] != "" {
		t.Errorf("cpu row has a kernel time: %q", rows[2])
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if !strings.Contains(rows[3][col["warnings"]], "CV > 10%") {
		t.Errorf("warnings column = %q", rows[3][col["warnings"]])
	}
	if got := rows[1][col["ceiling"]]; got != "GPU read 400 GB/s" {
		t.Errorf("ceiling column = %q, want the ceiling ceiling_frac refers to", got)
	}
}

func TestChromeTrace(t *testing.T) {
	events := []report.TraceEvent{
		{Name: "upload", Cat: "host", Start: 0, Dur: 1500 * time.Nanosecond, Tid: 0},
		{Name: "cosine", Cat: "gpu", Start: 2 * time.Microsecond, Dur: time.Millisecond, Tid: 1, Args: map[string]any{"n": 100000}},
	}
	var buf bytes.Buffer
	if err := report.WriteChromeTrace(&buf, events); err != nil {
		t.Fatal(err)
	}
	var got struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Ts, Dur       float64
			Pid, Tid      int
			Args          map[string]any
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, buf.Bytes())
	}
	// Metadata first (process and track names), then the events.
	names := map[int]string{}
	var evs []struct {
		Name, Cat, Ph string
		Ts, Dur       float64
		Pid, Tid      int
		Args          map[string]any
	}
	for _, e := range got.TraceEvents {
		if e.Ph == "M" {
			if e.Name == "thread_name" {
				names[e.Tid], _ = e.Args["name"].(string)
			}
			continue
		}
		evs = append(evs, e)
	}
	if !strings.Contains(names[report.TraceTidGPU], "GPU") || !strings.Contains(names[report.TraceTidHost], "host") {
		t.Errorf("track names = %v", names)
	}
	if len(evs) != 2 {
		t.Fatalf("events = %+v", evs)
	}
	e := evs[1]
	if e.Name != "cosine" || e.Ph != "X" || e.Ts != 2 || e.Dur != 1000 || e.Tid != 1 || e.Args["n"] != 100000.0 {
		t.Errorf("event = %+v", e)
	}
	if evs[0].Dur != 1.5 {
		t.Errorf("sub-µs duration lost: %v", evs[0].Dur)
	}
	if err := report.WriteChromeTrace(io.Discard, []report.TraceEvent{{Name: "x", Dur: -1}}); err == nil {
		t.Error("negative duration accepted")
	}
	if err := report.WriteChromeTrace(io.Discard, []report.TraceEvent{{Name: "x", Args: map[string]any{"f": func() {}}}}); err == nil {
		t.Error("unencodable arg accepted")
	}
}

func TestCrossoverJSON(t *testing.T) {
	c := report.NewCrossover(timing.Crossover{Kind: timing.CrossAt, N: 100, Lo: 0, Hi: math.Inf(1)})
	data, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(data), `"hi":null`) {
		t.Errorf("unbounded crossover: %s, %v", data, err)
	}
	if s := c.String(); s != "at 100 (CI unbounded)" {
		t.Errorf("String = %q", s)
	}
}

// WriteHybridRequests writes one CSV row per request, sides and
// strategies as indexes (a lost request's side -1), and refuses a row
// whose strategy or side the report does not have.
func TestWriteHybridRequests(t *testing.T) {
	h := &report.Hybrid{Sides: []string{"a", "b"}, Strategies: []report.HybridStrategy{{Name: "a only"}, {Name: "adaptive, x"}}, Rows: []report.HybridRequest{
		{Strategy: 0, Replay: 0, Index: 0, N: 7, Side: 0, Seconds: 1.5e-6, Routing: 0},
		{Strategy: 1, Replay: 2, Index: 5, N: 300, Side: 1, Seconds: 2.25e-6, Routing: 4e-8, Probe: true},
		{Strategy: 1, Replay: 2, Index: 6, N: 3, Side: -1, Seconds: 1e-5, Routing: 0, Recovered: true},
	}}
	var b strings.Builder
	if err := report.WriteHybridRequests(&b, h); err != nil {
		t.Fatal(err)
	}
	want := "strategy,replay,request,n,side,seconds,routing_seconds,probe,recovered\n" +
		"0,0,0,7,0,1.5e-06,0,0,0\n1,2,5,300,1,2.25e-06,4e-08,1,0\n1,2,6,3,-1,1e-05,0,0,1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for _, bad := range []report.HybridRequest{{Strategy: 2}, {Strategy: -1}, {Side: 2}, {Side: -2}} {
		h.Rows = []report.HybridRequest{bad}
		if err := report.WriteHybridRequests(io.Discard, h); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
