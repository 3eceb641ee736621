package render

import (
	"html"
	"regexp"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The little CSS a template's <style> elements say that prints: the fonts
// it declares with @font-face, and the font-family of elements named by
// their tag (body, h1, p, ...). Everything else in a style sheet is
// ignored, as it always was.

// fontFaceRule is one @font-face: a family name, the style it is for, and
// where its font comes from, as merged into the template (a variable's
// value).
type fontFaceRule struct {
	family       string // lower case
	bold, italic bool
	src          string
}

// styleSheet is what a template's style sheets say that prints.
type styleSheet struct {
	faces []fontFaceRule
	// families are the font families declared, lower case, numbered from 1
	// in order of first declaration (0 is the letter fonts).
	families []string
	// tagFamily is the font-family set for elements of a tag.
	tagFamily map[atom.Atom]string
}

var (
	cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// asideVariable is a {{variable}} set aside while a style sheet is read.
	asideVariable = regexp.MustCompile("\x00([A-Za-z0-9_]+)\x01")
	// cssURL is a url(...) with or without quotes.
	cssURL = regexp.MustCompile(`url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"]*?))\s*\)`)
)

// parseStyleSheets reads every <style> element of a parsed template.
func parseStyleSheets(doc *xhtml.Node) *styleSheet {
	ss := &styleSheet{}
	var visit func(n *xhtml.Node)
	visit = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.DataAtom == atom.Style {
			var text strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == xhtml.TextNode {
					text.WriteString(c.Data)
				}
			}
			ss.parse(text.String())
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	return ss
}

// parse adds the rules of one style sheet.
func (ss *styleSheet) parse(css string) {
	css = cssComment.ReplaceAllString(css, " ")
	// The braces of a template's {{variables}} are not the style sheet's:
	// they stand aside while it is read.
	css = placeholder.ReplaceAllString(css, "\x00$1\x01")
	for {
		open := strings.IndexByte(css, '{')
		if open < 0 {
			return
		}
		selectors := strings.TrimSpace(css[:open])
		// The block runs to its matching brace: a nested block (@media
		// { p { ... } }) is skipped whole.
		depth, end := 0, len(css)
		for i := open; i < len(css); i++ {
			if css[i] == '{' {
				depth++
			} else if css[i] == '}' {
				if depth--; depth == 0 {
					end = i
					break
				}
			}
		}
		body := css[open+1 : end]
		css = css[min(len(css), end+1):]
		if strings.Contains(body, "{") {
			continue
		}
		decls := declarations(body)
		if strings.EqualFold(selectors, "@font-face") {
			ss.fontFace(decls)
			continue
		}
		family, ok := decls["font-family"]
		if !ok || strings.HasPrefix(selectors, "@") {
			continue
		}
		for _, sel := range strings.Split(selectors, ",") {
			if a := atom.Lookup([]byte(strings.ToLower(strings.TrimSpace(sel)))); a != 0 {
				if ss.tagFamily == nil {
					ss.tagFamily = map[atom.Atom]string{}
				}
				ss.tagFamily[a] = family
			}
		}
	}
}

// declarations parses "name: value; ..." into lower-case names and
// values as written, trimmed.
func declarations(s string) map[string]string {
	out := map[string]string{}
	for _, decl := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

// fontFace adds an @font-face rule with a family and a url() source.
func (ss *styleSheet) fontFace(decls map[string]string) {
	family := unquote(decls["font-family"])
	m := cssURL.FindStringSubmatch(decls["src"])
	if family == "" || m == nil {
		return
	}
	// A style element's text is not unescaped by the HTML parser: a merged
	// value's &amp; is undone here.
	src := html.UnescapeString(strings.TrimSpace(m[1] + m[2] + m[3]))
	src = asideVariable.ReplaceAllString(src, "{{$1}}")
	r := fontFaceRule{family: strings.ToLower(family), src: src}
	switch strings.ToLower(decls["font-weight"]) {
	case "bold", "bolder", "600", "700", "800", "900":
		r.bold = true
	}
	switch strings.ToLower(decls["font-style"]) {
	case "italic", "oblique":
		r.italic = true
	}
	ss.faces = append(ss.faces, r)
	if ss.familyID(r.family) == 0 {
		ss.families = append(ss.families, r.family)
	}
}

// familyID is the number of a declared family, 0 when it is not declared.
func (ss *styleSheet) familyID(name string) uint8 {
	for i, f := range ss.families {
		if f == name && i < 255 {
			return uint8(i + 1)
		}
	}
	return 0
}

// applyFamily sets st's family from a font-family list: the first family
// declared with @font-face, a generic monospace, or one of the letter
// fonts' generic names (serif, sans-serif) for the letter fonts. A list of
// none of these leaves st as it was.
func (ss *styleSheet) applyFamily(list string, st inlineStyle) inlineStyle {
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(unquote(name))
		if id := ss.familyID(name); id != 0 {
			st.family, st.mono = id, false
			return st
		}
		switch name {
		case "monospace":
			st.family, st.mono = 0, true
			return st
		case "serif", "sans-serif", "system-ui", "inherit", "initial":
			st.family, st.mono = 0, false
			return st
		}
	}
	return st
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

// fontSources returns the sources of a template's @font-face rules as
// written, before any merge: each should be a single {{variable}}.
func fontSources(css string) []string {
	ss := &styleSheet{}
	ss.parse(css)
	out := make([]string, len(ss.faces))
	for i, f := range ss.faces {
		out[i] = f.src
	}
	return out
}
