package render_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/image/font/gofont/gosmallcaps"

	"github.com/lettershop/lettershop/internal/pdftest"
	"github.com/lettershop/lettershop/render"
)

// Tests of the image and font formats besides PNG, JPEG and TrueType:
// GIF, SVG and WOFF2.

// gif is a GIF image of w by h pixels.
func gif(t testing.TB, w, h int) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(pdftest.GIF(t, w, h))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// woff2 is a WOFF2 font from testdata: Go Smallcaps, printable ASCII,
// made from ../testdata/gosmallcaps-ascii.ttf with its glyf and loca
// tables transformed, and its hmtx table too when hmtx is set.
func woff2(t testing.TB, hmtx bool) []byte {
	t.Helper()
	name := "testdata/gosmallcaps-ascii.woff2"
	if hmtx {
		name = "testdata/gosmallcaps-ascii-hmtx.woff2"
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logoSVG is an SVG logo 2 inches by 1: a gradient, a stroked path, shapes
// reused from its definitions, and what a drawing program adds that draws
// nothing.
const logoSVG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- made by hand -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
     width="2in" height="1in" viewBox="0 0 200 100">
  <title>Logo</title>
  <metadata><rdf>anything</rdf></metadata>
  <sodipodi:namedview pagecolor="#ffffff"/>
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#1a5fb4"/>
      <stop offset="1" stop-color="#e01b24"/>
    </linearGradient>
    <circle id="dot" r="8" fill="#26a269"/>
  </defs>
  <rect x="5" y="5" width="190" height="90" rx="12" fill="url(#g)"/>
  <path d="M20 80 L60 20 L100 80 Z" fill="none" stroke="#000" stroke-width="4"/>
  <a href="https://example.com/"><use xlink:href="#dot" x="140" y="50"/></a>
  <use href="#dot" x="170" y="50"/>
</svg>`

// svgOf is an SVG of 100 by 100 CSS pixels holding body.
func svgOf(body string) []byte {
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">` + body + `</svg>`)
}

