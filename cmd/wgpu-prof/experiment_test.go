package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Bad input to the quantization experiment exits 2 naming the flag.
func TestQuantizationBadInput(t *testing.T) {
	npy := npyFile(t, filepath.Join(t.TempDir(), "v.npy"), false, "(64, 8)", values(64*8))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--min-recall", "0"}, "--min-recall 0"},
		{[]string{"--min-recall", "1.5"}, "--min-recall 1.5"},
		{[]string{"--precision", "int8"}, "experiment quantization does not take --precision: it runs every precision"},
		{[]string{"--workloads", "spread-uniform"}, "stores no vectors in a precision"},
		{[]string{"--workloads", "hnsw", "--k", "32"}, "--k 32: must be < c 32"},
		{[]string{"--workloads", "cosine-batch", "--vectors", "/nonexistent.npy"}, "--vectors"},
		// An index over a user's rows is planned before it is made.
		{[]string{"--workloads", "hnsw", "--candidates", "hnsw", "--n", "3000000", "--d", "128", "--ef", "1000"}, "--n 3000000: candidates hnsw builds an index over 3000000 rows"},
		{[]string{"--workloads", "hnsw", "--vectors", npy, "--k", "40"}, "--k 40: must be < c 32"},
		// The f32 set fits 64 MiB; beside a stored precision and the
		// q×n references it does not, which the plan says first.
		{[]string{"--workloads", "cosine-batch", "--max-memory", "64MiB"}, "experiment quantization of cosine-batch at n 8192 d 768 q 16 needs about"},
		{[]string{"--precision", "bf16"}, "--precision"},
	} {
		_, _, err := runCmd(append([]string{"experiment", "quantization", "--quick"}, c.args...)...)
		if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, msg, c.want)
		}
	}
}

// The experiment over a user's .npy: every precision on both sides for
// every quantized workload, verified, with bytes, time, decode overheads,
// the recall on that data (one query for the single-query workloads, each
// of the q queries for cosine-batch, each batch of c candidates gathered
// from the file's rows for hnsw) and, for f16 and int8, the largest score
// error within its reported bound.
func TestQuantizationOnUserVectors(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on both sides")
	}
	const rows, d = 600, 64
	r := rand.New(rand.NewPCG(rand.Uint64(), 3))
	v := make([]float32, rows*d)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	f := npyFile(t, filepath.Join(t.TempDir(), "emb.npy"), false, fmt.Sprintf("(%d, %d)", rows, d), v)
	rep := runQuant(t, "--vectors", f)
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		ps := m.P
		if !m.Verified || m.Bytes <= 0 || !(m.EndToEnd.Median > 0) || ps["n"] == "" {
			t.Errorf("row %+v: want verified, bytes, a time and n", m)
		}
		if ps["same_bytes_as"] != "" {
			continue
		}
		rec, err := strconv.ParseFloat(ps["recall@10"], 64)
		worst, err2 := strconv.ParseFloat(ps["recall@10_worst"], 64)
		if err != nil || err2 != nil || rec < 0 || rec > 1 || worst > rec || ps["max_score_err"] == "" || ps["vs_f32_same_rows"] == "" || ps["vs_f32_same_bytes"] == "" {
			t.Errorf("row %s %s %v: want recall@10 (mean ≥ worst), max_score_err and both overheads", m.Workload, m.Side, m.Params)
		}
		if ps["precision"] != "f32" {
			e, err := strconv.ParseFloat(ps["max_score_err"], 64)
			b, err2 := strconv.ParseFloat(ps["score_err_bound"], 64)
			if err != nil || err2 != nil || !(e > 0) || !(e <= b) {
				t.Errorf("row %s %s %v: want 0 < max_score_err ≤ score_err_bound", m.Workload, m.Side, m.Params)
			}
		}
		if want := map[string]string{"cosine-batch": "16", "hnsw": "16"}[m.Workload]; want != "" && ps["recall_queries"] != want || want == "" && ps["recall_queries"] != "1" {
			t.Errorf("row %s %v: recall over %s queries", m.Workload, m.Params, ps["recall_queries"])
		}
		if ps["n"] != strconv.Itoa(rows) {
			t.Errorf("row %v: n %s, want the file's %d rows", m.Params, ps["n"], rows)
		}
		seen[m.Workload+" "+m.Side+" "+ps["precision"]] = true
	}
	for _, w := range []string{"cosine-single", "cosine-topk", "cosine-batch", "hnsw"} {
		for _, s := range []string{"gpu", "cpu"} {
			for _, p := range []string{"f32", "f16", "int8"} {
				if !seen[w+" "+s+" "+p] && !(p == "f16" && s == "gpu") {
					t.Errorf("no %s %s %s row", w, s, p)
				}
			}
		}
	}
	if len(rep.Verdicts) != 4 || !strings.Contains(strings.Join(rep.Verdicts, "\n"), "hnsw, q = 16 batches of c = 32 of n = 600 rows: fastest at recall@10") {
		t.Errorf("verdicts %q: want one answer per workload, hnsw's over the file's rows", rep.Verdicts)
	}
	if strings.Contains(strings.Join(rep.Warnings, "\n"), "left out") {
		t.Errorf("warnings %q: no workload is left out of a user's vectors", rep.Warnings)
	}
}

