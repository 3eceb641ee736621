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

// ttf is a TrueType font read for subsetting. A subset is laid out as the
// table directory, the tables that are the same in every subset (fixed),
// then head, hmtx, loca and glyf.
type ttf struct {
	// tags are the subset's tables, sorted, as the directory lists them.
	tags []string
	// fixed holds the unchanged tables, each padded to four bytes, as they
	// are laid out from fixedAt; fixedRecs are their directory records by
	// tag, and fixedZ is fixed deflated once (see deflateFixed).
	fixed     []byte
	fixedAt   int
	fixedRecs map[string][16]byte
	fixedSum  uint32
	fixedZ    []byte
	head      []byte
	glyf      []byte
	hmtx      []byte
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
	var fixed []ttfTable
	var maxp, loca, hhea []byte
	for i := range n {
		rec := b[12+16*i:]
		tag := string(rec[:4])
		off, size := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(size) > uint64(len(b)) {
			return nil, fmt.Errorf("table %q runs past the end of the font", tag)
		}
		data := b[off : off+size]
		f.tags = append(f.tags, tag)
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
			fixed = append(fixed, ttfTable{tag, post})
		default:
			switch tag {
			case "maxp":
				maxp = data
			case "hhea":
				hhea = data
			}
			fixed = append(fixed, ttfTable{tag, data})
		}
	}
	if len(f.head) < 54 || f.glyf == nil || loca == nil || f.hmtx == nil || len(maxp) < 6 || len(hhea) < 36 {
		return nil, errors.New("not a TrueType font with outlines")
	}
	slices.Sort(f.tags)
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
	f.fixedAt = 12 + 16*len(f.tags)
	f.fixedRecs = map[string][16]byte{}
	for _, t := range fixed {
		var rec [16]byte
		copy(rec[:], t.tag)
		sum := ttfChecksum(t.data)
		binary.BigEndian.PutUint32(rec[4:], sum)
		binary.BigEndian.PutUint32(rec[8:], uint32(f.fixedAt+len(f.fixed)))
		binary.BigEndian.PutUint32(rec[12:], uint32(len(t.data)))
		f.fixedRecs[t.tag] = rec
		f.fixedSum += sum
		f.fixed = append(f.fixed, t.data...)
		f.fixed = append(f.fixed, make([]byte, pad4(len(t.data))-len(t.data))...)
	}
	f.fixedZ = deflateFixed(f.fixed)
	return f, nil
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
// used (which it may add to: glyph 0, and the parts of composite glyphs),
// in two parts: the table directory, and what follows the fixed tables.
// Every other glyph keeps its number and has no outline and no metrics.
func (f *ttf) subset(used []bool) (dir, rest []byte) {
	used[0] = true
	for g, u := range used {
		if u {
			f.components(g, used)
		}
	}
	glyfLen := 0
	for g, u := range used {
		if u {
			glyfLen += len(f.glyph(g))
		}
	}
	locaLen := 2 * len(f.loca)
	if f.longLoca {
		locaLen = 4 * len(f.loca)
	}
	be := binary.BigEndian
	restAt := f.fixedAt + len(f.fixed)
	rest = make([]byte, pad4(len(f.head))+pad4(len(f.hmtx))+pad4(locaLen)+pad4(glyfLen))
	var recs [4][16]byte
	at := 0
	table := func(i int, tag string, n int) []byte {
		data := rest[at : at+n]
		copy(recs[i][:], tag)
		be.PutUint32(recs[i][8:], uint32(restAt+at))
		be.PutUint32(recs[i][12:], uint32(n))
		at += pad4(n)
		return data
	}

	head := table(0, "head", len(f.head))
	copy(head, f.head)
	// checkSumAdjustment is set once the whole file is summed.
	be.PutUint32(head[8:], 0)

	hmtx := table(1, "hmtx", len(f.hmtx))
	copy(hmtx, f.hmtx)
	// The metrics of glyphs not printed are of no use, and zeros compress
	// to almost nothing. The last advance is kept: glyphs after it share
	// it.
	for g := range len(f.loca) - 1 {
		switch {
		case g < len(used) && used[g], g == f.hMetrics-1:
		case g < f.hMetrics:
			clear(hmtx[4*g : 4*g+4])
		default:
			p := 4*f.hMetrics + 2*(g-f.hMetrics)
			clear(hmtx[p : p+2])
		}
	}

	loca := table(2, "loca", locaLen)
	glyf := table(3, "glyf", glyfLen)
	off := 0
	for g := range f.loca {
		if f.longLoca {
			be.PutUint32(loca[4*g:], uint32(off))
		} else {
			be.PutUint16(loca[2*g:], uint16(off/2))
		}
		if g < len(used) && used[g] {
			off += copy(glyf[off:], f.glyph(g))
		}
	}

	sum := f.fixedSum
	for i, data := range [][]byte{head, hmtx, loca, glyf} {
		s := ttfChecksum(data)
		be.PutUint32(recs[i][4:], s)
		sum += s
	}

	dir = make([]byte, f.fixedAt)
	be.PutUint32(dir, 0x00010000)
	be.PutUint16(dir[4:], uint16(len(f.tags)))
	sel := 0
	for 1<<(sel+1) <= len(f.tags) {
		sel++
	}
	be.PutUint16(dir[6:], uint16(16<<sel))
	be.PutUint16(dir[8:], uint16(sel))
	be.PutUint16(dir[10:], uint16(16*len(f.tags)-16<<sel))
	for i, tag := range f.tags {
		rec, ok := f.fixedRecs[tag]
		if !ok {
			rec = recs[slices.Index([]string{"head", "hmtx", "loca", "glyf"}, tag)]
		}
		copy(dir[12+16*i:], rec[:])
	}
	sum += ttfChecksum(dir)
	be.PutUint32(head[8:], 0xB1B0AFBA-sum)
	return dir, rest
}

// subsetFile is the whole subset font file, as embedded.
func (f *ttf) subsetFile(used []bool) []byte {
	dir, rest := f.subset(used)
	return slices.Concat(dir, f.fixed, rest)
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
