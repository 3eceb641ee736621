package render_test

import (
	"bytes"
	"compress/lzw"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/go-pdf/fpdf"
	"github.com/google/go-cmp/cmp"
	"github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/lettershop/lettershop/render"
)

// docSpec describes a PDF document made for a test.
type docSpec struct {
	pages int
	w, h  float64 // page size in points; 0 means US Letter
	// coreFont prints in Helvetica, which fpdf does not embed; coreStyle
	// is its style ("B", "I", "BI"); coreFamily another standard font.
	coreFont              bool
	coreStyle, coreFamily string
}

// makeDoc makes a PDF document with fpdf: each page says which it is.
func makeDoc(t testing.TB, s docSpec) []byte {
	t.Helper()
	if s.w == 0 {
		s.w, s.h = 612, 792
	}
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: s.w, Ht: s.h}})
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.SetCreationDate(when)
	p.SetModificationDate(when)
	p.SetCatalogSort(true)
	if s.coreFont {
		family := "Helvetica"
		if s.coreFamily != "" {
			family = s.coreFamily
		}
		p.SetFont(family, s.coreStyle, 14)
	} else {
		p.AddUTF8FontFromBytes("go", "", goregular.TTF)
		p.SetFont("go", "", 14)
	}
	for i := 1; i <= s.pages; i++ {
		p.AddPage()
		// Text across the whole page, the window areas included, so that
		// a stamped address block shows it covers them.
		for y := 40.0; y < s.h-40; y += 48 {
			p.Text(60, y, fmt.Sprintf("Statement page %d line %d", i, int(y)))
		}
	}
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatalf("make document: %v", err)
	}
	return b.Bytes()
}

func encryptDoc(t testing.TB, doc []byte, userPW string) []byte {
	t.Helper()
	var out bytes.Buffer
	conf := model.NewAESConfiguration(userPW, "owner secret", 256)
	if err := api.Encrypt(bytes.NewReader(doc), &out, conf); err != nil {
		t.Fatalf("encrypt: %v", err)
	}
	return out.Bytes()
}

func TestCheckPDF(t *testing.T) {
	good := makeDoc(t, docSpec{pages: 1})
	tests := []struct {
		name    string
		data    []byte
		pages   int
		problem string // "" when the document prints; else a part of the reason
	}{
		{"one page", good, 1, ""},
		{"six pages, the most", makeDoc(t, docSpec{pages: 6}), 6, ""},
		{"seven pages", makeDoc(t, docSpec{pages: 7}), 7, "the PDF has 7 pages; a letter carries at most 6"},
		{"wider by the tolerance", makeDoc(t, docSpec{pages: 1, w: 614, h: 792}), 1, ""},
		{"narrower by the tolerance", makeDoc(t, docSpec{pages: 1, w: 610, h: 790}), 1, ""},
		{"wider beyond the tolerance", makeDoc(t, docSpec{pages: 1, w: 614.5, h: 792}), 1, "page 1 is 614.5 x 792 pt"},
		{"shorter beyond the tolerance", makeDoc(t, docSpec{pages: 1, w: 612, h: 789.5}), 1, "page 1 is 612 x 789.5 pt"},
		{"A4", makeDoc(t, docSpec{pages: 1, w: 595.28, h: 841.89}), 1, "every page must be US Letter, 612 x 792 pt"},
		{"landscape", makeDoc(t, docSpec{pages: 1, w: 792, h: 612}), 1, "every page must be US Letter"},
		{"standard font not embedded", makeDoc(t, docSpec{pages: 1, coreFont: true}), 1, ""},
		{"standard bold oblique not embedded", makeDoc(t, docSpec{pages: 1, coreFont: true, coreStyle: "BI"}), 1, ""},
		{"Times not embedded", makeDoc(t, docSpec{pages: 1, coreFont: true, coreFamily: "Times", coreStyle: "B"}), 1, ""},
		{"Courier not embedded", makeDoc(t, docSpec{pages: 1, coreFont: true, coreFamily: "Courier"}), 1, ""},
		{"ZapfDingbats not embedded", makeDoc(t, docSpec{pages: 1, coreFont: true, coreFamily: "ZapfDingbats"}), 1, ""},
		{"other font not embedded", renameFont(t, makeDoc(t, docSpec{pages: 1, coreFont: true}), "Helvetica", "Garamond "), 1, "fonts that are not embedded (Garamond)"},
		{"standard name as TrueType, not embedded", renameFont(t, makeDoc(t, docSpec{pages: 1, coreFont: true}), "\n/BaseFont /Helvetica\n/Subtype /Type1\n", " /BaseFont/Helvetica/Subtype/TrueType\n"), 1, "fonts that are not embedded (Helvetica)"},
		{"encrypted with a user password", encryptDoc(t, good, "user secret"), 0, "the PDF is encrypted or password-protected"},
		{"encrypted with an owner password only", encryptDoc(t, good, ""), 0, "the PDF is encrypted or password-protected"},
		{"corrupt", good[:len(good)/2], 0, "the PDF can not be read: it is damaged"},
		{"not a PDF", []byte("hello, world"), 0, "the data is not a PDF"},
		{"empty", nil, 0, "the data is not a PDF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := checkPDF(tt.data)
			if tt.problem == "" {
				if info.Problem != "" || info.Pages != tt.pages {
					t.Fatalf("CheckPDF = %+v, want %d pages and no problem", info, tt.pages)
				}
				return
			}
			if !strings.Contains(info.Problem, tt.problem) {
				t.Fatalf("CheckPDF problem = %q, want it to contain %q", info.Problem, tt.problem)
			}
		})
	}
}

