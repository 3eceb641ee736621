package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Brand fonts: a template's @font-face fonts, given with the letter
// (Letter.Resources). Each is embedded the way the letter fonts are (a
// composite font, subset to the glyphs printed, see fonts.go), and a
// character it lacks is printed in the letter font of the same style, as a
// browser falls back to the next font.

// CheckFont returns what keeps a font file from printing in a letter, or
// "" when it prints: it must be a TrueType font (.ttf, an OpenType .otf
// with TrueType outlines, or a WOFF2 font of either) that maps characters
// to glyphs.
func CheckFont(data []byte) string {
	_, err := brandFace(data)
	if err != nil {
		return err.Error()
	}
	return ""
}

// brandFaces remembers the brand faces read, by the SHA-256 of their file:
// reading one measures every character it has.
var brandFaces = struct {
	sync.Mutex
	m     map[[sha256.Size]byte]*face
	order [][sha256.Size]byte
	bytes int // of the faces kept
}{m: map[[sha256.Size]byte]*face{}}

// brandFacesKept is how many brand faces brandFaces keeps, and
// brandFacesBytes how many bytes of font files at most: a face holds its
// file, of up to 16 MiB, and any account's fonts fill the one cache.
const (
	brandFacesKept  = 32
	brandFacesBytes = 32 << 20
)

// brandFace returns the face of a font file, read once.
func brandFace(data []byte) (*face, error) {
	sum := sha256.Sum256(data)
	brandFaces.Lock()
	f, ok := brandFaces.m[sum]
	brandFaces.Unlock()
	if ok {
		return f, nil
	}
	f, err := loadBrandFace("brand"+hex.EncodeToString(sum[:6]), data)
	if err != nil {
		return nil, err
	}
	brandFaces.Lock()
	defer brandFaces.Unlock()
	if _, ok := brandFaces.m[sum]; !ok && f.bytes <= brandFacesBytes {
		for len(brandFaces.order) == brandFacesKept || brandFaces.bytes+f.bytes > brandFacesBytes {
			brandFaces.bytes -= brandFaces.m[brandFaces.order[0]].bytes
			delete(brandFaces.m, brandFaces.order[0])
			brandFaces.order = brandFaces.order[1:]
		}
		brandFaces.m[sum] = f
		brandFaces.order = append(brandFaces.order, sum)
		brandFaces.bytes += f.bytes
	}
	return f, nil
}

// loadBrandFace reads a TrueType font into a face: its widths from the
// font's own metrics, in thousandths of an em.
func loadBrandFace(key string, data []byte) (f *face, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, errors.New("the font can not be read: it is damaged")
		}
	}()
	if data, err = sfntOf(data); err != nil {
		return nil, err
	}
	sf, err := sfnt.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the font can not be read: %w", err)
	}
	file, err := parseTTF(data)
	if err != nil {
		if len(data) >= 4 && string(data[:4]) == "OTTO" {
			return nil, errors.New("the font has PostScript (CFF) outlines, which a letter can not embed: use a TrueType font (.ttf)")
		}
		return nil, fmt.Errorf("the font can not be embedded: %w", err)
	}
	f = &face{key: key, widths: make([]uint16, bmp), gids: make([]uint16, bmp), file: file, bytes: len(data)}
	var sb sfnt.Buffer
	upem := sf.UnitsPerEm()
	ppem := fixed.Int26_6(upem) << 6
	scale := 1000 / float64(upem)
	advance := func(g sfnt.GlyphIndex) uint16 {
		a, err := sf.GlyphAdvance(&sb, g, ppem, font.HintingNone)
		if err != nil {
			return 0
		}
		return uint16(min(math.MaxUint16, max(0, fpdfRound(float64(a)/64*scale))))
	}
	mapped := 0
	for r := rune(1); r < bmp; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		gi, err := sf.GlyphIndex(&sb, r)
		if err != nil || gi == 0 || int(gi) >= len(file.loca)-1 {
			continue
		}
		f.gids[r] = uint16(gi)
		f.widths[r] = advance(gi)
		mapped++
	}
	if mapped == 0 {
		return nil, errors.New("the font maps no characters to glyphs")
	}
	m, err := sf.Metrics(&sb, ppem, font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("the font can not be read: %w", err)
	}
	bounds, err := sf.Bounds(&sb, ppem, font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("the font can not be read: %w", err)
	}
	units := func(v fixed.Int26_6) int { return fpdfRound(float64(v) / 64 * scale) }
	post := sf.PostTable()
	f.desc = fpdf.FontDescType{
		Ascent: units(m.Ascent), Descent: -units(m.Descent), CapHeight: units(m.CapHeight),
		Flags: 32, ItalicAngle: int(post.ItalicAngle), StemV: 80,
		MissingWidth: int(advance(0)),
	}
	if f.desc.CapHeight == 0 {
		f.desc.CapHeight = f.desc.Ascent
	}
	if post.ItalicAngle != 0 {
		f.desc.Flags |= 64
	}
	// sfnt's y axis points down.
	f.desc.FontBBox.Xmin, f.desc.FontBBox.Xmax = units(bounds.Min.X), units(bounds.Max.X)
	f.desc.FontBBox.Ymin, f.desc.FontBBox.Ymax = -units(bounds.Max.Y), -units(bounds.Min.Y)
	f.up = float64(fpdfRound(float64(post.UnderlinePosition) * scale))
	f.ut = float64(fpdfRound(float64(post.UnderlineThickness) * scale))
	if f.ut <= 0 {
		f.ut = 50
	}
	f.baseFont = postScriptName(sf, &sb, key)
	cid := make([]byte, 2*bmp)
	for r, g := range f.gids {
		binary.BigEndian.PutUint16(cid[2*r:], g)
	}
	f.cidToGID = deflateBest(cid)
	f.placeholder, err = json.Marshal(struct{ Tp, Name string }{"Core", "utf8" + key})
	return f, err
}

