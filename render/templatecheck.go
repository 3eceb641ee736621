package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font/sfnt"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// A template's checks, made when a version is created: what the layout
// can not print (elements, styles, characters the fonts lack) is refused
// then, never found when a letter is printed.

// braces finds every {{ in a template; each must open a placeholder, as
// placeholderAt checks (anchored, so each check reads only that far).
var (
	braces        = regexp.MustCompile(`\{\{`)
	placeholderAt = regexp.MustCompile(`^` + placeholder.String())
)

// placeholder matches {{name}} in a template, spaces inside the braces
// allowed: the same pattern the service merges variables with.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// CheckTemplate returns what makes an HTML template unprintable, or "" when
// it prints: variables written other than as {{name}} or where markup would
// go, elements that can not be printed, images and fonts not drawn from a
// variable of assets, a variable of assets used as text, and characters the
// fonts lack. assets are the variables whose values name images or fonts
// (of type asset or externalUrl): only they may be an <img>'s src or an
// @font-face's source, and they may be nothing else.
//
// The check reads the template's structure and does not lay it out: the
// layout is the same code whatever the text, and what only the images and
// fonts given with a letter decide (their sizes, their glyphs) is checked
// when the letter is made.
func CheckTemplate(data []byte, assets []string) string {
	if len(data) > MaxTemplateBytes {
		return fmt.Sprintf("the template is %d bytes; at most %d are allowed", len(data), MaxTemplateBytes)
	}
	if !utf8.Valid(data) {
		return "a template must be UTF-8 text"
	}
	src := string(data)
	var problems []string
	add := func(format string, args ...any) {
		if len(problems) < 5 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	// named holds what was said to name an element or an attribute, each
	// said once: <{{tag}}>...</{{tag}}> is one problem, at its first line.
	named := map[string]bool{}
	for _, loc := range braces.FindAllStringIndex(src, -1) {
		if len(problems) >= 5 {
			break
		}
		if strings.HasSuffix(src[:loc[0]], "<") || strings.HasSuffix(src[:loc[0]], "</") {
			// Merged, <{{tag}}> would be markup the value chose.
			what, key := "a variable", excerpt(src[loc[0]:])
			key, _, _ = strings.Cut(key, ">") // "{{ x>" of <{{ x>a</{{ x>, twice
			if m := placeholderAt.FindStringSubmatch(src[loc[0]:]); m != nil {
				what, key = "the variable "+m[1], m[1]
			}
			if !named[key] {
				named[key] = true
				add("%s can not name an element (line %d): variables go in text or attribute values", what, lineOf(src, loc[0]))
			}
			continue
		}
		if !placeholderAt.MatchString(src[loc[0]:]) {
			if loc[0] > 0 && src[loc[0]-1] == '{' {
				continue // the second brace of {{{, reported with the first
			}
			add("%q at line %d is not a variable: write {{name}} with an ASCII letter (A-Z, a-z) or underscore, then ASCII letters, digits or underscores",
				excerpt(src[loc[0]:]), lineOf(src, loc[0]))
		}
	}
	// asResource counts, by variable, the places it stands as an image or
	// a font.
	asResource := map[string]int{}
	resource := func(what, written string) {
		m := placeholderAt.FindStringSubmatch(strings.TrimSpace(written))
		switch {
		case m == nil || len(m[0]) != len(strings.TrimSpace(written)):
			add("%s must be a variable of type asset or externalUrl, written {{name}}, not %q", what, excerpt(written))
		case !slices.Contains(assets, m[1]):
			add("%s is {{%s}}: define %s as a variable of type asset (or externalUrl)", what, m[1], m[1])
		default:
			asResource[m[1]]++
		}
	}
	z := xhtml.NewTokenizer(strings.NewReader(src))
	refused := map[string]bool{}
	tables, inStyle := 0, false
tokens:
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			break tokens
		case xhtml.TextToken:
			if inStyle {
				for _, fs := range fontSources(string(z.Text())) {
					resource("an @font-face's src", fs)
				}
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			tt := z.Token()
			inStyle = tt.DataAtom == atom.Style && tt.Type == xhtml.StartTagToken
			if tt.DataAtom == atom.Table {
				if tt.Type == xhtml.StartTagToken {
					tables++
				} else if tt.Type == xhtml.EndTagToken && tables > 0 {
					tables--
				}
			}
			if strings.Contains(tt.Data, "{{") {
				if !named["<"+tt.Data] {
					named["<"+tt.Data] = true
					add("a variable can not name an element (<%s>): variables go in text or attribute values", tt.Data)
				}
				continue
			}
			for _, a := range tt.Attr {
				if strings.Contains(a.Key, "{{") && !named[a.Key+" in <"+tt.Data] {
					named[a.Key+" in <"+tt.Data] = true
					add("a variable can not name an attribute (%s in <%s>): variables go in text or attribute values", a.Key, tt.Data)
				}
			}
			if why, ok := refusedElements[tt.DataAtom]; ok && !refused[tt.Data] {
				refused[tt.Data] = true
				add("<%s> can not be printed: %s", tt.Data, why)
			}
			if tt.DataAtom == atom.Img && tt.Type != xhtml.EndTagToken {
				if tables > 0 {
					add("an image can not be placed in a table: put it before or after the table")
				}
				imgSrc := ""
				for _, a := range tt.Attr {
					if a.Key == "src" {
						imgSrc = a.Val
					}
				}
				resource("an <img>'s src", imgSrc)
			}
		}
	}
	// A variable that names an image or a font prints nothing as text.
	for _, name := range assets {
		n := 0
		for _, m := range placeholder.FindAllStringSubmatch(src, -1) {
			if m[1] == name {
				n++
			}
		}
		if n > asResource[name] {
			add("{{%s}} names an image or a font: use it only as <img src=\"{{%s}}\"> or as an @font-face's src: url({{%s}})", name, name, name)
		}
	}
	if len(problems) > 0 {
		return strings.Join(problems, "; ")
	}
	// Placeholders are checked as text of a typical length.
	sample := placeholder.ReplaceAllString(src, "Sample")
	doc, err := xhtml.Parse(strings.NewReader(fontSafe(sample)))
	if err != nil {
		// The one error of a string: more open elements than the parser
		// takes, which would print as the template's source.
		return "the elements nest too deeply to print (" + strings.TrimPrefix(err.Error(), "html: ") +
			", <html> and <body> included; an element left open counts until it is closed): close them sooner"
	}
	blocks, _ := buildTemplate(doc)
	if !slices.ContainsFunc(blocks, func(b block) bool { return !b.rule }) {
		return "the template has no text to print"
	}
	if missing := missingGlyphs(blocks); len(missing) > 0 {
		var list []string
		for _, r := range missing {
			list = append(list, fmt.Sprintf("%q (U+%04X)", r, r))
		}
		return "the letter font has no glyph for " + strings.Join(list, ", ")
	}
	return ""
}

