package render

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// An HTML template is read into blocks of styled text: a small, predictable
// subset of HTML (paragraphs, headings, lists, tables, emphasis, links,
// line breaks) printed in the Go fonts, which cover Latin, Greek and
// Cyrillic (text.go), laid out by layout.go and table.go. What it can not
// print is refused when the version is created (CheckTemplate,
// templatecheck.go).

// A token is a word, a space or a forced line break, in a style.
type token struct {
	text  string
	space bool
	br    bool
	st    inlineStyle
}

// A block is a paragraph-like run of text laid out on its own lines.
type block struct {
	tokens []token
	indent float64
	align  string // "", "center" or "right"
	// marker is a list item's bullet or number, printed left of its first line.
	marker string
	mst    inlineStyle
	// rule is a horizontal line instead of text.
	rule bool
	// table is a table instead of text.
	table *table
	// image is an image instead of text.
	image         *imageSpec
	before, after float64
	keepWithNext  bool
}

// Elements whose content is never printed.
var skippedElements = map[atom.Atom]bool{
	atom.Head: true, atom.Title: true, atom.Style: true, atom.Meta: true, atom.Link: true,
	atom.Base: true, atom.Template: true, atom.Noscript: true,
}

// refusedElements can not be printed; a template with one is refused, with
// the reason.
var refusedElements = map[atom.Atom]string{
	atom.Script:   "scripts do not run in a printed letter",
	atom.Picture:  "images can not be embedded in a template: use <img src=\"{{name}}\"> with a variable of type asset",
	atom.Svg:      "images can not be embedded in a template: use <img src=\"{{name}}\"> with a variable of type asset",
	atom.Canvas:   "images can not be embedded in a template: use <img src=\"{{name}}\"> with a variable of type asset",
	atom.Video:    "video can not be printed",
	atom.Audio:    "audio can not be printed",
	atom.Iframe:   "embedded pages can not be printed",
	atom.Frame:    "embedded pages can not be printed",
	atom.Frameset: "embedded pages can not be printed",
	atom.Object:   "embedded objects can not be printed",
	atom.Embed:    "embedded objects can not be printed",
	atom.Applet:   "embedded objects can not be printed",
	atom.Math:     "formulas can not be printed",
	atom.Form:     "forms can not be printed",
	atom.Input:    "forms can not be printed",
	atom.Button:   "forms can not be printed",
	atom.Select:   "forms can not be printed",
	atom.Textarea: "forms can not be printed",
}

// headingSizes are the font sizes of h1 to h6.
var headingSizes = [...]float64{18, 15, 13, 11.5, 11, 11}

// builder walks a parsed template and collects its blocks.
type builder struct {
	blocks []block
	cur    *block
	indent float64
	align  string
	pre    int
	lists  []*listState
	// pendingAfter is the space owed after the last block closed.
	pendingAfter float64
	// css is what the template's style sheets say that prints.
	css *styleSheet
}

type listState struct {
	ordered bool
	kind    string // ol type: 1, a, A, i, I
	next    int
	depth   int
}

// parseTemplate parses merged HTML into blocks, and returns them with what
// its style sheets say. It accepts any input: what would be refused was
// refused when the version was created.
func parseTemplate(src string) ([]block, *styleSheet) {
	doc, err := xhtml.Parse(strings.NewReader(src))
	if err != nil {
		// x/net/html reports errors from the reader, which here is a
		// string, and elements nested deeper than it takes, which
		// CheckTemplate refused; keep the text rather than print nothing.
		return []block{{tokens: []token{{text: src, st: inlineStyle{size: bodySize, color: textColor}}}}}, &styleSheet{}
	}
	return buildTemplate(doc)
}

// buildTemplate is parseTemplate's blocks and style sheets of a parsed
// document.
func buildTemplate(doc *xhtml.Node) ([]block, *styleSheet) {
	b := &builder{css: parseStyleSheets(doc)}
	b.walk(doc, inlineStyle{size: bodySize, color: textColor})
	b.flush()
	return b.blocks, b.css
}

func (b *builder) open() *block {
	if b.cur == nil {
		b.cur = &block{indent: b.indent, align: b.align, after: 8}
	}
	return b.cur
}

