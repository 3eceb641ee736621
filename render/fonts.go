package render

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"
)

// Fonts: what a letter needs of the Go fonts is read once per process, not
// once per letter.
//
// fpdf draws the letters, but embedding a UTF-8 font costs it, for every
// document, a parse of the whole font, a subset, and a new zlib compressor
// (about 650 KB of state) for each of the font's streams: most of the time
// and memory a letter took. So fpdf is handed a placeholder font for each
// face, which it draws with as it would with any font, and the placeholder
// is swapped for the real font when fpdf has written the document
// (embedFonts): a composite (Type 0) font with Identity-H encoding whose
// codes are the characters' UTF-16 units, the form fpdf gives UTF-8 fonts,
// so text is still extracted as the characters it is. The parts that are
// the same for every letter (widths, the map from characters to glyphs,
// the font's tables) are made once per face; a letter adds the outlines of
// the glyphs it prints.

// bmp is the number of characters a face maps: those of the Basic
// Multilingual Plane, the only ones fpdf can draw (fontSafe replaces the
// others).
const bmp = 1 << 16

// face is one of the letter fonts, ready to measure and embed.
type face struct {
	// key is the fpdf family and style, which names a letter font's file
	// in fontFiles; the placeholder is named "utf8" + key, as fpdf names
	// its fonts.
	key string
	// baseFont is the font's name in the PDF: "utf8" + key for a letter
	// font, its PostScript name for a brand font.
	baseFont string
	// widths is each character's advance in thousandths of an em, as fpdf
	// measures it: a character the font lacks has the font's missing
	// width.
	widths []uint16
	// gids is each character's glyph, 0 for those the font lacks.
	gids []uint16
	desc fpdf.FontDescType
	// up and ut are the underline's position and thickness in thousandths
	// of an em, rounded as fpdf rounds them.
	up, ut float64
	file   *ttf
	// bytes is the size of the font file a brand face was read from, as
	// TrueType: about what the face holds.
	bytes int
	// cidToGID is the PDF's CIDToGIDMap for the font, compressed: the same
	// for every letter, since a subset keeps the glyph numbers.
	cidToGID []byte
	// placeholder is the font definition fpdf draws with (see embedFonts).
	placeholder []byte
}

// faces are the letter fonts by key, each read on first use.
var faces = func() map[string]*faceOnce {
	m := map[string]*faceOnce{}
	for _, key := range fontKeys {
		m[key] = &faceOnce{}
	}
	return m
}()

type faceOnce struct {
	once sync.Once
	f    *face
	err  error
}

// faceOf returns the face for an fpdf family and style.
func faceOf(key string) (*face, error) {
	fo, ok := faces[key]
	if !ok {
		return nil, fmt.Errorf("no font %q", key)
	}
	fo.once.Do(func() { fo.f, fo.err = loadFace(key) })
	return fo.f, fo.err
}

// loadFace reads a face from its font file. The widths and the descriptor
// are fpdf's own, measured with the font loaded into fpdf once, so that
// text is laid out exactly as fpdf lays out a UTF-8 font.
func loadFace(key string) (*face, error) {
	data, ok := fontFiles[key]
	if !ok {
		return nil, fmt.Errorf("no font %q", key)
	}
	family, style := splitFontKey(key)
	f := &face{key: key, baseFont: "utf8" + key, widths: make([]uint16, bmp), gids: make([]uint16, bmp)}

	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	p.AddUTF8FontFromBytes(family, style, data)
	// At 1000 pt, a width in points is the width in thousandths of an em.
	p.SetFont(family, style, 1000)
	if p.Err() {
		return nil, fmt.Errorf("font %s: %w", key, p.Error())
	}
	f.desc = p.GetFontDesc(family, style)
	var buf [utf8.UTFMax]byte
	for r := range rune(bmp) {
		n := utf8.EncodeRune(buf[:], r)
		w := p.GetStringSymbolWidth(string(buf[:n]))
		if w < 0 || w > math.MaxUint16 {
			return nil, fmt.Errorf("font %s: width %d of U+%04X", key, w, r)
		}
		f.widths[r] = uint16(w)
	}

	loadGlyphs()
	sf := glyphs.fonts[key]
	var sb sfnt.Buffer
	for r := rune(1); r < bmp; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are not characters
		}
		if gi, err := sf.GlyphIndex(&sb, r); err == nil {
			f.gids[r] = uint16(gi)
		}
	}
	scale := 1000 / float64(sf.UnitsPerEm())
	post := sf.PostTable()
	f.up = float64(fpdfRound(float64(post.UnderlinePosition) * scale))
	f.ut = float64(fpdfRound(float64(post.UnderlineThickness) * scale))

	var err error
	if f.file, err = parseTTF(data); err != nil {
		return nil, fmt.Errorf("font %s: %w", key, err)
	}
	m := make([]byte, 2*bmp)
	for r, g := range f.gids {
		binary.BigEndian.PutUint16(m[2*r:], g)
	}
	f.cidToGID = deflateBest(m)

	// fpdf takes a font of type Core for one of the standard 14, which
	// it needs nothing of to draw with: it writes a one-line dictionary
	// for it and no widths, descriptor or font file.
	f.placeholder, err = json.Marshal(struct{ Tp, Name string }{"Core", "utf8" + key})
	return f, err
}

