package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// TestShapeProblemsTellTheRest: a body of the wrong shape is refused with
// its shape's problems and, beside them, the problems of the rest of the
// body (a required field left out, a value outside its enumeration), each
// under its path, so that a client mends them all at once. A problem under
// a shape problem's path is the shape's alone, and nothing is stored.
func TestShapeProblemsTellTheRest(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	var hook webhookBody
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/hook", "events": []string{"letter.created"}}}).
		wantStatus(t, http.StatusCreated).decode(t, &hook)
	versionPath := "/assets/" + assetID + "/versions"

	tests := []struct {
		name, method, path string
		body               func() any
		// fields are the problems named, path to a part of its message.
		fields map[string]string
	}{
		{"letter: a number for the recipient, the others left out", "POST", "/letters",
			func() any { return `{"recipient": 5}` },
			map[string]string{"recipient": "must be an object, got a number", "sender": "sender is required", "content": "content is required", "useType": "useType is required"}},
		{"letter: a string for an address, a bad useType and description", "POST", "/letters", func() any {
			b := letterBody(assetID)
			b["recipient"].(map[string]any)["address"] = "200 Oak Ave, Chicago"
			b["useType"] = "spam"
			b["description"] = 5
			b["sendDate"] = "someday"
			return b
		}, map[string]string{"recipient.address": "must be an object, got a string", "description": "must be a string", "useType": "must be one of", "sendDate": ""}},
		{"letter: a field under a shape problem is the shape's, its neighbour told", "POST", "/letters", func() any {
			b := letterBody(assetID)
			b["sender"].(map[string]any)["address"] = map[string]any{"addressLine1": 100}
			b["variables"] = []any{"name=Jane"}
			return b
		}, map[string]string{"sender.address.addressLine1": "must be a string", "sender.address.lastLine": "can not be empty", "variables[0]": "must be an object"}},
		{"letter: the whole body not an object is told alone", "POST", "/letters",
			func() any { return `"{\"useType\": \"marketing\"}"` },
			map[string]string{"body": "must be an object, got a string"}},
		{"letter update: metadata and options beside a shape problem", "PUT", "/letters/ltr_000000000000000000000000000", func() any {
			return map[string]any{"description": 5, "metadata": []map[string]any{{"key": "", "value": "x"}}, "options": map[string]any{"mail": map[string]any{"service": "pigeon"}}}
		}, map[string]string{"description": "must be a string", "metadata[0].key": "", "options.mail.service": "must be one of"}},
		{"asset: a number for the description, the name left out", "POST", "/assets",
			func() any { return `{"description": 5, "type": "poster"}` },
			map[string]string{"description": "must be a string", "name": "", "type": "must be one of"}},
		{"asset update", "PUT", "/assets/" + assetID,
			func() any { return `{"description": ["x"], "name": ""}` },
			map[string]string{"description": "must be a string", "name": ""}},
		{"version: a string for publish, a definition without a name", "POST", versionPath,
			func() any { return `{"publish": "yes", "variableDefinitions": [{"behavior": "always"}]}` },
			map[string]string{"publish": "must be true or false", "variableDefinitions[0].name": "name can not be empty", "variableDefinitions[0].behavior": "must be one of"}},
		{"version update", "PUT", versionPath + "/" + versionID,
			func() any {
				return `{"publish": 1, "notes": "` + strings.Repeat("n", lettershop.MaxVersionNotes+1) + `"}`
			},
			map[string]string{"publish": "must be true or false", "notes": ""}},
		{"version clone", "POST", versionPath + "/" + versionID + "/clone",
			func() any {
				return `{"publish": "no", "notes": "` + strings.Repeat("n", lettershop.MaxVersionNotes+1) + `"}`
			},
			map[string]string{"publish": "must be true or false", "notes": ""}},
		{"webhook: a string for the events, the url left out", "POST", "/webhooks",
			func() any { return `{"events": "letter.created"}` },
			map[string]string{"events": "must be an array", "url": "url is required"}},
		{"webhook: a number for the url is the url's shape alone", "POST", "/webhooks",
			func() any { return `{"url": 5, "events": ["letter.lost"]}` },
			map[string]string{"url": "must be a string", "events[0]": "must be one of"}},
		{"webhook update", "PUT", "/webhooks/" + hook.ID,
			func() any {
				return `{"description": 5, "status": "paused", "events": ["letter.created", "letter.created"]}`
			},
			map[string]string{"description": "must be a string", "status": "must be one of", "events[1]": "given twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ts.do(t, req{Method: tt.method, Path: tt.path, Body: tt.body()}).problem(t, http.StatusBadRequest)
			want := make([]string, 0, len(tt.fields))
			for path, msg := range tt.fields {
				want = append(want, path)
				if got, ok := p.Errors[path]; ok && !strings.Contains(got, msg) {
					t.Errorf("%s: %q, want it to say %q", path, got, msg)
				}
			}
			p.wantFields(t, want...)
		})
	}

	// Nothing was stored nor changed.
	var letters lettershop.Page[lettershop.Letter]
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &letters)
	var assets lettershop.Page[lettershop.Asset]
	ts.get(t, "/assets").wantStatus(t, http.StatusOK).decode(t, &assets)
	var versions lettershop.Page[lettershop.AssetVersion]
	ts.get(t, versionPath).wantStatus(t, http.StatusOK).decode(t, &versions)
	var hooks lettershop.Page[lettershop.Webhook]
	ts.get(t, "/webhooks").wantStatus(t, http.StatusOK).decode(t, &hooks)
	if len(letters.Items) != 0 || len(assets.Items) != 1 || len(versions.Items) != 1 || len(hooks.Items) != 1 {
		t.Errorf("refused requests stored: %d letters, %d assets, %d versions, %d webhooks; want 0, 1, 1, 1",
			len(letters.Items), len(assets.Items), len(versions.Items), len(hooks.Items))
	}
	if a := assets.Items[0]; a.Description != "" || a.Name != "Welcome" {
		t.Errorf("a refused update changed the asset: %+v", a)
	}
	if h := hooks.Items[0]; h.Description != "" || h.Status != lettershop.WebhookEnabled {
		t.Errorf("a refused update changed the webhook: %+v", h)
	}
}