// flush closes the block being filled, if it has any text.
func (b *builder) flush() {
	c := b.cur
	b.cur = nil
	if c == nil {
		return
	}
	for len(c.tokens) > 0 && c.tokens[len(c.tokens)-1].space {
		c.tokens = c.tokens[:len(c.tokens)-1]
	}
	if !slices.ContainsFunc(c.tokens, func(t token) bool { return !t.space }) && c.marker == "" && c.image == nil {
		return
	}
	c.before = max(c.before, b.pendingAfter)
	b.pendingAfter = 0
	b.blocks = append(b.blocks, *c)
}

// space asks for at least n points before the next block.
func (b *builder) space(n float64) {
	b.flush()
	if len(b.blocks) > 0 {
		last := &b.blocks[len(b.blocks)-1]
		last.after = max(last.after, n)
	}
}

// isHTMLSpace reports whether c is white space in HTML text: runs of it
// print as one space.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func (b *builder) text(s string, st inlineStyle) {
	if b.pre > 0 {
		for i, line := range strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n") {
			if i > 0 {
				b.open().tokens = append(b.open().tokens, token{br: true, st: st})
			}
			// A preformatted line keeps its spaces: it is one word, broken
			// only where it is wider than the page.
			if line != "" {
				b.open().tokens = append(b.open().tokens, token{text: line, st: st})
			}
		}
		return
	}
	// Words, and a space for each run of white space between or around
	// them (not after another space or a line break), into a block made
	// room for at once rather than grown word by word.
	if s == "" {
		return
	}
	n := 1
	for i := 1; i < len(s); i++ {
		if isHTMLSpace(s[i]) != isHTMLSpace(s[i-1]) {
			n++
		}
	}
	c := b.open()
	c.tokens = slices.Grow(c.tokens, n)
	for i := 0; i < len(s); {
		if isHTMLSpace(s[i]) {
			for i < len(s) && isHTMLSpace(s[i]) {
				i++
			}
			if n := len(c.tokens); n > 0 && !c.tokens[n-1].space && !c.tokens[n-1].br {
				c.tokens = append(c.tokens, token{text: " ", space: true, st: st})
			}
			continue
		}
		j := i
		for j < len(s) && !isHTMLSpace(s[j]) {
			j++
		}
		c.tokens = append(c.tokens, token{text: s[i:j], st: st})
		i = j
	}
}

