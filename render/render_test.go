package render_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/ledongthuc/pdf"

	"github.com/lettershop/lettershop/render"
)

// Tests of drawing: what a letter looks like, given what it prints.

// letterOf is a letter printing content of a MIME type, from and to the
// parties the service's render tests use.
func letterOf(mime string, content []byte) render.Letter {
	return render.Letter{
		ID:        "ltr_render",
		Date:      time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC),
		Sender:    []string{"Zoë Łukasiewicz", "12 Harbor Road", "Portland, ME 04101"},
		Recipient: []string{"José Müller", "Müller & Söhne", "742 Evergreen Terrace", "Apt 3B", "Springfield, IL 62704"},
		Type:      mime,
		Content:   content,
	}
}

func renderOf(t testing.TB, l render.Letter) []byte {
	t.Helper()
	b, err := render.Render(l)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b
}

// readPDF is what the tests learn from a PDF by reading it back.
type readPDF struct {
	pages []string // text of each page, a line per text row
	// fonts maps each font's BaseFont to whether its glyphs are embedded.
	fonts map[string]bool
	// colors are the distinct fill colours text is printed in, "r g b".
	colors []string
	// images are the image XObjects of each page: "page:colorspace:filter".
	images       []string
	links        []string
	creationDate string
	modDate      string
}

func readBack(t testing.TB, b []byte) readPDF {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", b)
	}
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read PDF: %v", err)
	}
	out := readPDF{fonts: map[string]bool{}}
	info := r.Trailer().Key("Info")
	out.creationDate, out.modDate = info.Key("CreationDate").Text(), info.Key("ModDate").Text()
	for n := 1; n <= r.NumPage(); n++ {
		p := r.Page(n)
		fonts := p.Resources().Key("Font")
		for _, name := range fonts.Keys() {
			f := fonts.Key(name)
			desc := f.Key("DescendantFonts").Index(0).Key("FontDescriptor")
			out.fonts[f.Key("BaseFont").Name()] = !desc.Key("FontFile2").IsNull()
		}
		annots := p.V.Key("Annots")
		for i := 0; i < annots.Len(); i++ {
			out.links = append(out.links, annots.Index(i).Key("A").Key("URI").RawString())
		}
		text, images := pageText(p, fonts, &out.colors)
		out.pages = append(out.pages, text)
		for _, x := range images {
			out.images = append(out.images, strconv.Itoa(n)+":"+x.Key("ColorSpace").Name()+":"+x.Key("Filter").Name())
		}
	}
	return out
}

// pageText reads the text a page prints, and the images it draws. fpdf
// prints UTF-8 text in Type0 fonts whose codes are the characters' UTF-16
// units, so strings in those fonts are decoded as UTF-16BE.
func pageText(p pdf.Page, fonts pdf.Value, colors *[]string) (string, []pdf.Value) {
	var images []pdf.Value
	var (
		text    strings.Builder
		utf16BE bool
		lastY   = -1.0
		fill    string
	)
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "Do":
			if x := p.Resources().Key("XObject").Key(args[0].Name()); x.Key("Subtype").Name() == "Image" {
				images = append(images, x)
			}
		case "rg":
			fill = args[0].String() + " " + args[1].String() + " " + args[2].String()
		case "Tf":
			utf16BE = fonts.Key(args[0].Name()).Key("Encoding").Name() == "Identity-H"
		case "Td":
			if y := args[1].Float64(); y != lastY {
				if lastY >= 0 {
					text.WriteString("\n")
				}
				lastY = y
			}
		case "Tj":
			s := args[0].RawString()
			if utf16BE {
				u := make([]uint16, len(s)/2)
				for i := range u {
					u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
				}
				s = string(utf16.Decode(u))
			}
			text.WriteString(s)
			if fill != "" && !slices.Contains(*colors, fill) {
				*colors = append(*colors, fill)
			}
		}
	})
	return text.String(), images
}

func pngImage(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func jpegImage(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), 90, uint8(y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestRenderLongTemplateFlowsOntoMorePages(t *testing.T) {
	para := "<p>" + strings.Repeat("Every word of this paragraph is here to fill the page. ", 12) + "</p>"
	tests := []struct {
		name  string
		paras int
		multi bool
	}{
		{"one page", 1, false},
		{"several pages", 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBack(t, renderOf(t, letterOf("text/html", []byte("<h2>Terms</h2>"+strings.Repeat(para, tt.paras)+"<p>The end.</p>"))))
			if n := len(got.pages); (n > 1) != tt.multi {
				t.Fatalf("pages = %d, want more than one: %v", n, tt.multi)
			}
			if last := got.pages[len(got.pages)-1]; !strings.Contains(last, "The end.") {
				t.Errorf("last page does not end the letter:\n%s", last)
			}
			text := strings.Join(got.pages, "\n")
			if n := strings.Count(text, "Every word"); n != tt.paras*12 {
				t.Errorf("the text has %d sentences, want %d: text was lost or repeated", n, tt.paras*12)
			}
			for i, p := range got.pages {
				label := "Page " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(got.pages))
				if has := strings.Contains(p, label); has != tt.multi {
					t.Errorf("page %d has %q: %v, want %v", i+1, label, has, tt.multi)
				}
			}
		})
	}
}

