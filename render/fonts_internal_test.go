package render

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// scripts is text in every script the fonts cover.
var scripts = []string{
	"The quick brown fox jumps over the lazy dog 0123456789",
	"Zoë Łukasiewicz, José Müller & Söhne, naïve café, Œuvre, ß",
	"Zażółć gęślą jaźń; Příliš žluťoučký kůň úpěl ďábelské ódy; Çağrı Öztürk, İstanbul",
	"Ελληνικά: Γαζέες καὶ μυρτιὲς δὲν θὰ βρῶ πιὰ",
	"Кириллица: Съешь же ещё этих мягких французских булок, да выпей чаю",
	"“Quotes” – dashes — ellipsis… • bullets ◦ ▪ € ™ ½ ¶",
	"a\uFFFDb ☃ \u00A0nbsp",
}

// fpdfUTF8 is an fpdf document with the face loaded as a UTF-8 font, the
// way letters were drawn before the fonts were read once per process.
func fpdfUTF8(t *testing.T, key string) *fpdf.Fpdf {
	t.Helper()
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	p.SetCompression(false)
	family, style := splitFontKey(key)
	p.AddUTF8FontFromBytes(family, style, fontFiles[key])
	p.SetFont(family, style, 11)
	if p.Err() {
		t.Fatal(p.Error())
	}
	return p
}

// TestFaceWidthsAreFpdfs holds text to the widths fpdf gives it in a UTF-8
// font, at the sizes letters are set in, so lines break where they did.
func TestFaceWidthsAreFpdfs(t *testing.T) {
	for _, key := range fontKeys {
		p := fpdfUTF8(t, key)
		f, err := faceOf(key)
		if err != nil {
			t.Fatal(err)
		}
		family, style := splitFontKey(key)
		for _, size := range []float64{6.5, 8.5, 9.35, 10.25, 11, 12.65, 18} {
			p.SetFont(family, style, size)
			for _, s := range scripts {
				for _, w := range strings.Fields(s) {
					if got, want := f.width(w, size), p.GetStringWidth(w); got != want {
						t.Errorf("%s %.2f pt: width of %q = %v, fpdf says %v", key, size, w, got, want)
					}
				}
			}
		}
	}
}

// TestFaceGlyphsAgreeWithWidths checks that a character has a glyph
// exactly when fpdf measures it as the font's own: a character the font
// lacks prints as the missing glyph, at the missing width.
func TestFaceGlyphsAgreeWithWidths(t *testing.T) {
	loadGlyphs()
	var b sfnt.Buffer
	for _, key := range fontKeys {
		f, err := faceOf(key)
		if err != nil {
			t.Fatal(err)
		}
		sf := glyphs.fonts[key]
		upem := float64(sf.UnitsPerEm())
		for r := rune(1); r < bmp; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			g := f.gids[r]
			if g == 0 {
				if int(f.widths[r]) != f.desc.MissingWidth {
					t.Fatalf("%s: U+%04X has no glyph but width %d, not the missing width %d", key, r, f.widths[r], f.desc.MissingWidth)
				}
				continue
			}
			adv, err := sf.GlyphAdvance(&b, sfnt.GlyphIndex(g), fixed.I(int(upem)), 0)
			if err != nil {
				t.Fatal(err)
			}
			want := int(float64(adv.Round())*1000/upem + 0.5)
			if got := int(f.widths[r]); got != want {
				t.Fatalf("%s: U+%04X glyph %d is %d wide, its advance makes %d", key, r, g, got, want)
			}
		}
	}
}

var rects = regexp.MustCompile(`[-\d.]+ [-\d.]+ [-\d.]+ [-\d.]+ re f`)

