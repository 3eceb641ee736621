package render

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// This file subsets a TrueType font for embedding: a letter carries the
// outlines of the glyphs it prints and no others. Glyphs keep their
// numbers (an unused glyph is left empty, as a space is), so the map from
// characters to glyphs is the same for every letter and is built once per
// font, and only the glyph outlines and their index change from letter to
// letter.

// ttfTable is one table of a TrueType font.
type ttfTable struct {
	tag  string
	data []byte
}

// ttf is a TrueType font read for subsetting.
type ttf struct {
	// tables are the tables a subset carries unchanged, "glyf", "loca" and
	// "head" aside, sorted by tag.
	tables []ttfTable
	head   []byte
	glyf   []byte
	hmtx   []byte
	// hMetrics is the number of glyphs with an advance in hmtx; those
	// after it have only a left side bearing.
	hMetrics int
	// loca holds each glyph's offset in glyf, and one past the last.
	loca []uint32
	// longLoca is the font's index format: 32-bit offsets, else 16-bit
	// offsets halved.
	longLoca bool
}

// parseTTF reads the tables of a TrueType font that a subset needs.
func parseTTF(b []byte) (*ttf, error) {
	if len(b) < 12 {
		return nil, errors.New("truncated font")
	}
	n := int(binary.BigEndian.Uint16(b[4:]))
	if len(b) < 12+16*n {
		return nil, errors.New("truncated table directory")
	}
	f := &ttf{}
	var maxp, loca, hhea []byte
	for i := range n {
		rec := b[12+16*i:]
		tag := string(rec[:4])
		off, size := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(size) > uint64(len(b)) {
			return nil, fmt.Errorf("table %q runs past the end of the font", tag)
		}
		data := b[off : off+size]
		switch tag {
		case "head":
			f.head = data
		case "glyf":
			f.glyf = data
		case "loca":
			loca = data
		case "hmtx":
			f.hmtx = data
		case "post":
			// Glyph names are not needed to print: a format 3 table has none.
			if len(data) < 32 {
				return nil, errors.New("truncated post table")
			}
			post := slices.Clone(data[:32])
			binary.BigEndian.PutUint32(post, 0x00030000)
			f.tables = append(f.tables, ttfTable{tag, post})
		default:
			switch tag {
			case "maxp":
				maxp = data
			case "hhea":
				hhea = data
			}
			f.tables = append(f.tables, ttfTable{tag, data})
		}
	}
	if len(f.head) < 54 || f.glyf == nil || loca == nil || len(maxp) < 6 || len(hhea) < 36 {
		return nil, errors.New("not a TrueType font with outlines")
	}
	f.longLoca = binary.BigEndian.Uint16(f.head[50:]) == 1
	numGlyphs := int(binary.BigEndian.Uint16(maxp[4:]))
	f.hMetrics = int(binary.BigEndian.Uint16(hhea[34:]))
	if f.hMetrics == 0 || f.hMetrics > numGlyphs || len(f.hmtx) < 4*f.hMetrics+2*(numGlyphs-f.hMetrics) {
		return nil, errors.New("bad hmtx table")
	}
	f.loca = make([]uint32, numGlyphs+1)
	for i := range f.loca {
		if f.longLoca {
			if len(loca) < 4*(i+1) {
				return nil, errors.New("truncated loca table")
			}
			f.loca[i] = binary.BigEndian.Uint32(loca[4*i:])
		} else {
			if len(loca) < 2*(i+1) {
				return nil, errors.New("truncated loca table")
			}
			f.loca[i] = 2 * uint32(binary.BigEndian.Uint16(loca[2*i:]))
		}
		if f.loca[i] > uint32(len(f.glyf)) || (i > 0 && f.loca[i] < f.loca[i-1]) {
			return nil, errors.New("bad loca table")
		}
	}
	slices.SortFunc(f.tables, func(a, b ttfTable) int { return compareTags(a.tag, b.tag) })
	return f, nil
}

