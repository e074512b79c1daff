package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command answers an input error (a flag, a file, a size the adapter
// or the workload cannot take) with exit status 2, before anything is
// measured or written: nothing on stdout, no file in --out. Each command
// has at least one case here; a new command without one fails the test.
// Some cases need the adapter open (its limits decide); they still stop
// before the first measurement.
func TestExitStatusEveryCommand(t *testing.T) {
	saxpy, err := filepath.Abs("testdata/saxpy.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		msg  []string // substrings of the message: the flag, the value, the limit
	}{
		{[]string{"devices", "--backend", "glide"}, []string{"glide"}},
		{[]string{"run", "--workloads", "cosine-single", "--vectors", "{csv}", "--out", "{out}"},
			[]string{"--vectors", "x.csv is text (comma-separated values)", ".npy", "numpy.save"}},
		// The same text with a dimension that divides it: refused by its
		// content, not read as raw float32 to fail on the GPU.
		{[]string{"breakeven", "--kernel", "cosine-batch", "--quick", "--vectors", "{csv}", "--d", "4", "--out", "{out}"},
			[]string{"--vectors", "is text", "raw little-endian float32"}},
		{[]string{"breakeven", "--kernel", "spread-uniform", "--vectors", "{npy}", "--out", "{out}"}, []string{"--vectors", "spread-uniform", "do(es) not read it"}},
		{[]string{"run", "--workloads", "spread-uniform", "--graph", "{npy}", "--out", "{out}"}, []string{"--graph", "is a NumPy .npy file, not a graph"}},
		{[]string{"sweep", "workgroup", "--kernel", "cosine-single", "--quick", "--n", "256", "--sizes", "4096,8192", "--out", "{out}"},
			[]string{"--sizes", "4096,8192", "runs none of them", "maxComputeInvocationsPerWorkgroup"}},
		{[]string{"sweep", "tile", "--kernel", "cosine-batch", "--quick", "--n", "256", "--tiles", "1024", "--out", "{out}"},
			[]string{"--tiles", "1024", "runs none of them"}},
		{[]string{"experiment", "memory-compute", "--kernel", "nosuch", "--out", "{out}"}, []string{"nosuch"}},
		{[]string{"hybrid", "--kernel", "cosine-batch", "--quick", "--q", "8", "--n", "256", "--d", "16", "--sizes-file", "{sizes}", "--out", "{out}"},
			[]string{"--sizes-file", "size 9", "[1, 8]", "--q"}},
		{[]string{"compare", "{good}", "{dir}/missing.json"}, []string{"missing.json"}},
		{[]string{"plan", "--pprof", "{dir}/missing.pprof", "--op", "x=cosine-single", "--out", "{out}"}, []string{"--pprof", "missing.pprof"}},
		{[]string{"kernel", saxpy, "--buffer", "x=f32:1073741824:rand", "--buffer", "y=f32:1024", "--dispatch", "16", "--out", "{out}"},
			[]string{"--buffer x", "4294967296 bytes", "maxStorageBufferBindingSize"}},
		{[]string{"stream", "--arraysize", "0"}, []string{"--arraysize 0"}},
		{[]string{"latency", "--rounds", "2"}, []string{"--rounds 2", "3..1000"}},
		{[]string{"host", "--n", "0", "--out", "{out}"}, []string{"--n 0"}},
		{[]string{"version", "--bogus"}, []string{"--bogus"}},
		{[]string{"workloads", "--has", "nosuch"}, []string{`--has "nosuch"`}},
		{[]string{"help", "nosuch"}, []string{`"nosuch"`}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.args[0]] = true
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"csv":   "0.0466,0.1234,-0.5,0.001\n0.25,0.5,0.75,1\n",
				"sizes": "1\n2\n9\n",
			}
			r := []string{"{dir}", dir, "{out}", filepath.Join(dir, "out"), "{good}", writeReport(t, dir, "good.json", syntheticReport(t, 1, nil))}
			for name, text := range files {
				p := filepath.Join(dir, "x."+name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				r = append(r, "{"+name+"}", p)
			}
			vals := make([]float32, 4*8)
			for i := range vals {
				vals[i] = 1 + float32(i)/64
			}
			r = append(r, "{npy}", npyFile(t, filepath.Join(dir, "v.npy"), false, "(4, 8)", vals))
			rep := strings.NewReplacer(r...)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = rep.Replace(a)
			}
			before := listAll(t, dir)
			stdout, stderr, err := runCmd(args...)
			code, msg := exitStatus(err)
			if code != 2 {
				t.Fatalf("exit status %d (%v), want 2\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
			}
			for _, want := range c.msg {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not say %q", msg, want)
				}
			}
			if stdout != "" {
				t.Errorf("a refused command wrote to stdout: %q", stdout)
			}
			if after := listAll(t, dir); after != before {
				t.Errorf("files changed:\nbefore: %s\nafter:  %s", before, after)
			}
		})
	}
	for _, c := range commands() {
		if !covered[c.name] {
			t.Errorf("command %s has no input-error case", c.name)
		}
	}
}
