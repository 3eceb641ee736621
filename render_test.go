package lettershop_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
	"github.com/lettershop/lettershop/memstore"
)

// renderStart is where the render tests' clock starts.
var renderStart = time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC)

const renderAccount = "acct_render"

// newRenderEnv is newEnv on the render tests' clock, ids and keys.
func newRenderEnv(t testing.TB, opts ...lettershop.Option) *env {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(renderStart)
	return newRenderEnvOn(t, memstore.New(), mc, opts...)
}

func newRenderEnvOn(t testing.TB, st *memstore.Store, mc *clock.Mock, opts ...lettershop.Option) *env {
	t.Helper()
	return newEnvOn(t, st, mc, append([]lettershop.Option{
		lettershop.WithEntropy(rand.New(rand.NewSource(7))),
		lettershop.WithTokenKey([]byte("render test key")),
	}, opts...)...)
}

func sp(s string) *string { return &s }

const letterTemplate = `<h1>Your order</h1>
<p>Dear {{name}},</p>
<p>Order <b>{{order}}</b> has <i>shipped</i>. <u>Keep this letter</u>. Track it at <a href="https://example.com/t">example.com/t</a>.</p>
<ul><li>Bullet one</li><li>Bullet two</li></ul>
<ol><li>Step one</li><li>Step two</li></ol>
<p>First line<br>Second line</p>`

var letterDefinitions = []lettershop.VariableDefinition{
	{Name: "name", Behavior: lettershop.VariableRequired},
	{Name: "order", Behavior: lettershop.VariableOptional},
}

// version makes an asset of type t with one published version of content.
func (e *env) version(t testing.TB, typ lettershop.AssetType, mime, data string, defs ...lettershop.VariableDefinition) (*lettershop.Asset, *lettershop.AssetVersion) {
	t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "Content", Type: typ})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: lettershop.ContentType(mime), Content: data},
		VariableDefinitions: defs,
		Publish:             true,
	})
	if err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a, v
}

func renderLetterInput(assetID string, vars ...string) lettershop.CreateLetterInput {
	in := lettershop.CreateLetterInput{
		Sender: &lettershop.PartyInput{
			Individual: &lettershop.Individual{FirstName: "Zoë", LastName: "Łukasiewicz"},
			Address:    lettershop.AddressInput{AddressLine1: "12 Harbor Road", LastLine: "Portland, ME 04101"},
		},
		Recipient: &lettershop.PartyInput{
			Individual:   &lettershop.Individual{FirstName: "José", LastName: "Müller"},
			Organization: "Müller & Söhne",
			Address:      lettershop.AddressInput{AddressLine1: "742 Evergreen Terrace", AddressLine2: "Apt 3B", City: "Springfield", State: "IL", ZipCode: "62704"},
		},
		Content: &lettershop.LetterContent{Type: "asset", AssetID: assetID},
		UseType: lettershop.UseTransactional,
	}
	for i := 0; i+1 < len(vars); i += 2 {
		in.Variables = append(in.Variables, lettershop.Variable{Name: vars[i], Value: sp(vars[i+1])})
	}
	return in
}

func (e *env) letter(t testing.TB, in lettershop.CreateLetterInput) *lettershop.Letter {
	t.Helper()
	l, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
	if err != nil {
		t.Fatalf("CreateLetter: %v", err)
	}
	return l
}

func (e *env) render(t testing.TB, id string) []byte {
	t.Helper()
	b, err := e.svc.RenderLetter(e.ctx, renderAccount, id)
	if err != nil {
		t.Fatalf("RenderLetter: %v", err)
	}
	return b
}

