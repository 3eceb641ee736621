package render

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// xref is the classic cross-reference table of a PDF that fpdf or pdfcpu
// wrote (no object streams, no cross-reference stream), read to rewrite
// the file object by object. Only the offsets the writer recorded are
// read: each object runs from its offset to the next one's.
type xref struct {
	sections []xrefSection
	// at is the offset of the table, trailer of its trailer, startxref of
	// the startxref line.
	at, trailer, startxref int
	// starts are the offsets of the objects in use, in file order.
	starts []int
}

type xrefSection struct {
	start   int
	entries []xrefEntry
}

type xrefEntry struct {
	offset, gen int
	inUse       bool
}

// readXref reads the cross-reference table at the end of b.
func readXref(b []byte) (*xref, error) {
	sx := bytes.LastIndex(b, []byte("startxref"))
	if sx < 0 {
		return nil, errors.New("the written PDF has no startxref")
	}
	fields := bytes.Fields(b[sx+len("startxref"):])
	if len(fields) == 0 {
		return nil, errors.New("the written PDF's startxref has no offset")
	}
	xrefAt, err := strconv.Atoi(string(fields[0]))
	if err != nil || xrefAt <= 0 || xrefAt >= sx || !bytes.HasPrefix(b[xrefAt:], []byte("xref")) {
		return nil, errors.New("the written PDF's startxref does not point at a cross-reference table")
	}
	x := &xref{at: xrefAt, trailer: -1, startxref: sx}
	lines := bytes.Split(b[xrefAt:sx], []byte("\n"))
	i := 1
	pos := xrefAt + len(lines[0]) + 1
	for i < len(lines) {
		ln := bytes.TrimSpace(lines[i])
		if bytes.HasPrefix(ln, []byte("trailer")) {
			x.trailer = pos
			break
		}
		head := bytes.Fields(ln)
		if len(head) != 2 {
			return nil, fmt.Errorf("the written PDF's cross-reference table has a line %q", ln)
		}
		start, err1 := strconv.Atoi(string(head[0]))
		count, err2 := strconv.Atoi(string(head[1]))
		if err1 != nil || err2 != nil || count < 0 || i+count >= len(lines) {
			return nil, fmt.Errorf("the written PDF's cross-reference table has a line %q", ln)
		}
		pos += len(lines[i]) + 1
		sec := xrefSection{start: start, entries: make([]xrefEntry, 0, count)}
		for j := 1; j <= count; j++ {
			f := bytes.Fields(lines[i+j])
			if len(f) != 3 {
				return nil, fmt.Errorf("the written PDF's cross-reference table has an entry %q", lines[i+j])
			}
			off, err1 := strconv.Atoi(string(f[0]))
			gen, err2 := strconv.Atoi(string(f[1]))
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("the written PDF's cross-reference table has an entry %q", lines[i+j])
			}
			sec.entries = append(sec.entries, xrefEntry{offset: off, gen: gen, inUse: string(f[2]) == "n"})
			pos += len(lines[i+j]) + 1
		}
		x.sections = append(x.sections, sec)
		i += count + 1
	}
	if x.trailer < 0 {
		return nil, errors.New("the written PDF has no trailer after its cross-reference table")
	}
	for _, sec := range x.sections {
		for _, e := range sec.entries {
			if e.inUse {
				if e.offset <= 0 || e.offset >= xrefAt {
					return nil, fmt.Errorf("the written PDF has an object at offset %d, outside its body", e.offset)
				}
				x.starts = append(x.starts, e.offset)
			}
		}
	}
	if len(x.starts) == 0 {
		return nil, errors.New("the written PDF has no objects")
	}
	slices.Sort(x.starts)
	return x, nil
}

// end is where the object at offset off ends: where the next begins.
func (x *xref) end(off int) int {
	k, _ := slices.BinarySearch(x.starts, off)
	if k+1 < len(x.starts) {
		return x.starts[k+1]
	}
	return x.at
}

// inNumberOrder returns a PDF that pdfcpu wrote (a classic cross-reference
// table, no object streams) with its objects in the order of their numbers.
// pdfcpu writes each object once, but in an order that follows Go's map
// iteration, so two runs give the same objects in different places.
func inNumberOrder(b []byte) ([]byte, error) {
	x, err := readXref(b)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:x.starts[0]]...)
	var table bytes.Buffer
	table.WriteString("xref\n")
	for _, sec := range x.sections {
		fmt.Fprintf(&table, "%d %d\n", sec.start, len(sec.entries))
		for _, e := range sec.entries {
			if !e.inUse {
				fmt.Fprintf(&table, "%010d %05d f \n", e.offset, e.gen)
				continue
			}
			fmt.Fprintf(&table, "%010d %05d n \n", len(out), e.gen)
			out = append(out, b[e.offset:x.end(e.offset)]...)
		}
	}
	at := len(out)
	out = append(out, table.Bytes()...)
	out = append(out, b[x.trailer:x.startxref]...)
	out = append(out, fmt.Sprintf("startxref\n%d\n%%%%EOF\n", at)...)
	return out, nil
}
