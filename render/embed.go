package render

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// placeholderFont matches the font dictionary fpdf writes for a
// placeholder font, as for one of the standard 14 fonts.
var placeholderFont = regexp.MustCompile(`^<</Type /Font\n/BaseFont /(\S+)\n/Subtype /Type1\n`)

// trailerSize is the /Size entry of a trailer.
var trailerSize = regexp.MustCompile(`/Size \d+`)

// plainStream matches an object that is a stream fpdf wrote uncompressed.
var plainStream = regexp.MustCompile(`^<</Length (\d+)>>\nstream\n`)

// embedFonts rewrites a PDF that fpdf wrote for a document: each
// placeholder font (see fonts.go) becomes the font it stands for, embedded
// with the glyphs the letter prints, and each stream fpdf left uncompressed
// is compressed. Objects keep their numbers; the fonts' new parts are
// added after fpdf's last, and every object is written in number order.
func embedFonts(b []byte, uses []*fontUse) ([]byte, error) {
	x, err := readXref(b)
	if err != nil {
		return nil, err
	}
	if len(x.sections) != 1 || x.sections[0].start != 0 {
		return nil, errors.New("fpdf wrote a cross-reference table of more than one section")
	}
	entries := x.sections[0].entries
	// body is object n as fpdf wrote it, between "n 0 obj\n" and
	// "\nendobj\n".
	body := func(n int) ([]byte, error) {
		e := entries[n]
		obj := b[e.offset:x.end(e.offset)]
		head := strconv.Itoa(n) + " 0 obj\n"
		if !bytes.HasPrefix(obj, []byte(head)) || !bytes.HasSuffix(obj, []byte("\nendobj\n")) {
			return nil, fmt.Errorf("fpdf wrote object %d in a form this package does not read", n)
		}
		return obj[len(head) : len(obj)-len("\nendobj\n")], nil
	}
	byName := map[string]*fontUse{}
	for _, u := range uses {
		if u != nil {
			byName["utf8"+u.face.key] = u
		}
	}

	// The placeholders, each to become a font of five objects: its
	// dictionary (the placeholder's), and four added after fpdf's last.
	type font struct {
		u                          *fontUse
		dict, cid, desc, map_, ttf int
	}
	var fonts []font
	next := len(entries)
	toUnicodeNr := 0
	for n, e := range entries {
		if n == 0 || !e.inUse || len(fonts) == len(byName) {
			continue
		}
		obj, err := body(n)
		if err != nil {
			return nil, err
		}
		m := placeholderFont.FindSubmatch(obj)
		if m == nil {
			continue
		}
		u := byName[string(m[1])]
		if u == nil {
			return nil, fmt.Errorf("fpdf wrote a font %s that the letter did not use", m[1])
		}
		if toUnicodeNr == 0 {
			toUnicodeNr = next
			next++
		}
		fonts = append(fonts, font{u: u, dict: n, cid: next, desc: next + 1, map_: next + 2, ttf: next + 3})
		next += 4
	}
	if len(fonts) != len(byName) {
		return nil, errors.New("fpdf did not write every font the letter uses")
	}
	replaced := make(map[int][]byte, 3*len(fonts))
	for _, f := range fonts {
		name := f.u.face.baseFont
		replaced[f.dict] = fmt.Appendf(nil, "<</Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H\n"+
			"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R>>", name, f.cid, toUnicodeNr)
		c := fmt.Appendf(nil, "<</Type /Font /Subtype /CIDFontType2 /BaseFont /%s\n"+
			"/CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>>\n"+
			"/FontDescriptor %d 0 R /CIDToGIDMap %d 0 R", name, f.desc, f.map_)
		if mw := f.u.face.desc.MissingWidth; mw != 0 {
			c = fmt.Appendf(c, " /DW %d", mw)
		}
		c = append(c, "\n/W "...)
		c = append(c, f.u.widthArray()...)
		replaced[f.cid] = append(c, ">>"...)
		d := f.u.face.desc
		// A composite font's glyphs are symbolic (flag 3), not of the
		// standard Latin set (flag 6).
		replaced[f.desc] = fmt.Appendf(nil, "<</Type /FontDescriptor /FontName /%s /Flags %d\n"+
			"/FontBBox [%d %d %d %d] /ItalicAngle %d /Ascent %d /Descent %d /CapHeight %d /StemV %d /MissingWidth %d\n"+
			"/FontFile2 %d 0 R>>", name, (d.Flags|4)&^32,
			d.FontBBox.Xmin, d.FontBBox.Ymin, d.FontBBox.Xmax, d.FontBBox.Ymax,
			d.ItalicAngle, d.Ascent, d.Descent, d.CapHeight, d.StemV, d.MissingWidth, f.ttf)
	}

	size := len(b) + 1024
	for _, f := range fonts {
		size += len(f.u.face.cidToGID) + len(f.u.face.file.fixedZ) + 16<<10
	}
	out := make([]byte, 0, size)
	out = append(out, b[:x.starts[0]]...)
	offsets := make([]int, next)
	object := func(n int, obj []byte) {
		offsets[n] = len(out)
		out = strconv.AppendInt(out, int64(n), 10)
		out = append(out, " 0 obj\n"...)
		out = append(out, obj...)
		out = append(out, "\nendobj\n"...)
	}
	// scratch holds each stream as it is compressed, before its length is
	// written.
	var scratch []byte
	stream := func(n int, z []byte, dict string) {
		offsets[n] = len(out)
		out = fmt.Appendf(out, "%d 0 obj\n<<%s/Length %d>>\nstream\n", n, dict, len(z))
		out = append(out, z...)
		out = append(out, "\nendstream\nendobj\n"...)
	}
	for n, e := range entries {
		if n == 0 || !e.inUse {
			continue
		}
		if r, ok := replaced[n]; ok {
			object(n, r)
			continue
		}
		obj, err := body(n)
		if err != nil {
			return nil, err
		}
		if m := plainStream.FindSubmatch(obj); m != nil {
			data, ok := bytes.CutSuffix(obj[len(m[0]):], []byte("\nendstream"))
			if length, err := strconv.Atoi(string(m[1])); !ok || err != nil || length != len(data) {
				return nil, fmt.Errorf("fpdf wrote a stream whose length is not its /Length")
			}
			scratch = deflate(scratch[:0], data)
			stream(n, scratch, "/Filter /FlateDecode ")
			continue
		}
		offsets[n] = len(out)
		out = append(out, b[e.offset:x.end(e.offset)]...)
	}
	if toUnicodeNr > 0 {
		stream(toUnicodeNr, toUnicode(uses), "")
	}
	for _, f := range fonts {
		object(f.cid, replaced[f.cid])
		object(f.desc, replaced[f.desc])
		stream(f.map_, f.u.face.cidToGID, "/Filter /FlateDecode ")
		var raw int
		scratch, raw = f.u.appendFontFile(scratch[:0])
		stream(f.ttf, scratch, "/Filter /FlateDecode /Length1 "+strconv.Itoa(raw)+" ")
	}

	at := len(out)
	out = fmt.Appendf(out, "xref\n0 %d\n0000000000 65535 f \n", next)
	for n := 1; n < next; n++ {
		if n < len(entries) && !entries[n].inUse {
			out = fmt.Appendf(out, "%010d %05d f \n", entries[n].offset, entries[n].gen)
			continue
		}
		out = fmt.Appendf(out, "%010d 00000 n \n", offsets[n])
	}
	trailer := b[x.trailer:x.startxref]
	sizeAt := trailerSize.FindIndex(trailer)
	if sizeAt == nil {
		return nil, errors.New("fpdf wrote a trailer without /Size")
	}
	out = append(out, trailer[:sizeAt[0]]...)
	out = fmt.Appendf(out, "/Size %d", next)
	out = append(out, trailer[sizeAt[1]:]...)
	out = fmt.Appendf(out, "startxref\n%d\n%%%%EOF\n", at)
	return out, nil
}
