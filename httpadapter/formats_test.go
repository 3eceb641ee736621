package httpadapter_test

import (
	"encoding/base64"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
)

// TestVersionFormats: an image asset takes GIF and SVG, a font asset
// WOFF2, as the reference lists them; each is checked as it is stored,
// and an image letter prints from each image.
func TestVersionFormats(t *testing.T) {
	ts := newTestServer(t)
	gif := pdftest.GIF(t, 300, 200)
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="2in" height="1in" viewBox="0 0 20 10"><rect width="20" height="10" rx="2" fill="#1a5fb4"/></svg>`
	woff2, err := os.ReadFile("../render/testdata/gosmallcaps-ascii.woff2")
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	for _, tt := range []struct {
		assetType, mime, good, bad string
		print                      bool
	}{
		{"image", "image/gif", gif, gif[:40], true},
		{"image", "image/svg+xml", svg, `<svg width="1" height="1"><text>Hi</text></svg>`, true},
		{"font", "font/woff2", b64(woff2), b64(woff2[:len(woff2)/2]), false},
	} {
		t.Run(tt.mime, func(t *testing.T) {
			var a lettershop.Asset
			ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Brand", "type": tt.assetType}}).
				wantStatus(t, http.StatusCreated).decode(t, &a)
			version := func(content string) req {
				return req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{
					"content": map[string]any{"source": "inline", "type": tt.mime, "content": content}, "publish": true}}
			}
			ts.do(t, version(tt.bad)).problem(t, http.StatusBadRequest).wantFields(t, "content.content")
			var v lettershop.AssetVersion
			ts.do(t, version(tt.good)).wantStatus(t, http.StatusCreated).decode(t, &v)
			if v.Content.Type != lettershop.ContentType(tt.mime) || v.Content.Content != tt.good {
				t.Fatalf("version holds %s, want what was sent", v.Content.Type)
			}
			raw := ts.get(t, ts.located(t, v.ContentURL)).wantStatus(t, http.StatusOK)
			if raw.Header.Get("Content-Type") != tt.mime {
				t.Errorf("contentUrl answered %s, want %s", raw.Header.Get("Content-Type"), tt.mime)
			}
			if !tt.print {
				return
			}
			body := letterBody(a.ID)
			delete(body, "variables")
			var l lettershop.Letter
			ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).wantStatus(t, http.StatusCreated).decode(t, &l)
			link := downloadLink(t, ts, l.ID)
			pdf := ts.do(t, req{Method: "GET", Path: link, Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
			got := pdftest.Read(t, pdf.Body)
			if len(got.Pages) != 2 || len(got.Images) != 1 {
				t.Errorf("letter has %d pages and images %v, want the image on page two", len(got.Pages), got.Images)
			}
		})
	}

	// An SVG is XML text, given and shown as such; given base64-encoded,
	// as other images are, it is taken too, and shown as its text.
	var logo lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Logo", "type": "image"}}).
		wantStatus(t, http.StatusCreated).decode(t, &logo)
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + logo.ID + "/versions", Body: map[string]any{
		"content": map[string]any{"source": "inline", "type": "image/svg+xml", "content": b64([]byte(svg))}}}).
		wantStatus(t, http.StatusCreated).decode(t, &v)
	if v.Content.Content != svg {
		t.Errorf("a base64-encoded SVG is shown as %q, want its text", v.Content.Content)
	}
	p := ts.do(t, req{Method: "POST", Path: "/assets/" + logo.ID + "/versions", Body: map[string]any{
		"content": map[string]any{"source": "inline", "type": "image/svg+xml", "content": "not an svg"}}}).
		problem(t, http.StatusBadRequest)
	if p.wantFields(t, "content.content"); !strings.Contains(p.Errors["content.content"], "the SVG's text, or that text base64-encoded") {
		t.Errorf("message %q does not say what an SVG's content is", p.Errors["content.content"])
	}

	// The types each asset type holds, in the message a wrong one gets.
	var img lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Logo", "type": "image"}}).
		wantStatus(t, http.StatusCreated).decode(t, &img)
	p = ts.do(t, req{Method: "POST", Path: "/assets/" + img.ID + "/versions", Body: map[string]any{
		"content": map[string]any{"source": "inline", "type": "image/webp", "content": gif}}}).problem(t, http.StatusBadRequest)
	p.wantFields(t, "content.type")
	if want := `an image asset holds image/png, image/jpeg, image/gif or image/svg+xml, got "image/webp"`; p.Errors["content.type"] != want {
		t.Errorf("message %q, want %q", p.Errors["content.type"], want)
	}
}
