package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// checkFlagSets fails on a flag name that means two things across sets
// (by command): two types, two defaults, two help texts or two one-letter
// spellings; and on a one-letter spelling that is another flag's name
// (-n beside --n). Every difference is named with its two commands.
func checkFlagSets(sets map[string]*pflag.FlagSet) error {
	type seen struct {
		cmd  string
		flag *pflag.Flag
	}
	first := map[string]seen{}
	var errs []string
	cmds := make([]string, 0, len(sets))
	for cmd := range sets {
		cmds = append(cmds, cmd)
	}
	sort.Strings(cmds)
	for _, cmd := range cmds {
		sets[cmd].VisitAll(func(f *pflag.Flag) {
			s, ok := first[f.Name]
			if !ok {
				first[f.Name] = seen{cmd, f}
				return
			}
			for _, d := range []struct{ what, a, b string }{
				{"types", s.flag.Value.Type(), f.Value.Type()},
				{"defaults", s.flag.DefValue, f.DefValue},
				{"help texts", s.flag.Usage, f.Usage},
				{"one-letter spellings", s.flag.Shorthand, f.Shorthand},
			} {
				if d.a != d.b {
					errs = append(errs, fmt.Sprintf("--%s has two %s: %q in %s, %q in %s", f.Name, d.what, d.a, s.cmd, d.b, cmd))
				}
			}
		})
	}
	for name, s := range first {
		if o, ok := first[s.flag.Shorthand]; ok && s.flag.Shorthand != "" {
			errs = append(errs, fmt.Sprintf("-%s (--%s in %s) reads as --%s (in %s)", s.flag.Shorthand, name, s.cmd, o.flag.Name, o.cmd))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	sort.Strings(errs)
	return errors.New(strings.Join(errs, "\n"))
}

// registrySet is the registry as a flag set: every spec, as newFlags
// defines it.
func registrySet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("registry", pflag.ContinueOnError)
	for name, s := range registry {
		define(fs, s, name)
	}
	return fs
}

// commandFlagSets are the flag sets the commands parse, caught as each
// command's --help parses its arguments (so a flag a command added on its
// own, past the registry, is in them too), with the registry beside them.
func commandFlagSets(t *testing.T) map[string]*pflag.FlagSet {
	t.Helper()
	sets := map[string]*pflag.FlagSet{"registry": registrySet()}
	testHookParse = func(f *cmdFlags) { sets[f.cmd] = f.FlagSet }
	defer func() { testHookParse = nil }()
	for cmd := range commandFlags {
		args := append(strings.Fields(cmd), "--help")
		if err := run(io.Discard, io.Discard, args); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if sets[cmd] == nil {
			t.Fatalf("%s: its flags were not parsed by newFlags", args)
		}
	}
	return sets
}

// TestFlagsOneMeaning walks every command's flag set: each name has one
// type, one default and one help text wherever it is taken, and no
// one-letter spelling reads as another flag.
func TestFlagsOneMeaning(t *testing.T) {
	if err := checkFlagSets(commandFlagSets(t)); err != nil {
		t.Fatalf("flags with two meanings:\n%v", err)
	}
}

// TestFlagsOneMeaningFailsOnPlanted: the check above fails on a planted
// second meaning of a name, of each kind.
func TestFlagsOneMeaningFailsOnPlanted(t *testing.T) {
	real := commandFlagSets(t)
	for _, c := range []struct {
		name  string
		plant func(fs *pflag.FlagSet)
		want  string
	}{
		{"meaning", func(fs *pflag.FlagSet) { fs.String("n", "", "runs of the five kernels") }, "--n has two types"},
		{"default", func(fs *pflag.FlagSet) { fs.Int("n", 200_000, registry["n"].help) }, "--n has two defaults"},
		{"help", func(fs *pflag.FlagSet) {
			fs.Duration("search-budget", registry["search-budget"].value.(time.Duration), "time budget of the start-up search")
		}, "--search-budget has two help texts"},
		{"short", func(fs *pflag.FlagSet) {
			fs.IntP("numtimes", "n", registry["numtimes"].value.(int), registry["numtimes"].help)
		}, "-n (--numtimes in planted) reads as --n"},
	} {
		sets := map[string]*pflag.FlagSet{}
		for k, v := range real {
			sets[k] = v
		}
		fs := pflag.NewFlagSet("planted", pflag.ContinueOnError)
		c.plant(fs)
		sets["planted"] = fs
		err := checkFlagSets(sets)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "planted") {
			t.Errorf("planted %s: got %v, want an error naming %q and the planted command", c.name, err, c.want)
		}
	}
}

