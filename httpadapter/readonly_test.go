package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop"
)

// fetchedJSON is the JSON object a GET of path answers.
func (ts *testServer) fetchedJSON(t testing.TB, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(ts.get(t, path).wantStatus(t, http.StatusOK).Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPutBackFetchedLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	b := letterBody(assetID)
	b["options"] = map[string]any{"addressProcessing": map[string]any{"cassRecipient": map[string]any{"type": "basic"}}}
	b["recipient"].(map[string]any)["address"] = map[string]any{"addressLine1": "residential house", "lastLine": "Springfield IL 62704"}
	var l lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusCreated).decode(t, &l)
	path := "/letters/" + l.ID

	m := ts.fetchedJSON(t, path)
	m["description"] = "changed"
	var got lettershop.Letter
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Description != "changed" || got.Status != lettershop.StatusQueued {
		t.Errorf("after PUT of the fetched letter: %s %q", got.Status, got.Description)
	}

	// Read-only fields with other values: a 400 naming each; unknown
	// fields stay a 400.
	m = ts.fetchedJSON(t, path)
	m["status"] = "ready"
	m["createdAt"] = "2026-03-02T15:00:01Z"
	m["recipient"].(map[string]any)["addressComponents"].(map[string]any)["city"] = "Chicago"
	m["colour"] = "blue"
	p := ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest)
	p.wantFields(t, "colour")
	delete(m, "colour")
	p = ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest)
	p.wantFields(t, "status", "createdAt", "recipient.addressComponents")
	if msg := p.Errors["status"]; !strings.Contains(msg, "read-only") {
		t.Errorf("status message %q does not say read-only", msg)
	}
	m["status"], m["modifiedAt"] = "queued", "yesterday"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest).wantFields(t, "modifiedAt")

	// A mailed letter sent back whole with new metadata.
	ts.do(t, req{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: map[string]any{"status": "mailed"}}).wantStatus(t, http.StatusOK)
	m = ts.fetchedJSON(t, path)
	m["metadata"] = []map[string]any{{"key": "k", "value": "v"}}
	got = lettershop.Letter{}
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusMailed || len(got.Metadata) != 1 || got.Metadata[0].Key != "k" {
		t.Errorf("mailed letter after PUT: %s %v", got.Status, got.Metadata)
	}
	m["useType"] = "marketing"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusConflict)
}

func TestPutBackFetchedAssetAndVersion(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)

	path := "/assets/" + assetID
	m := ts.fetchedJSON(t, path)
	m["name"] = "Renamed"
	var a lettershop.Asset
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).wantStatus(t, http.StatusOK).decode(t, &a)
	if a.Name != "Renamed" {
		t.Errorf("name %q after PUT", a.Name)
	}
	m = ts.fetchedJSON(t, path)
	m["versionCount"], m["type"] = 5, "font"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest).wantFields(t, "versionCount", "type")

	// A published version sent back whole with new notes: 202, no body.
	path = "/assets/" + assetID + "/versions/" + versionID
	m = ts.fetchedJSON(t, path)
	m["notes"] = "second thoughts"
	upd := ts.do(t, req{Method: "PUT", Path: path, Body: m}).wantStatus(t, http.StatusAccepted)
	if len(upd.Body) != 0 || upd.Header.Get("Content-Type") != "" {
		t.Errorf("update answered %q (%s), want no body", upd.Body, upd.Header.Get("Content-Type"))
	}
	var v lettershop.AssetVersion
	ts.get(t, path).wantStatus(t, http.StatusOK).decode(t, &v)
	if v.Notes != "second thoughts" || v.Status != lettershop.VersionPublished {
		t.Errorf("version after PUT: %s %q", v.Status, v.Notes)
	}
	// Its content is not the notes: a 400 naming the field, nothing changed.
	m = ts.fetchedJSON(t, path)
	m["content"].(map[string]any)["content"] = "<p>other</p>"
	m["notes"] = "not kept"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	m = ts.fetchedJSON(t, path)
	m["variableDefinitions"] = []any{}
	m["notes"] = "not kept"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).problem(t, http.StatusBadRequest).wantFields(t, "variableDefinitions")
	// Read-only fields are ignored, whatever they hold.
	m = ts.fetchedJSON(t, path)
	m["contentLength"], m["status"], m["contentUrl"], m["publish"] = 3, "archived", "https://elsewhere.example/x", false
	m["createdAt"], m["id"], m["contentType"] = "2023-06-07T12:34:56Z", "astv_2jyk1xYhW4n0vVfHirU5eJeXsbw", "image/png"
	ts.do(t, req{Method: "PUT", Path: path, Body: m}).wantStatus(t, http.StatusAccepted)
	var after lettershop.AssetVersion
	ts.get(t, path).wantStatus(t, http.StatusOK).decode(t, &after)
	if diff := cmp.Diff(v, after, cmpopts.IgnoreUnexported(lettershop.AssetVersion{})); diff != "" {
		t.Errorf("read-only fields changed the version (-before +after):\n%s", diff)
	}
}
