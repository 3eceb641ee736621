package lettershop_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks checks every relative link of the repository's Markdown files:
// the file it names exists, and so does the heading its #anchor names. A
// page renamed or a heading reworded otherwise leaves links that lead nowhere,
// which no other test reads.
func TestDocLinks(t *testing.T) {
	for _, p := range brokenDocLinks(t, ".") {
		t.Error(p)
	}
}

// TestDocLinksFindsBrokenOnes holds the check to what it must find: a missing
// file, a missing anchor in another page and in the same one, and nothing in
// links that are right, in code, or outside the repository.
func TestDocLinksFindsBrokenOnes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/b.md", "# B\n\n## The `--seed` flag: a fixture\n\n## Twice\n\n## Twice\n\n```\n# not a heading\n```\n")
	write("code.go", "package x\n")
	write("README.md", strings.Join([]string{
		"[ok](docs/b.md) [ok](docs/b.md#the---seed-flag-a-fixture) [ok](docs/b.md#twice-1) [ok](code.go)",
		"[ok](#readme) [ok](https://example.com/nowhere.md#x) [ok](mailto:a@example.com)",
		"`[in code](missing.md)`",
		"```",
		"[in a block](missing.md)",
		"```",
		"# Readme",
		"[bad](docs/c.md) [bad](docs/b.md#not-here) [bad](#nowhere) [bad](docs/b.md#not-a-heading) [bad](docs/b.md#twice-2)",
		"[ref]: docs/gone.md",
	}, "\n"))
	got := brokenDocLinks(t, dir)
	want := []string{
		"README.md:8: docs/c.md: no such file",
		"README.md:8: docs/b.md#not-here: no such heading",
		"README.md:8: #nowhere: no such heading",
		"README.md:8: docs/b.md#not-a-heading: no such heading",
		"README.md:8: docs/b.md#twice-2: no such heading",
		"README.md:9: docs/gone.md: no such file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	// mdLink is an inline link or image: [text](target) or [text](target "title").
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// mdRefDef is a reference definition: [name]: target.
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	// mdCodeSpan is inline code, whose text is no link.
	mdCodeSpan = regexp.MustCompile("`+[^`]*`+")
	// mdHeading is an ATX heading.
	mdHeading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// mdScheme starts a link that leaves the repository.
	mdScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// mdLinkText is a link or image in a heading, shown by its text.
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// brokenDocLinks returns "file:line: target: reason" for every relative link
// of the Markdown files under root that leads nowhere.
func brokenDocLinks(t *testing.T, root string) []string {
	t.Helper()
	var broken []string
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		seen := map[string]int{}
		for _, line := range mdProse(t, path) {
			m := mdHeading.FindStringSubmatch(line.text)
			if m == nil {
				continue
			}
			slug := headingSlug(m[1])
			if n := seen[slug]; n > 0 {
				a[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
		anchors[path] = a
		return a
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, line := range mdProse(t, path) {
			text := mdCodeSpan.ReplaceAllString(line.text, "")
			var targets []string
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				targets = append(targets, m[1])
			}
			if m := mdRefDef.FindStringSubmatch(text); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if mdScheme.MatchString(target) {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
					if _, err := os.Stat(dest); err != nil {
						broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file", rel, line.n, target))
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
					broken = append(broken, fmt.Sprintf("%s:%d: %s: no such heading", rel, line.n, target))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return broken
}

// mdLine is a line of a Markdown file outside its fenced code blocks.
type mdLine struct {
	n    int
	text string
}

// mdProse returns the lines of the Markdown file at path that are not in a
// fenced code block.
func mdProse(t *testing.T, path string) []mdLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []mdLine
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		trimmed := strings.TrimLeft(text, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		lines = append(lines, mdLine{n, text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// headingSlug is the anchor GitHub gives a heading: its text as shown
// (links by their text, code without its backticks), in lower case, with
// every character but letters, digits, spaces, hyphens and underscores
// dropped and each space a hyphen.
func headingSlug(heading string) string {
	heading = mdLinkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