// TestFlagsOnlyTheirOwn: a command refuses every flag it does not take,
// exit status 2, naming the commands that take it; and every flag of the
// registry is taken by some command.
func TestFlagsOnlyTheirOwn(t *testing.T) {
	for name := range registry {
		if len(takers(name)) == 0 {
			t.Errorf("--%s: no command takes it", name)
		}
	}
	for _, notes := range []map[string]map[string]string{notTaken, shortNotes} {
		for cmd, m := range notes {
			for name := range m {
				if _, ok := commandFlags[cmd]; !ok || takesFlag(cmd, name) {
					t.Errorf("a note on %s --%s: no such command, or it takes the flag", cmd, name)
				}
			}
		}
	}
	for cmd := range commandFlags {
		for name := range registry {
			if takesFlag(cmd, name) {
				continue
			}
			args := append(strings.Fields(cmd), "--"+name+"=1")
			_, _, err := runCmd(args...)
			code, msg := exitStatus(err)
			want := fmt.Sprintf("%s does not take --%s (it is a flag of %s)", cmd, name, strings.Join(takers(name), ", "))
			if why := notTaken[cmd][name]; why != "" {
				want = fmt.Sprintf("%s does not take --%s: %s (--%s is a flag of %s)", cmd, name, why, name, strings.Join(takers(name), ", "))
			}
			if code != 2 || !strings.Contains(msg, want) {
				t.Errorf("%v: exit %d %q, want exit 2 and %q", args, code, msg, want)
			}
		}
	}
	// The spelling the issue named: stream's -n is not --numtimes, and
	// says where --numtimes is.
	_, _, err := runCmd("stream", "-n", "5")
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, "--numtimes") {
		t.Errorf("stream -n 5: exit %d %q", code, msg)
	}
}

// TestFlagsRegistryDefaults: the parameters' flags carry their
// declarations' defaults and help (one source), and the drift once
// between commands is gone: one --n, one --search-budget, one --cpu-level.
func TestFlagsRegistryDefaults(t *testing.T) {
	sets := commandFlagSets(t)
	for _, c := range []struct{ cmd, name, def string }{
		{"host", "n", "65536"}, {"run", "n", "65536"},
		{"hybrid", "search-budget", "2m0s"}, {"plan", "search-budget", "2m0s"}, {"kernel", "search-budget", "2m0s"},
		{"host", "cpu-levels", "all"}, {"stream", "cpu-level", ""}, {"run", "cpu-level", ""},
		{"hybrid", "report", ""}, {"plan", "report", ""},
	} {
		f := sets[c.cmd].Lookup(c.name)
		if f == nil || f.DefValue != c.def {
			t.Errorf("%s --%s: %v, want default %q", c.cmd, c.name, f, c.def)
		}
	}
	if sets["stream"].Lookup("numtimes").Shorthand != "" {
		t.Error("stream: --numtimes has a one-letter spelling (-n is the row count's)")
	}
}

// takesFlag reports whether commandFlags lists name for cmd.
func takesFlag(cmd, name string) bool {
	return slices.ContainsFunc(commandFlags[cmd], func(g flagGroup) bool { return slices.Contains(g.names, name) })
}