func TestRenderTemplateLetter(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(t, renderLetterInput(a.ID, "name", "Tom & Jerry <b>", "order", "A-1042"))
	got := pdftest.Read(t, e.render(t, l.ID))

	if len(got.Pages) != 1 {
		t.Fatalf("pages = %d, want 1:\n%s", len(got.Pages), strings.Join(got.Pages, "\n----\n"))
	}
	lines := strings.Split(got.Pages[0], "\n")
	want := []string{
		// Return address, then recipient, in window order.
		"Zoë Łukasiewicz", "12 Harbor Road", "Portland, ME 04101",
		"José Müller", "Müller & Söhne", "742 Evergreen Terrace", "Apt 3B", "Springfield, IL 62704",
		"March 2, 2026",
		"Your order",
		// A merged value is text, never markup.
		"Dear Tom & Jerry <b>,",
		"Order A-1042 has shipped. Keep this letter. Track it at example.com/t.",
		"•Bullet one", "•Bullet two", "1.Step one", "2.Step two",
		"First line", "Second line",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("page text (-want +got):\n%s", diff)
	}
	// fpdf names the Go fonts utf8go + style; each is a TrueType font
	// embedded (as a subset of the glyphs used).
	wantFonts := map[string]bool{"utf8go": true, "utf8goB": true, "utf8goI": true}
	if diff := cmp.Diff(wantFonts, got.Fonts); diff != "" {
		t.Errorf("fonts and whether embedded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://example.com/t"}, got.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if want := "D:20260302150405"; !strings.HasPrefix(got.CreationDate, want) || !strings.HasPrefix(got.ModDate, want) {
		t.Errorf("dates = %q, %q; want the letter's creation time %s", got.CreationDate, got.ModDate, want)
	}
}

// TestRenderCharactersBeyondUFFFF checks that a character past U+FFFF (an
// emoji) in a variable's value or a party's field prints as U+FFFD: the PDF
// library can not embed such characters, and the letter must still render.
func TestRenderCharactersBeyondUFFFF(t *testing.T) {
	tests := []struct {
		name string
		edit func(*lettershop.CreateLetterInput)
		want string // the line page one prints
	}{
		{"variable value", func(in *lettershop.CreateLetterInput) { in.Variables[0].Value = sp("Jo😀") }, "Dear Jo\uFFFD,"},
		{"sender name", func(in *lettershop.CreateLetterInput) { in.Sender.Individual.FirstName = "Zo😀" }, "Zo\uFFFD Łukasiewicz"},
		{"recipient organization", func(in *lettershop.CreateLetterInput) { in.Recipient.Organization = "Acme 😀" }, "Acme \uFFFD"},
		{"recipient address line", func(in *lettershop.CreateLetterInput) { in.Recipient.Address.AddressLine2 = "Apt 3B 😀" }, "Apt 3B \uFFFD"},
		{"recipient nonAddressData", func(in *lettershop.CreateLetterInput) { in.Recipient.NonAddressData = "Ref 😀" }, "Ref \uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t)
			a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
			in := renderLetterInput(a.ID, "name", "Jo")
			tt.edit(&in)
			b, err := e.svc.RenderLetter(e.ctx, renderAccount, e.letter(t, in).ID)
			if err != nil {
				t.Fatalf("RenderLetter: %v", err)
			}
			if lines := strings.Split(pdftest.Read(t, b).Pages[0], "\n"); !slices.Contains(lines, tt.want) {
				t.Errorf("page one lacks the line %q:\n%s", tt.want, strings.Join(lines, "\n"))
			}
		})
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	e := newRenderEnv(t, lettershop.WithRenderCacheSize(0))
	a, v := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	in := renderLetterInput(a.ID, "name", "Zoë")
	in.SendDate = "2026-03-09"
	l := e.letter(t, in)
	first := e.render(t, l.ID)

	// Later, on another server, after the version is gone: the same bytes.
	e.clock.Add(36 * time.Hour)
	if err := e.svc.DeleteVersion(e.ctx, renderAccount, a.ID, v.ID); err != nil {
		t.Fatalf("DeleteVersion: %v", err)
	}
	other := newRenderEnvOn(t, e.store, e.clock, lettershop.WithRenderCacheSize(0))
	for i, b := range [][]byte{e.render(t, l.ID), other.render(t, l.ID)} {
		if !bytes.Equal(first, b) {
			t.Errorf("render %d differs from the first", i+2)
		}
	}
	got := pdftest.Read(t, first)
	if !strings.Contains(got.Pages[0], "March 9, 2026") {
		t.Errorf("page one does not carry the send date:\n%s", got.Pages[0])
	}
	if want := "D:20260309000000"; !strings.HasPrefix(got.CreationDate, want) {
		t.Errorf("creation date %q, want the send date %s", got.CreationDate, want)
	}
}

func TestRenderFollowsLetterChanges(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(t, renderLetterInput(a.ID, "name", "Before"))
	if p := pdftest.Read(t, e.render(t, l.ID)).Pages[0]; !strings.Contains(p, "Dear Before,") {
		t.Fatalf("first render lacks the name:\n%s", p)
	}
	// The clock stands still: the change is at the same instant.
	if _, err := e.svc.UpdateLetter(e.ctx, renderAccount, l.ID, lettershop.UpdateLetterInput{
		Variables: &[]lettershop.Variable{{Name: "name", Value: sp("After")}},
	}); err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if p := pdftest.Read(t, e.render(t, l.ID)).Pages[0]; !strings.Contains(p, "Dear After,") {
		t.Errorf("render after the change is stale:\n%s", p)
	}
}

// TestRenderCacheHandsOutCopies checks that a caller changing the bytes it
// was given changes no later render, whether it got them from a render that
// filled the cache or from one the cache answered.
func TestRenderCacheHandsOutCopies(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Hi</p>")
	l := e.letter(t, renderLetterInput(a.ID))
	first := e.render(t, l.ID)
	want := bytes.Clone(first)
	clear(first)
	second := e.render(t, l.ID)
	if !bytes.Equal(second, want) {
		t.Fatal("changing the bytes of the render that filled the cache changed the next render")
	}
	clear(second)
	if !bytes.Equal(e.render(t, l.ID), want) {
		t.Error("changing the bytes of a render from the cache changed the next render")
	}
}

func TestRenderLetterErrors(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Hi</p>")
	l := e.letter(t, renderLetterInput(a.ID))
	tests := []struct {
		name, account, id string
		want              lettershop.Code
	}{
		{"unknown letter", renderAccount, "ltr_01zzzzzzzzzzzzzzzzzzzzzzzz", lettershop.CodeNotFound},
		{"another account's letter", "acct_other", l.ID, lettershop.CodeNotFound},
		{"malformed id", renderAccount, "nope", lettershop.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.RenderLetter(e.ctx, tt.account, tt.id)
			if got := lettershop.ErrorCode(err); got != tt.want {
				t.Errorf("RenderLetter: %v (code %v), want code %v", err, got, tt.want)
			}
			_, err = e.svc.DownloadURL(e.ctx, tt.account, tt.id)
			if got := lettershop.ErrorCode(err); got != tt.want {
				t.Errorf("DownloadURL: %v (code %v), want code %v", err, got, tt.want)
			}
		})
	}
}

