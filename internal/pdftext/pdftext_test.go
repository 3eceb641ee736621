package pdftext_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/pdftext"
	"github.com/lettershop/lettershop/render"
)

// The text of a rendered letter, its addresses and its content, a line
// of text a line, in the order the page prints them, letters beyond ASCII
// included: words in another style run on, a table's cells stand apart.
func TestText(t *testing.T) {
	b, err := render.Render(render.Letter{
		ID:        "ltr_text",
		Date:      time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC),
		Sender:    []string{"Zoë Łukasiewicz", "12 Harbor Road", "Portland, ME 04101"},
		Recipient: []string{"José Müller", "742 Evergreen Terrace", "Springfield, IL 62704"},
		Type:      "text/html",
		Content: []byte("<h1>Dear José</h1><p>Your order <b>WWW-1234</b>, <i>in full</i>, has shipped.</p>" +
			"<table><tr><th>Item</th><th>Qty</th></tr><tr><td>Paper</td><td>12</td></tr></table>"),
	})
	if err != nil {
		t.Fatal(err)
	}
	text, err := pdftext.Text(b)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"Zoë Łukasiewicz", "12 Harbor Road", "Portland, ME 04101",
		"José Müller", "742 Evergreen Terrace", "Springfield, IL 62704",
		"March 2, 2026", "Dear José", "Your order WWW-1234, in full, has shipped.",
		"Item Qty", "Paper 12", "",
	}, "\n")
	if text != want {
		t.Errorf("text\n%s\nwant\n%s", text, want)
	}
}

// What is no PDF, or a PDF cut short, is an error, never a panic.
func TestTextOfNoPDF(t *testing.T) {
	b, err := render.Render(render.Letter{ID: "ltr_cut", Sender: []string{"A", "1 A St", "Reston, VA 20190"},
		Recipient: []string{"B", "2 B St", "Reston, VA 20190"}, Type: "text/html", Content: []byte("<p>Hi</p>")})
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{nil, []byte("not a pdf"), b[:len(b)/2], []byte("%PDF-1.4\n%%EOF\n")} {
		if text, err := pdftext.Text(data); err == nil && text != "" {
			t.Errorf("%q...: text %q with no error", data[:min(len(data), 12)], text)
		}
	}
}

// A document's letter with its address block over page one (topFirstPage)
// has the block drawn as a form over the page: its text is read too, after
// the page's own, as is the text of a document's own forms.
func TestTextOfFormsOverAPage(t *testing.T) {
	doc, err := render.Render(render.Letter{ID: "ltr_doc", Sender: []string{"A", "1 A St", "Reston, VA 20190"},
		Recipient: []string{"B", "2 B St", "Reston, VA 20190"}, Type: "text/html", Content: []byte("<p>Statement for Jane</p>")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.Render(render.Letter{
		ID:        "ltr_top",
		Sender:    []string{"Acme Corp", "100 Main St", "Springfield, IL 62701"},
		Recipient: []string{"José Müller", "200 Oak Ave", "Chicago, IL 60601"},
		Type:      "application/pdf",
		Content:   doc,
		Placement: render.TopFirstPage,
	})
	if err != nil {
		t.Fatal(err)
	}
	text, err := pdftext.Text(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Statement for Jane", "Acme Corp\n100 Main St\nSpringfield, IL 62701", "José Müller\n200 Oak Ave\nChicago, IL 60601"} {
		if !strings.Contains(text, want) {
			t.Errorf("text\n%s\nlacks\n%s", text, want)
		}
	}
}

// blankPages is a PDF of n pages with no content stream: a page's
// Contents may be left out (ISO 32000-1, 7.7.3.3), as tools that add a
// blank page do.
func blankPages(n int) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	var kids []string
	for i := 0; i < n; i++ {
		kids = append(kids, fmt.Sprintf("%d 0 R", 3+i))
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	var offs []int
	for i, o := range objs {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}

// A page without a content stream (a blank page of a document) has no
// text; the other pages' text is read all the same, whether the address
// block is on a page of its own or drawn over the blank first page.
func TestTextOfABlankPage(t *testing.T) {
	for _, placement := range []render.Placement{"", render.TopFirstPage} {
		b, err := render.Render(render.Letter{
			ID:        "ltr_blank",
			Sender:    []string{"Acme Corp", "100 Main St", "Springfield, IL 62701"},
			Recipient: []string{"Jane Doe", "200 Oak Ave", "Chicago, IL 60601"},
			Type:      "application/pdf",
			Content:   blankPages(2),
			Placement: placement,
		})
		if err != nil {
			t.Fatalf("%q: %v", placement, err)
		}
		text, err := pdftext.Text(b)
		if err != nil {
			t.Fatalf("%q: %v", placement, err)
		}
		if want := "Acme Corp\n100 Main St\nSpringfield, IL 62701\nJane Doe\n200 Oak Ave\nChicago, IL 60601\n"; !strings.HasPrefix(text, want) {
			t.Errorf("%q: text\n%s\nwant it to begin\n%s", placement, text, want)
		}
	}
}
