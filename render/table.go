package render

import (
	"cmp"
	"slices"
	"strconv"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Tables: their cells read from the template, their columns sized to
// their contents, and their rows drawn, the heading rows again on each
// page a table runs onto.

// A table is rows of cells, the first headerRows of them headings that are
// repeated at the top of each page the table runs onto (when they take at
// most maxRepeatedHeading).
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

// maxRepeatedHeading is the tallest the heading rows of a table may be, in
// points, to be repeated on each page it runs onto: a quarter of a page's
// text. Taller ones print once, at the table's start.
const maxRepeatedHeading = (pageH - marginTop - marginBottom) / 4

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
	// The headings are repeated, and kept with the first row under them,
	// only when they take at most a quarter of a page (maxRepeatedHeading):
	// taller ones would leave room for few rows or none under them, and a
	// table of thousands of rows would print a page, and draw every heading
	// again, for each row or few. Taller ones flow as rows do.
	headings := 0.0
	for k := range min(t.headerRows, len(rows)) {
		headings += rows[k].height
	}
	repeat := headings <= maxRepeatedHeading
	for i := range rows {
		// A page holds at least one body row under the headings.
		need := rows[i].height
		if i < t.headerRows && repeat {
			need = 0
			for k := i; k <= min(t.headerRows, len(rows)-1); k++ {
				need += rows[k].height
			}
		}
		if d.y+need > pageH-marginBottom && d.y > marginTop {
			d.newPage()
			if i >= t.headerRows && repeat {
				for k := range t.headerRows {
					draw(k)
				}
			}
		}
		draw(i)
	}
}