func TestVersionContentIsCheckedForPrinting(t *testing.T) {
	// A grey PNG compresses well, so the pixel limit is testable within
	// the inline size limit.
	greyPNG := func(w, h int) string {
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	tests := []struct {
		name string
		typ  lettershop.AssetType
		mime string
		data string
		// wantErr is part of the content.content message, "" for accepted.
		wantErr string
	}{
		{"plain template", lettershop.AssetTemplate, "text/html", "<p>Hello {{name}}</p>", ""},
		{"spaced variable", lettershop.AssetTemplate, "text/html", "<p>Hello {{ name }}</p>", ""},
		{"variable in an attribute", lettershop.AssetTemplate, "text/html", `<p><a href="https://x.test/{{code}}">go</a></p>`, ""},
		{"whole document with style", lettershop.AssetTemplate, "text/html", "<!doctype html><html><head><title>T</title><style>p{}</style></head><body><p>Hi</p></body></html>", ""},
		{"Latin, Greek and Cyrillic", lettershop.AssetTemplate, "text/html", "<p>Zoë Łukasiewicz, Αθήνα, Москва</p>", ""},
		{"not UTF-8", lettershop.AssetTemplate, "text/html", "<p>caf\xe9</p>", "UTF-8"},
		{"variable with a space", lettershop.AssetTemplate, "text/html", "<p>Hello {{first name}}</p>", `"{{first name}}" at line 1 is not a variable`},
		{"unclosed variable", lettershop.AssetTemplate, "text/html", "<p>a</p>\n<p>Hello {{name</p>", "at line 2 is not a variable"},
		{"many stray braces", lettershop.AssetTemplate, "text/html", strings.Repeat("{{", 50000), "is not a variable"},
		{"variable as element", lettershop.AssetTemplate, "text/html", "<{{tag}}>x</{{tag}}>", "the variable tag can not name an element (line 1): variables go in text or attribute values"},
		{"variable as attribute", lettershop.AssetTemplate, "text/html", "<p {{attr}}>x</p>", "a variable can not name an attribute"},
		{"script", lettershop.AssetTemplate, "text/html", "<p>x</p><script>alert(1)</script>", "<script> can not be printed"},
		{"image not from a variable", lettershop.AssetTemplate, "text/html", `<p>x<img src="logo.png"></p>`, "an <img>'s src must be a variable of type asset or externalUrl"},
		{"table", lettershop.AssetTemplate, "text/html", "<table><tr><td>x</td></tr></table>", ""},
		{"deeply nested lists", lettershop.AssetTemplate, "text/html", strings.Repeat("<ul><li>deeper", 60), ""},
		{"form", lettershop.AssetTemplate, "text/html", "<form><input name=x></form><p>x</p>", "<form> can not be printed"},
		{"no text", lettershop.AssetTemplate, "text/html", "<p> </p><style>p{}</style>", "no text to print"},
		{"character without a glyph", lettershop.AssetTemplate, "text/html", "<p>你好</p>", `no glyph for '你' (U+4F60)`},
		{"png", lettershop.AssetImage, "image/png", pdftest.PNG(t, 20, 10), ""},
		{"jpeg", lettershop.AssetImage, "image/jpeg", pdftest.JPEG(t, 20, 10), ""},
		{"png at the pixel limit", lettershop.AssetImage, "image/png", greyPNG(4000, 4000), ""},
		{"png over the pixel limit", lettershop.AssetImage, "image/png", greyPNG(4000, 4001), "at most 16000000 pixels"},
		{"png given as jpeg", lettershop.AssetImage, "image/jpeg", pdftest.PNG(t, 20, 10), "the data is a png image, not jpeg"},
		{"not an image", lettershop.AssetImage, "image/png", base64.StdEncoding.EncodeToString([]byte("hello")), "the image can not be read"},
		{"corrupt pdf", lettershop.AssetDocument, "application/pdf", base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%%EOF\n")), "the PDF can not be read: it is damaged"},
		{"not a font", lettershop.AssetFont, "font/ttf", base64.StdEncoding.EncodeToString([]byte("not a font")), "the font can not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t)
			a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "A", Type: tt.typ})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: lettershop.ContentType(tt.mime), Content: tt.data},
			})
			checkContentErr(t, err, tt.wantErr)

			// A draft's content can be changed, and is checked the same way.
			if tt.wantErr == "" {
				return
			}
			ok := map[lettershop.AssetType][2]string{
				lettershop.AssetTemplate: {"text/html", "<p>fine</p>"},
				lettershop.AssetImage:    {"image/png", pdftest.PNG(t, 2, 2)},
			}[tt.typ]
			if ok[0] == "" {
				return
			}
			v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: lettershop.ContentType(ok[0]), Content: ok[1]},
			})
			if err != nil {
				t.Fatalf("CreateVersion with good content: %v", err)
			}
			_, err = e.svc.UpdateVersion(e.ctx, renderAccount, a.ID, v.ID, lettershop.UpdateVersionInput{
				Content: &lettershop.VersionContent{Type: lettershop.ContentType(tt.mime), Content: tt.data},
			})
			checkContentErr(t, err, tt.wantErr)
		})
	}
}

func checkContentErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid {
		t.Fatalf("error = %v, want an invalid-input error", err)
	}
	if msg, ok := e.Fields["content.content"]; !ok || strings.Count(msg, want) != 1 {
		t.Fatalf("fields = %v, want content.content containing %q", e.Fields, want)
	}
}

var linkPattern = regexp.MustCompile(`^(.*)/files/letters/(ltr_[0-9a-z]+\.pdf)\?expires=(\d+)&signature=([A-Za-z0-9_-]+)$`)

type link struct{ base, file, expires, signature string }

func parseLink(t testing.TB, u string) link {
	t.Helper()
	m := linkPattern.FindStringSubmatch(u)
	if m == nil {
		t.Fatalf("link %q is not of the form {base}/files/letters/{id}.pdf?expires=...&signature=...", u)
	}
	return link{m[1], m[2], m[3], m[4]}
}

func TestDownloadLink(t *testing.T) {
	tests := []struct {
		name     string
		opts     []lettershop.Option
		wantBase string
		ttl      time.Duration
	}{
		{"path only", nil, "", 15 * time.Minute},
		{"with base URL", []lettershop.Option{lettershop.WithBaseURL("https://mail.example.com/")}, "https://mail.example.com", 15 * time.Minute},
		{"with a lifetime", []lettershop.Option{lettershop.WithDownloadTTL(time.Minute)}, "", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t, tt.opts...)
			a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Hi</p>")
			l := e.letter(t, renderLetterInput(a.ID))
			u, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
			if err != nil {
				t.Fatalf("DownloadURL: %v", err)
			}
			lk := parseLink(t, u)
			want := link{tt.wantBase, l.ID + ".pdf", strconv.FormatInt(renderStart.Add(tt.ttl).Unix(), 10), lk.signature}
			if diff := cmp.Diff(want, lk, cmp.AllowUnexported(link{})); diff != "" {
				t.Errorf("link (-want +got):\n%s", diff)
			}
			rendered := e.render(t, l.ID)

			// Good until the last instant before it expires.
			e.clock.Add(tt.ttl - time.Nanosecond)
			b, err := e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature)
			if err != nil {
				t.Fatalf("OpenDownload just before expiry: %v", err)
			}
			if !bytes.Equal(b, rendered) {
				t.Errorf("download differs from RenderLetter")
			}
			e.clock.Add(time.Nanosecond)
			_, err = e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature)
			if got := lettershop.ErrorCode(err); got != lettershop.CodeForbidden {
				t.Errorf("OpenDownload at expiry: %v (code %v), want forbidden", err, got)
			}

			// A new call makes a new link, good from now.
			u2, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
			if err != nil {
				t.Fatalf("DownloadURL: %v", err)
			}
			lk2 := parseLink(t, u2)
			if lk2.expires == lk.expires || lk2.signature == lk.signature {
				t.Errorf("second link %q is not fresh (first %q)", u2, u)
			}
			if _, err := e.svc.OpenDownload(e.ctx, lk2.file, lk2.expires, lk2.signature); err != nil {
				t.Errorf("OpenDownload of the fresh link: %v", err)
			}
		})
	}
}