func TestRenderColor(t *testing.T) {
	tests := []struct {
		name  string
		color bool
		// wantColored is whether any text is printed in a colour that is
		// not a grey.
		wantColored bool
	}{
		{"greyscale", false, false},
		{"color", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := letterOf("text/html", []byte(`<p>See <a href="https://example.com">our site</a> and <span style="color:#c00">this</span>.</p>`))
			l.Color = tt.color
			got := readBack(t, renderOf(t, l))
			colored := slices.ContainsFunc(got.colors, func(c string) bool {
				f := strings.Fields(c)
				return f[0] != f[1] || f[1] != f[2]
			})
			if colored != tt.wantColored {
				t.Errorf("text colours %v: coloured = %v, want %v", got.colors, colored, tt.wantColored)
			}
		})
	}
}

func TestRenderImageLetter(t *testing.T) {
	tests := []struct {
		name, mime string
		data       func(testing.TB, int, int) string
		color      bool
		wantImages []string
	}{
		{"png in colour", "image/png", pngImage, true, []string{"2:DeviceRGB:FlateDecode"}},
		{"png in grey", "image/png", pngImage, false, []string{"2:DeviceGray:FlateDecode"}},
		{"jpeg in colour", "image/jpeg", jpegImage, true, []string{"2:DeviceRGB:DCTDecode"}},
		{"jpeg in grey", "image/jpeg", jpegImage, false, []string{"2:DeviceGray:FlateDecode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := base64.StdEncoding.DecodeString(tt.data(t, 300, 200))
			if err != nil {
				t.Fatal(err)
			}
			l := letterOf(tt.mime, data)
			l.Color = tt.color
			got := readBack(t, renderOf(t, l))
			if len(got.pages) != 2 {
				t.Fatalf("pages = %d, want 2 (addresses, then the image)", len(got.pages))
			}
			if diff := cmp.Diff(tt.wantImages, got.images); diff != "" {
				t.Errorf("images (-want +got):\n%s", diff)
			}
			if !strings.Contains(got.pages[0], "742 Evergreen Terrace") {
				t.Errorf("page one lacks the recipient:\n%s", got.pages[0])
			}
		})
	}
}

func TestRenderLongAddressesStayWhole(t *testing.T) {
	const longest = "Department of Customer Relations and Support Services, Room 1207" // 64 characters, the most a line may have
	tests := []struct {
		name string
		edit func(*render.Letter)
		// want are lines page one must have whole.
		want []string
	}{
		{"long recipient line", func(l *render.Letter) {
			// The recipient's second address line.
			l.Recipient[3] = longest
		}, []string{longest, "Springfield, IL 62704"}},
		{"long sender lines", func(l *render.Letter) {
			// The sender's organization and second address line.
			l.Sender = []string{l.Sender[0], longest, l.Sender[1], "Suite 400", l.Sender[2]}
		}, []string{"Department of Customer Relations and Support", "Services, Room 1207", "Suite 400", "Portland, ME 04101"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := letterOf("text/html", []byte("<p>Hi</p>"))
			tt.edit(&l)
			lines := strings.Split(readBack(t, renderOf(t, l)).pages[0], "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("page one lacks the line %q:\n%s", w, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

func TestRenderTable(t *testing.T) {
	row := func(i int) string {
		return "<tr><td>Item " + strconv.Itoa(i) + `</td><td align="right">$` + strconv.Itoa(i) + ".00</td></tr>"
	}
	rows := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(row(i))
		}
		return b.String()
	}
	tests := []struct {
		name string
		rows int
		// wantHeads is how many pages start the table's heading row.
		wantPages, wantHeads int
	}{
		{"on one page", 3, 1, 1},
		{"running onto a second page", 40, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBack(t, renderOf(t, letterOf("text/html", []byte(
				"<p>Your statement:</p><table><thead><tr><th>Description</th><th>Amount</th></tr></thead><tbody>"+
					rows(tt.rows)+`<tr><td colspan="2" align="right"><b>Total</b></td></tr></tbody></table><p>Thanks.</p>`))))
			if len(got.pages) != tt.wantPages {
				t.Fatalf("pages = %d, want %d", len(got.pages), tt.wantPages)
			}
			var lines []string
			heads := 0
			for _, p := range got.pages {
				for _, ln := range strings.Split(p, "\n") {
					if ln == "DescriptionAmount" {
						heads++
					}
					lines = append(lines, ln)
				}
			}
			if heads != tt.wantHeads {
				t.Errorf("heading row printed %d times, want %d", heads, tt.wantHeads)
			}
			// Each row is one line of text: its cells side by side.
			for i := 1; i <= tt.rows; i++ {
				want := "Item " + strconv.Itoa(i) + "$" + strconv.Itoa(i) + ".00"
				if !slices.Contains(lines, want) {
					t.Fatalf("no line %q in:\n%s", want, strings.Join(lines, "\n"))
				}
			}
			if !slices.Contains(lines, "Total") || !slices.Contains(lines, "Thanks.") {
				t.Errorf("the table's last row or the text after it is missing:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// BenchmarkUnprintable is the check every address of every letter goes
// through when the letter is created.
func BenchmarkUnprintable(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"ASCII", "1600 Pennsylvania Avenue NW, Washington, DC 20500"},
		{"Latin1", "Calle Señora María 12, Ponce, PR 00716"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if m := render.Unprintable(c.s); len(m) != 0 {
					b.Fatal(m)
				}
			}
		})
	}
}