// hnsw on generated data: every precision on both sides, verified, with
// recall@k over each batch of c candidates (mean and worst) and both
// overheads; the same-bytes rows are f32 over fewer batches.
func TestQuantizationHNSW(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on both sides")
	}
	rep := runQuant(t, "--workloads", "hnsw",
		"--n", "2048", "--d", "64", "--q", "8", "--c", "24", "--k", "5")
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		ps := m.P
		if !m.Verified {
			t.Errorf("row %v not verified", m.Params)
		}
		if ps["same_bytes_as"] != "" {
			if q, _ := strconv.Atoi(ps["q"]); q >= 8 || q < 1 {
				t.Errorf("same-bytes row %v: want fewer than the 8 batches", m.Params)
			}
			continue
		}
		if ps["recall@5"] == "" || ps["recall@5_worst"] == "" || ps["recall_queries"] != "8" || ps["vs_f32_same_bytes"] == "" {
			t.Errorf("row %v: want recall@5 mean and worst over 8 batches and the overheads", m.Params)
		}
		seen[m.Side+" "+ps["precision"]] = true
	}
	for _, s := range []string{"gpu", "cpu"} {
		for _, p := range []string{"f32", "f16", "int8"} {
			if !seen[s+" "+p] && !(p == "f16" && s == "gpu") {
				t.Errorf("no hnsw %s %s row", s, p)
			}
		}
	}
	if len(rep.Verdicts) != 1 || !strings.Contains(rep.Verdicts[0], "hnsw, q = 8 batches of c = 24 of n = 2048 rows: fastest at recall@5") {
		t.Errorf("verdicts %q", rep.Verdicts)
	}
	sum := strings.Join(rep.Summary, "\n")
	if !strings.Contains(sum, "over each of the q = 8 batches of c = 24 candidates") || !strings.Contains(sum, "hnsw plan: n 2048 d 64 q 8 c 24, about ") {
		t.Errorf("summary %q: want the plan and what the recall is over", rep.Summary)
	}
	for _, p := range []string{"f16", "int8"} {
		if !regexp.MustCompile(`hnsw accuracy ` + p + ` .*largest score error [0-9.e+-]+ \(bound [0-9.e+-]+\)`).MatchString(sum) {
			t.Errorf("summary %q: want hnsw's %s score error with its bound", rep.Summary, p)
		}
	}
}

