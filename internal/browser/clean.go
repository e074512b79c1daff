package browser

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxString is the longest string a result may hand the caller, in runes.
const maxString = 500

// Clean is s as the page's results may reach a terminal: invalid UTF-8,
// control characters (escape sequences, newlines) and format characters
// (bidirectional overrides) replaced by U+FFFD, surrounding space trimmed
// first, and cut to max runes with "…".
func Clean(s string, max int) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				r = unicode.ReplacementChar
			}
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = unicode.ReplacementChar
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
