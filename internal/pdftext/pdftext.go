// Package pdftext reads the text of a PDF, page after page: what a test
// checks a letter printed (a name, a variable's value).
package pdftext

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Text returns the text of the PDF b, the pages in order, each line of
// text on a line of its own, runs of text on one line (a table's cells)
// apart by a space. A PDF the reader can not take is an
// error, never a panic: a letter may carry pages of an uploaded document.
func Text(b []byte) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("the PDF's text could not be read: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for n := 1; n <= r.NumPage(); n++ {
		p := r.Page(n)
		if p.V.IsNull() {
			continue
		}
		writeLines(&sb, p.Content().Text)
		// A page may have no content stream at all (a document's blank
		// page): it draws no forms either.
		if strm := p.V.Key("Contents"); !strm.IsNull() {
			budget := maxForms
			for _, text := range drawn(strm, p.Resources(), false, 0, &budget) {
				writeLines(&sb, text)
			}
		}
	}
	return sb.String(), nil
}

// maxForms bounds the form XObjects read on a page (nested ones too), and
// maxDepth how deep forms drawn by forms are followed: a document drawing
// one form a million times, or forms that draw each other, costs no more.
const (
	maxForms = 256
	maxDepth = 8
)

// drawn returns the text of the form XObjects the content stream strm
// draws (its Do operators, res its resources), each form's own text and
// then that of the forms it draws in turn, in the order they are drawn;
// with own, the text strm shows itself comes first. The reader reads a
// page's own content only, and a letter's address block over page one of
// a document (topFirstPage) is such a form: without this, the text of
// such a letter would lack its addresses.
func drawn(strm, res pdf.Value, own bool, depth int, budget *int) [][]pdf.Text {
	var out [][]pdf.Text
	var text []pdf.Text
	var nested [][]pdf.Text
	type state struct {
		font       pdf.TextEncoding
		size, lead float64
	}
	var g state
	var saved []state
	var tm, tlm [6]float64 // a b c d e f
	move := func(tx, ty float64) {
		tlm[4], tlm[5] = tx*tlm[0]+ty*tlm[2]+tlm[4], tx*tlm[1]+ty*tlm[3]+tlm[5]
		tm = tlm
	}
	show := func(s string) {
		if g.font != nil {
			s = g.font.Decode(s)
		}
		text = append(text, pdf.Text{FontSize: g.size * tm[3], X: tm[4], Y: tm[5], S: s})
	}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch {
		case op == "Do" && len(args) == 1:
			x := res.Key("XObject").Key(args[0].Name())
			if x.Key("Subtype").Name() != "Form" || depth >= maxDepth || *budget <= 0 {
				return
			}
			*budget--
			nested = append(nested, drawn(x, x.Key("Resources"), true, depth+1, budget)...)
		case !own:
		case op == "q":
			saved = append(saved, g)
		case op == "Q" && len(saved) > 0:
			g, saved = saved[len(saved)-1], saved[:len(saved)-1]
		case op == "BT":
			tm, tlm = [6]float64{1, 0, 0, 1, 0, 0}, [6]float64{1, 0, 0, 1, 0, 0}
		case op == "Tf" && len(args) == 2:
			f := pdf.Font{V: res.Key("Font").Key(args[0].Name())}
			g.font, g.size = f.Encoder(), args[1].Float64()
		case op == "TL" && len(args) == 1:
			g.lead = args[0].Float64()
		case op == "Tm" && len(args) == 6:
			for i := range tm {
				tm[i] = args[i].Float64()
			}
			tlm = tm
		case (op == "Td" || op == "TD") && len(args) == 2:
			if op == "TD" {
				g.lead = -args[1].Float64()
			}
			move(args[0].Float64(), args[1].Float64())
		case op == "T*":
			move(0, -g.lead)
		case (op == "Tj" || op == "'") && len(args) == 1, op == "\"" && len(args) == 3:
			if op != "Tj" {
				move(0, -g.lead)
			}
			show(args[len(args)-1].RawString())
		case op == "TJ" && len(args) == 1:
			var sb strings.Builder
			for i := 0; i < args[0].Len(); i++ {
				if v := args[0].Index(i); v.Kind() == pdf.String {
					sb.WriteString(v.RawString())
				}
			}
			show(sb.String())
		}
	})
	if len(text) > 0 {
		out = append(out, text)
	}
	return append(out, nested...)
}

// writeLines writes a page's text, in the order it is drawn: a line ends
// where the text moves up or down. A run of text that starts further along
// the same line than the run before could reach (a glyph is at most an em
// wide, and the reader knows no widths) is set apart by a space: a table's
// next cell, not a word in another style, which follows on directly.
func writeLines(sb *strings.Builder, text []pdf.Text) {
	const same = 0.5 // points: the same line, the same run
	var runX, reach float64
	for i, t := range text {
		if i > 0 {
			prev := text[i-1]
			switch {
			case math.Abs(t.Y-prev.Y) > same:
				sb.WriteByte('\n')
			case math.Abs(t.X-prev.X) > same && t.X > runX+reach+prev.FontSize && prev.S != " " && t.S != " ":
				sb.WriteByte(' ')
			}
			if math.Abs(t.Y-prev.Y) > same || math.Abs(t.X-prev.X) > same {
				runX, reach = t.X, 0
			}
		} else {
			runX = t.X
		}
		reach += float64(utf8.RuneCountInString(t.S)) * t.FontSize
		sb.WriteString(t.S)
	}
	if len(text) > 0 {
		sb.WriteByte('\n')
	}
}
