package main

import (
	"bytes"
	"strings"
	"testing"
)

// A bad flag, command or workload prints the error first with what was
// probably meant and a one-line pointer to --help, not the whole usage:
// `wgpu-prof run --quik` is two lines, exit status 2.
func TestErrorsFirstWithDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--quik"}, []string{"unknown flag: --quik (did you mean --quick?)", "run 'wgpu-prof run --help'"}},
		{[]string{"breakeven", "--batchmix", "f"}, []string{"did you mean --batch-mix?", "wgpu-prof breakeven --help"}},
		{[]string{"rnu", "--quick"}, []string{`unknown command "rnu" (did you mean run?)`, "run 'wgpu-prof help'"}},
		{[]string{"workloads", "--hsa", "all"}, []string{"did you mean --has?"}},
		{[]string{"run", "--workloads", "cosine-singel", "--quick"}, []string{"did you mean cosine-single?"}},
		{[]string{"run", "--zzzzzz"}, []string{"unknown flag: --zzzzzz\n", "--help"}},
	} {
		var stdout, stderr bytes.Buffer
		err := run(&stdout, &stderr, c.args)
		code, msg := exitStatus(err)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%v)", c.args, code, err)
		}
		full := "wgpu-prof: " + msg + "\n" + stderr.String()
		if n := strings.Count(strings.TrimSpace(full), "\n") + 1; n > 3 {
			t.Errorf("%v: %d lines, want ≤ 3:\n%s", c.args, n, full)
		}
		if strings.Contains(full, "usage:") || stdout.Len() > 0 {
			t.Errorf("%v: the usage was printed with the error:\nstdout %q\nstderr %s", c.args, stdout.String(), full)
		}
		for _, w := range c.want {
			if !strings.Contains(msg+"\n", w) {
				t.Errorf("%v: %q lacks %q", c.args, msg, w)
			}
		}
	}
	if nearest("zzzzzz", []string{"quick", "out"}) != "" {
		t.Error("nearest suggested a flag for an unrelated word")
	}
}