// fpdfRound rounds half away from zero, as fpdf rounds font metrics.
func fpdfRound(v float64) int {
	if v < 0 {
		return -int(math.Floor(-v + 0.5))
	}
	return int(math.Floor(v + 0.5))
}

// splitFontKey splits "gomonoBI" into "gomono" and "BI".
func splitFontKey(key string) (family, style string) {
	i := len(key)
	for i > 0 && (key[i-1] == 'B' || key[i-1] == 'I') {
		i--
	}
	return key[:i], key[i:]
}

// width is the width of s, in points, at size points: fpdf's arithmetic,
// so lines break where they did when fpdf measured them.
func (f *face) width(s string, size float64) float64 {
	w := 0
	for _, r := range s {
		if r < bmp {
			w += int(f.widths[r])
		} else {
			w += f.desc.MissingWidth
		}
	}
	return float64(w) * size / 1000
}

// fontUse is a face as one letter uses it: which characters it prints.
type fontUse struct {
	face *face
	used [bmp / 64]uint64
}

// encode returns s as the codes the embedded font is drawn with, UTF-16
// units big-endian (each character of the plane one unit), and marks its
// characters as used.
func (u *fontUse) encode(s string) string {
	b := make([]byte, 0, 2*len(s))
	for _, r := range s {
		if r >= bmp {
			r = utf8.RuneError
		}
		u.used[r/64] |= 1 << (r % 64)
		b = append(b, byte(r>>8), byte(r))
	}
	return string(b)
}

// runes calls yield for each character used, in order.
func (u *fontUse) runes(yield func(rune)) {
	for i, word := range u.used {
		for word != 0 {
			j := bits.TrailingZeros64(word)
			word &^= 1 << j
			yield(rune(64*i + j))
		}
	}
}

// glyphSet marks the glyphs of the characters used.
func (u *fontUse) glyphSet() []bool {
	set := make([]bool, len(u.face.file.loca)-1)
	u.runes(func(r rune) {
		if g := int(u.face.gids[r]); g < len(set) {
			set[g] = true
		}
	})
	return set
}

// appendFontFile appends to dst the font program the letter embeds, the
// glyphs of the characters it prints, as a zlib stream, and returns its
// uncompressed length. The tables that are the same for every letter were
// compressed once: the stream is the table directory as it is, then them,
// then the rest compressed now.
func (u *fontUse) appendFontFile(dst []byte) ([]byte, int) {
	f := u.face.file
	dir, rest := f.subset(u.glyphSet())
	dst = append(dst, zlibHeader...)
	dst = storedBlocks(dst, dir)
	dst = append(dst, f.fixedZ...)
	dst = deflateRaw(dst, rest)
	sum := adler32.New()
	sum.Write(dir)
	sum.Write(f.fixed)
	sum.Write(rest)
	return sum.Sum(dst), len(dir) + len(f.fixed) + len(rest)
}

// widthArray is the /W array of the characters used: the widths text was
// laid out with, so a viewer places each glyph where the layout did.
func (u *fontUse) widthArray() []byte {
	b := []byte("[")
	next := rune(-1)
	u.runes(func(r rune) {
		if r == 0 {
			return
		}
		if r != next {
			if next >= 0 {
				b = append(b, "] "...)
			}
			b = strconv.AppendInt(b, int64(r), 10)
			b = append(b, " ["...)
		} else {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, uint64(u.face.widths[r]), 10)
		next = r + 1
	})
	if next >= 0 {
		b = append(b, ']')
	}
	return append(b, ']')
}

// toUnicode is the ToUnicode CMap of a letter's fonts: each code is the
// character it is drawn for (the codes are UTF-16 units), written as one
// range for each high byte the letter's text has, in blocks of at most 100
// ranges as the format asks.
func toUnicode(uses []*fontUse) []byte {
	var high [256]bool
	for _, u := range uses {
		if u != nil {
			u.runes(func(r rune) { high[r>>8] = true })
		}
	}
	var ranges []int
	for h, ok := range high {
		if ok {
			ranges = append(ranges, h)
		}
	}
	b := []byte("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	for len(ranges) > 0 {
		block := ranges[:min(len(ranges), 100)]
		ranges = ranges[len(block):]
		b = fmt.Appendf(b, "%d beginbfrange\n", len(block))
		for _, h := range block {
			b = fmt.Appendf(b, "<%02X00> <%02XFF> <%02X00>\n", h, h, h)
		}
		b = append(b, "endbfrange\n"...)
	}
	return append(b, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend"...)
}
