package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/text/unicode/norm"
)

// The text of a letter: the embedded Go fonts and the fonts a letter
// brings, each style's face, and runs of text drawn in them.

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
// prints as a mark rather than fail the whole letter. s is first composed
// (NFC): text typed or pasted on some systems arrives decomposed, a letter
// and its accent as two characters ("e" and U+0301), and the fonts hold
// the accented letters whole, not the lone accents. Format characters,
// which print as nothing (a byte order mark that an editor put before a
// file's text, a zero-width space or joiner, a soft hyphen, a direction
// mark), are left out: the fonts have no glyph for them.
func fontSafe(s string) string {
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	if !strings.ContainsFunc(s, notDrawn) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case format(r):
			return -1
		case r > 0xFFFF:
			return utf8.RuneError
		}
		return r
	}, s)
}

// notDrawn reports whether r is not drawn as itself: past U+FFFF, or a
// format character.
func notDrawn(r rune) bool { return r > 0xFFFF || format(r) }

// format reports whether r is a format character (U+00AD, the soft
// hyphen, is the first).
func format(r rune) bool { return r >= 0xAD && unicode.Is(unicode.Cf, r) }

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
