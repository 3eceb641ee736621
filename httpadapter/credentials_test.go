package httpadapter_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// TestURLsWithoutCredentials: wherever a URL lettershop requests is given
// (a webhook's url, an asset version's import or externalUrl content, an
// externalUrl variable's value), one with a user name, or a user name and
// password, before its host is a 400 naming the field and saying why; the
// same URL without them is taken.
func TestURLsWithoutCredentials(t *testing.T) {
	ts := newTestServer(t)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>Hello</p>"))
	}))
	t.Cleanup(files.Close)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"T"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	var tpl lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Logo letter"}`}).wantStatus(t, http.StatusCreated).decode(t, &tpl)
	ts.do(t, req{Method: "POST", Path: "/assets/" + tpl.ID + "/versions", Body: map[string]any{
		"content":             map[string]any{"type": "text/html", "content": `<p>Hello</p><img src="{{logo}}">`},
		"variableDefinitions": []map[string]any{{"name": "logo", "type": "externalUrl", "behavior": "required"}},
		"publish":             true,
	}}).wantStatus(t, http.StatusCreated)

	for _, place := range []struct {
		name, field, url string
		send             func(u string) result
	}{
		{"webhook url", "url", "https://hooks.example.com/in", func(u string) result {
			return ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": u}})
		}},
		{"import content", "content.content", files.URL + "/t.html", func(u string) result {
			return ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{
				"content": map[string]any{"source": "import", "type": "text/html", "content": u}}})
		}},
		{"externalUrl content", "content.content", "https://files.example.com/t.html", func(u string) result {
			return ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{
				"content": map[string]any{"source": "externalUrl", "type": "text/html", "content": u}}})
		}},
		{"externalUrl variable", "variables[0].value", "https://cdn.example.com/logo.png", func(u string) result {
			body := letterBody(tpl.ID)
			body["variables"] = []map[string]any{{"name": "logo", "value": u}}
			return ts.do(t, req{Method: "POST", Path: "/letters", Body: body})
		}},
	} {
		if r := place.send(place.url); r.Status != http.StatusCreated {
			t.Errorf("%s %s: %d, want 201; body: %.300s", place.name, place.url, r.Status, r.Body)
		}
		for _, userinfo := range []string{"user", "user:pass", ":pass", ""} {
			u := strings.Replace(place.url, "://", "://"+userinfo+"@", 1) // "": an empty user name
			p := place.send(u).problem(t, http.StatusBadRequest)
			p.wantFields(t, place.field)
			if msg := p.Errors[place.field]; !strings.Contains(msg, "a user name or password before its host") || !strings.Contains(msg, "without credentials") {
				t.Errorf("%s %s: %s is %q, want it refused for its user name or password, saying why", place.name, u, place.field, msg)
			}
		}
	}
}