// TestDownloadLinkOutlivesCancel: a link made before its letter was
// canceled serves it until it expires, as a link made after does: the
// letter is still the account's to read, and a link is never revoked.
func TestDownloadLinkOutlivesCancel(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Hi</p>")
	l := e.letter(t, renderLetterInput(a.ID))
	u, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
	if err != nil {
		t.Fatalf("DownloadURL: %v", err)
	}
	before := parseLink(t, u)
	if _, err := e.svc.CancelLetter(e.ctx, renderAccount, l.ID); err != nil {
		t.Fatalf("CancelLetter: %v", err)
	}
	u, err = e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
	if err != nil {
		t.Fatalf("DownloadURL of the canceled letter: %v", err)
	}
	after := parseLink(t, u)
	e.clock.Add(15*time.Minute - time.Nanosecond)
	for name, lk := range map[string]link{"made before the cancel": before, "made after": after} {
		if _, err := e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature); err != nil {
			t.Errorf("the link %s, just before it expires: %v", name, err)
		}
	}
	e.clock.Add(time.Nanosecond)
	if _, err := e.svc.OpenDownload(e.ctx, before.file, before.expires, before.signature); lettershop.ErrorCode(err) != lettershop.CodeForbidden {
		t.Errorf("the link made before the cancel, once expired: %v, want forbidden", err)
	}
}

