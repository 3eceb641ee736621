package render

import "strings"

// Laying blocks of text out: lines broken to a width, flowed down the
// page and onto the next.

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