// postScriptName is the font's PostScript name, as a PDF name may hold it,
// else def.
func postScriptName(sf *sfnt.Font, sb *sfnt.Buffer, def string) string {
	name, err := sf.Name(sb, sfnt.NameIDPostScript)
	if err != nil {
		return def
	}
	name = strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7F && !strings.ContainsRune("[](){}<>/%#", r) {
			return r
		}
		return -1
	}, name)
	if name == "" {
		return def
	}
	return name
}

// covers reports whether the face has a glyph for every character of s.
func (f *face) covers(s string) bool {
	for _, r := range s {
		if r >= bmp || f.gids[r] == 0 {
			return false
		}
	}
	return true
}

// brandSlots reads the brand faces a letter's style sheet declares from
// its resources, and returns for each declared family the slot of its face
// for each style (regular, italic, bold, bold italic: faceIndex's bits),
// the nearest declared style standing in for one not declared. A family
// whose fonts are not given prints in the letter fonts.
func (d *document) brandSlots(ss *styleSheet, resources map[string]Resource) error {
	if ss == nil || len(ss.families) == 0 {
		return nil
	}
	d.brand = make([][4]int, len(ss.families))
	for i := range d.brand {
		d.brand[i] = [4]int{-1, -1, -1, -1}
	}
	for _, r := range ss.faces {
		res, ok := resources[r.src]
		if !ok || len(res.Data) == 0 {
			if r.src != "" && !ok {
				return fmt.Errorf("the font %q of family %q was not given", r.src, r.family)
			}
			continue
		}
		f, err := brandFace(res.Data)
		if err != nil {
			return fmt.Errorf("font of family %q: %w", r.family, err)
		}
		slot := -1
		for i := len(fontKeys); i < len(d.faces); i++ {
			if d.faces[i] == f {
				slot = i
			}
		}
		if slot < 0 {
			slot = len(d.faces)
			d.faces = append(d.faces, f)
			d.uses = append(d.uses, nil)
		}
		style := 0
		if r.bold {
			style |= 2
		}
		if r.italic {
			style |= 1
		}
		d.brand[ss.familyID(r.family)-1][style] = slot
	}
	for i := range d.brand {
		s := &d.brand[i]
		// Nearest first: the other slant, then the other weight, then both.
		for style := range s {
			for _, alt := range [...]int{style ^ 1, style ^ 2, style ^ 3} {
				if s[style] < 0 && s[alt] >= 0 {
					s[style] = s[alt]
				}
			}
		}
	}
	return nil
}