func TestDownloadLinkTampering(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Hi</p>")
	l := e.letter(t, renderLetterInput(a.ID))
	other := e.letter(t, renderLetterInput(a.ID))
	u, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	lk := parseLink(t, u)
	later, _ := strconv.ParseInt(lk.expires, 10, 64)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	otherKey := newRenderEnvOn(t, e.store, e.clock, lettershop.WithTokenKey([]byte("another key")))
	sameKey := newRenderEnvOn(t, e.store, e.clock)
	tests := []struct {
		name                     string
		svc                      *lettershop.Service
		file, expires, signature string
		want                     lettershop.Code
	}{
		{"as made", e.svc, lk.file, lk.expires, lk.signature, -1},
		{"another server with the same key", sameKey.svc, lk.file, lk.expires, lk.signature, -1},
		{"another server with another key", otherKey.svc, lk.file, lk.expires, lk.signature, lettershop.CodeForbidden},
		{"another letter", e.svc, other.ID + ".pdf", lk.expires, lk.signature, lettershop.CodeForbidden},
		{"later expiry", e.svc, lk.file, strconv.FormatInt(later+3600, 10), lk.signature, lettershop.CodeForbidden},
		{"expiry with a leading zero", e.svc, lk.file, "0" + lk.expires, lk.signature, lettershop.CodeForbidden},
		{"signature changed at the start", e.svc, lk.file, lk.expires, flip(lk.signature, 0), lettershop.CodeForbidden},
		{"signature changed at the end", e.svc, lk.file, lk.expires, flip(lk.signature, len(lk.signature)-1), lettershop.CodeForbidden},
		{"signature cut short", e.svc, lk.file, lk.expires, lk.signature[:10], lettershop.CodeForbidden},
		{"no signature", e.svc, lk.file, lk.expires, "", lettershop.CodeForbidden},
		{"signature not base64", e.svc, lk.file, lk.expires, "!!!", lettershop.CodeForbidden},
		{"no expiry", e.svc, lk.file, "", lk.signature, lettershop.CodeForbidden},
		{"not a pdf name", e.svc, l.ID, lk.expires, lk.signature, lettershop.CodeForbidden},
		{"not a letter id", e.svc, "../etc.pdf", lk.expires, lk.signature, lettershop.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.svc.OpenDownload(e.ctx, tt.file, tt.expires, tt.signature)
			if got := lettershop.ErrorCode(err); got != tt.want {
				t.Fatalf("OpenDownload: %v (code %v), want code %v", err, got, tt.want)
			}
			if err == nil && !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Errorf("OpenDownload returned %.20q, not a PDF", b)
			}
		})
	}
}

