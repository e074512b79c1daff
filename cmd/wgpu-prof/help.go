package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// flagGroup is a titled set of flags shared by several commands (sizes,
// device, output). Its flags are added to the command's own set, so
// parsing and Changed work on that set; the group only orders the help.
type flagGroup struct {
	title string
	fs    *pflag.FlagSet
}

func newGroup(title string) flagGroup {
	return flagGroup{title: title, fs: pflag.NewFlagSet(title, pflag.ContinueOnError)}
}

// setHelp makes --help print usage, the command's own flags (those in no
// group), each group's flags and the examples, on stdout (asked-for help
// is not an error).
func setHelp(fs *pflag.FlagSet, stdout io.Writer, usage, examples string, groups ...flagGroup) {
	for _, g := range groups {
		fs.AddFlagSet(g.fs)
	}
	fs.Usage = func() { writeHelp(stdout, fs, usage, examples, groups...) }
}

func writeHelp(w io.Writer, fs *pflag.FlagSet, usage, examples string, groups ...flagGroup) {
	fmt.Fprintln(w, strings.TrimRight(usage, "\n"))
	inGroup := map[string]bool{}
	for _, g := range groups {
		g.fs.VisitAll(func(f *pflag.Flag) { inGroup[f.Name] = true })
	}
	own := pflag.NewFlagSet("own", pflag.ContinueOnError)
	fs.VisitAll(func(f *pflag.Flag) {
		if !inGroup[f.Name] {
			own.AddFlag(f)
		}
	})
	if own.HasFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", own.FlagUsagesWrapped(helpWidth))
	}
	for _, g := range groups {
		if g.fs.HasFlags() {
			fmt.Fprintf(w, "\n%s:\n%s", g.title, g.fs.FlagUsagesWrapped(helpWidth))
		}
	}
	if examples != "" {
		fmt.Fprintf(w, "\nexamples:\n%s\n", strings.TrimRight(examples, "\n"))
	}
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "--help" || arg == "-h" || arg == "help" }

// helpWidth is the width the flags' help wraps at (a terminal of 120
// columns).
const helpWidth = 118
