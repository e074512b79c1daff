package layers

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// methodMaxLines bounds docs/METHOD.md: it states the rules of measurement;
// command-specific methods have a docs file each and figures go to
// docs/results.
const methodMaxLines = 300

// docRef matches a reference to a section of a docs file, `METHOD.md,
// "Ceilings"`, once line breaks and comment markers are folded to spaces.
var docRef = regexp.MustCompile(`\b([A-Z][A-Z0-9_]*)\.md,\s*"([^"]+)"`)

// lineBreak folds a line break, with a Go comment marker after it, into a space.
var lineBreak = regexp.MustCompile(`[ \t]*\n[ \t]*(//)?[ \t]*`)

// headings returns the section titles of a Markdown text, every level.
func headings(md string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		out[strings.TrimSpace(strings.TrimLeft(line, "#"))] = true
	}
	return out
}

// badDocRefs returns, for each text (by name), the references to a section
// of one of docs (by base name, "METHOD.md") that names no heading there.
// References to files not in docs are not checked.
func badDocRefs(texts, docs map[string]string) []string {
	heads := map[string]map[string]bool{}
	for name, md := range docs {
		heads[name] = headings(md)
	}
	var out []string
	for name, text := range texts {
		for _, m := range docRef.FindAllStringSubmatch(lineBreak.ReplaceAllString(text, " "), -1) {
			doc, section := m[1]+".md", m[2]
			if h, ok := heads[doc]; ok && !h[section] {
				out = append(out, fmt.Sprintf("%s: %s has no section %q", name, doc, section))
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestMethodLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "METHOD.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > methodMaxLines {
		t.Errorf("docs/METHOD.md is %d lines, limit %d: tighten it, or move a command's method to a docs file of its own", n, methodMaxLines)
	}
}

// TestDocSectionRefs holds every `NAME.md, "Section"` in the Go code, the
// README and the docs to a heading of docs/NAME.md.
func TestDocSectionRefs(t *testing.T) {
	top := root(t)
	docs := map[string]string{}
	mds, err := filepath.Glob(filepath.Join(top, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range mds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(p)] = string(b)
	}
	texts := map[string]string{}
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		if d.IsDir() {
			if rel == "third_party" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") || rel == "README.md" || strings.HasPrefix(rel, "docs"+string(filepath.Separator)) && strings.HasSuffix(p, ".md") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 100 || docs["METHOD.md"] == "" {
		t.Fatalf("found %d files and METHOD.md of %d bytes: wrong root %s", len(texts), len(docs["METHOD.md"]), top)
	}
	for _, e := range badDocRefs(texts, docs) {
		t.Error(e)
	}
}

func TestBadDocRefsFixture(t *testing.T) {
	docs := map[string]string{
		"METHOD.md": "# How\n\n## Ceilings\n\n```\n## Not a heading\n```\n\n## Break-even\n",
		"HYBRID.md": "# Hybrid dispatch\n\n## Totals and verdict\n",
	}
	texts := map[string]string{
		"a.go": "// the DRAM one (docs/METHOD.md, \"Ceilings\").\n" +
			"// wrapped (METHOD.md,\n//\t\"Break-even\") and (docs/HYBRID.md,\n// \"Totals and verdict\")\n" +
			"// elsewhere (STYLE.md, \"Anything\")\n",
		"b.go":      "// planted (docs/METHOD.md, \"Totals\") and (METHOD.md,\n// \"Not a heading\")\n",
		"README.md": "shown per request (docs/HYBRID.md,\n  \"Routing time counts\"; more)\n",
	}
	got := badDocRefs(texts, docs)
	want := []string{
		`README.md: HYBRID.md has no section "Routing time counts"`,
		`b.go: METHOD.md has no section "Not a heading"`,
		`b.go: METHOD.md has no section "Totals"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("badDocRefs:\n got %q\nwant %q", got, want)
	}
}
