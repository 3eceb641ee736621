package httpadapter_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lettershop/lettershop"
)

// TestVersionSources: content imported from a URL, and content kept at
// one (externalUrl), its contentUrl serving what the URL gives, or a 502
// saying what failed.
func TestVersionSources(t *testing.T) {
	ts := newTestServer(t)
	var body atomic.Value
	body.Store("<p>Hello {{name}}</p>")
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/t.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body.Load().(string)))
	}))
	t.Cleanup(files.Close)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"T"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/assets/" + a.ID + "/versions"

	var imported lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base, Body: map[string]any{
		"content": map[string]any{"source": "import", "type": "text/html", "content": files.URL + "/t.html"},
	}}).wantStatus(t, http.StatusCreated).decode(t, &imported)
	if imported.Content.Source != "import" || imported.Content.Content != "<p>Hello {{name}}</p>" || imported.ContentLength != 21 {
		t.Errorf("imported: %+v, %d bytes", imported.Content, imported.ContentLength)
	}
	p := ts.do(t, req{Method: "POST", Path: base, Body: map[string]any{
		"content": map[string]any{"source": "import", "content": files.URL + "/missing.html"},
	}}).problem(t, http.StatusBadRequest)
	p.wantFields(t, "content.content")
	if !strings.Contains(p.Errors["content.content"], "404 Not Found") {
		t.Errorf("content.content: %q, want the 404 named", p.Errors["content.content"])
	}

	var ext lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base, Body: map[string]any{
		"content": map[string]any{"source": "externalUrl", "type": "text/html", "content": files.URL + "/t.html"},
	}}).wantStatus(t, http.StatusCreated).decode(t, &ext)
	if ext.Content.Source != "externalUrl" || ext.Content.Content != files.URL+"/t.html" || ext.ContentLength != 0 {
		t.Errorf("externalUrl: %+v, %d bytes", ext.Content, ext.ContentLength)
	}
	body.Store("<p>Changed</p>")
	res := ts.get(t, ts.located(t, ext.ContentURL)).wantStatus(t, http.StatusOK)
	if string(res.Body) != "<p>Changed</p>" || res.Header.Get("Content-Type") != "text/html" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("contentUrl: %q, %v", res.Body, res.Header)
	}
	// The imported version keeps what it downloaded.
	if res := ts.get(t, ts.located(t, imported.ContentURL)).wantStatus(t, http.StatusOK); string(res.Body) != "<p>Hello {{name}}</p>" {
		t.Errorf("imported contentUrl: %q", res.Body)
	}

	body.Store("<script>x()</script>")
	p = ts.get(t, ts.located(t, ext.ContentURL)).problem(t, http.StatusBadGateway)
	if p.Code != "bad-gateway" || !strings.Contains(p.Detail, files.URL+"/t.html") || !strings.Contains(p.Detail, "<script>") ||
		p.Type != "https://datatracker.ietf.org/doc/html/rfc9110#section-15.6.3" {
		t.Errorf("a template that does not print: %+v", p)
	}
	files.Close()
	p = ts.get(t, ts.located(t, ext.ContentURL)).problem(t, http.StatusBadGateway)
	if !strings.Contains(p.Detail, "could not be fetched from "+files.URL+"/t.html: no answer") {
		t.Errorf("nobody there: %+v", p)
	}
}
