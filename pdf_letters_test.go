package lettershop_test

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
)

// documentPDF makes a US Letter PDF document of pages pages with fpdf.
func documentPDF(t testing.TB, pages int) []byte {
	t.Helper()
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 612, Ht: 792}})
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.SetCreationDate(when)
	p.SetModificationDate(when)
	p.AddUTF8FontFromBytes("go", "", goregular.TTF)
	p.SetFont("go", "", 14)
	for i := 1; i <= pages; i++ {
		p.AddPage()
		p.Text(72, 400, fmt.Sprintf("Invoice page %d", i))
	}
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatalf("make PDF: %v", err)
	}
	return b.Bytes()
}

func TestPDFDocumentVersions(t *testing.T) {
	tests := []struct {
		name  string
		pages int
		want  string // "" when accepted
	}{
		{"six pages", 6, ""},
		{"seven pages", 7, "the PDF has 7 pages; a letter carries at most 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t)
			a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "Invoice", Type: lettershop.AssetDocument})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: "application/pdf", Content: base64.StdEncoding.EncodeToString(documentPDF(t, tt.pages))},
			})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CreateVersion: %v", err)
				}
				return
			}
			checkContentErr(t, err, tt.want)
		})
	}
}

func TestPDFLetter(t *testing.T) {
	for _, placement := range []string{"", "insertBlankPage", "topFirstPage"} {
		t.Run(placement, func(t *testing.T) {
			e := newRenderEnv(t)
			a, _ := e.version(t, lettershop.AssetDocument, "application/pdf", base64.StdEncoding.EncodeToString(documentPDF(t, 3)))
			in := renderLetterInput(a.ID)
			in.Options = &lettershop.LetterOptions{Print: &lettershop.PrintOptions{AddressPlacement: placement}}
			l := e.letter(t, in)
			u, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			lk := parseLink(t, u)
			b, err := e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature)
			if err != nil {
				t.Fatalf("OpenDownload: %v", err)
			}
			if dir := os.Getenv("LETTERSHOP_PDF_OUT"); dir != "" {
				// For a look at the pages: pdftoppm -png -r 50.
				_ = os.WriteFile(filepath.Join(dir, "letter-"+cmp.Or(placement, "default")+".pdf"), b, 0o644)
			}
			pages := pdftest.Read(t, b).Pages
			wantPages := 4
			if placement == "topFirstPage" {
				wantPages = 3
			}
			if len(pages) != wantPages {
				t.Fatalf("%d pages, want %d", len(pages), wantPages)
			}
			for i := 1; i <= 3; i++ {
				want := fmt.Sprintf("Invoice page %d", i)
				if !strings.Contains(pages[wantPages-3+i-1], want) {
					t.Errorf("page %d lacks %q: %q", wantPages-3+i, want, pages[wantPages-3+i-1])
				}
			}
			if placement != "topFirstPage" {
				// The added page is read like any: the stamped block of
				// topFirstPage is a form the reader here does not open.
				for _, want := range []string{"José Müller", "742 Evergreen Terrace", "Springfield, IL 62704"} {
					if !slices.Contains(strings.Split(pages[0], "\n"), want) {
						t.Errorf("page 1 lacks %q:\n%s", want, pages[0])
					}
				}
			}
			if again := e.render(t, l.ID); !bytes.Equal(again, b) {
				t.Error("a letter rendered twice gave different bytes")
			}
		})
	}
}

func TestPDFLetterVariables(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetDocument, "application/pdf", base64.StdEncoding.EncodeToString(documentPDF(t, 1)))
	in := renderLetterInput(a.ID, "name", "Jo")
	_, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
	if fieldsOf(t, err)["variables"] == "" {
		t.Fatalf("variables on a PDF letter: %v, want an error naming variables", err)
	}
	in.Options = &lettershop.LetterOptions{VariableHandling: &lettershop.VariableHandling{ValidationScope: "none"}}
	e.letter(t, in)
	// Changing a PDF letter's variables is held to the same rule.
	l := e.letter(t, renderLetterInput(a.ID))
	vars := []lettershop.Variable{{Name: "name", Value: sp("Jo")}}
	_, err = e.svc.UpdateLetter(e.ctx, renderAccount, l.ID, lettershop.UpdateLetterInput{Variables: &vars})
	if fieldsOf(t, err)["variables"] == "" {
		t.Fatalf("variables added to a PDF letter: %v, want an error naming variables", err)
	}
}