// TestDownloadLinkSignatureBound checks the bound on the signature read:
// a signature is the account sealed with 36 bytes more, in base64, and one
// of up to 1035 characters (an account of up to 740 bytes) is read. No
// link is made for a longer account, which could not be opened, and a
// longer signature is refused unread.
func TestDownloadLinkSignatureBound(t *testing.T) {
	tests := []struct {
		name       string
		accountLen int
		want       lettershop.Code
	}{
		{"at the bound", 740, -1},
		{"past the bound", 741, lettershop.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRenderEnv(t)
			account := "acct_" + strings.Repeat("x", tt.accountLen-len("acct_"))
			a, err := e.svc.CreateAsset(e.ctx, account, lettershop.CreateAssetInput{Name: "Content", Type: lettershop.AssetTemplate})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.CreateVersion(e.ctx, account, a.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hi</p>"},
				Publish: true,
			}); err != nil {
				t.Fatal(err)
			}
			l, err := e.svc.CreateLetter(e.ctx, account, renderLetterInput(a.ID))
			if err != nil {
				t.Fatal(err)
			}
			u, err := e.svc.DownloadURL(e.ctx, account, l.ID)
			if got := lettershop.ErrorCode(err); got != tt.want {
				t.Fatalf("DownloadURL: %v (code %v), want code %v", err, got, tt.want)
			}
			if err != nil {
				return
			}
			lk := parseLink(t, u)
			if len(lk.signature) != 1035 {
				t.Fatalf("signature of %d characters, want 1035", len(lk.signature))
			}
			if _, err = e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature); err != nil {
				t.Errorf("OpenDownload: %v", err)
			}
			_, err = e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature+"A")
			if got := lettershop.ErrorCode(err); got != lettershop.CodeForbidden {
				t.Errorf("OpenDownload of a signature past the bound: %v (code %v), want forbidden", err, got)
			}
		})
	}
}

func BenchmarkRenderLetter(b *testing.B) {
	e := newRenderEnv(b, lettershop.WithRenderCacheSize(0))
	a, _ := e.version(b, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(b, renderLetterInput(a.ID, "name", "Zoë"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpenDownloadCached(b *testing.B) {
	e := newRenderEnv(b)
	a, _ := e.version(b, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(b, renderLetterInput(a.ID, "name", "Zoë"))
	u, err := e.svc.DownloadURL(e.ctx, renderAccount, l.ID)
	if err != nil {
		b.Fatal(err)
	}
	lk := parseLink(b, u)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// FuzzTemplate holds the promise that a template accepted when its version
// is created always renders, and that a refused one is refused as invalid
// input naming content.content.
func FuzzTemplate(f *testing.F) {
	for _, seed := range []string{
		letterTemplate,
		"<p>Hello {{name}}</p>",
		"<table><tr><th>a<td colspan=3>b<tr><td><ul><li>c</ul></table>",
		"<pre>\ta  b\n\nc</pre><blockquote><q>x</q></blockquote><hr>",
		"<h1 style='color:#f00;text-align:right'>x</h1><ol type=i start=3><li>y</ol>",
		"<p>{{ name }} {{name</p>",
	} {
		f.Add(seed)
	}
	e := newRenderEnv(f)
	a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "Fuzz", Type: lettershop.AssetTemplate})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tpl string) {
		v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
			Content: &lettershop.VersionContent{Type: "text/html", Content: tpl},
			Publish: true,
		})
		if err != nil {
			var le *lettershop.Error
			if !errors.As(err, &le) || le.Code != lettershop.CodeInvalid {
				t.Fatalf("CreateVersion(%q): %v, want success or invalid input", tpl, err)
			}
			// No text at all is a version without content, which may not
			// be published as it is made: named as content.
			at := "content.content"
			if tpl == "" {
				at = "content"
			}
			if _, named := le.Fields[at]; !named {
				t.Fatalf("CreateVersion(%q): %v, want the error on %s", tpl, err, at)
			}
			return
		}
		in := renderLetterInput(a.ID)
		in.Content.AssetVersionID = v.ID
		in.Options = &lettershop.LetterOptions{VariableHandling: &lettershop.VariableHandling{ValidationScope: "none"}}
		for _, name := range lettershop.TemplateVariables(tpl) {
			in.Variables = append(in.Variables, lettershop.Variable{Name: name, Value: sp("<b>&\"x\" Zoë 😀</b>")})
		}
		l, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
		if err != nil {
			t.Fatalf("CreateLetter: %v", err)
		}
		if _, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID); err != nil {
			t.Fatalf("template %q was accepted but does not render: %v", tpl, err)
		}
	})
}