// hnsw with its candidates traced from an index built over a user's rows
// and searched from the user's queries: the plan names the index, every
// precision is verified, recall@k over each batch.
func TestQuantizationHNSWIndexOnUserData(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on both sides")
	}
	const rows, nq, d = 1500, 4, 32
	r := rand.New(rand.NewPCG(rand.Uint64(), 5))
	v, q := make([]float32, rows*d), make([]float32, nq*d)
	for i := range v {
		v[i] = float32(r.Float64()) // positive: not the generated distribution
	}
	for i := range q {
		q[i] = float32(r.Float64())
	}
	dir := t.TempDir()
	vf := npyFile(t, filepath.Join(dir, "v.npy"), false, fmt.Sprintf("(%d, %d)", rows, d), v)
	qf := npyFile(t, filepath.Join(dir, "q.npy"), false, fmt.Sprintf("(%d, %d)", nq, d), q)
	rep := runQuant(t, "--workloads", "hnsw", "--candidates", "hnsw",
		"--vectors", vf, "--queries", qf, "--c", "16", "--k", "5")
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		ps := m.P
		if !m.Verified || ps["n"] != strconv.Itoa(rows) {
			t.Errorf("row %v: want verified over the file's %d rows", m.Params, rows)
		}
		if ps["same_bytes_as"] == "" {
			if ps["recall@5"] == "" || ps["recall_queries"] != strconv.Itoa(nq) {
				t.Errorf("row %v: want recall@5 over %d batches", m.Params, nq)
			}
			seen[m.Side+" "+ps["precision"]] = true
		}
	}
	if !seen["cpu f32"] || !seen["cpu int8"] || !seen["gpu int8"] {
		t.Errorf("rows %v: want f32 and int8 on both sides", seen)
	}
	sum := strings.Join(rep.Summary, "\n")
	if !strings.Contains(sum, "candidates from an index of n 1500 d 32 at ef 64: at most about") {
		t.Errorf("summary %q: want the index plan", rep.Summary)
	}
	if len(rep.Verdicts) != 1 || !strings.Contains(rep.Verdicts[0], "hnsw, q = 4 batches of c = 16 of n = 1500 rows") {
		t.Errorf("verdicts %q", rep.Verdicts)
	}
}

// Vectors past binary16's range leave f16 out with a warning; f32 and int8
// still run.
func TestQuantizationLeavesOutWhatDataCannotHold(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on both sides")
	}
	const rows, d = 200, 32
	v := values(rows * d)
	v[5*d+7] = 1e5
	f := npyFile(t, filepath.Join(t.TempDir(), "big.npy"), false, fmt.Sprintf("(%d, %d)", rows, d), v)
	rep := runQuant(t, "--vectors", f, "--workloads", "cosine-single")
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "f16 left out") {
		t.Errorf("warnings %q: want f16 left out", rep.Warnings)
	}
	precs := map[string]bool{}
	for _, m := range rep.Measurements {
		precs[m.P["precision"]] = true
	}
	if !precs["f32"] || !precs["int8"] || precs["f16"] {
		t.Errorf("precisions measured %v: want f32 and int8, no f16", precs)
	}
}

// quantReport is what the tests read of experiment quantization's JSON
// report; each row's parameters are in P too.
type quantReport struct {
	Verdicts, Warnings, Summary []string
	Measurements                []quantRow
}

type quantRow struct {
	Workload, Side, Variant string
	Params                  []struct{ Key, Value string }
	Bytes                   float64
	Verified                bool
	EndToEnd                struct{ Median float64 } `json:"end_to_end"`
	P                       map[string]string        `json:"-"`
}

// runQuant runs experiment quantization --quick --budget 20ms with args
// and --format json and decodes its report, failing t when the command
// fails or writes no report.
func runQuant(t *testing.T, args ...string) quantReport {
	t.Helper()
	stdout, stderr, err := runCmd(append(append([]string{"experiment", "quantization", "--quick", "--budget", "20ms"}, args...), "--format", "json")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep quantReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		m.P = map[string]string{}
		for _, p := range m.Params {
			m.P[p.Key] = p.Value
		}
	}
	return rep
}