func TestAddressPlacementOption(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetDocument, "application/pdf", base64.StdEncoding.EncodeToString(documentPDF(t, 1)))
	in := renderLetterInput(a.ID)
	in.Options = &lettershop.LetterOptions{Print: &lettershop.PrintOptions{AddressPlacement: "bottom"}}
	_, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
	if fieldsOf(t, err)["options.print.addressPlacement"] == "" {
		t.Fatalf("unknown placement: %v, want an error naming options.print.addressPlacement", err)
	}
}

func TestLetterTextInScriptsTheFontsCover(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*lettershop.CreateLetterInput)
		field string // "" when accepted
		line  string // a line page one prints when accepted
	}{
		{"Greek", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.LastName = "Παπαδοπούλου" }, "", "José Παπαδοπούλου"},
		{"Cyrillic", func(in *lettershop.CreateLetterInput) { in.Recipient.Organization = "Общество Пример" }, "", "Общество Пример"},
		{"Latin Extended", func(in *lettershop.CreateLetterInput) { in.Recipient.Organization = "Łódź Świętokrzyska Ţară" }, "", "Łódź Świętokrzyska Ţară"},
		{"a variable in Cyrillic", func(in *lettershop.CreateLetterInput) { in.Variables[0].Value = sp("Дмитрий") }, "", "Dear Дмитрий,"},
		{"Japanese name", func(in *lettershop.CreateLetterInput) { in.Recipient.Individual.FirstName = "山田" }, "recipient.individual.firstName", ""},
		{"Arabic organization", func(in *lettershop.CreateLetterInput) { in.Sender.Organization = "شركة" }, "sender.organization", ""},
		{"Hebrew address line", func(in *lettershop.CreateLetterInput) { in.Recipient.Address.AddressLine2 = "דירה 3" }, "recipient.address.addressLine2", ""},
		{"a variable in Thai", func(in *lettershop.CreateLetterInput) { in.Variables[0].Value = sp("สมชาย") }, "variables[name]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t)
			a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
			in := renderLetterInput(a.ID, "name", "Jo")
			tt.edit(&in)
			l, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
			if tt.field != "" {
				if !strings.Contains(fieldsOf(t, err)[tt.field], "can not be printed") {
					t.Fatalf("CreateLetter: %v, want an error naming %s", err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("CreateLetter: %v", err)
			}
			if lines := strings.Split(pdftest.Read(t, e.render(t, l.ID)).Pages[0], "\n"); !slices.Contains(lines, tt.line) {
				t.Errorf("page one lacks the line %q:\n%s", tt.line, strings.Join(lines, "\n"))
			}
		})
	}
}

func TestUploadVersionContent(t *testing.T) {
	e := newRenderEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "Invoice", Type: lettershop.AssetDocument})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "application/pdf", Content: base64.StdEncoding.EncodeToString(documentPDF(t, 1))},
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := documentPDF(t, 2)
	tests := []struct {
		name  string
		mime  string
		data  []byte
		field string // "" when stored
	}{
		{"over the limit", "application/pdf", bytes.Repeat([]byte{' '}, lettershop.MaxUploadContent+1), "content.content"},
		{"empty", "application/pdf", nil, "content.content"},
		{"a type the asset does not hold", "text/html", []byte("<p>Hi</p>"), "content.type"},
		{"a PDF of two pages", "application/pdf", doc, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.svc.UploadVersionContent(e.ctx, renderAccount, a.ID, v.ID, lettershop.ContentType(tt.mime), tt.data)
			if tt.field != "" {
				if fieldsOf(t, err)[tt.field] == "" {
					t.Fatalf("UploadVersionContent: %v, want invalid naming %s", err, tt.field)
				}
				stored, err := e.svc.GetVersion(e.ctx, renderAccount, a.ID, v.ID)
				if err != nil {
					t.Fatal(err)
				}
				if stored.ContentLength != v.ContentLength {
					t.Errorf("a refused upload changed the version: %d bytes, was %d", stored.ContentLength, v.ContentLength)
				}
				return
			}
			if err != nil {
				t.Fatalf("UploadVersionContent: %v", err)
			}
			if got.ContentLength != len(doc) {
				t.Errorf("contentLength %d, want %d", got.ContentLength, len(doc))
			}
		})
	}
	if _, err := e.svc.PublishVersion(e.ctx, renderAccount, a.ID, v.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.UploadVersionContent(e.ctx, renderAccount, a.ID, v.ID, "application/pdf", doc)
	if got := lettershop.ErrorCode(err); got != lettershop.CodeConflict {
		t.Errorf("upload to a published version: %v, want a conflict", err)
	}
}