func compareTags(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// glyph is the outline of glyph g.
func (f *ttf) glyph(g int) []byte {
	if g < 0 || g+1 >= len(f.loca) {
		return nil
	}
	return f.glyf[f.loca[g]:f.loca[g+1]]
}

// Flags of a composite glyph's component.
const (
	argsAreWords    = 0x0001
	weHaveAScale    = 0x0008
	moreComponents  = 0x0020
	weHaveAnXYScale = 0x0040
	weHaveATwoByTwo = 0x0080
)

// components adds to used the glyphs a composite glyph g is made of, and
// theirs in turn.
func (f *ttf) components(g int, used []bool) {
	data := f.glyph(g)
	if len(data) < 10 || int16(binary.BigEndian.Uint16(data)) >= 0 {
		return
	}
	p := 10
	for p+4 <= len(data) {
		flags := binary.BigEndian.Uint16(data[p:])
		c := int(binary.BigEndian.Uint16(data[p+2:]))
		if c < len(used) && !used[c] {
			used[c] = true
			f.components(c, used)
		}
		p += 4
		if flags&argsAreWords != 0 {
			p += 4
		} else {
			p += 2
		}
		switch {
		case flags&weHaveAScale != 0:
			p += 2
		case flags&weHaveAnXYScale != 0:
			p += 4
		case flags&weHaveATwoByTwo != 0:
			p += 8
		}
		if flags&moreComponents == 0 {
			return
		}
	}
}

// subset returns the font with only the outlines of the glyphs marked in
// used (which it may add to: glyph 0, and the parts of composite glyphs).
// Every other glyph keeps its number and metrics and has no outline.
func (f *ttf) subset(used []bool) []byte {
	used[0] = true
	for g, u := range used {
		if u {
			f.components(g, used)
		}
	}
	// The new glyf and loca tables.
	var glyfLen uint32
	for g, u := range used {
		if u {
			glyfLen += uint32(len(f.glyph(g)))
		}
	}
	locaLen := 2 * len(f.loca)
	if f.longLoca {
		locaLen = 4 * len(f.loca)
	}
	tables := make([]ttfTable, 0, len(f.tables)+3)
	tables = append(tables, f.tables...)
	tables = append(tables, ttfTable{tag: "glyf"}, ttfTable{tag: "head"}, ttfTable{tag: "hmtx"}, ttfTable{tag: "loca"})
	slices.SortFunc(tables, func(a, b ttfTable) int { return compareTags(a.tag, b.tag) })

	// The file: the table directory, then each table on a four-byte
	// boundary, in tag order.
	dirLen := 12 + 16*len(tables)
	size := dirLen
	for _, t := range tables {
		n := len(t.data)
		switch t.tag {
		case "glyf":
			n = int(glyfLen)
		case "head":
			n = len(f.head)
		case "hmtx":
			n = len(f.hmtx)
		case "loca":
			n = locaLen
		}
		size += pad4(n)
	}
	out := make([]byte, size)
	be := binary.BigEndian
	be.PutUint32(out, 0x00010000)
	be.PutUint16(out[4:], uint16(len(tables)))
	sel := 0
	for 1<<(sel+1) <= len(tables) {
		sel++
	}
	be.PutUint16(out[6:], uint16(16<<sel))
	be.PutUint16(out[8:], uint16(sel))
	be.PutUint16(out[10:], uint16(16*len(tables)-16<<sel))
	at := dirLen
	headAt := 0
	for i, t := range tables {
		var data []byte
		switch t.tag {
		case "glyf":
			data = out[at : at+int(glyfLen)]
			var off uint32
			for g, u := range used {
				if u {
					off += uint32(copy(data[off:], f.glyph(g)))
				}
			}
		case "loca":
			data = out[at : at+locaLen]
			var off uint32
			for g := range f.loca {
				if f.longLoca {
					be.PutUint32(data[4*g:], off)
				} else {
					be.PutUint16(data[2*g:], uint16(off/2))
				}
				if g < len(used) && used[g] {
					off += uint32(len(f.glyph(g)))
				}
			}
		case "head":
			data = out[at : at+len(f.head)]
			copy(data, f.head)
			// checkSumAdjustment is set once the whole file is made.
			be.PutUint32(data[8:], 0)
			headAt = at
		case "hmtx":
			// The metrics of glyphs not printed are of no use, and zeros
			// compress to almost nothing.
			data = out[at : at+len(f.hmtx)]
			copy(data, f.hmtx)
			// The last advance is kept: glyphs after it share it.
			for g := range len(f.loca) - 1 {
				switch {
				case g < len(used) && used[g], g == f.hMetrics-1:
				case g < f.hMetrics:
					clear(data[4*g : 4*g+4])
				default:
					p := 4*f.hMetrics + 2*(g-f.hMetrics)
					clear(data[p : p+2])
				}
			}
		default:
			data = out[at : at+len(t.data)]
			copy(data, t.data)
		}
		rec := out[12+16*i:]
		copy(rec, t.tag)
		be.PutUint32(rec[4:], ttfChecksum(data))
		be.PutUint32(rec[8:], uint32(at))
		be.PutUint32(rec[12:], uint32(len(data)))
		at += pad4(len(data))
	}
	be.PutUint32(out[headAt+8:], 0xB1B0AFBA-ttfChecksum(out))
	return out
}

func pad4(n int) int { return (n + 3) &^ 3 }

// ttfChecksum is the sum of b as big-endian 32-bit words, zero-padded.
func ttfChecksum(b []byte) uint32 {
	var sum uint32
	for len(b) >= 4 {
		sum += binary.BigEndian.Uint32(b)
		b = b[4:]
	}
	if len(b) > 0 {
		var last [4]byte
		copy(last[:], b)
		sum += binary.BigEndian.Uint32(last[:])
	}
	return sum
}
