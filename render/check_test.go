package render_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gosmallcaps"

	"github.com/lettershop/lettershop/internal/pdftest"
	"github.com/lettershop/lettershop/render"
)

// checkContent, checkPDF and fetchedProblem are render's checks with a
// context that never ends, which they can not fail on.
func checkContent(mime string, data []byte, resources []string) string {
	return must(render.CheckContent(context.Background(), mime, data, resources))
}

func checkPDF(data []byte) render.DocumentInfo {
	return must(render.CheckPDF(context.Background(), data))
}

func fetchedProblem(mime, mediaType string, data []byte, resources []string) string {
	return must(render.FetchedProblem(context.Background(), mime, mediaType, data, resources))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// png is a PNG image of w by h pixels.
func png(t *testing.T, w, h int) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(pdftest.PNG(t, w, h))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckContent(t *testing.T) {
	for _, tt := range []struct {
		name, mime string
		data       []byte
		resources  []string
		want       string // "" or a part of the problem
	}{
		{"template", "text/html", []byte("<p>Hello {{name}}</p>"), nil, ""},
		{"template showing a resource", "text/html", []byte(`<img src="{{logo}}">`), []string{"logo"}, ""},
		{"template showing no resource", "text/html", []byte(`<img src="{{logo}}">`), nil, "logo"},
		{"image", "image/png", png(t, 30, 20), nil, ""},
		{"image that is not", "image/png", []byte("not an image"), nil, "image"},
		{"font", "font/ttf", gosmallcaps.TTF, nil, ""},
		{"font that is not", "font/otf", []byte("not a font"), nil, "the font can not be read: "},
		{"document that is not", "application/pdf", []byte("not a document"), nil, "PDF"},
	} {
		got := checkContent(tt.mime, tt.data, tt.resources)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: CheckContent = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFetchedProblem(t *testing.T) {
	image := png(t, 30, 20)
	for _, tt := range []struct {
		name, mime, mediaType string
		data                  []byte
		want                  string
	}{
		{"its own type", "image/png", "image/png", image, ""},
		{"bytes of no stated kind", "image/png", "application/octet-stream", image, ""},
		{"an older name", "font/ttf", "application/x-font-ttf", gosmallcaps.TTF, ""},
		{"another type", "image/png", "image/jpeg", image, "the server gave image/jpeg, and the version holds image/png: serve it as image/png"},
		{"no type", "text/html", "", []byte("<p>hi</p>"), "the server gave no type, and the version holds text/html: serve it as text/html"},
		{"a template as bytes", "text/html", "application/octet-stream", []byte("<p>hi</p>"), "the server gave application/octet-stream"},
		{"nothing", "image/png", "image/png", nil, "the server gave no content"},
		{"bytes that do not pass", "font/ttf", "font/ttf", []byte("not a font"), "the font can not be read: "},
	} {
		got := fetchedProblem(tt.mime, tt.mediaType, tt.data, nil)
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: FetchedProblem = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestResourceChecks(t *testing.T) {
	template := []byte(`<style>@font-face { font-family: Brand; src: url({{brand}}); }</style>
<p style="font-family: Brand"><img src="{{logo}}" width="96" height="64"> Hi</p>`)
	sharp, blurred := png(t, 300, 200), png(t, 90, 60)
	if msg := render.CheckResource(template, "logo", "image/png", sharp); msg != "" {
		t.Errorf("sharp image: %s", msg)
	}
	// 96 x 64 CSS pixels is an inch by two thirds: 90 pixels across is 90 DPI.
	want := "the image is 90 x 60 pixels and the template prints it at 90 DPI; an image must print at 300 DPI or more: use a larger image, or print it smaller"
	if msg := render.CheckResource(template, "logo", "image/png", blurred); msg != want {
		t.Errorf("blurred image: %q, want %q", msg, want)
	}
	if msg := render.CheckResource(template, "logo", "image/png", []byte("no image")); !strings.HasPrefix(msg, "the image can not be read: ") {
		t.Errorf("no image: %q", msg)
	}
	if msg := render.CheckResource(template, "brand", "font/ttf", gosmallcaps.TTF); msg != "" {
		t.Errorf("font: %s", msg)
	}
	// Content checked when it was stored: the template's demands are
	// checked again (a raster image's DPI where shown, a font), an SVG,
	// whose check does not depend on the template, is not read again.
	if msg := render.CheckStoredResource(template, "logo", "image/png", blurred); msg != want {
		t.Errorf("stored blurred image: %q, want %q", msg, want)
	}
	if msg := render.CheckStoredResource(template, "brand", "font/ttf", []byte("no font")); msg == "" {
		t.Error("stored font that is not one: no problem")
	}
	if msg := render.CheckResource(template, "logo", "image/svg+xml", []byte("<svg")); msg == "" {
		t.Error("an SVG that can not be read: no problem")
	}
	if msg := render.CheckStoredResource(template, "logo", "image/svg+xml", []byte("<svg")); msg != "" {
		t.Errorf("a stored SVG was read again: %q", msg)
	}

	if msg := render.UseProblem(template, "logo", "font/ttf", gosmallcaps.TTF); msg != "the template shows {{logo}} as an image, and the asset is a font" {
		t.Errorf("font as an image: %q", msg)
	}
	if msg := render.UseProblem(template, "brand", "image/png", sharp); msg != "the template uses {{brand}} as a font, and the asset is an image" {
		t.Errorf("image as a font: %q", msg)
	}
	if msg := render.UseProblem(template, "logo", "image/png", blurred); msg != want {
		t.Errorf("blurred image in use: %q, want %q", msg, want)
	}

	if r, msg := render.FetchedResource(template, "logo", sharp); msg != "" || r.Type != "image/png" || len(r.Data) != len(sharp) {
		t.Errorf("fetched image: %s, %q", r.Type, msg)
	}
	if r, msg := render.FetchedResource(template, "brand", gosmallcaps.TTF); msg != "" || r.Type != "font/ttf" {
		t.Errorf("fetched font: %s, %q", r.Type, msg)
	}
	if _, msg := render.FetchedResource(template, "logo", []byte("<html>")); msg != "it is neither a PNG, JPEG, GIF or SVG image nor a TrueType or WOFF2 font" {
		t.Errorf("fetched page: %q", msg)
	}
	if _, msg := render.FetchedResource(template, "logo", blurred); msg != want {
		t.Errorf("fetched blurred image: %q, want %q", msg, want)
	}
}

func TestTextProblem(t *testing.T) {
	if msg := render.TextProblem("Zoë Łukasiewicz, Ελληνικά, Русский"); msg != "" {
		t.Errorf("Latin, Greek and Cyrillic: %q", msg)
	}
	// Decomposed text (a letter, then its accent as U+0301 or U+0308) prints
	// as the accented letters it composes to.
	if msg := render.TextProblem("Zoe\u0301 Bjo\u0308rk"); msg != "" {
		t.Errorf("decomposed Latin: %q", msg)
	}
	want := `can not be printed: the letter fonts cover Latin, Greek and Cyrillic, and have no '漢' (U+6F22), '字' (U+5B57)`
	if msg := render.TextProblem("漢字 kanji"); msg != want {
		t.Errorf("Han: %q, want %q", msg, want)
	}
}

// A variable where a tag name goes is one problem, however often it is
// written there (<{{tag}}>...</{{tag}}>), and the message names it; as is
// a variable in an element's or an attribute's name, however many tags
// repeat it. Different variables are each a problem.
func TestTemplateVariableNamingMarkupSaidOnce(t *testing.T) {
	for _, tt := range []struct{ template, want string }{
		{"<{{tag}}>x</{{tag}}>", "the variable tag can not name an element (line 1): variables go in text or attribute values"},
		{"<{{ tag }}>x</{{tag}}>\n<{{tag}}>y</{{tag}}>", "the variable tag can not name an element (line 1): variables go in text or attribute values"},
		{"<{{a}}>\nx</{{b}}>", "the variable a can not name an element (line 1): variables go in text or attribute values; " +
			"the variable b can not name an element (line 2): variables go in text or attribute values"},
		{"<{{ x>a</{{ x>", "a variable can not name an element (line 1): variables go in text or attribute values"},
		{"<p{{x}}>a</p{{x}}>", "a variable can not name an element (<p{{x}}>): variables go in text or attribute values"},
		{"<p {{x}}=1>a</p><p {{x}}=1>b</p>", "a variable can not name an attribute ({{x}} in <p>): variables go in text or attribute values"},
	} {
		if got := render.CheckTemplate([]byte(tt.template), nil); got != tt.want {
			t.Errorf("CheckTemplate(%q) =\n  %q\nwant\n  %q", tt.template, got, tt.want)
		}
	}
}
