package render

import (
	"cmp"
	"fmt"

	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// This file turns an HTML template into laid-out text: a small, predictable
// subset of HTML (paragraphs, headings, lists, tables, emphasis, links,
// line breaks) printed in the Go fonts, which cover Latin, Greek and
// Cyrillic. What it can not print is refused when the version is created
// (CheckTemplate).

// fontFiles are the embedded TrueType fonts by fpdf family and style.
var fontFiles = map[string][]byte{
	"go": goregular.TTF, "goB": gobold.TTF, "goI": goitalic.TTF, "goBI": gobolditalic.TTF,
	"gomono": gomono.TTF, "gomonoB": gomonobold.TTF, "gomonoI": gomonoitalic.TTF, "gomonoBI": gomonobolditalic.TTF,
}

type rgb struct{ r, g, b uint8 }

// inlineStyle is how a piece of text is printed.
type inlineStyle struct {
	bold, italic, underline, strike, mono bool
	// family is a brand font family of the template's style sheet
	// (styleSheet.families, from 1); 0 is the letter fonts.
	family uint8
	size   float64
	color  rgb
	link   string
}

// Body text and link colours.
var (
	textColor = rgb{26, 26, 26}
	linkColor = rgb{17, 85, 204}
)

const (
	bodySize = 11.0
	// bodyLeading is the line height of running text, in font sizes.
	bodyLeading = 1.42
)

// lineAscent is the distance from the top of a line to its baseline for
// the Go fonts (ascent 0.944 em, descent 0.21 em), with the leading split
// evenly above and below.
func lineAscent(size, leading float64) float64 {
	return size * ((leading-1.154)/2 + 0.944)
}

// fontKeys name the faces by style: mono, bold and italic are the bits of
// the index. Each key is an fpdf family and style, and names the face's
// file in fontFiles.
var fontKeys = [8]string{"go", "goI", "goB", "goBI", "gomono", "gomonoI", "gomonoB", "gomonoBI"}

func faceIndex(st inlineStyle) int {
	i := 0
	if st.mono {
		i |= 4
	}
	if st.bold {
		i |= 2
	}
	if st.italic {
		i |= 1
	}
	return i
}

// fontKey names the face that prints st.
func fontKey(st inlineStyle) string { return fontKeys[faceIndex(st)] }

// fontSafe is s with every character past U+FFFF (emoji, most of all)
// replaced by U+FFFD: a letter's fonts are drawn with one 16-bit code per
// character (see fonts.go), which has no room for the others. A template
// with such a character is refused (the fonts lack it); this is for text
// from elsewhere, variable values and addresses, so that such a character
// prints as a mark rather than fail the whole letter.
func fontSafe(s string) string {
	beyond := func(r rune) bool { return r > 0xFFFF }
	if !strings.ContainsFunc(s, beyond) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if beyond(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// slot is the index, in the document's faces, of the face that prints
// st: a letter font (faceIndex), or a brand font of the template's.
func (d *document) slot(st inlineStyle) int {
	if st.family == 0 || st.mono || int(st.family) > len(d.brand) {
		return faceIndex(st)
	}
	k := 0
	if st.bold {
		k |= 2
	}
	if st.italic {
		k |= 1
	}
	if i := d.brand[st.family-1][k]; i >= 0 {
		return i
	}
	return faceIndex(st)
}

// faceAt is the face in slot i, a letter font read on first use.
func (d *document) faceAt(i int) *face {
	if d.faces[i] == nil {
		f, err := faceOf(fontKeys[i])
		if err != nil {
			// The fonts are compiled in: this can not happen to one letter
			// and not to every other.
			panic("render: " + err.Error())
		}
		d.faces[i] = f
	}
	return d.faces[i]
}

// setFont makes the face in slot i at size the font fpdf draws with, and
// returns the face as this letter uses it.
func (d *document) setFont(i int, size float64) *fontUse {
	u := d.uses[i]
	if u == nil {
		// Only the faces a letter prints with are embedded, and only the
		// glyphs it prints of each.
		u = &fontUse{face: d.faceAt(i)}
		d.uses[i] = u
		family, style := splitFontKey(u.face.key)
		d.pdf.AddFontFromBytes(family, style, u.face.placeholder, nil)
	}
	// fpdf writes the font to the page each time it is set, changed or
	// not.
	if i != d.curFace || size != d.curSize {
		family, style := splitFontKey(u.face.key)
		d.pdf.SetFont(family, style, size)
		d.curFace, d.curSize = i, size
	}
	return u
}

// runs calls yield for each run of s that one face prints, with that
// face's slot: s whole in the face of slot i, or, in a brand face, the
// characters it lacks in the letter font of the same style.
func (d *document) runs(s string, st inlineStyle, i int, yield func(part string, slot int)) {
	f := d.faceAt(i)
	if i < len(fontKeys) || f.covers(s) {
		yield(s, i)
		return
	}
	fallback := faceIndex(st)
	start, cur := 0, -1
	for at, r := range s {
		slot := i
		if r >= bmp || f.gids[r] == 0 {
			slot = fallback
		}
		if slot != cur && at > start {
			yield(s[start:at], cur)
			start = at
		}
		cur = slot
	}
	if start < len(s) {
		yield(s[start:], cur)
	}
}

// text prints s with its baseline at y from x, in style st's font, colour,
// underline and strike-through, and returns its width.
func (d *document) text(x, y float64, s string, st inlineStyle) float64 {
	w := 0.0
	var u *fontUse
	d.runs(s, st, d.slot(st), func(part string, slot int) {
		first := u == nil
		u = d.setFont(slot, st.size)
		if first {
			d.setTextColor(st.color)
		}
		d.pdf.Text(x+w, y, u.encode(part))
		w += u.face.width(part, st.size)
	})
	if s == "" || u == nil {
		return w
	}
	// The lines of underlined and struck-out text go where fpdf puts them;
	// fpdf can not draw them itself, since it does not know the width of
	// text in a placeholder font.
	if st.underline {
		d.textRule(x, y-u.face.up/1000*st.size, w, u.face.ut/1000*st.size, st.color)
	}
	if st.strike {
		d.textRule(x, y+4*u.face.up/1000*st.size, w, u.face.ut/1000*st.size, st.color)
	}
	return w
}

// textRule fills a rectangle in a text colour, leaving the fill colour as
// it was.
func (d *document) textRule(x, y, w, h float64, c rgb) {
	r, g, b := d.pdf.GetFillColor()
	c = d.ink(c)
	d.pdf.SetFillColor(int(c.r), int(c.g), int(c.b))
	d.pdf.Rect(x, y, w, h, "F")
	d.pdf.SetFillColor(r, g, b)
}

// ink is c as the letter prints it: itself in colour, else its grey.
func (d *document) ink(c rgb) rgb {
	if !d.color {
		g := grey(c)
		return rgb{g, g, g}
	}
	return c
}

func (d *document) setTextColor(c rgb) {
	c = d.ink(c)
	d.pdf.SetTextColor(int(c.r), int(c.g), int(c.b))
}

func (d *document) setDrawColor(c rgb) {
	c = d.ink(c)
	d.pdf.SetDrawColor(int(c.r), int(c.g), int(c.b))
}

// grey is the luma of c (ITU-R BT.601), how it prints in black and white.
func grey(c rgb) uint8 {
	return uint8((299*int(c.r) + 587*int(c.g) + 114*int(c.b) + 500) / 1000)
}

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
		// x/net/html reports errors only from the reader, which here is a
		// string; keep the text rather than print nothing.
		return []block{{tokens: []token{{text: src, st: inlineStyle{size: bodySize, color: textColor}}}}}, &styleSheet{}
	}
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

// A line is laid-out text: its pieces, in order, and its size.
type line struct {
	toks   []token
	w      float64
	height float64
	size   float64
}

// width is the printed width of text in style st.
func (d *document) width(text string, st inlineStyle) float64 {
	i := d.slot(st)
	if i < len(fontKeys) {
		return d.faceAt(i).width(text, st.size)
	}
	w := 0.0
	d.runs(text, st, i, func(part string, slot int) { w += d.faceAt(slot).width(part, st.size) })
	return w
}

// breakLines fills lines no wider than maxW with tokens, breaking at spaces,
// and within a word only when the word alone is wider than a line.
func (d *document) breakLines(toks []token, maxW float64) []line {
	var lines []line
	// The lines' tokens are cut from one array, each line's as it ends.
	cur := line{toks: make([]token, 0, len(toks)+8)}
	var pendingSpace *token
	end := func(st inlineStyle) {
		if cur.size == 0 {
			cur.size = st.size
		}
		cur.height = cur.size * bodyLeading
		n := len(cur.toks)
		spare := cur.toks[n:]
		cur.toks = cur.toks[:n:n]
		lines = append(lines, cur)
		cur = line{toks: spare}
		pendingSpace = nil
	}
	add := func(t token, w float64) {
		cur.toks = append(cur.toks, t)
		cur.w += w
		cur.size = max(cur.size, t.st.size)
	}
	for i := 0; i < len(toks); {
		t := toks[i]
		switch {
		case t.br:
			end(t.st)
			i++
			continue
		case t.space:
			if len(cur.toks) > 0 {
				pendingSpace = &toks[i]
			}
			i++
			continue
		}
		// A word is every text token up to the next space or break.
		j := i
		for j < len(toks) && !toks[j].space && !toks[j].br {
			j++
		}
		word := toks[i:j]
		ww := 0.0
		for _, p := range word {
			ww += d.width(p.text, p.st)
		}
		sw := 0.0
		if pendingSpace != nil {
			sw = d.width(" ", pendingSpace.st)
		}
		switch {
		case len(cur.toks) == 0 && ww <= maxW, len(cur.toks) > 0 && cur.w+sw+ww <= maxW:
			if pendingSpace != nil {
				add(*pendingSpace, sw)
				pendingSpace = nil
			}
			for _, p := range word {
				add(p, d.width(p.text, p.st))
			}
		case ww > maxW:
			// Too long for any line: break it where it overflows.
			if len(cur.toks) > 0 {
				end(word[0].st)
			}
			for _, p := range word {
				for _, r := range p.text {
					rw := d.width(string(r), p.st)
					if cur.w+rw > maxW && len(cur.toks) > 0 {
						end(p.st)
					}
					if n := len(cur.toks); n > 0 && cur.toks[n-1].st == p.st && !cur.toks[n-1].space {
						cur.toks[n-1].text += string(r)
						cur.w += rw
					} else {
						add(token{text: string(r), st: p.st}, rw)
					}
				}
			}
		default:
			end(word[0].st)
			for _, p := range word {
				add(p, d.width(p.text, p.st))
			}
		}
		i = j
	}
	if len(cur.toks) > 0 {
		end(cur.toks[0].st)
	}
	return lines
}

// flow lays blocks out from the current position, adding pages as needed.
func (d *document) flow(blocks []block) {
	first := true
	for i, bk := range blocks {
		if !first {
			d.y += max(bk.before, blocks[i-1].after)
		}
		first = false
		// Deeply nested lists and quotes stop indenting at half the width.
		x0 := marginX + min(bk.indent, (pageW-2*marginX)/2)
		maxW := pageW - marginX - x0
		if bk.table != nil {
			d.drawTable(bk.table, x0, maxW)
			continue
		}
		if bk.image != nil {
			if err := d.drawImage(*bk.image, bk.align, x0, maxW); err != nil && d.err == nil {
				d.err = err
			}
			continue
		}
		if bk.rule {
			if d.y+8 > pageH-marginBottom {
				d.newPage()
			}
			d.setDrawColor(rgb{170, 170, 170})
			d.pdf.SetLineWidth(0.6)
			d.pdf.Line(x0, d.y+4, pageW-marginX, d.y+4)
			d.y += 8
			continue
		}
		lines := d.breakLines(bk.tokens, maxW)
		if len(lines) == 0 && bk.marker != "" {
			lines = []line{{size: bk.mst.size, height: bk.mst.size * bodyLeading}}
		}
		// A heading stays with the two lines after it; a paragraph leaves
		// no single line at the bottom of a page.
		need := 0.0
		switch {
		case bk.keepWithNext:
			for _, ln := range lines {
				need += ln.height
			}
			need += 2 * bodySize * bodyLeading
		case len(lines) > 1:
			need = lines[0].height + lines[1].height
		}
		if d.y > marginTop && d.y+need > pageH-marginBottom {
			d.newPage()
		}
		for li, ln := range lines {
			if d.y+ln.height > pageH-marginBottom && d.y > marginTop {
				d.newPage()
			}
			base := d.y + lineAscent(ln.size, bodyLeading)
			if li == 0 && bk.marker != "" {
				mw := d.width(bk.marker, bk.mst)
				d.text(x0-6-mw, base, bk.marker, bk.mst)
			}
			x := x0
			switch bk.align {
			case "center":
				x += (maxW - ln.w) / 2
			case "right":
				x += maxW - ln.w
			}
			d.drawLine(ln, x, base)
			d.y += ln.height
		}
	}
}

// drawLine prints a line from x on baseline base, a run of like-styled
// tokens at a time so underlines run unbroken across spaces.
func (d *document) drawLine(ln line, x, base float64) {
	for i := 0; i < len(ln.toks); {
		st := ln.toks[i].st
		var s strings.Builder
		j := i
		for ; j < len(ln.toks) && ln.toks[j].st == st; j++ {
			s.WriteString(ln.toks[j].text)
		}
		w := d.text(x, base, s.String(), st)
		if st.link != "" {
			d.pdf.LinkString(x, base-st.size, w, st.size*1.25, st.link)
		}
		x += w
		i = j
	}
}

// Template checks.

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
	for _, loc := range braces.FindAllStringIndex(src, -1) {
		if len(problems) >= 5 {
			break
		}
		if strings.HasSuffix(src[:loc[0]], "<") || strings.HasSuffix(src[:loc[0]], "</") {
			// Merged, <{{tag}}> would be markup the value chose.
			add("a variable can not name an element (line %d): variables go in text or attribute values", lineOf(src, loc[0]))
			continue
		}
		if !placeholderAt.MatchString(src[loc[0]:]) {
			if loc[0] > 0 && src[loc[0]-1] == '{' {
				continue // the second brace of {{{, reported with the first
			}
			add("%q at line %d is not a variable: write {{name}} with a letter or underscore, then letters, digits or underscores",
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
				add("a variable can not name an element (<%s>): variables go in text or attribute values", tt.Data)
				continue
			}
			for _, a := range tt.Attr {
				if strings.Contains(a.Key, "{{") {
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
	blocks, _ := parseTemplate(sample)
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
func Unprintable(s string) []rune {
	loadGlyphs()
	font := glyphs.fonts["go"]
	var buf *sfnt.Buffer
	var missing []rune
	for _, r := range s {
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

// Tables.

// A table is rows of cells, the first headerRows of them headings that are
// repeated at the top of each page the table runs onto.
type table struct {
	rows       [][]cell
	headerRows int
}

type cell struct {
	tokens []token
	align  string
	// span is how many columns the cell spans, at least 1.
	span int
}

// Table cell padding and rule colours.
const (
	cellPadX = 5.0
	cellPadY = 3.5
)

var (
	ruleColor   = rgb{200, 200, 200}
	headerRule  = rgb{110, 110, 110}
	headerShade = rgb{238, 238, 238}
)

// table collects the rows of a <table>: those in <thead>, and leading rows
// of only <th> cells, are headings. Cells hold text; anything block-like
// inside a cell becomes lines of it.
func (b *builder) table(n *xhtml.Node, st inlineStyle) *table {
	t := &table{}
	var visit func(n *xhtml.Node, head bool)
	visit = func(n *xhtml.Node, head bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != xhtml.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Thead:
				visit(c, true)
			case atom.Tbody, atom.Tfoot:
				visit(c, false)
			case atom.Tr:
				rst := styleAttributes(c, st)
				rowAlign := alignOf(c)
				var row []cell
				allTh := true
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type != xhtml.ElementNode || (td.DataAtom != atom.Td && td.DataAtom != atom.Th) {
						continue
					}
					cst := styleAttributes(td, rst)
					if td.DataAtom == atom.Th {
						cst.bold = true
					} else {
						allTh = false
					}
					align := alignOf(td)
					if align == "" {
						align = rowAlign
					}
					span, err := strconv.Atoi(attr(td, "colspan"))
					if err != nil || span < 1 {
						span = 1
					}
					row = append(row, cell{tokens: cellTokens(td, cst, b.css), align: align, span: min(span, 50)})
				}
				if len(row) == 0 {
					continue
				}
				if (head || allTh) && t.headerRows == len(t.rows) {
					t.headerRows++
				}
				t.rows = append(t.rows, row)
			}
		}
	}
	visit(n, false)
	return t
}

// cellTokens lays a cell's content out as text, a line per block in it.
func cellTokens(n *xhtml.Node, st inlineStyle, css *styleSheet) []token {
	sb := &builder{css: css}
	sb.children(n, st)
	sb.flush()
	var toks []token
	for _, bk := range sb.blocks {
		var line []token
		switch {
		case bk.table != nil:
			// A table in a cell prints as lines of its cells' text.
			for _, row := range bk.table.rows {
				var cells []token
				for _, c := range row {
					if len(c.tokens) > 0 && len(cells) > 0 {
						cells = append(cells, token{text: " ", space: true, st: st})
					}
					cells = append(cells, c.tokens...)
				}
				if len(line) > 0 {
					line = append(line, token{br: true, st: st})
				}
				line = append(line, cells...)
			}
		case bk.marker != "":
			line = append([]token{{text: bk.marker, st: bk.mst}, {text: " ", space: true, st: bk.mst}}, bk.tokens...)
		default:
			line = bk.tokens
		}
		if len(line) == 0 {
			continue
		}
		if len(toks) > 0 {
			toks = append(toks, token{br: true, st: st})
		}
		toks = append(toks, line...)
	}
	return toks
}

// columnWidths sizes a table's columns to share width w. Each column gets
// at least its longest word; then, smallest need first, each gets what its
// text needs on one line, or an even share of what is left; spare width is
// shared in proportion. Cells spanning columns do not size them.
func (d *document) columnWidths(t *table, w float64) []float64 {
	ncol := 0
	for _, row := range t.rows {
		n := 0
		for _, c := range row {
			n += c.span
		}
		ncol = max(ncol, n)
	}
	natural, least := make([]float64, ncol), make([]float64, ncol)
	for j := range ncol {
		natural[j], least[j] = 2*cellPadX, 2*cellPadX
	}
	for _, row := range t.rows {
		j := 0
		for _, c := range row {
			if c.span > 1 {
				j += c.span
				continue
			}
			line, word, longest := 0.0, 0.0, 0.0
			for _, tk := range c.tokens {
				switch {
				case tk.br:
					natural[j] = max(natural[j], line+2*cellPadX)
					line, word = 0, 0
				case tk.space:
					line += d.width(" ", tk.st)
					word = 0
				default:
					tw := d.width(tk.text, tk.st)
					line += tw
					word += tw
					longest = max(longest, word)
				}
			}
			natural[j] = max(natural[j], line+2*cellPadX)
			least[j] = max(least[j], longest+2*cellPadX)
			j++
		}
	}
	widths := slices.Clone(least)
	left := w
	for _, x := range least {
		left -= x
	}
	if left < 0 {
		// Even the longest words do not fit: equal columns, words broken.
		for j := range widths {
			widths[j] = w / float64(ncol)
		}
		return widths
	}
	order := make([]int, ncol)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(natural[a]-least[a], natural[b]-least[b])
	})
	for k, j := range order {
		give := min(natural[j]-least[j], left/float64(ncol-k))
		widths[j] += give
		left -= give
	}
	total := w - left
	for j := range widths {
		widths[j] += left * widths[j] / total
	}
	return widths
}

// drawTable prints a table from the current position at x, w wide, adding
// pages as needed and repeating the heading rows on each.
func (d *document) drawTable(t *table, x, w float64) {
	widths := d.columnWidths(t, w)
	type laidRow struct {
		cells  [][]line
		widths []float64
		height float64
	}
	rows := make([]laidRow, len(t.rows))
	for i, row := range t.rows {
		rows[i].cells = make([][]line, len(row))
		rows[i].widths = make([]float64, len(row))
		h, col := 0.0, 0
		for j, c := range row {
			cw := 0.0
			for k := col; k < min(col+c.span, len(widths)); k++ {
				cw += widths[k]
			}
			col += c.span
			rows[i].widths[j] = cw
			lines := d.breakLines(c.tokens, cw-2*cellPadX)
			rows[i].cells[j] = lines
			ch := 0.0
			for _, ln := range lines {
				ch += ln.height
			}
			h = max(h, ch)
		}
		if h == 0 {
			h = bodySize * bodyLeading
		}
		rows[i].height = h + 2*cellPadY
	}
	draw := func(i int) {
		r, top := rows[i], d.y
		header := i < t.headerRows
		if header {
			shade := d.ink(headerShade)
			d.pdf.SetFillColor(int(shade.r), int(shade.g), int(shade.b))
			d.pdf.Rect(x, top, w, r.height, "F")
		}
		cx := x
		for j, lines := range r.cells {
			cw := r.widths[j]
			y := top + cellPadY
			for _, ln := range lines {
				lx := cx + cellPadX
				switch t.rows[i][j].align {
				case "center":
					lx += (cw - 2*cellPadX - ln.w) / 2
				case "right":
					lx += cw - 2*cellPadX - ln.w
				}
				d.drawLine(ln, lx, y+lineAscent(ln.size, bodyLeading))
				y += ln.height
			}
			cx += cw
		}
		rule, width := ruleColor, 0.5
		if header && i == t.headerRows-1 {
			rule, width = headerRule, 0.8
		}
		d.setDrawColor(rule)
		d.pdf.SetLineWidth(width)
		d.pdf.Line(x, top+r.height, x+w, top+r.height)
		d.y += r.height
	}
	for i := range rows {
		// A page holds at least one body row under the headings.
		need := rows[i].height
		if i < t.headerRows {
			need = 0
			for k := i; k <= min(t.headerRows, len(rows)-1); k++ {
				need += rows[k].height
			}
		}
		if d.y+need > pageH-marginBottom && d.y > marginTop {
			d.newPage()
			if i >= t.headerRows {
				for k := range t.headerRows {
					draw(k)
				}
			}
		}
		draw(i)
	}
}