// excerpt is the start of s up to the end of the would-be variable: its
// closing braces, else the next markup or line.
func excerpt(s string) string {
	if i := strings.Index(s, "}}"); i >= 0 && i < 40 && !strings.ContainsAny(s[:i], "<\n") {
		return s[:i+2]
	}
	if i := strings.IndexAny(s, "<\n"); i >= 0 {
		s = s[:i]
	}
	if utf8.RuneCountInString(s) > 20 {
		s = string([]rune(s)[:20]) + "…"
	}
	return s
}

func lineOf(s string, at int) int { return strings.Count(s[:at], "\n") + 1 }

// glyphBuffers holds the scratch space of glyph lookups: an sfnt.Buffer is
// several kilobytes, and Unprintable runs on every address of every letter.
var glyphBuffers = sync.Pool{New: func() any { return new(sfnt.Buffer) }}

var glyphs struct {
	once  sync.Once
	fonts map[string]*sfnt.Font
}

func loadGlyphs() {
	glyphs.once.Do(func() {
		glyphs.fonts = map[string]*sfnt.Font{}
		for name, data := range fontFiles {
			f, err := sfnt.Parse(data)
			if err != nil {
				panic("render: embedded font " + name + ": " + err.Error())
			}
			glyphs.fonts[name] = f
		}
	})
}

// Unprintable returns the distinct characters of s, at most five, that are
// letters, marks or digits of a script the letter fonts do not cover. The
// fonts cover Latin (with Latin-1 and Latin Extended-A), Greek and Cyrillic.
// Other characters the fonts lack (symbols, emoji) are not counted: they
// print as a replacement mark, as a template's would not.
// s is judged composed (NFC), as it prints: "e" and U+0301 is "é".
func Unprintable(s string) []rune {
	loadGlyphs()
	font := glyphs.fonts["go"]
	var buf *sfnt.Buffer
	var missing []rune
	for _, r := range norm.NFC.String(s) {
		if r < 0x80 || !unicode.In(r, unicode.L, unicode.M, unicode.N) || slices.Contains(missing, r) {
			continue
		}
		if buf == nil {
			buf = glyphBuffers.Get().(*sfnt.Buffer)
			defer glyphBuffers.Put(buf)
		}
		if gi, err := font.GlyphIndex(buf, r); err != nil || gi == 0 {
			missing = append(missing, r)
			if len(missing) == 5 {
				break
			}
		}
	}
	return missing
}

// missingGlyphs returns up to five characters of the blocks' text that
// their fonts can not print.
func missingGlyphs(blocks []block) []rune {
	loadGlyphs()
	buf := glyphBuffers.Get().(*sfnt.Buffer)
	defer glyphBuffers.Put(buf)
	var missing []rune
	check := func(s string, st inlineStyle) {
		font := glyphs.fonts[fontKey(st)]
		for _, r := range s {
			if unicode.IsSpace(r) || slices.Contains(missing, r) || len(missing) >= 5 {
				continue
			}
			if gi, err := font.GlyphIndex(buf, r); err != nil || gi == 0 {
				missing = append(missing, r)
			}
		}
	}
	for _, b := range blocks {
		check(b.marker, b.mst)
		for _, t := range b.tokens {
			check(t.text, t.st)
		}
		if b.table != nil {
			for _, row := range b.table.rows {
				for _, c := range row {
					for _, t := range c.tokens {
						check(t.text, t.st)
					}
				}
			}
		}
	}
	return missing
}
