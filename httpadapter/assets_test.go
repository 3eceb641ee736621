package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

func TestAssetLifecycle(t *testing.T) {
	ts := newTestServer(t)

	res := ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{
		"name": "Welcome", "description": "the first letter", "type": "template",
		"metadata": []map[string]any{{"key": "team", "value": "north"}},
	}}).wantStatus(t, http.StatusCreated)
	var a lettershop.Asset
	res.decode(t, &a)
	if want := testBaseURL + "/assets/" + a.ID; res.Header.Get("Location") != want {
		t.Errorf("Location %q, want %q", res.Header.Get("Location"), want)
	}
	golden(t, "asset_created", res.Body)

	var got lettershop.Asset
	ts.get(t, "/assets/"+a.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if diff := cmp.Diff(a, got, cmp.AllowUnexported(lettershop.Asset{}, lettershop.MetadataPair{})); diff != "" {
		t.Errorf("fetched asset (-created +fetched):\n%s", diff)
	}

	ts.do(t, req{Method: "PUT", Path: "/assets/" + a.ID, Body: map[string]any{"name": "Welcome back"}}).
		wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Name != "Welcome back" || got.Description != "the first letter" {
		t.Errorf("after update: name %q description %q", got.Name, got.Description)
	}
	ts.do(t, req{Method: "PUT", Path: "/assets/" + a.ID, Body: map[string]any{"name": ""}}).
		problem(t, http.StatusBadRequest).wantFields(t, "name")
	ts.do(t, req{Method: "PUT", Path: "/assets/" + a.ID, Body: map[string]any{"type": "image"}}).
		problem(t, http.StatusBadRequest).wantFields(t, "type")

	del := ts.do(t, req{Method: "DELETE", Path: "/assets/" + a.ID}).wantStatus(t, http.StatusNoContent)
	if len(del.Body) != 0 {
		t.Errorf("delete answered a body: %q", del.Body)
	}
	ts.get(t, "/assets/"+a.ID).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "DELETE", Path: "/assets/" + a.ID}).problem(t, http.StatusNotFound)
}

func TestCreateAssetValidation(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		body   any
		fields []string
	}{
		{"empty", `{}`, []string{"name"}},
		{"name at the limit", map[string]any{"name": strings.Repeat("n", lettershop.MaxAssetName)}, nil},
		{"name over the limit", map[string]any{"name": strings.Repeat("n", lettershop.MaxAssetName+1)}, []string{"name"}},
		{"bad type", map[string]any{"name": "x", "type": "video"}, []string{"type"}},
		{"name a number", map[string]any{"name": 12}, []string{"name"}},
		{"metadata an object", map[string]any{"name": "x", "metadata": map[string]any{"a": "b"}}, []string{"metadata"}},
		{"nested metadata value", map[string]any{"name": "x", "metadata": []any{map[string]any{"key": "a", "value": map[string]any{}}}}, []string{"metadata[0].value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ts.do(t, req{Method: "POST", Path: "/assets", Body: tt.body})
			if tt.fields == nil {
				res.wantStatus(t, http.StatusCreated)
				return
			}
			res.problem(t, http.StatusBadRequest).wantFields(t, tt.fields...)
		})
	}
}

func TestListAssets(t *testing.T) {
	ts := newTestServer(t)
	var ids []string
	for i, team := range []string{"north", "south", "north"} {
		var a lettershop.Asset
		ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{
			"name": "asset", "metadata": []map[string]any{{"key": "team", "value": team}, {"key": "n", "value": string(rune('0' + i))}},
		}}).wantStatus(t, http.StatusCreated).decode(t, &a)
		ids = append(ids, a.ID)
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{ids[2], ids[1], ids[0]}},
		{"metadata[team]=north", []string{ids[2], ids[0]}},
		{"metadata[team]=north&metadata[n]=0", []string{ids[0]}},
		{"pageSize=2", []string{ids[2], ids[1]}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			var page lettershop.Page[lettershop.Asset]
			ts.get(t, "/v1/assets?"+tt.query).wantStatus(t, http.StatusOK).decode(t, &page)
			var got []string
			for _, a := range page.Items {
				got = append(got, a.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
	ts.get(t, "/assets?pageSize=101").problem(t, http.StatusBadRequest).wantFields(t, "pageSize")
	ts.get(t, "/assets?metadata[team]=north%").problem(t, http.StatusBadRequest).wantFields(t, "metadata[team]")
	ts.get(t, "/assets?metadata=north").problem(t, http.StatusBadRequest).wantFields(t, "metadata")
	ts.get(t, "/assets?metadata[]=north").problem(t, http.StatusBadRequest).wantFields(t, "metadata[]")
	ts.get(t, "/assets?status=published").problem(t, http.StatusBadRequest).wantFields(t, "status")
}

func TestAssetPathIDsAndAccounts(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, r := range []req{
		{Method: "GET", Path: "/assets/ltr_01abc"},
		{Method: "PUT", Path: "/assets/ast-01", Body: `{"name":"x"}`},
		{Method: "DELETE", Path: "/assets/ast_"},
	} {
		ts.do(t, r).problem(t, http.StatusBadRequest).wantFields(t, "id")
	}
	b := hdr("X-Api-Key", keyB)
	ts.do(t, req{Method: "GET", Path: "/assets/" + assetID, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "PUT", Path: "/assets/" + assetID, Body: `{"name":"mine"}`, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "DELETE", Path: "/assets/" + assetID, Header: b}).problem(t, http.StatusNotFound)
	ts.get(t, "/assets/"+assetID).wantStatus(t, http.StatusOK)
}

// TestAssetShowsDescription: an asset without a description shows the
// field, empty, as the reference's asset example shows it and as a version
// shows its notes, in every answer.
func TestAssetShowsDescription(t *testing.T) {
	ts := newTestServer(t)
	res := ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Right to Cure","type":"template"}`}).
		wantStatus(t, http.StatusCreated)
	var a lettershop.Asset
	res.decode(t, &a)
	answers := map[string][]byte{
		"create": res.Body,
		"get":    ts.get(t, "/assets/"+a.ID).wantStatus(t, http.StatusOK).Body,
		"list":   ts.get(t, "/assets").wantStatus(t, http.StatusOK).Body,
		"update": ts.do(t, req{Method: "PUT", Path: "/assets/" + a.ID, Body: `{"name":"Renamed"}`}).wantStatus(t, http.StatusOK).Body,
	}
	for name, body := range answers {
		if !strings.Contains(string(body), `"description":""`) {
			t.Errorf("%s answer without \"description\":\"\": %s", name, body)
		}
	}
}
