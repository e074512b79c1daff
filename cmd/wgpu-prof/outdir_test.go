package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// earlierReport makes a folder holding an earlier report (report.json and
// report.txt) and a file of the user's, and returns it with its contents.
func earlierReport(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"report.json": "{\"earlier\": true}\n", "report.txt": "earlier\n", "notes.md": "mine\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, folderContents(t, dir)
}

// folderContents is every file of dir with its bytes.
func folderContents(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "=" + string(data) + ";")
	}
	return b.String()
}

// --out into a folder holding an earlier report is refused before
// anything is measured (exit 2, naming what is there and --force), in
// every command that takes --out; the folder is left as it was and
// nothing reaches stdout. The commands are listed here, not read from
// the flag registry, so a command losing the check fails the test.
func TestOutRefusesEarlierReport(t *testing.T) {
	saxpy, err := filepath.Abs("testdata/saxpy.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--quick", "--workloads", "cosine-single"},
		{"sweep", "workgroup", "--kernel", "cosine-single", "--quick"},
		{"sweep", "tile", "--kernel", "cosine-batch", "--quick"},
		{"sweep", "variant", "--kernel", "cosine-single", "--quick"},
		{"experiment", "memory-compute", "--kernel", "cosine-single", "--quick"},
		{"experiment", "quantization", "--quick"},
		{"breakeven", "--kernel", "cosine-single", "--quick"},
		{"hybrid", "--kernel", "cosine-single", "--quick"},
		{"plan", "--pprof", "app.pprof", "--op", "x=cosine-single"},
		{"kernel", saxpy, "--buffer", "x=f32:1024:rand", "--buffer", "y=f32:1024", "--dispatch", "16"},
		{"host", "--n", "2000"},
		{"latency", "--rounds", "3"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir, before := earlierReport(t)
			stdout, stderr, err := runCmd(append(args, "--out", dir)...)
			code, msg := exitStatus(err)
			if code != 2 {
				t.Fatalf("exit status %d (%v), want 2\nstderr: %s", code, err, stderr)
			}
			for _, want := range []string{`--out "` + dir + `" holds an earlier report`, "report.json", "report.txt", "and 1 other entry", "--force writes over it"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not say %q", msg, want)
				}
			}
			if stdout != "" {
				t.Errorf("a refused command wrote to stdout: %q", stdout)
			}
			if after := folderContents(t, dir); after != before {
				t.Errorf("the folder changed:\nbefore: %s\nafter:  %s", before, after)
			}
		})
	}
	// --force means nothing without --out.
	_, _, err = runCmd("host", "--force")
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, "--force needs --out") {
		t.Errorf("host --force: exit %d %q, want 2 and \"--force needs --out\"", code, msg)
	}
}

// An earlier report arriving in --out while the command measured is not
// written over either: the report went to stdout, the folder is left as
// it was, and the error says so.
func TestOutRefusesReportArrivedDuringRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	o := outputFlags{format: "text", out: dir}
	if err := o.validate(); err != nil {
		t.Fatalf("a fresh folder: %v", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := folderContents(t, dir)
	var stdout strings.Builder
	err := o.emit(&stdout, syntheticReport(t, 1, nil))
	if err == nil || !strings.Contains(err.Error(), "holds an earlier report (plan.json)") || !strings.Contains(err.Error(), "the report went to stdout") {
		t.Errorf("emit over a report that arrived: %v", err)
	}
	if stdout.Len() == 0 {
		t.Error("the report did not reach stdout")
	}
	if after := folderContents(t, dir); after != before {
		t.Errorf("the folder changed:\nbefore: %s\nafter:  %s", before, after)
	}
	o.force = true
	if err := o.emit(&stdout, syntheticReport(t, 1, nil)); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Errorf("--force wrote no report.json: %v", err)
	}
}

// latency takes --out as every measuring command does: the anatomy as a
// report (report.json in the report schema, report.txt, …) and
// latency.txt, what its text output says; --force writes over an
// earlier report.
func TestLatencyOut(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the latency anatomy")
	}
	dir, _ := earlierReport(t)
	stdout, stderr, err := runCmd("latency", "--rounds", "3", "--max-bytes", "64", "--out", dir, "--force")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.HasPrefix(stdout, "latency on ") {
		t.Errorf("stdout does not lead with the round trip:\n%s", stdout)
	}
	rep, err := report.Read(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Latency == nil || !rep.Latency.Tiny.Valid() || rep.Adapter.Name == "" {
		t.Errorf("report.json lacks the anatomy or the adapter: %+v", rep.Latency)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "timestamps") {
			t.Errorf("warning about timestamps the anatomy does not use: %q", w)
		}
	}
	text, err := os.ReadFile(filepath.Join(dir, "latency.txt"))
	if err != nil || !strings.HasPrefix(string(text), "latency on ") || !strings.Contains(string(text), "readback") {
		t.Errorf("latency.txt: %v\n%s", err, text)
	}
	for _, name := range []string{"report.txt", "report.csv", "report.bench", "report.html", "notes.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var raw map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if json.Unmarshal(b, &raw) != nil || raw["earlier"] != nil {
		t.Errorf("report.json still the earlier one")
	}
}