func (b *builder) walk(n *xhtml.Node, st inlineStyle) {
	switch n.Type {
	case xhtml.TextNode:
		b.text(n.Data, st)
		return
	case xhtml.DocumentNode:
		b.children(n, st)
		return
	case xhtml.ElementNode:
	default:
		return
	}
	if skippedElements[n.DataAtom] {
		return
	}
	if _, ok := refusedElements[n.DataAtom]; ok {
		return
	}
	st = b.fontFamily(n, styleAttributes(n, st))
	align := alignOf(n)
	switch n.DataAtom {
	case atom.Img:
		spec := imageSpecOf(n)
		b.flush()
		if align == "" {
			align = b.align
		}
		b.blocks = append(b.blocks, block{image: &spec, indent: b.indent, align: align, before: max(4, b.pendingAfter), after: 4})
		b.pendingAfter = 0
		return
	case atom.Br:
		c := b.open()
		for len(c.tokens) > 0 && c.tokens[len(c.tokens)-1].space {
			c.tokens = c.tokens[:len(c.tokens)-1]
		}
		c.tokens = append(c.tokens, token{br: true, st: st})
		return
	case atom.Hr:
		b.space(8)
		b.blocks = append(b.blocks, block{rule: true, indent: b.indent, before: max(8, b.pendingAfter), after: 8})
		b.pendingAfter = 0
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '1')
		st.bold = true
		st.size = headingSizes[level]
		st.italic = st.italic || level == 5
		b.space(0)
		b.withAlign(align, func() {
			c := b.open()
			c.before, c.after, c.keepWithNext = 14-float64(level), 5, true
			b.children(n, st)
		})
		b.flush()
		return
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Main,
		atom.Aside, atom.Nav, atom.Address, atom.Center, atom.Figure, atom.Figcaption,
		atom.Dl, atom.Dt, atom.Body, atom.Html:
		if n.DataAtom == atom.Center {
			align = "center"
		}
		if n.DataAtom == atom.Address {
			st.italic = true
		}
		b.space(0)
		b.withAlign(align, func() { b.children(n, st) })
		b.flush()
		if n.DataAtom == atom.P || n.DataAtom == atom.Dl {
			b.space(8)
		}
		return
	case atom.Blockquote, atom.Dd:
		b.space(0)
		b.indent += 24
		b.withAlign(align, func() { b.children(n, st) })
		b.flush()
		b.indent -= 24
		b.space(8)
		return
	case atom.Pre:
		st.mono = true
		st.size = bodySize * 0.9
		b.space(0)
		b.pre++
		b.children(n, st)
		b.pre--
		b.flush()
		b.space(8)
		return
	case atom.Table:
		b.space(8)
		t := b.table(n, st)
		if len(t.rows) > 0 {
			b.blocks = append(b.blocks, block{table: t, indent: b.indent, before: max(8, b.pendingAfter), after: 10})
			b.pendingAfter = 0
		}
		return
	case atom.Ul, atom.Ol:
		ls := &listState{ordered: n.DataAtom == atom.Ol, kind: "1", next: 1, depth: len(b.lists)}
		if ls.ordered {
			if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil {
				ls.next = v
			}
			if t := attr(n, "type"); t != "" && strings.Contains("1aAiI", t) && len(t) == 1 {
				ls.kind = t
			}
		}
		b.space(0)
		if len(b.lists) == 0 {
			b.space(8)
		}
		b.lists = append(b.lists, ls)
		b.indent += 20
		b.children(n, st)
		b.flush()
		b.indent -= 20
		b.lists = b.lists[:len(b.lists)-1]
		if len(b.lists) == 0 {
			b.space(8)
		}
		return
	case atom.Li:
		b.flush()
		c := b.open()
		c.after = 3
		c.mst = st
		c.mst.underline, c.mst.strike, c.mst.link = false, false, ""
		if len(b.lists) == 0 {
			c.marker = "•"
		} else {
			ls := b.lists[len(b.lists)-1]
			if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "value"))); err == nil && ls.ordered {
				ls.next = v
			}
			c.marker = ls.marker()
			ls.next++
		}
		b.children(n, st)
		b.flush()
		return
	case atom.B, atom.Strong:
		st.bold = true
	case atom.I, atom.Em, atom.Cite, atom.Var, atom.Dfn:
		st.italic = true
	case atom.U, atom.Ins:
		st.underline = true
	case atom.S, atom.Strike, atom.Del:
		st.strike = true
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		st.mono = true
	case atom.Small:
		st.size *= 0.85
	case atom.Big:
		st.size *= 1.15
	case atom.Sub, atom.Sup:
		st.size *= 0.8
	case atom.Mark:
		st.bold = true
	case atom.A:
		if href := strings.TrimSpace(attr(n, "href")); printableLink(href) {
			st.link = href
			st.underline = true
			st.color = linkColor
		}
	case atom.Q:
		b.text("“", st)
		b.children(n, st)
		b.text("”", st)
		return
	}
	b.children(n, st)
}

// fontFamily applies the font family an element is given: by a style
// sheet rule for its tag, its style attribute, or a <font face>.
func (b *builder) fontFamily(n *xhtml.Node, st inlineStyle) inlineStyle {
	if b.css == nil {
		return st
	}
	if list, ok := b.css.tagFamily[n.DataAtom]; ok {
		st = b.css.applyFamily(list, st)
	}
	if n.DataAtom == atom.Font {
		if face := attr(n, "face"); face != "" {
			st = b.css.applyFamily(face, st)
		}
	}
	if list, ok := styleProps(n)["font-family"]; ok {
		st = b.css.applyFamily(list, st)
	}
	return st
}

func (b *builder) children(n *xhtml.Node, st inlineStyle) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.walk(c, st)
	}
}

// withAlign runs f with the text alignment set to align, when given.
func (b *builder) withAlign(align string, f func()) {
	if align == "" {
		f()
		return
	}
	prev := b.align
	b.align = align
	if b.cur != nil {
		b.cur.align = align
	}
	f()
	b.flush()
	b.align = prev
}