func TestCheckContentFormats(t *testing.T) {
	g := gif(t, 30, 20)
	w := woff2(t, false)
	for _, tt := range []struct {
		name, mime string
		data       []byte
		want       string // "" or a part of the problem
	}{
		{"gif", "image/gif", g, ""},
		{"gif cut short", "image/gif", g[:len(g)/2], "the image can not be read: "},
		{"png as gif", "image/gif", png(t, 30, 20), "the data is a png image, not gif"},
		{"gif as png", "image/png", g, "the data is a gif image, not png"},
		{"svg", "image/svg+xml", []byte(logoSVG), ""},
		{"svg of a viewBox alone", "image/svg+xml", []byte(`<svg viewBox="0 0 10 5"><rect width="10" height="5"/></svg>`), ""},
		{"svg cut short", "image/svg+xml", []byte(logoSVG[:len(logoSVG)/2]), "the SVG can not be read: "},
		{"not an svg", "image/svg+xml", []byte("<html><body>hi</body></html>"), "the data is not an SVG image: its root element is <html>"},
		{"not xml", "image/svg+xml", []byte("GIF89a"), "the data is not an SVG image"},
		{"svg with text", "image/svg+xml", svgOf(`<text x="1" y="10">Hi</text>`), "the SVG has a <text> element, which a letter can not print: convert text to outlines"},
		{"svg linking an image", "image/svg+xml", svgOf(`<image href="http://169.254.169.254/x.png" width="10" height="10"/>`), "the SVG has a <image> element"},
		{"svg using another file", "image/svg+xml", svgOf(`<use href="other.svg#a"/>`), `the SVG refers to "other.svg#a"`},
		{"svg with a clip path", "image/svg+xml", svgOf(`<clipPath id="c"><rect width="5" height="5"/></clipPath>`), "the SVG has a <clipPath> element"},
		{"svg with a script", "image/svg+xml", svgOf(`<script>alert(1)</script><rect width="5" height="5"/>`), ""},
		{"svg with a nested svg", "image/svg+xml", svgOf(`<svg width="5" height="5"/>`), "the SVG has an <svg> inside another"},
		{"svg of no size", "image/svg+xml", []byte(`<svg><rect width="5" height="5"/></svg>`), "the SVG's size is unknown"},
		{"svg of a viewBox with no area", "image/svg+xml", []byte(`<svg viewBox="0 0 0 10"/>`), "has no area"},
		{"svg of a bad path", "image/svg+xml", svgOf(`<path d="M 10 10 L x"/>`), "the SVG can not be read: "},
		{"svg with an entity", "image/svg+xml", []byte(`<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg width="1" height="1"><title>&a;</title></svg>`), "the SVG can not be read: "},
		{"svg with a use inside defs", "image/svg+xml", svgOf(`<defs><g id="a"><use href="#a"/></g></defs><use href="#a"/>`), "the SVG has a <use> inside <defs>"},
		{"svg too large", "image/svg+xml", svgOf(strings.Repeat(" ", render.MaxSVGBytes)), fmt.Sprintf("at most %d are allowed", render.MaxSVGBytes)},
		{"woff2", "font/woff2", w, ""},
		{"woff2 with hmtx transformed", "font/woff2", woff2(t, true), ""},
		{"woff2 cut short", "font/woff2", w[:len(w)-100], "the WOFF2 font can not be read: "},
		{"woff2 header alone", "font/woff2", w[:48], "the WOFF2 font can not be read: "},
		{"ttf as woff2", "font/woff2", gosmallcaps.TTF, "the data is not a WOFF2 font"},
		{"woff2 as ttf", "font/ttf", w, "the data is a WOFF2 font, not font/ttf: store it as font/woff2"},
	} {
		got := checkContent(tt.mime, tt.data, nil)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: CheckContent = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCheckSVGLimits tests each limit on an SVG's complexity on both sides.
func TestCheckSVGLimits(t *testing.T) {
	rects := func(n int) []byte {
		return svgOf(strings.Repeat(`<rect width="1" height="1"/>`, n))
	}
	// The <svg> is an element too.
	if msg := checkContent("image/svg+xml", rects(9999), nil); msg != "" {
		t.Errorf("10,000 elements: %s", msg)
	}
	if msg := checkContent("image/svg+xml", rects(10000), nil); msg != "the SVG has more than 10000 elements; simplify it" {
		t.Errorf("10,001 elements: %q", msg)
	}
	uses := func(n int) []byte {
		return svgOf(`<defs><g id="a">` + strings.Repeat(`<rect width="1" height="1"/>`, 99) + `</g></defs>` + strings.Repeat(`<use href="#a"/>`, n))
	}
	// 1 + 1 + 100 + n elements, and 100 more for each use.
	if msg := checkContent("image/svg+xml", uses(97), nil); msg != "" {
		t.Errorf("97 uses of 100 elements: %s", msg)
	}
	if msg := checkContent("image/svg+xml", uses(98), nil); !strings.Contains(msg, "once its <use> elements are expanded") {
		t.Errorf("98 uses of 100 elements: %q", msg)
	}
	nest := func(n int) []byte {
		return svgOf(strings.Repeat("<g>", n) + strings.Repeat("</g>", n))
	}
	if msg := checkContent("image/svg+xml", nest(63), nil); msg != "" {
		t.Errorf("64 deep: %s", msg)
	}
	if msg := checkContent("image/svg+xml", nest(64), nil); msg != "the SVG nests elements more than 64 deep; simplify it" {
		t.Errorf("65 deep: %q", msg)
	}
	// Shapes as large as the picture, drawn over each other.
	cover := func(n int) []byte {
		return svgOf(strings.Repeat(`<rect width="100" height="100" fill="#888" fill-opacity="0.5"/>`, n))
	}
	if msg := checkContent("image/svg+xml", cover(19), nil); msg != "" {
		t.Errorf("19 layers: %s", msg)
	}
	if msg := checkContent("image/svg+xml", cover(21), nil); !strings.Contains(msg, "cover its area more than 20 times over") {
		t.Errorf("21 layers: %q", msg)
	}
	// A gradient's colour is looked up among its stops for every pixel.
	stops := func(n int) []byte {
		return svgOf(`<defs><linearGradient id="g">` + strings.Repeat(`<stop offset="0" stop-color="#000"/>`, n) +
			`</linearGradient></defs><rect width="10" height="10" fill="url(#g)"/>`)
	}
	if msg := checkContent("image/svg+xml", stops(32), nil); msg != "" {
		t.Errorf("32 stops: %s", msg)
	}
	if msg := checkContent("image/svg+xml", stops(33), nil); msg != "the SVG has a gradient of more than 32 stops; simplify it" {
		t.Errorf("33 stops: %q", msg)
	}
	// Two gradients of 32 stops each are two gradients, not one of 64.
	if msg := checkContent("image/svg+xml", svgOf(`<defs><radialGradient id="a">`+strings.Repeat(`<stop offset="0"/>`, 32)+
		`</radialGradient><radialGradient id="b">`+strings.Repeat(`<stop offset="1"/>`, 32)+`</radialGradient></defs><rect width="1" height="1" fill="url(#a)"/>`), nil); msg != "" {
		t.Errorf("two gradients of 32 stops: %s", msg)
	}
	// A pixel a gradient fills costs ten of a plain colour: a layer of
	// gradient and nine of colour are 19 layers, two of gradient and one of
	// colour 21.
	graded := func(gradients, plain int) []byte {
		return svgOf(`<defs><radialGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></radialGradient></defs>` +
			strings.Repeat(`<rect width="100" height="100" fill="url(#g)"/>`, gradients) + strings.Repeat(`<rect width="100" height="100" fill="#888"/>`, plain))
	}
	if msg := checkContent("image/svg+xml", graded(1, 9), nil); msg != "" {
		t.Errorf("a gradient layer and 9 plain: %s", msg)
	}
	if msg := checkContent("image/svg+xml", graded(2, 1), nil); !strings.Contains(msg, "cover its area more than 20 times over") {
		t.Errorf("2 gradient layers and 1 plain: %q", msg)
	}
	// A dash of a hundredth of a pixel along a long path.
	dashed := func(dash string) []byte {
		return svgOf(`<path d="M0 0 L100 100 L0 100 L100 0 Z" fill="none" stroke="#000" stroke-dasharray="` + dash + `"/>`)
	}
	if msg := checkContent("image/svg+xml", dashed("1"), nil); msg != "" {
		t.Errorf("dash of 1: %s", msg)
	}
	if msg := checkContent("image/svg+xml", dashed("0.001"), nil); !strings.Contains(msg, "line segments; simplify it") {
		t.Errorf("dash of 0.001: %q", msg)
	}
	// Sides from 1 point to 200 inches.
	for _, tt := range []struct {
		w, h string
		ok   bool
	}{{"1pt", "1pt", true}, {"0.9pt", "1pt", false}, {"200in", "1in", true}, {"201in", "1in", false}} {
		data := []byte(fmt.Sprintf(`<svg width="%s" height="%s" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>`, tt.w, tt.h))
		if msg := checkContent("image/svg+xml", data, nil); (msg == "") != tt.ok {
			t.Errorf("%s x %s: %q, want ok %v", tt.w, tt.h, msg, tt.ok)
		}
	}
}

func TestFetchedProblemFormats(t *testing.T) {
	g, w, s := gif(t, 30, 20), woff2(t, false), []byte(logoSVG)
	for _, tt := range []struct {
		name, mime, mediaType string
		data                  []byte
		want                  string
	}{
		{"gif", "image/gif", "image/gif", g, ""},
		{"gif as bytes", "image/gif", "application/octet-stream", g, ""},
		{"gif as png", "image/gif", "image/png", g, "the server gave image/png, and the version holds image/gif"},
		{"svg", "image/svg+xml", "image/svg+xml", s, ""},
		{"svg as xml", "image/svg+xml", "text/xml", s, ""},
		{"svg as application xml", "image/svg+xml", "application/xml", s, ""},
		{"svg by an older name", "image/svg+xml", "image/svg", s, ""},
		{"svg as bytes", "image/svg+xml", "application/octet-stream", s, ""},
		{"svg sniffed as text", "image/svg+xml", "text/plain", s, ""},
		{"svg as html", "image/svg+xml", "text/html", s, "the server gave text/html"},
		{"woff2", "font/woff2", "font/woff2", w, ""},
		{"woff2 by an older name", "font/woff2", "application/font-woff2", w, ""},
		{"woff2 as bytes", "font/woff2", "application/octet-stream", w, ""},
		{"woff2 as woff", "font/woff2", "font/woff", w, "the server gave font/woff"},
		{"woff2 that is not", "font/woff2", "font/woff2", gosmallcaps.TTF, "the data is not a WOFF2 font"},
	} {
		got := fetchedProblem(tt.mime, tt.mediaType, tt.data, nil)
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: FetchedProblem = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestResourceChecksFormats(t *testing.T) {
	template := []byte(`<style>@font-face { font-family: Brand; src: url({{brand}}) format("woff2"); }</style>
<p style="font-family: Brand"><img src="{{logo}}" width="96" height="64"> Hi</p>`)
	// 96 x 64 CSS pixels is an inch by two thirds.
	if msg := render.CheckResource(template, "logo", "image/gif", gif(t, 300, 200)); msg != "" {
		t.Errorf("gif at 300 DPI: %s", msg)
	}
	want := "the image is 299 x 200 pixels and the template prints it at 299 DPI; an image must print at 300 DPI or more: use a larger image, or print it smaller"
	if msg := render.CheckResource(template, "logo", "image/gif", gif(t, 299, 200)); msg != want {
		t.Errorf("gif at 299 DPI: %q, want %q", msg, want)
	}
	// An SVG of any size is drawn for the size it prints at.
	tiny := []byte(`<svg width="4" height="4"><circle cx="2" cy="2" r="2"/></svg>`)
	if msg := render.CheckResource(template, "logo", "image/svg+xml", tiny); msg != "" {
		t.Errorf("small svg: %s", msg)
	}
	if msg := render.CheckResource(template, "logo", "image/svg+xml", svgOf(`<text>Hi</text>`)); !strings.Contains(msg, "<text>") {
		t.Errorf("svg with text: %q", msg)
	}
	for _, hmtx := range []bool{false, true} {
		if msg := render.CheckResource(template, "brand", "font/woff2", woff2(t, hmtx)); msg != "" {
			t.Errorf("woff2 (hmtx %v): %s", hmtx, msg)
		}
		if msg := render.CheckFont(woff2(t, hmtx)); msg != "" {
			t.Errorf("CheckFont woff2 (hmtx %v): %s", hmtx, msg)
		}
	}
	w := woff2(t, false)
	if msg := render.CheckFont(w[:len(w)-10]); !strings.HasPrefix(msg, "the WOFF2 font can not be read: ") {
		t.Errorf("CheckFont of a woff2 cut short: %q", msg)
	}
	if msg := render.UseProblem(template, "logo", "font/woff2", w); msg != "the template shows {{logo}} as an image, and the asset is a font" {
		t.Errorf("woff2 as an image: %q", msg)
	}
	if msg := render.UseProblem(template, "brand", "image/svg+xml", []byte(logoSVG)); msg != "the template uses {{brand}} as a font, and the asset is an image" {
		t.Errorf("svg as a font: %q", msg)
	}

	for _, tt := range []struct {
		name, variable string
		data           []byte
		wantType       string
		want           string
	}{
		{"gif", "logo", gif(t, 300, 200), "image/gif", ""},
		{"blurred gif", "logo", gif(t, 150, 100), "", "the image is 150 x 100 pixels and the template prints it at 150 DPI"},
		{"svg", "logo", []byte(logoSVG), "image/svg+xml", ""},
		{"svg with text", "logo", svgOf(`<text>Hi</text>`), "", "the SVG has a <text> element"},
		{"woff2", "brand", w, "font/woff2", ""},
		{"page", "logo", []byte("<html>"), "", "it is neither a PNG, JPEG, GIF or SVG image nor a TrueType or WOFF2 font"},
	} {
		r, msg := render.FetchedResource(template, tt.variable, tt.data)
		if r.Type != tt.wantType || tt.want == "" && msg != "" || !strings.HasPrefix(msg, tt.want) {
			t.Errorf("fetched %s: %s, %q; want %s, %q", tt.name, r.Type, msg, tt.wantType, tt.want)
		}
	}
}

func TestRenderImageLetterFormats(t *testing.T) {
	tests := []struct {
		name, mime string
		data       []byte
		color      bool
		wantImages []string
		wantSizes  []string
	}{
		// A GIF prints its first frame, on white, as PNG and JPEG do.
		{"gif in colour", "image/gif", gif(t, 300, 200), true, []string{"2:DeviceRGB:FlateDecode"}, []string{"300x200"}},
		{"gif in grey", "image/gif", gif(t, 300, 200), false, []string{"2:DeviceGray:FlateDecode"}, []string{"300x200"}},
		// 2 x 1 inches, drawn at 300 DPI.
		{"svg in colour", "image/svg+xml", []byte(logoSVG), true, []string{"2:DeviceRGB:FlateDecode"}, []string{"600x300"}},
		{"svg in grey", "image/svg+xml", []byte(logoSVG), false, []string{"2:DeviceGray:FlateDecode"}, []string{"600x300"}},
		// 10 x 10 inches, made smaller to fit the page's 7 inches across.
		{"large svg", "image/svg+xml", []byte(`<svg width="10in" height="10in" viewBox="0 0 1 1"><rect width="1" height="1" fill="red"/></svg>`), true, []string{"2:DeviceRGB:FlateDecode"}, []string{"2100x2100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := checkContent(tt.mime, tt.data, nil); msg != "" {
				t.Fatalf("CheckContent: %s", msg)
			}
			l := letterOf(tt.mime, tt.data)
			l.Color = tt.color
			got := pdftest.Read(t, renderOf(t, l))
			if len(got.Pages) != 2 {
				t.Fatalf("pages = %d, want 2 (addresses, then the image)", len(got.Pages))
			}
			if diff := cmp.Diff(tt.wantImages, got.Images); diff != "" {
				t.Errorf("images (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSizes, got.ImageSizes); diff != "" {
				t.Errorf("image sizes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderTemplateFormats(t *testing.T) {
	template := `<style>@font-face { font-family: Brand; src: url({{brand}}) format("woff2"); }</style>
<h1 style="font-family: Brand">Brand News</h1>
<p><img src="{{logo}}" width="192" height="96"></p>
<p><img src="{{logo}}" width="96" height="48"></p>
<p><img src="{{photo}}" width="96" height="64"></p>`
	for _, hmtx := range []bool{false, true} {
		l := letterOf("text/html", []byte(template))
		l.Color = true
		l.Resources = map[string]render.Resource{
			"{{brand}}": {Type: "font/woff2", Data: woff2(t, hmtx)},
			"{{logo}}":  {Type: "image/svg+xml", Data: []byte(logoSVG)},
			"{{photo}}": {Type: "image/gif", Data: gif(t, 300, 200)},
		}
		got := pdftest.Read(t, renderOf(t, l))
		if !strings.Contains(got.Pages[0], "Brand News") {
			t.Errorf("page one lacks the heading:\n%s", got.Pages[0])
		}
		embedded := 0
		for name, ok := range got.Fonts {
			if strings.Contains(name, "GoSmallcaps") && ok {
				embedded++
			}
		}
		if embedded != 1 {
			t.Errorf("hmtx %v: fonts = %v, want Go Smallcaps embedded", hmtx, got.Fonts)
		}
		// The SVG is drawn for each size it prints at, at 300 DPI: 2 x 1
		// inches and 1 x 1/2; the GIF as it is.
		if diff := cmp.Diff([]string{"600x300", "300x150", "300x200"}, got.ImageSizes); diff != "" {
			t.Errorf("image sizes (-want +got):\n%s", diff)
		}
	}
}

func TestResourceTypeFormats(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"gif87a", "GIF87a\x01\x00", "image/gif"},
		{"gif89a", "GIF89a\x01\x00", "image/gif"},
		{"woff2", "wOF2\x00\x01\x00\x00", "font/woff2"},
		{"svg", `<svg xmlns="http://www.w3.org/2000/svg">`, "image/svg+xml"},
		{"svg after a declaration", "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg>", "image/svg+xml"},
		{"xml of another kind", `<?xml version="1.0"?><feed>`, ""},
		{"html", "<html><svg></svg></html>", ""},
	} {
		if got := render.ResourceType([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: ResourceType = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPrintableFormats(t *testing.T) {
	for mime, want := range map[string]bool{"image/gif": true, "image/svg+xml": true, "font/woff2": false} {
		if got := render.Printable(mime); got != want {
			t.Errorf("Printable(%s) = %v, want %v", mime, got, want)
		}
	}
}

func FuzzCheckSVG(f *testing.F) {
	f.Add([]byte(logoSVG))
	f.Add(svgOf(`<defs><g id="a"><rect width="1" height="1"/></g></defs><use href="#a"/>`))
	f.Add(svgOf(`<path d="M0 0 C 10 10 20 20 30 0 A 5 5 0 1 1 50 50 z" stroke="red" stroke-dasharray="1 2"/>`))
	f.Add(svgOf(`<polygon points="1,2 3,4 5"/><ellipse rx="3" ry="-2"/><line x1="a"/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkContent("image/svg+xml", data, nil) != "" {
			return
		}
		// What is taken prints, as an image page and as a template's image.
		if _, err := render.Render(letterOf("image/svg+xml", data)); err != nil {
			t.Fatalf("Render: %v", err)
		}
	})
}

func FuzzCheckWOFF2(f *testing.F) {
	f.Add(woff2(f, false))
	f.Add(woff2(f, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkContent("font/woff2", data, nil) != "" {
			return
		}
		render.CheckFont(data)
	})
}
