package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI's bad inputs: each is refused before anything is measured, with
// exit status 2 and a message naming the flag (or argument) and the
// value, and leaves no file behind (a fresh folder per case, with --out
// pointing at a path that must not appear).
func TestCLIBadInputs(t *testing.T) {
	saxpy, err := filepath.Abs("testdata/saxpy.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	k := func(extra ...string) []string {
		return append([]string{"kernel", saxpy, "--buffer", "x=f32:1024:rand", "--buffer", "y=f32:1024", "--dispatch", "16", "--out", "{out}"}, extra...)
	}
	cases := []struct {
		args []string
		msg  string // a substring of the message (the flag and value)
	}{
		{[]string{}, "no command given"},
		{[]string{"nosuchcommand"}, `"nosuchcommand"`},
		{[]string{"run", "--format", "yaml", "--out", "{out}"}, `--format "yaml"`},
		{[]string{"run", "--plot"}, "--plot needs --out"},
		{[]string{"run", "--trace"}, "--trace needs --out"},
		{[]string{"run", "--nosuchflag"}, "nosuchflag"},
		{[]string{"run", "--n", "abc"}, `"abc"`},
		{[]string{"run", "stray", "--out", "{out}"}, `unexpected argument(s) ["stray"]`},
		{[]string{"run", "--d", "766", "--workloads", "cosine-single", "--out", "{out}"}, "--d 766"},
		{[]string{"run", "--n", "0", "--out", "{out}"}, "--n 0"},
		{[]string{"run", "--n", "-5"}, "--n -5"},
		{[]string{"run", "--q", "0"}, "--q 0"},
		{[]string{"run", "--k", "0"}, "--k 0"},
		{[]string{"run", "--nodes", "0"}, "--nodes 0"},
		{[]string{"run", "--steps", "0"}, "--steps 0"},
		{[]string{"run", "--wg", "48"}, "--wg 48"},
		{[]string{"run", "--wg", "2048", "--workloads", "cosine-single", "--out", "{out}"}, "--wg: workgroup size 2048"},
		{[]string{"run", "--tile", "3"}, "--tile 3"},
		{[]string{"run", "--workloads", "bogus"}, "bogus"},
		{[]string{"run", "--workloads", "cosine-single,bogus"}, "bogus"},
		{[]string{"run", "--batches", "1,0,4"}, `--batches: "0"`},
		{[]string{"run", "--batches", "1,x"}, `--batches: "x"`},
		{[]string{"run", "--batches", "4,4,16", "--workloads", "cosine-single", "--out", "{out}"}, "--batches: 4 is given twice"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--n", "64", "--batches", "1,2,100000", "--out", "{out}"}, "--batches: 100000 is past 4096, the largest n of cosine-single a break-even measures (search cap: 64× the default size 64)"},
		{[]string{"breakeven", "--kernel", "cosine-topk", "--n", "64", "--batches", "1,2,100000"}, "--batches: 100000 is past 4096"},
		{[]string{"breakeven", "--kernel", "cosine-batch", "--q", "8", "--batches", "1,2,600"}, "--batches: 600 is past 512, the largest q"},
		{[]string{"breakeven", "--kernel", "hnsw", "--q", "8", "--batches", "1,2,600"}, "--batches: 600 is past 512, the largest q"},
		{[]string{"breakeven", "--kernel", "spread-uniform", "--nodes", "1000", "--batches", "256,512,64001"}, "--batches: 64001 is past 64000, the largest nodes"},
		{[]string{"breakeven"}, "--kernel is required"},
		{[]string{"breakeven", "--kernel", "nosuch"}, "nosuch"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--amdahl", "1.5"}, "--amdahl 1.5"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--amdahl", "NaN"}, "--amdahl NaN"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--batches", "1,2"}, "--batches 1,2: a fit needs at least 3"},
		{[]string{"run", "--workloads", "cosine-topk", "--k", "100", "--n", "50", "--out", "{out}"}, "--k 100: must be ≤ n 50"},
		{[]string{"run", "--workloads", "cosine-single", "--d", "1000000", "--n", "30000", "--out", "{out}"}, "host memory"},
		{[]string{"run", "--workloads", "cosine-single", "--d", "100000000"}, "--d 100000000"},
		{[]string{"run", "--target", "0"}, "--target 0"},
		{[]string{"run", "--target", "1.5"}, "--target 1.5"},
		{[]string{"run", "--target", "NaN"}, "--target NaN"},
		{[]string{"run", "--budget", "0s"}, "--budget 0s"},
		{[]string{"run", "--budget", "-1s"}, "--budget -1s"},
		{[]string{"run", "--threads", "-1"}, "--threads -1"},
		{[]string{"run", "--cpu-level", "sse9"}, "sse9"},
		{[]string{"run", "--adapter", "-5"}, "--adapter -5"},
		{[]string{"run", "--adapter", "99", "--workloads", "cosine-single"}, "adapter index 99"},
		{[]string{"run", "--backend", "glide"}, "glide"},
		{[]string{"run", "--out", "{file}/sub"}, "--out"},
		{[]string{"host", "--cpu-levels", "sse9"}, "sse9"},
		{[]string{"host", "--n", "0", "--out", "{out}"}, "--n 0"},
		{[]string{"host", "--d", "766", "--out", "{out}"}, "--d 766: the dimension must be a multiple of 4"},
		{[]string{"host", "--cpu-level", "avx2"}, "host does not take --cpu-level (it is a flag of "},
		{[]string{"stream", "-n", "5"}, "stream does not take -n"},
		{[]string{"stream", "--float", "--double"}, "--float and --double"},
		{[]string{"sweep", "workgroup", "--kernel", "cosine-single", "--tiles", "16"}, "sweep workgroup does not take --tiles (it is a flag of sweep tile)"},
		{[]string{"sweep", "tile", "--kernel", "cosine-batch", "--sizes", "64"}, "sweep tile does not take --sizes (it is a flag of sweep workgroup)"},
		{[]string{"sweep", "workgroup", "--kernel", "cosine-single", "--workloads", "hnsw"}, "sweep workgroup does not take --workloads"},
		{[]string{"plan", "--pprof", "{good}", "--workloads", "hnsw"}, "plan does not take --workloads"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--profile", "{good}"}, "the break-even report to take the two sides' profiles from is --report"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--search-budget", "0s"}, "--search-budget 0s"},
		{[]string{"host", "--threads", "-1"}, "--threads -1"},
		{[]string{"host", "--threads", "20000"}, "--threads 20000: must be in [0, "},
		{[]string{"--threads", "20000", "host"}, "--threads 20000: must be in [0, "},
		{[]string{"run", "--threads", "20000"}, "--threads 20000: must be in [0, "},
		{[]string{"breakeven", "--sides", "cpu:threads=9000,cpu:threads=1"}, "threads=9000"},
		{[]string{"host", "--n", "100000000", "--out", "{out}"}, "host memory"},
		{[]string{"host", "stray"}, `unexpected argument(s) ["stray"]`},
		{[]string{"host", "--budget", "0s"}, "--budget 0s"},
		{[]string{"devices", "--backend", "glide"}, "glide"},
		{[]string{"devices", "--format", "yaml"}, `--format "yaml"`},
		{[]string{"devices", "stray"}, `unexpected argument(s) ["stray"]`},
		{[]string{"compare", "{good}"}, "two report files"},
		{[]string{"compare", "{good}", "{good}", "--threshold", "NaN"}, `--threshold: "NaN"`},
		{[]string{"compare", "{good}", "{good}", "--threshold", "Inf"}, `--threshold: "Inf"`},
		{[]string{"compare", "{good}", "{good}", "--threshold", "-1%"}, `--threshold: "-1%"`},
		{[]string{"compare", "{good}", "{good}", "--threshold", "abc"}, `--threshold: "abc"`},
		{[]string{"compare", "{good}", "{dir}/missing.json"}, "missing.json"},
		{[]string{"compare", "{good}", "{corrupt}"}, "corrupt.json"},
		{[]string{"sweep"}, "workgroup|tile"},
		{[]string{"sweep", "workgroup", "--kernel", "cosine-single", "--sizes", "0,64"}, `--sizes: "0"`},
		{[]string{"sweep", "tile", "--kernel", "cosine-batch", "--tiles", "x"}, `--tiles: "x"`},
		{[]string{"sweep", "tile", "--kernel", "cosine-single", "--out", "{out}"}, `"cosine-single" has no tile knob`},
		{[]string{"experiment", "foo"}, "memory-compute"},
		{[]string{"kernel"}, "exactly one WGSL file"},
		{[]string{"kernel", "{dir}/missing.wgsl", "--buffer", "x=f32:4", "--dispatch", "1"}, "missing.wgsl"},
		{[]string{"kernel", saxpy, "--dispatch", "1"}, "--buffer"},
		{k("--buffer", "z=f64:10"), `--buffer "z=f64:10"`},
		{[]string{"kernel", saxpy, "--buffer", "x=f32:1024"}, "--dispatch"},
		{k("--const", "WG"), `--const "WG"`},
		{k("--const", "NOPE=3"), "--const NOPE"},
		{k("--sweep", "WG"), `--sweep "WG"`},
		{k("--bytes", "-1"), "--bytes -1"},
		{k("--entry", "nosuch"), "--entry nosuch"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--requests", "0", "--out", "{out}"}, "--requests 0"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--min", "5", "--max", "2"}, "--min 5 --max 2"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--fault", "b:slow=0.5@1-2", "--out", "{out}"}, `--fault "b:slow=0.5@1-2"`},
		{[]string{"hybrid", "--kernel", "cosine-single", "--fault", "c:fail@1-2"}, `--fault "c:fail@1-2"`},
		{[]string{"hybrid", "--kernel", "cosine-single", "--sides", "cpu", "--out", "{out}"}, `--sides "cpu"`},
		{[]string{"hybrid", "--kernel", "cosine-single", "--sizes-file", "{dir}/missing.txt", "--out", "{out}"}, "--sizes-file"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--sizes-file", "{file}"}, "--sizes-file"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--report", "{corrupt}", "--out", "{out}"}, "--report"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--requests-csv"}, "--requests-csv needs --out"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--report", "{good}", "--out", "{out}"}, "--report: no end-to-end break-even of cosine-single"},
		{[]string{"hybrid", "--kernel", "cosine-single", "--sizes-file", "{many}"}, "600 distinct sizes; at most 512"},
	}
	if len(cases) < 40 {
		t.Fatalf("%d cases; the table must hold at least 40", len(cases))
	}
	_, meminfo := os.Stat("/proc/meminfo")
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			if c.msg == "host memory" && meminfo != nil {
				t.Skip("the host-memory check reads /proc/meminfo")
			}
			dir := t.TempDir()
			good := writeReport(t, dir, "good.json", syntheticReport(t, 1, nil))
			corrupt := filepath.Join(dir, "corrupt.json")
			os.WriteFile(corrupt, []byte(`{"schema": "wgpu-prof/v1", "measurements": [`), 0o644)
			file := filepath.Join(dir, "file")
			os.WriteFile(file, []byte("x"), 0o644)
			var sizes strings.Builder
			for n := 1; n <= 600; n++ {
				fmt.Fprintln(&sizes, n)
			}
			many := filepath.Join(dir, "many")
			os.WriteFile(many, []byte(sizes.String()), 0o644)
			before := listAll(t, dir)
			r := strings.NewReplacer("{out}", filepath.Join(dir, "out"), "{good}", good, "{corrupt}", corrupt, "{file}", file, "{many}", many, "{dir}", dir)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = r.Replace(a)
			}
			stdout, stderr, err := runCmd(args...)
			code, msg := exitStatus(err)
			if code != 2 {
				t.Fatalf("exit status %d (%v), want 2\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
			}
			if !strings.Contains(msg, c.msg) {
				t.Errorf("message %q does not contain %q", msg, c.msg)
			}
			if stdout != "" {
				t.Errorf("a refused command wrote to stdout: %q", stdout)
			}
			if after := listAll(t, dir); after != before {
				t.Errorf("files changed:\nbefore: %s\nafter:  %s", before, after)
			}
		})
	}
}

// listAll lists every path under dir.
func listAll(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	})
	return strings.Join(out, " ")
}