func (ls *listState) marker() string {
	if !ls.ordered {
		return [...]string{"•", "◦", "▪"}[ls.depth%3]
	}
	n := ls.next
	switch ls.kind {
	case "a", "A":
		if n < 1 {
			return strconv.Itoa(n) + "."
		}
		var s []byte
		for ; n > 0; n = (n - 1) / 26 {
			s = append([]byte{byte('a' + (n-1)%26)}, s...)
		}
		if ls.kind == "A" {
			return strings.ToUpper(string(s)) + "."
		}
		return string(s) + "."
	case "i", "I":
		if r := roman(n); r != "" {
			if ls.kind == "I" {
				return strings.ToUpper(r) + "."
			}
			return r + "."
		}
	}
	return strconv.Itoa(n) + "."
}

func roman(n int) string {
	if n < 1 || n > 3999 {
		return ""
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var s strings.Builder
	for i, v := range vals {
		for ; n >= v; n -= v {
			s.WriteString(syms[i])
		}
	}
	return s.String()
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// printableLink reports whether href is worth a link annotation: one a
// reader of the PDF can follow.
func printableLink(href string) bool {
	h := strings.ToLower(href)
	return strings.HasPrefix(h, "https://") || strings.HasPrefix(h, "http://") ||
		strings.HasPrefix(h, "mailto:") || strings.HasPrefix(h, "tel:")
}

// alignOf reads text alignment from an element's align attribute or its
// style's text-align.
func alignOf(n *xhtml.Node) string {
	a := strings.ToLower(strings.TrimSpace(attr(n, "align")))
	if v, ok := styleProps(n)["text-align"]; ok {
		a = v
	}
	switch a {
	case "center", "right":
		return a
	case "left", "justify", "start":
		return "left"
	}
	return ""
}

// styleProps parses an element's style attribute into lower-case
// property: value pairs.
func styleProps(n *xhtml.Node) map[string]string {
	s := attr(n, "style")
	if s == "" {
		return nil
	}
	props := map[string]string{}
	for _, decl := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		props[strings.ToLower(strings.TrimSpace(k))] = strings.ToLower(v)
	}
	return props
}

// styleAttributes applies the parts of an element's style attribute (and
// font color) that print: weight, slant, decoration and colour. Anything
// else in the style is ignored.
func styleAttributes(n *xhtml.Node, st inlineStyle) inlineStyle {
	if n.DataAtom == atom.Font {
		if c, ok := parseColor(attr(n, "color")); ok {
			st.color = c
		}
	}
	props := styleProps(n)
	if props == nil {
		return st
	}
	switch w := props["font-weight"]; w {
	case "bold", "bolder", "600", "700", "800", "900":
		st.bold = true
	case "normal", "lighter", "100", "200", "300", "400", "500":
		st.bold = false
	}
	switch props["font-style"] {
	case "italic", "oblique":
		st.italic = true
	case "normal":
		st.italic = false
	}
	if d, ok := props["text-decoration"]; ok {
		st.underline = strings.Contains(d, "underline")
		st.strike = strings.Contains(d, "line-through")
	}
	if c, ok := parseColor(props["color"]); ok {
		st.color = c
	}
	return st
}

var namedColors = map[string]rgb{
	"black": {0, 0, 0}, "white": {255, 255, 255}, "gray": {128, 128, 128}, "grey": {128, 128, 128},
	"silver": {192, 192, 192}, "red": {255, 0, 0}, "maroon": {128, 0, 0}, "green": {0, 128, 0},
	"lime": {0, 255, 0}, "blue": {0, 0, 255}, "navy": {0, 0, 128}, "teal": {0, 128, 128},
	"purple": {128, 0, 128}, "olive": {128, 128, 0}, "orange": {255, 165, 0},
	"darkred": {139, 0, 0}, "darkblue": {0, 0, 139}, "darkgreen": {0, 100, 0},
}

var rgbFunc = regexp.MustCompile(`^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(,[^)]*)?\)$`)

// parseColor reads #rgb, #rrggbb, rgb(r, g, b) and a few colour names.
func parseColor(s string) (rgb, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if c, ok := namedColors[s]; ok {
		return c, true
	}
	if m := rgbFunc.FindStringSubmatch(s); m != nil {
		var v [3]uint8
		for i := range v {
			n, _ := strconv.Atoi(m[i+1])
			v[i] = uint8(min(n, 255))
		}
		return rgb{v[0], v[1], v[2]}, true
	}
	hex, ok := strings.CutPrefix(s, "#")
	if !ok {
		return rgb{}, false
	}
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	if len(hex) != 6 {
		return rgb{}, false
	}
	n, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return rgb{}, false
	}
	return rgb{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
}
