package render_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/pdftest"
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
			got := pdftest.Read(t, renderOf(t, letterOf("text/html", []byte("<h2>Terms</h2>"+strings.Repeat(para, tt.paras)+"<p>The end.</p>"))))
			if n := len(got.Pages); (n > 1) != tt.multi {
				t.Fatalf("pages = %d, want more than one: %v", n, tt.multi)
			}
			if last := got.Pages[len(got.Pages)-1]; !strings.Contains(last, "The end.") {
				t.Errorf("last page does not end the letter:\n%s", last)
			}
			text := strings.Join(got.Pages, "\n")
			if n := strings.Count(text, "Every word"); n != tt.paras*12 {
				t.Errorf("the text has %d sentences, want %d: text was lost or repeated", n, tt.paras*12)
			}
			for i, p := range got.Pages {
				label := "Page " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(got.Pages))
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
			got := pdftest.Read(t, renderOf(t, l))
			colored := slices.ContainsFunc(got.Colors, func(c string) bool {
				f := strings.Fields(c)
				return f[0] != f[1] || f[1] != f[2]
			})
			if colored != tt.wantColored {
				t.Errorf("text colours %v: coloured = %v, want %v", got.Colors, colored, tt.wantColored)
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
		{"png in colour", "image/png", pdftest.PNG, true, []string{"2:DeviceRGB:FlateDecode"}},
		{"png in grey", "image/png", pdftest.PNG, false, []string{"2:DeviceGray:FlateDecode"}},
		{"jpeg in colour", "image/jpeg", pdftest.JPEG, true, []string{"2:DeviceRGB:DCTDecode"}},
		{"jpeg in grey", "image/jpeg", pdftest.JPEG, false, []string{"2:DeviceGray:FlateDecode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := base64.StdEncoding.DecodeString(tt.data(t, 300, 200))
			if err != nil {
				t.Fatal(err)
			}
			l := letterOf(tt.mime, data)
			l.Color = tt.color
			got := pdftest.Read(t, renderOf(t, l))
			if len(got.Pages) != 2 {
				t.Fatalf("pages = %d, want 2 (addresses, then the image)", len(got.Pages))
			}
			if diff := cmp.Diff(tt.wantImages, got.Images); diff != "" {
				t.Errorf("images (-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Pages[0], "742 Evergreen Terrace") {
				t.Errorf("page one lacks the recipient:\n%s", got.Pages[0])
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
			lines := strings.Split(pdftest.Read(t, renderOf(t, l)).Pages[0], "\n")
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
			got := pdftest.Read(t, renderOf(t, letterOf("text/html", []byte(
				"<p>Your statement:</p><table><thead><tr><th>Description</th><th>Amount</th></tr></thead><tbody>"+
					rows(tt.rows)+`<tr><td colspan="2" align="right"><b>Total</b></td></tr></tbody></table><p>Thanks.</p>`))))
			if len(got.Pages) != tt.wantPages {
				t.Fatalf("pages = %d, want %d", len(got.Pages), tt.wantPages)
			}
			var lines []string
			heads := 0
			for _, p := range got.Pages {
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

// TestRenderTableHeadingsRepeatedWhenShort: heading rows that take at most
// a quarter of a page's text (seven rows of one line) are printed again on
// each page a table runs onto; taller ones (eight rows, or a hundred) print
// once, and the table takes the pages it would take with no headings at
// all, where a hundred heading rows over 400 rows printed a page, and drew
// every heading again, for each row.
func TestRenderTableHeadingsRepeatedWhenShort(t *testing.T) {
	table := func(cell string, headings, rows int) []byte {
		var b strings.Builder
		b.WriteString("<table>")
		for i := range headings {
			fmt.Fprintf(&b, "<tr><%s>Heading %d</%s></tr>", cell, i, cell)
		}
		for i := range rows {
			fmt.Fprintf(&b, "<tr><td>Row %d</td></tr>", i)
		}
		b.WriteString("</table>")
		return []byte(b.String())
	}
	for _, tt := range []struct {
		headings, rows int
		repeated       bool
	}{
		{1, 120, true},
		{7, 120, true},
		{8, 120, false},
		{100, 400, false},
	} {
		t.Run(fmt.Sprintf("%d headings", tt.headings), func(t *testing.T) {
			got := pdftest.Read(t, renderOf(t, letterOf("text/html", table("th", tt.headings, tt.rows))))
			heads := strings.Count(strings.Join(got.Pages, "\n"), "Heading 0\n")
			if tt.repeated {
				if len(got.Pages) < 2 || heads != len(got.Pages) {
					t.Errorf("the headings printed %d times on %d pages, want once on each page", heads, len(got.Pages))
				}
				return
			}
			plain := pdftest.Read(t, renderOf(t, letterOf("text/html", table("td", tt.headings, tt.rows))))
			if heads != 1 || len(got.Pages) != len(plain.Pages) {
				t.Errorf("the headings printed %d times on %d pages, want once on the %d pages the table takes without headings",
					heads, len(got.Pages), len(plain.Pages))
			}
		})
	}
}

// TestRenderScripts reads back text in every script the fonts cover, in
// every face, from the addresses and the content: each character is
// extracted as itself.
// TestRenderDecomposed: decomposed text, a letter and its accent as two
// characters, in the address and the content, prints as the accented
// letters, not as a letter and a missing glyph.
func TestRenderDecomposed(t *testing.T) {
	l := letterOf("text/html", []byte("<p>Dear Zoe\u0301 Bjo\u0308rk</p>"))
	l.Recipient = []string{"Zoe\u0301 Bjo\u0308rk", "200 Oak Ave", "Springfield, IL 62704"}
	text := strings.Join(pdftest.Read(t, renderOf(t, l)).Pages, "\n")
	if n := strings.Count(text, "Zoé Björk"); n != 2 {
		t.Errorf("the letter has \"Zoé Björk\" %d times, want 2:\n%q", n, text)
	}
}

// TestRenderFormatCharacters: format characters print as nothing, as a
// browser shows them, where the fonts have no glyph for them: a template
// that begins with a byte order mark (as some editors save a file), a
// zero-width space, joiner and soft hyphen in its text and in the address.
func TestRenderFormatCharacters(t *testing.T) {
	content := "\ufeff<p>Dear Zo\u200be, wel\u00adcome\u200d aboard\u2060!</p>"
	if msg := render.CheckTemplate([]byte(content), nil); msg != "" {
		t.Fatalf("CheckTemplate: %s", msg)
	}
	l := letterOf("text/html", []byte(content))
	l.Recipient = []string{"\ufeffJane\u200b Doe", "200 Oak Ave", "Springfield, IL 62704"}
	text := strings.Join(pdftest.Read(t, renderOf(t, l)).Pages, "\n")
	for _, want := range []string{"Dear Zoe, welcome aboard!", "Jane Doe"} {
		if !strings.Contains(text, want) {
			t.Errorf("the letter does not print %q:\n%q", want, text)
		}
	}
	if strings.ContainsAny(text, "\ufeff\u200b\u00ad\u200d\u2060\ufffd") {
		t.Errorf("the letter prints a format character or a replacement mark:\n%q", text)
	}
}

func TestRenderScripts(t *testing.T) {
	lines := []string{
		"Zażółć gęślą jaźń, Příliš žluťoučký kůň, Çağrı Öztürk İstanbul",
		"Ελληνικά: Γαζέες καὶ μυρτιὲς",
		"Кириллица: Съешь же ещё этих булок",
		"naïve café Œuvre ß € ™ “quotes” – dash…",
	}
	var html strings.Builder
	for _, ln := range lines {
		for _, tag := range []string{"p", "b", "i", "code", "h6"} {
			html.WriteString("<p><" + tag + ">" + ln + "</" + tag + "></p>")
		}
	}
	l := letterOf("text/html", []byte(html.String()))
	l.Recipient = []string{"Παναγιώτης Ζαχαρίου", "Дмитрий Шостакович", "Żółkiewskiego 7", "Springfield, IL 62704"}
	b := renderOf(t, l)
	got := pdftest.Read(t, b)
	text := strings.Join(got.Pages, "\n")
	// Each line of the content is printed in five faces.
	count := func(text, s string) (n, want int) {
		if slices.Contains(l.Recipient, s) {
			return strings.Count(text, s), 1
		}
		return strings.Count(text, s), 5
	}
	for _, s := range append(slices.Clone(l.Recipient), lines...) {
		if n, want := count(text, s); n != want {
			t.Errorf("the letter has %q %d times, want %d:\n%s", s, n, want, text)
		}
	}
	wantFonts := map[string]bool{"utf8go": true, "utf8goB": true, "utf8goI": true, "utf8goBI": true, "utf8gomono": true}
	if diff := cmp.Diff(wantFonts, got.Fonts); diff != "" {
		t.Errorf("fonts and whether embedded (-want +got):\n%s", diff)
	}

	// A reader that knows nothing of how the text was drawn extracts it
	// through the fonts' ToUnicode maps.
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed (poppler-utils)")
	}
	cmd := exec.Command(pdftotext, "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	for _, s := range append(slices.Clone(l.Recipient), lines...) {
		if n, want := count(string(out), s); n != want {
			t.Errorf("pdftotext finds %q %d times, want %d:\n%s", s, n, want, out)
		}
	}
}

// TestRenderSameBytesEveryTime renders letters again and again, alone and
// at once as a server does: each always renders to the same bytes. Accented
// Greek letters are glyphs made of other glyphs, which fpdf's subsetting
// used to order differently from one run to the next.
func TestRenderSameBytesEveryTime(t *testing.T) {
	var letters []render.Letter
	for i, content := range []string{
		"<p>Dear <b>customer</b>, <i>thank</i> you.</p>",
		"<h1>Ελληνικά</h1><p>Кириллица <code>mono</code> <u>underlined</u></p>",
		strings.Repeat("<p>Every word of this paragraph is here to fill the page.</p>", 40),
	} {
		l := letterOf("text/html", []byte(content))
		l.ID = "ltr_" + strconv.Itoa(i)
		letters = append(letters, l)
	}
	want := make([][]byte, len(letters))
	for i, l := range letters {
		want[i] = renderOf(t, l)
		for range 3 {
			if !bytes.Equal(renderOf(t, l), want[i]) {
				t.Fatalf("letter %d rendered twice differs", i)
			}
		}
	}
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 3 * len(letters) {
				i := (j + k) % len(letters)
				got, err := render.Render(letters[i])
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, want[i]) {
					t.Errorf("letter %d rendered at once with others differs from itself rendered alone", i)
				}
			}
		}()
	}
	wg.Wait()
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

// checkedTemplate is a template of a typical letter's size, as a version
// holds it.
const checkedTemplate = `<h1>Hello {{name}}</h1>
<p>Thank you for your order {{order}}. It left our warehouse this morning and
should reach you within three working days.</p>
<ul><li>Track it online at any time.</li><li>Keep this letter for your records.</li></ul>
<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>
<tbody><tr><td>Notebook, lined</td><td>2</td><td>$7.00</td></tr>
<tr><td>Fountain pen</td><td>1</td><td>$24.50</td></tr></tbody></table>
<p>Questions? Write to <a href="mailto:help@example.com">help@example.com</a>.</p>`

// BenchmarkCheckTemplate is the check a version's template goes through
// when the version is created: structural, as it is, and with the whole
// letter drawn besides, as the check was before.
func BenchmarkCheckTemplate(b *testing.B) {
	data := []byte(checkedTemplate)
	b.Run("structural", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if msg := render.CheckTemplate(data, nil); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("drawn", func(b *testing.B) {
		b.ReportAllocs()
		sample := []byte(strings.ReplaceAll(strings.ReplaceAll(checkedTemplate, "{{name}}", "Sample"), "{{order}}", "Sample"))
		for b.Loop() {
			if msg := render.CheckTemplate(data, nil); msg != "" {
				b.Fatal(msg)
			}
			if _, err := render.Render(render.Letter{ID: "ltr_check", Type: "text/html", Content: sample}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTemplateSizeLimit tests render.MaxTemplateBytes on both sides: a
// template stored larger is refused, and one that its variables merged
// make larger does not print.
func TestTemplateSizeLimit(t *testing.T) {
	of := func(n int) []byte {
		return []byte("<p>" + strings.Repeat("word ", (n-7)/5) + strings.Repeat("x", (n-7)%5) + "</p>")
	}
	if b := of(render.MaxTemplateBytes); len(b) != render.MaxTemplateBytes {
		t.Fatalf("the template is %d bytes", len(b))
	}
	if msg := checkContent("text/html", of(render.MaxTemplateBytes), nil); msg != "" {
		t.Errorf("a template of MaxTemplateBytes: %s", msg)
	}
	want := fmt.Sprintf("the template is %d bytes; at most %d are allowed", render.MaxTemplateBytes+1, render.MaxTemplateBytes)
	if msg := checkContent("text/html", of(render.MaxTemplateBytes+1), nil); msg != want {
		t.Errorf("a template a byte over: %q, want %q", msg, want)
	}
	if _, err := render.Render(letterOf("text/html", of(render.MaxTemplateBytes+1))); err == nil || !strings.Contains(err.Error(), "at most 1048576 print") {
		t.Errorf("Render of a template a byte over: %v", err)
	}
}

// FuzzRenderTableHeadings holds a table to its promise whatever its heading
// rows and the rows under them hold: it renders, and repeating its
// headings on each page costs at most a page for each page the table
// takes with no headings at all (the same rows with td cells), never a
// page for each row or few.
func FuzzRenderTableHeadings(f *testing.F) {
	f.Add(uint8(1), uint16(120), "Heading", "Row")
	f.Add(uint8(7), uint16(120), "Heading", "Row")
	f.Add(uint8(8), uint16(60), "Heading<br>two", "Row")
	f.Add(uint8(3), uint16(40), "Heading", strings.Repeat("long words ", 200))
	f.Add(uint8(2), uint16(5), strings.Repeat("a ", 400), "<td colspan=5>x<td>y")
	f.Add(uint8(0), uint16(0), "", "")
	table := func(cell string, headings, rows int, head, body string) []byte {
		var b strings.Builder
		b.WriteString("<table>")
		for i := range headings {
			fmt.Fprintf(&b, "<tr><%s>%s %d</%s><%s>x</%s></tr>", cell, head, i, cell, cell, cell)
		}
		for i := range rows {
			fmt.Fprintf(&b, "<tr><td>%s %d</td><td>y</td></tr>", body, i)
		}
		b.WriteString("</table>")
		return []byte(b.String())
	}
	f.Fuzz(func(t *testing.T, headings uint8, rows uint16, head, body string) {
		h, n := int(headings%16), int(rows%300)
		if len(head)+len(body) > 4000 {
			return
		}
		th, td := letterOf("text/html", table("th", h, n, head, body)), letterOf("text/html", table("td", h, n, head, body))
		for _, l := range []render.Letter{th, td} {
			// What a version or a letter would be refused for is no table
			// the service renders.
			if render.CheckTemplate(l.Content, nil) != "" || render.DrawingProblem(l) != "" {
				return
			}
		}
		got, plain := pdfPages(t, renderOf(t, th)), pdfPages(t, renderOf(t, td))
		if len(got) > 2*len(plain)+1 {
			t.Errorf("%d heading rows over %d rows take %d pages, %d without headings", h, n, len(got), len(plain))
		}
	})
}
