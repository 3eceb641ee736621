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
	}
	return sb.String(), nil
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