func pdfLetter(t testing.TB, doc []byte, placement render.Placement) render.Letter {
	t.Helper()
	return render.Letter{
		ID:          "ltr_pdf",
		Description: "Statement",
		Date:        time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
		Sender:      []string{"Zoë Łukasiewicz", "12 Harbor Road", "Portland, ME 04101"},
		Recipient:   []string{"José Müller", "Müller & Söhne", "742 Evergreen Terrace", "Apt 3B", "Springfield, IL 62704"},
		Type:        "application/pdf",
		Content:     doc,
		Placement:   placement,
	}
}

// pdfPages is the text of each page of a PDF, read back: fpdf prints UTF-8
// text in Type0 fonts whose codes are UTF-16 units, so those strings are
// decoded as UTF-16BE; form XObjects (a stamped address block) are read
// too.
func pdfPages(t testing.TB, b []byte) []string {
	t.Helper()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read PDF back: %v", err)
	}
	var pages []string
	for i := 1; i <= r.NumPage(); i++ {
		var sb strings.Builder
		formText(r.Page(i).V, &sb)
		pages = append(pages, sb.String())
	}
	return pages
}

func formText(v pdf.Value, sb *strings.Builder) {
	res := v.Key("Resources")
	fonts := res.Key("Font")
	utf16BE := false
	contents := v.Key("Contents")
	if v.Key("Subtype").Name() == "Form" {
		contents = v
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "Do":
			if x := res.Key("XObject").Key(args[0].Name()); x.Key("Subtype").Name() == "Form" {
				formText(x, sb)
			}
		case "Tf":
			utf16BE = fonts.Key(args[0].Name()).Key("Encoding").Name() == "Identity-H"
		case "Tj":
			s := args[0].RawString()
			if utf16BE {
				u := make([]uint16, len(s)/2)
				for i := range u {
					u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
				}
				s = string(utf16.Decode(u))
			}
			sb.WriteString(s + "\n")
		}
	})
}

// renameFont replaces a font's name in a document by another of the same
// length, so that the cross-reference table still holds.
func renameFont(t testing.TB, doc []byte, from, to string) []byte {
	t.Helper()
	if len(from) != len(to) || !bytes.Contains(doc, []byte(from)) {
		t.Fatalf("can not replace %q by %q", from, to)
	}
	return bytes.ReplaceAll(doc, []byte(from), []byte(to))
}

