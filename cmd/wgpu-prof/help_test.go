package main

import (
	"strings"
	"testing"
)

// TestHelpPerCommand: every command's --help goes to stdout, succeeds,
// lists flags that command accepts (and not another command's), and shows
// examples that name the command.
func TestHelpPerCommand(t *testing.T) {
	// Flags a command must list, and flags it must not.
	want := map[string][2][]string{
		"devices":    {{"--backend", "--format"}, {"--plot", "--budget"}},
		"run":        {{"--trace", "--q", "--nodes", "--budget", "--out", "--plot", "--quiet"}, {"--kernel", "--amdahl"}},
		"sweep":      {{"--kernel", "--sizes", "--tiles", "--q", "--nodes", "--quiet"}, {"--trace", "--amdahl"}},
		"experiment": {{"--kernel", "--q", "--nodes", "--out"}, {"--sizes", "--trace"}},
		"breakeven":  {{"--kernel", "--amdahl", "--batches", "--q", "--nodes"}, {"--trace", "--sizes"}},
		"compare":    {{"--threshold"}, {"--out", "--plot"}},
		"kernel":     {{"--buffer", "--dispatch", "--sweep", "--budget", "--out"}, {"--nodes", "--trace"}},
		"host":       {{"--cpu-levels", "--n-cached", "--threads", "--quiet"}, {"--plot", "--backend"}},
		"hybrid":     {{"--kernel", "--sides", "--report", "--fault", "--budget"}, {"--trace", "--amdahl", "--profile", "--workloads"}},
		"workloads":  {{"--has"}, {"--budget", "--plot"}},
		"plan":       {{"--pprof", "--op", "--report", "--n", "--budget", "--out"}, {"--kernel", "--plot"}},
		"latency":    {{"--rounds", "--max-bytes", "--format", "--backend"}, {"--budget", "--plot"}},
		"stream":     {{"--side", "--csv", "--double", "--threads", "--backend"}, {"--budget", "--plot", "--out"}},
	}
	for _, c := range commands() {
		if c.name == "version" {
			continue
		}
		w, ok := want[c.name]
		if !ok {
			t.Errorf("%s: no expectations in this test", c.name)
			continue
		}
		for _, form := range [][]string{{c.name, "--help"}, {"help", c.name}} {
			out, errOut, err := runCmd(form...)
			if err != nil {
				t.Errorf("%v: %v", form, err)
				continue
			}
			if errOut != "" {
				t.Errorf("%v: help went to stderr: %q", form, errOut)
			}
			for _, f := range w[0] {
				if !strings.Contains(out, "  "+f+" ") && !strings.Contains(out, "  "+f+"\n") {
					t.Errorf("%v: does not list %s:\n%s", form, f, out)
				}
			}
			for _, f := range w[1] {
				if strings.Contains(out, "  "+f+" ") {
					t.Errorf("%v: lists %s, which %s does not accept", form, f, c.name)
				}
			}
			if !strings.Contains(out, "examples:\n  wgpu-prof "+c.name) {
				t.Errorf("%v: no examples section:\n%s", form, out)
			}
		}
		// A flag help lists is really accepted (the parse reaches past flags).
		args := []string{c.name, "--no-such-flag"}
		switch c.name {
		case "sweep":
			args = []string{c.name, "workgroup", "--no-such-flag"}
		case "experiment":
			args = []string{c.name, "memory-compute", "--no-such-flag"}
		}
		if _, _, err := runCmd(args...); err == nil || !strings.Contains(err.Error(), "no-such-flag") {
			t.Errorf("%s --no-such-flag: got %v", c.name, err)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := runCmd("version")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"wgpu-prof ", "commit", "wgpu-native", "\n  dawn ", "go1."} {
		if !strings.Contains(out, s) {
			t.Errorf("version output lacks %q:\n%s", s, out)
		}
	}
	if v := versionString(); !strings.Contains(v, "commit") || !strings.Contains(v, "go1.") {
		t.Errorf("report header version %q lacks commit or Go version", v)
	}
	if _, _, err := runCmd("version", "extra"); err == nil {
		t.Error("version with an argument accepted")
	}
}
