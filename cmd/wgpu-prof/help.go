package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// writeHelp prints usage, each section's flags (the command's own first,
// then the shared groups) and the examples, every line within helpWidth
// columns: a long usage or flag line wraps under itself, a long example
// breaks into shell continuation lines (fitHelpLines).
func writeHelp(w io.Writer, usage, examples string, sections []helpSection) {
	var b strings.Builder
	b.WriteString(fitHelpLines(strings.TrimRight(usage, "\n"), false) + "\n")
	for _, s := range sections {
		if s.fs.HasFlags() {
			fmt.Fprintf(&b, "\n%s:\n%s", s.title, fitHelpLines(s.fs.FlagUsagesWrapped(helpWidth), false))
		}
	}
	if examples != "" {
		fmt.Fprintf(&b, "\nexamples:\n%s\n", fitHelpLines(strings.TrimRight(examples, "\n"), true))
	}
	io.WriteString(w, b.String())
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "--help" || arg == "-h" || arg == "help" }

// helpWidth is the width the flags' help wraps at (a terminal of 120
// columns).
const helpWidth = 118

// fitHelpLines returns text with every line wider than helpWidth broken
// up: in examples (shell commands) at spaces before a flag, each part but
// the last ending in " \", a trailing "# comment" moved onto the line
// above; elsewhere at spaces, the continuation indented under the line's
// text ("usage: " counts as indent), a word too long for the room split
// after a ']' or ','. Lines that fit are left alone (pflag wraps the
// flags' help but not a help whose first word is wider than its column).
func fitHelpLines(text string, examples bool) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if utf8.RuneCountInString(l) <= helpWidth {
			out = append(out, l)
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		if examples {
			out = append(out, breakCommand(lead, strings.TrimSpace(l))...)
			continue
		}
		head, body := lead, strings.TrimLeft(l, " ")
		indent := lead
		switch {
		case strings.HasPrefix(body, "usage: "):
			indent += strings.Repeat(" ", len("usage: "))
		case strings.HasPrefix(body, "-"):
			// A flag's line: its help wraps under the help's column.
			if i := strings.Index(body, "   "); i > 0 {
				j := i + len(body[i:]) - len(strings.TrimLeft(body[i:], " "))
				head, body = lead+body[:j], body[j:]
				indent = strings.Repeat(" ", utf8.RuneCountInString(head))
			}
		case lead == "":
			indent = "  "
		}
		out = append(out, wrapWords(head, body, indent, helpWidth)...)
	}
	return strings.Join(out, "\n")
}

// breakCommand breaks the shell command cmd (indented by lead) into lines
// of at most helpWidth: a "# comment" after it goes on a line of its own
// above it, then the command breaks before its flags with " \"
// continuations indented two more.
func breakCommand(lead, cmd string) []string {
	var out []string
	if i := strings.Index(cmd, "  #"); i > 0 {
		out = append(out, wrapWords(lead, strings.TrimSpace(cmd[i:]), lead+"# ", helpWidth)...)
		cmd = strings.TrimSpace(cmd[:i])
		if utf8.RuneCountInString(lead+cmd) <= helpWidth {
			return append(out, lead+cmd)
		}
	}
	// A flag and the values after it break together.
	var units []string
	for i, w := range strings.Fields(cmd) {
		if i > 0 && !strings.HasPrefix(w, "-") && len(units) > 1 {
			units[len(units)-1] += " " + w
			continue
		}
		units = append(units, w)
	}
	cur := lead + units[0]
	for _, u := range units[1:] {
		if utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(u)+2 > helpWidth {
			out = append(out, cur+" \\")
			cur = lead + "    " + u
			continue
		}
		cur += " " + u
	}
	return append(out, cur)
}

// wrapWords wraps body, after head (kept as it is), at spaces within
// width runes; continuation lines start with indent. A word wider than
// the room left is split after a ']' or ',' where it can be (a pattern
// like A[,b=N][,c=F]).
func wrapWords(head, body, indent string, width int) []string {
	var out []string
	cur, empty := head, true
	add := func(w string) {
		if !empty && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, cur)
			cur, empty = indent, true
		}
		if empty {
			cur += w
		} else {
			cur += " " + w
		}
		empty = false
	}
	for _, w := range strings.Fields(body) {
		for _, part := range splitLongWord(w, width-utf8.RuneCountInString(indent)) {
			add(part)
		}
	}
	return append(out, cur)
}

// splitLongWord splits w into pieces of at most room runes, each ending
// after a ']' (or, where there is none, a ','); a word with no such place
// stays whole.
func splitLongWord(w string, room int) []string {
	var out []string
	for utf8.RuneCountInString(w) > room && room > 0 {
		r := []rune(w)
		cut := -1
		for _, at := range []rune{']', ','} {
			for i := min(room, len(r)) - 1; i > 0 && cut < 0; i-- {
				if r[i] == at {
					cut = i + 1
				}
			}
		}
		if cut <= 0 || cut >= len(r) {
			break
		}
		out = append(out, string(r[:cut]))
		w = string(r[cut:])
	}
	return append(out, w)
}