// pdfFonts returns, for each font dictionary of a PDF, its BaseFont,
// Subtype and whether its glyphs are embedded (in it or its descendant).
func pdfFonts(t testing.TB, b []byte) []string {
	t.Helper()
	ctx, err := api.ReadContext(bytes.NewReader(b), model.NewDefaultConfiguration())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for nr := range ctx.Table {
		d, err := ctx.DereferenceDict(*types.NewIndirectRef(nr, 0))
		if err != nil || d == nil || d.NameEntry("Type") == nil || *d.NameEntry("Type") != "Font" || d.NameEntry("FontDescriptor") != nil {
			continue
		}
		fd := d
		if arr, err := ctx.DereferenceArray(d["DescendantFonts"]); err == nil && len(arr) > 0 {
			fd, _ = ctx.DereferenceDict(arr[0])
		}
		desc, _ := ctx.DereferenceDict(fd["FontDescriptor"])
		_, embedded := desc["FontFile2"]
		if d.NameEntry("Subtype") != nil && *d.NameEntry("Subtype") == "CIDFontType2" {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %v", *d.NameEntry("BaseFont"), *d.NameEntry("Subtype"), embedded))
	}
	slices.Sort(out)
	return out
}

func TestStandardFontsAreEmbedded(t *testing.T) {
	tests := []struct {
		spec docSpec
		want []string
	}{
		{docSpec{pages: 2, coreFont: true}, []string{"LettershopSans-Regular TrueType true", "utf8go Type0 true"}},
		{docSpec{pages: 1, coreFont: true, coreStyle: "BI"}, []string{"LettershopSans-BoldItalic TrueType true", "utf8go Type0 true"}},
		{docSpec{pages: 1, coreFont: true, coreFamily: "Times", coreStyle: "B"}, []string{"LettershopSerif-Bold TrueType true", "utf8go Type0 true"}},
		{docSpec{pages: 1, coreFont: true, coreFamily: "Courier", coreStyle: "I"}, []string{"LettershopMono-Italic TrueType true", "utf8go Type0 true"}},
		// ZapfDingbats is left to the reader's own copy.
		{docSpec{pages: 1, coreFont: true, coreFamily: "ZapfDingbats"}, []string{"ZapfDingbats Type1 false", "utf8go Type0 true"}},
	}
	for _, tt := range tests {
		name := tt.spec.coreFamily + tt.spec.coreStyle
		t.Run(name, func(t *testing.T) {
			for _, placement := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
				b, err := render.Render(pdfLetter(t, makeDoc(t, tt.spec), placement))
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				if diff := cmp.Diff(tt.want, pdfFonts(t, b)); diff != "" {
					t.Errorf("%s: fonts (-want +got):\n%s", placement, diff)
				}
				if name == "" {
					if dir := os.Getenv("RENDER_PDF_OUT"); dir != "" {
						_ = os.WriteFile(dir+"/helvetica-"+string(placement)+".pdf", b, 0o644)
					}
					pages := pdfPages(t, b)
					if want := "Statement page 1 line 520"; !strings.Contains(strings.Join(pages, "\n"), want) {
						t.Errorf("%s: the text %q is not read back:\n%s", placement, want, strings.Join(pages, "\n"))
					}
				}
				again, err := render.Render(pdfLetter(t, makeDoc(t, tt.spec), placement))
				if err != nil || !bytes.Equal(b, again) {
					t.Errorf("%s: the same letter rendered to different bytes (%v)", placement, err)
				}
			}
		})
	}
}