// TestRenderPrintsPuertoRicoUrbanization checks that a Puerto Rico address
// prints its urbanization on a line of its own above the delivery line
// (Publication 28 section 29), given as the urbanization input or found by
// CASS; that it prints once when an address line holds it already; and that
// an urbanization given outside Puerto Rico, where there is none, is not
// printed.
func TestRenderPrintsPuertoRicoUrbanization(t *testing.T) {
	e := newRenderEnv(t)
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", "<p>Notice</p>")
	tests := []struct {
		name string
		addr lettershop.AddressInput
		cass bool
		want []string // the recipient's block
	}{
		{"given, without CASS",
			lettershop.AddressInput{AddressLine1: "150 Calle A", Urbanization: "URB LAS GLADIOLAS", City: "San Juan", State: "PR", ZipCode: "00926", Plus4Code: "3232"}, false,
			[]string{"José Müller", "Müller & Söhne", "URB LAS GLADIOLAS", "150 Calle A", "San Juan, PR 00926-3232"}},
		{"found by CASS",
			lettershop.AddressInput{AddressLine1: "puerto rico", LastLine: "San Juan PR 00926"}, true,
			[]string{"José Müller", "Müller & Söhne", "URB LAS GLADIOLAS", "150 CALLE A", "SAN JUAN PR 00926-3232"}},
		{"a line of its own after CASS",
			lettershop.AddressInput{AddressLine1: "Urb Las Gladiolas 150 Calle A", LastLine: "San Juan PR 00926"}, true,
			[]string{"José Müller", "Müller & Söhne", "URB LAS GLADIOLAS", "150 CALLE A", "SAN JUAN PR 00926-2735"}},
		{"already an address line",
			lettershop.AddressInput{AddressLine1: "Urb Las Gladiolas", AddressLine2: "150 Calle A", Urbanization: "Urb Las Gladiolas", LastLine: "San Juan, PR 00926"}, false,
			[]string{"José Müller", "Müller & Söhne", "Urb Las Gladiolas", "150 Calle A", "San Juan, PR 00926"}},
		{"outside Puerto Rico",
			lettershop.AddressInput{AddressLine1: "1900 Reston Metro Plz", Urbanization: "<string>", City: "Reston", State: "VA", ZipCode: "20190"}, false,
			[]string{"José Müller", "Müller & Söhne", "1900 Reston Metro Plz", "Reston, VA 20190"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := renderLetterInput(a.ID)
			in.Recipient.Address = tc.addr
			if tc.cass {
				in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
					CassRecipient: &lettershop.CassOptions{Type: "basic", Casing: "upper"}}}
			}
			l := e.letter(t, in)
			lines := strings.Split(pdftest.Read(t, e.render(t, l.ID)).Pages[0], "\n")
			// The sender's three lines, then the recipient's block, then the date.
			if len(lines) < 3+len(tc.want) {
				t.Fatalf("page lines %q", lines)
			}
			if diff := cmp.Diff(tc.want, lines[3:3+len(tc.want)]); diff != "" {
				t.Errorf("recipient block (-want +got):\n%s\npage: %q", diff, lines)
			}
		})
	}
}