// TestTextRulesWhereFpdfDrawsThem holds underlines and strike-through to
// the place and size fpdf gives them in a UTF-8 font.
func TestTextRulesWhereFpdfDrawsThem(t *testing.T) {
	for _, key := range []string{"go", "goBI", "gomono"} {
		for _, deco := range []string{"U", "S"} {
			const x, y, s = 72.5, 300.25, "Keep this letter"
			p := fpdfUTF8(t, key)
			family, style := splitFontKey(key)
			p.SetFont(family, style+deco, 10.5)
			p.AddPage()
			p.Text(x, y, s)
			var want bytes.Buffer
			if err := p.Output(&want); err != nil {
				t.Fatal(err)
			}

			d := newDocument(Letter{Date: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
			d.newPage()
			st := inlineStyle{size: 10.5, bold: strings.Contains(style, "B"), italic: strings.Contains(style, "I"),
				mono: family == "gomono", underline: deco == "U", strike: deco == "S"}
			d.text(x, y, s, st)
			var got bytes.Buffer
			if err := d.pdf.Output(&got); err != nil {
				t.Fatal(err)
			}
			w, g := rects.FindAllString(want.String(), -1), rects.FindAllString(got.String(), -1)
			if len(w) != 1 || len(g) != 1 || w[0] != g[0] {
				t.Errorf("%s %s: rule %q, fpdf draws %q", key, deco, g, w)
			}
		}
	}
}

// TestSubsetFont reads back the font a letter embeds: a valid TrueType
// font whose glyphs for the letter's characters are those of the whole
// font, and whose other glyphs are empty.
func TestSubsetFont(t *testing.T) {
	loadGlyphs()
	for _, key := range []string{"go", "goI", "gomonoB"} {
		f, err := faceOf(key)
		if err != nil {
			t.Fatal(err)
		}
		used := "Zoë Łukasiewicz Příliš Ελληνικά Кириллица"
		u := &fontUse{face: f}
		u.encode(used)
		file := f.file.subsetFile(u.glyphSet())

		// The stream embedded is the same file.
		z, raw := u.appendFontFile(nil)
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		unz, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unz, file) || raw != len(file) {
			t.Fatalf("%s: the embedded stream is not the subset (%v, %d bytes of %d, length %d)", key, err, len(unz), len(file), raw)
		}

		if sum := ttfChecksum(file); sum != 0xB1B0AFBA {
			t.Errorf("%s: file checksum %08X, want B1B0AFBA", key, sum)
		}
		n := int(binary.BigEndian.Uint16(file[4:]))
		for i := range n {
			rec := file[12+16*i:]
			off, size := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
			if off%4 != 0 {
				t.Errorf("%s: table %s at offset %d, not on a four-byte boundary", key, rec[:4], off)
			}
			table := slices.Clone(file[off : off+size])
			if string(rec[:4]) == "head" {
				binary.BigEndian.PutUint32(table[8:], 0)
			}
			if got, want := binary.BigEndian.Uint32(rec[4:]), ttfChecksum(table); got != want {
				t.Errorf("%s: table %s checksum %08X, want %08X", key, rec[:4], got, want)
			}
		}

		sub, err := sfnt.Parse(file)
		if err != nil {
			t.Fatalf("%s: the subset does not parse: %v", key, err)
		}
		whole := glyphs.fonts[key]
		var b sfnt.Buffer
		outline := func(sf *sfnt.Font, r rune) int {
			gi, err := sf.GlyphIndex(&b, r)
			if err != nil || gi == 0 {
				t.Fatalf("%s: no glyph for %q: %v", key, r, err)
			}
			segs, err := sf.LoadGlyph(&b, gi, fixed.I(1000), nil)
			if err != nil {
				t.Fatalf("%s: glyph of %q: %v", key, r, err)
			}
			return len(segs)
		}
		for _, r := range used {
			if r == ' ' {
				continue
			}
			if got, want := outline(sub, r), outline(whole, r); got != want || got == 0 {
				t.Errorf("%s: %q has %d segments in the subset, %d in the font", key, r, got, want)
			}
		}
		for _, r := range "QXДΩ" {
			if n := outline(sub, r); n != 0 {
				t.Errorf("%s: %q is not printed but has an outline of %d segments", key, r, n)
			}
		}
	}
}