func TestRenderPDFDocument(t *testing.T) {
	doc := makeDoc(t, docSpec{pages: 3})
	tests := []struct {
		placement render.Placement
		pages     int
		// addressPage is the page that carries the address; docFirst the
		// page the document's first page became.
		addressPage, docFirst int
	}{
		{"", 4, 0, 1},
		{render.InsertBlankPage, 4, 0, 1},
		{render.TopFirstPage, 3, 0, 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.placement), func(t *testing.T) {
			l := pdfLetter(t, doc, tt.placement)
			b, err := render.Render(l)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if dir := os.Getenv("RENDER_PDF_OUT"); dir != "" {
				name := string(tt.placement)
				if name == "" {
					name = "default"
				}
				_ = os.WriteFile(dir+"/"+name+".pdf", b, 0o644)
			}
			info := checkPDF(b)
			if info.Problem != "" && !strings.Contains(info.Problem, "pages") {
				t.Errorf("the letter is not a clean PDF: %s", info.Problem)
			}
			pages := pdfPages(t, b)
			if len(pages) != tt.pages {
				t.Fatalf("%d pages, want %d", len(pages), tt.pages)
			}
			for _, want := range append(l.Recipient, l.Sender...) {
				if !strings.Contains(pages[tt.addressPage], want) {
					t.Errorf("page %d lacks the address line %q:\n%s", tt.addressPage+1, want, pages[tt.addressPage])
				}
			}
			for i := 0; i < 3; i++ {
				// Line 520 of each page is below the windows, never covered.
				want := fmt.Sprintf("Statement page %d line 520", i+1)
				if !strings.Contains(pages[tt.docFirst+i], want) {
					t.Errorf("page %d lacks the document's text %q:\n%s", tt.docFirst+i+1, want, pages[tt.docFirst+i])
				}
			}
			again, err := render.Render(l)
			if err != nil {
				t.Fatalf("Render again: %v", err)
			}
			if !bytes.Equal(b, again) {
				t.Error("the same letter rendered to different bytes")
			}
			if !bytes.Contains(b, []byte("(D:20260302000000+00'00')")) {
				t.Error("the PDF's dates are not the letter's")
			}
		})
	}
}

// compressed is doc rewritten by pdfcpu with object streams and a
// cross-reference stream, as many PDF writers do.
func compressed(t testing.TB, doc []byte) []byte {
	t.Helper()
	api.DisableConfigDir()
	conf := model.NewDefaultConfiguration()
	conf.WriteObjectStream, conf.WriteXRefStream = true, true
	var out bytes.Buffer
	if err := api.Optimize(bytes.NewReader(doc), &out, conf); err != nil {
		t.Fatalf("rewrite with object streams: %v", err)
	}
	if !bytes.Contains(out.Bytes(), []byte("/ObjStm")) {
		t.Fatal("the rewritten document has no object stream")
	}
	return out.Bytes()
}

func TestRenderPDFWithObjectStreams(t *testing.T) {
	doc := compressed(t, makeDoc(t, docSpec{pages: 2}))
	if info := checkPDF(doc); info.Problem != "" || info.Pages != 2 {
		t.Fatalf("CheckPDF = %+v, want 2 pages and no problem", info)
	}
	for _, placement := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
		l := pdfLetter(t, doc, placement)
		var first []byte
		for range 5 {
			b, err := render.Render(l)
			if err != nil {
				t.Fatalf("Render %s: %v", placement, err)
			}
			if first != nil && !bytes.Equal(b, first) {
				t.Fatalf("Render %s: the same letter rendered to different bytes", placement)
			}
			first = b
		}
		pages := pdfPages(t, first)
		if !strings.Contains(pages[len(pages)-1], "Statement page 2 line 520") {
			t.Errorf("%s: the last page lacks the document's text:\n%s", placement, pages[len(pages)-1])
		}
		if !strings.Contains(pages[0], "Springfield, IL 62704") {
			t.Errorf("%s: page 1 lacks the recipient:\n%s", placement, pages[0])
		}
	}
}

func TestRenderPDFDependsOnTheLetter(t *testing.T) {
	doc := makeDoc(t, docSpec{pages: 1})
	l := pdfLetter(t, doc, render.InsertBlankPage)
	a, err := render.Render(l)
	if err != nil {
		t.Fatal(err)
	}
	l.Date = l.Date.AddDate(0, 0, 1)
	b, err := render.Render(l)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Error("letters of different dates rendered to the same bytes")
	}
	if !bytes.Contains(b, []byte("(D:20260303000000+00'00')")) {
		t.Error("the PDF's dates are not the letter's")
	}
}

func TestRenderRefusesAnUnprintablePDF(t *testing.T) {
	l := pdfLetter(t, makeDoc(t, docSpec{pages: 7}), render.InsertBlankPage)
	if _, err := render.Render(l); err == nil || !strings.Contains(err.Error(), "7 pages") {
		t.Fatalf("Render of seven pages: err = %v, want the page count named", err)
	}
}

func BenchmarkRender(b *testing.B) {
	doc := makeDoc(b, docSpec{pages: 3})
	// Thirty paragraphs flow over three pages.
	html := strings.Repeat("<p>Every word of this paragraph is here to fill the page, and it does. Dear customer, your statement follows.</p>", 30)
	cases := []struct {
		name string
		l    render.Letter
		// unchecked renders each letter as the first from its document in
		// a process: the document is checked again.
		unchecked bool
	}{
		{"PDF3PagesInsertBlankPage", pdfLetter(b, doc, render.InsertBlankPage), false},
		{"PDF3PagesTopFirstPage", pdfLetter(b, doc, render.TopFirstPage), false},
		{"PDF3PagesInsertBlankPageUnchecked", pdfLetter(b, doc, render.InsertBlankPage), true},
		{"PDF3PagesTopFirstPageUnchecked", pdfLetter(b, doc, render.TopFirstPage), true},
		{"HTML3Pages", func() render.Letter {
			l := pdfLetter(b, nil, "")
			l.Type, l.Content = "text/html", []byte(html)
			return l
		}(), false},
		// Each face a letter prints in is embedded: five here, and text in
		// three scripts.
		{"HTML3PagesFiveFaces", func() render.Letter {
			l := pdfLetter(b, nil, "")
			l.Type = "text/html"
			l.Content = []byte(`<h1>Your order: Ελληνικά и Кириллица</h1>` +
				`<p>Dear <b>Zażółć gęślą jaźń</b>, <i>naïve café</i> “quotes” – dash…</p>` +
				`<p><u>Keep this letter</u>, <b><i>bold italic</i></b>, <code>A-1042</code></p>` + html[:len(html)*5/6])
			return l
		}(), false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.unchecked {
					render.ForgetCheckedDocuments()
				}
				if _, err := render.Render(c.l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAcceptedDocumentsRender damages documents (truncated, bytes changed,
// with and without object streams) and holds CheckPDF to its promise: a
// document it accepts renders in both placements.
func TestAcceptedDocumentsRender(t *testing.T) {
	good := compressed(t, makeDoc(t, docSpec{pages: 2}))
	plain := makeDoc(t, docSpec{pages: 2})
	r := rand.New(rand.NewSource(2))
	accepted := 0
	for i := 0; i < 240; i++ {
		src := good
		if i%2 == 1 {
			src = plain
		}
		d := append([]byte(nil), src...)
		switch i % 3 {
		case 0:
			d = d[:r.Intn(len(d))]
		default:
			for k := 0; k < 1+r.Intn(6); k++ {
				d[r.Intn(len(d))] = byte(r.Intn(256))
			}
		}
		if checkPDF(d).Problem == "" {
			accepted++
			for _, p := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
				if _, err := render.Render(pdfLetter(t, d, p)); err != nil {
					t.Errorf("accepted but does not render: %.200q", err.Error())
				}
			}
		}
	}
	if accepted == 0 {
		t.Error("no damaged document was accepted: the test shows nothing")
	}
}

// FuzzCheckPDF holds CheckPDF to its promise on any input: an answer, never
// a panic, and a document it accepts renders in both placements.
func FuzzCheckPDF(f *testing.F) {
	good := makeDoc(f, docSpec{pages: 2})
	f.Add(good)
	f.Add(good[:len(good)-40])
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info := checkPDF(data)
		if info.Problem != "" {
			return
		}
		for _, p := range []render.Placement{render.InsertBlankPage, render.TopFirstPage} {
			if _, err := render.Render(pdfLetter(t, data, p)); err != nil {
				t.Fatalf("an accepted document does not render (%s): %v", p, err)
			}
		}
	})
}

func BenchmarkCheckPDF(b *testing.B) {
	doc := makeDoc(b, docSpec{pages: 3})
	for b.Loop() {
		if info := checkPDF(doc); info.Problem != "" {
			b.Fatal(info.Problem)
		}
	}
}

// bombOf is a one-page document whose page carries a stream that expands
// to mib MiB of zeros, as its contents or, when image is set, as an image
// it shows.
func bombOf(t testing.TB, mib int, image bool, filters ...string) []byte {
	t.Helper()
	var z bytes.Buffer
	var zw io.WriteCloser
	filter := "/FlateDecode"
	switch strings.Join(filters, " ") {
	case "/LZWDecode":
		zw, filter = lzw.NewWriter(&z, lzw.MSB, 8), "/LZWDecode/DecodeParms<</EarlyChange 0>>"
	case "/ASCIIHexDecode /FlateDecode":
		zw, _ = zlib.NewWriterLevel(hex.NewEncoder(&z), zlib.BestCompression)
		filter = "[/ASCIIHexDecode /FlateDecode]"
	default:
		zw, _ = zlib.NewWriterLevel(&z, zlib.BestCompression)
	}
	zeros := make([]byte, 1<<20)
	for range mib {
		zw.Write(zeros)
	}
	zw.Close()
	if strings.HasPrefix(filter, "[/ASCIIHex") {
		z.WriteString(">")
	}
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<</Type/Catalog/Pages 2 0 R>>")
	obj("<</Type/Pages/Kids[3 0 R]/Count 1>>")
	dict := ""
	if image {
		side := int(math.Sqrt(float64(mib << 20)))
		obj("<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</XObject<</Im1 5 0 R>>>>/Contents 4 0 R>>")
		obj("<</Length 21>>\nstream\nq 612 0 0 792 0 0 cm /Im1 Do Q\nendstream")
		dict = fmt.Sprintf("/Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray/BitsPerComponent 8", side, side)
	} else {
		obj("<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>")
	}
	offsets = append(offsets, b.Len())
	fmt.Fprintf(&b, "%d 0 obj\n<</Length %d/Filter%s%s>>\nstream\n", len(offsets), z.Len(), filter, dict)
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\n")
	return endPDF(&b, offsets)
}

// TestCheckPDFRefusesABomb: a stream that expands past MaxExpandedContent
// is refused, counted as it is read (an image compressed with Flate; any
// other stream is held whole when it is decoded and refused past
// MaxHeldContent already, below).
func TestCheckPDFRefusesABomb(t *testing.T) {
	doc := bombOf(t, render.MaxExpandedContent>>20+1, true)
	if len(doc) > 1<<20 {
		t.Fatalf("the bomb is %d bytes, meant to be small", len(doc))
	}
	if info := checkPDF(doc); !strings.Contains(info.Problem, "expands to more than 256 MiB") {
		t.Errorf("an image: CheckPDF problem = %q, want the expansion named", info.Problem)
	}
}

// TestCheckPDFRefusesHeldContentPastItsBound: a page's contents, held
// whole when they are decoded (to read the document, and again to print
// the address block over them), may expand to MaxHeldContent at most,
// whatever their filters: a 255 KB document of 250 MiB of page contents
// held 1 GB for 9 s; a zlib stream behind an ASCIIHex one, or an LZW
// stream, was decoded to pdfcpu's own bound of 512 MiB, the server held
// 2.1 GB.
func TestCheckPDFRefusesHeldContentPastItsBound(t *testing.T) {
	for _, filters := range [][]string{{"/FlateDecode"}, {"/ASCIIHexDecode", "/FlateDecode"}, {"/LZWDecode"}} {
		doc := bombOf(t, render.MaxHeldContent>>20+1, false, filters...)
		info := checkPDF(doc)
		if !strings.Contains(info.Problem, "other than images (pages, forms, fonts) expands to more than 32 MiB") {
			t.Errorf("%s: CheckPDF problem = %q, want the expansion named", filters, info.Problem)
		}
	}
}

// endPDF ends the document in b, whose objects 1 to len(offsets) start at
// offsets: its cross-reference table and trailer, with object 1 the root.
func endPDF(b *bytes.Buffer, offsets []int) []byte {
	xref := b.Len()
	fmt.Fprintf(b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(b, "trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// manyObjects is a one-page document with n more objects, each an empty
// dictionary the page refers to.
func manyObjects(t testing.TB, n int) []byte {
	t.Helper()
	var b, refs bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	for i := range n {
		fmt.Fprintf(&refs, " %d 0 R", 4+i)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<</Type/Catalog/Pages 2 0 R>>")
	obj("<</Type/Pages/Kids[3 0 R]/Count 1>>")
	obj("<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/PieceInfo<</X<</LastModified(D:20260101)/Private[" + refs.String() + "]>>>>>>")
	for range n {
		obj("<<>>")
	}
	return endPDF(&b, offsets)
}

// TestCheckPDFRefusesTooManyObjects: pdfcpu reads every object of a
// document each time it reads it, at some 9 KB each; a 10 MB document of
// 175,000 empty objects took 4 s and 500 MB to read once. More than
// MaxDocumentObjects are refused before the document is read, whether
// they are written out or in object streams.
func TestCheckPDFRefusesTooManyObjects(t *testing.T) {
	if info := checkPDF(manyObjects(t, 100)); info.Problem != "" {
		t.Fatalf("100 objects: CheckPDF problem = %q, want none", info.Problem)
	}
	const want = "the PDF has more than 20000 objects"
	many := manyObjects(t, 2*render.MaxDocumentObjects+1)
	if info := checkPDF(many); !strings.Contains(info.Problem, want) {
		t.Errorf("written out: CheckPDF problem = %q, want %q", info.Problem, want)
	}
	if info := checkPDF(compressed(t, many)); info.Problem == "" {
		t.Error("in object streams: CheckPDF found no problem")
	}
}

// withArray is a one-page document whose page refers to an array of n
// numbers: written out, or in an object stream (with a cross-reference
// stream).
func withArray(t testing.TB, n int, objectStream bool) []byte {
	t.Helper()
	array := "[" + strings.Repeat("1 ", n) + "]"
	var b bytes.Buffer
	offsets := map[int]int{}
	obj := func(nr int, body string) {
		offsets[nr] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", nr, body)
	}
	b.WriteString("%PDF-1.7\n")
	obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	obj(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/PieceInfo<</X<</LastModified(D:20260101)/Private 4 0 R>>>>>>")
	if !objectStream {
		obj(4, array)
		return endPDF(&b, []int{offsets[1], offsets[2], offsets[3], offsets[4]})
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write([]byte("4 0 " + array))
	zw.Close()
	obj(5, fmt.Sprintf("<</Type/ObjStm/N 1/First 4/Length %d/Filter/FlateDecode>>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	xref := b.Len()
	var rows []byte
	row := func(kind byte, v uint32, gen uint16) {
		rows = append(binary.BigEndian.AppendUint32(append(rows, kind), v), byte(gen>>8), byte(gen))
	}
	row(0, 0, 65535)
	for nr := 1; nr <= 3; nr++ {
		row(1, uint32(offsets[nr]), 0)
	}
	row(2, 5, 0)
	row(1, uint32(offsets[5]), 0)
	row(1, uint32(xref), 0)
	fmt.Fprintf(&b, "6 0 obj\n<</Type/XRef/Size 7/W[1 4 2]/Root 1 0 R/Length %d>>\nstream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", len(rows), rows, xref)
	return b.Bytes()
}

// TestCheckPDFRefusesTooManyTokens: pdfcpu makes a value of each number,
// name or bracket outside a document's content each time it reads it: a
// 10 MB document of an array of five million numbers took 18 s to check,
// and one of 30 KB with fifteen million in an object stream 38 s and
// 1.3 GB. More than MaxDocumentTokens are refused before they are read.
func TestCheckPDFRefusesTooManyTokens(t *testing.T) {
	const want = "the PDF has more than 500000 tokens"
	for _, objectStream := range []bool{false, true} {
		if info := checkPDF(withArray(t, 1000, objectStream)); info.Problem != "" {
			t.Errorf("object stream %v, 1000 numbers: CheckPDF problem = %q, want none", objectStream, info.Problem)
		}
		if info := checkPDF(withArray(t, render.MaxDocumentTokens, objectStream)); !strings.Contains(info.Problem, want) {
			t.Errorf("object stream %v, %d numbers: CheckPDF problem = %q, want %q", objectStream, render.MaxDocumentTokens, info.Problem, want)
		}
	}
}
