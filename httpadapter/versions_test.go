package httpadapter_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

func TestVersionLifecycle(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Welcome"}}).
		wantStatus(t, http.StatusCreated).decode(t, &a)
	base := "/assets/" + a.ID + "/versions"

	// A published version, and a draft.
	res := ts.do(t, req{Method: "POST", Path: base, Body: templateBody()}).wantStatus(t, http.StatusCreated)
	var v1 lettershop.AssetVersion
	res.decode(t, &v1)
	if want := testBaseURL + base + "/" + v1.ID; res.Header.Get("Location") != want {
		t.Errorf("Location %q, want %q", res.Header.Get("Location"), want)
	}
	golden(t, "version_created", res.Body)
	draft := templateBody()
	delete(draft, "publish")
	var v2 lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base, Body: draft}).wantStatus(t, http.StatusCreated).decode(t, &v2)
	if v1.Status != lettershop.VersionPublished || v2.Status != lettershop.VersionDraft || !v1.Publish || v2.Publish {
		t.Fatalf("statuses %q %q (publish %v %v), want published draft", v1.Status, v2.Status, v1.Publish, v2.Publish)
	}

	// The version fetched is the version created: one shape everywhere.
	got := ts.get(t, base+"/"+v1.ID).wantStatus(t, http.StatusOK)
	if string(got.Body) != string(res.Body) {
		t.Errorf("fetched\n%s\nwant what create answered\n%s", got.Body, res.Body)
	}
	var fetched lettershop.AssetVersion
	got.decode(t, &fetched)
	if fetched.Content.Content != testTemplate || fetched.ContentType != "text/html" ||
		fetched.ContentURL != testBaseURL+"/assets/"+v1.ID+"/content" {
		t.Errorf("fetched %+v, want the template and its contentUrl", fetched)
	}

	// Publishing the draft archives the published one.
	var pub lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base + "/" + v2.ID + "/publish"}).wantStatus(t, http.StatusOK).decode(t, &pub)
	if pub.Status != lettershop.VersionPublished || pub.Content.Content != testTemplate {
		t.Errorf("published version %+v", pub)
	}
	ids := func(query string) []string {
		t.Helper()
		var page lettershop.Page[lettershop.AssetVersion]
		ts.get(t, base+query).wantStatus(t, http.StatusOK).decode(t, &page)
		var out []string
		for _, v := range page.Items {
			if v.Content.Content != testTemplate || v.ContentURL != testBaseURL+"/assets/"+v.ID+"/content" {
				t.Errorf("listed %+v, want the version with its content", v)
			}
			out = append(out, v.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{v2.ID}, ids("")); diff != "" {
		t.Errorf("versions without archived (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{v2.ID, v1.ID}, ids("?includeArchived=true")); diff != "" {
		t.Errorf("versions with archived (-want +got):\n%s", diff)
	}
	ts.get(t, base+"?includeArchived=yes%20please").problem(t, http.StatusBadRequest).wantFields(t, "includeArchived")
	if diff := cmp.Diff([]string{v2.ID, v1.ID}, ids("?includeArchived")); diff != "" {
		t.Errorf("versions with a bare includeArchived (-want +got):\n%s", diff)
	}
	ts.get(t, base+"?includeArchive=true").problem(t, http.StatusBadRequest).wantFields(t, "includeArchive")
	ts.get(t, base+"?metadata[a]=b").problem(t, http.StatusBadRequest).wantFields(t, "metadata[a]")

	// Notes of a published version can change (202, no body); its content
	// can not (400 naming the field); an archived version takes nothing.
	upd := ts.do(t, req{Method: "PUT", Path: base + "/" + v2.ID, Body: map[string]any{"notes": "final"}}).wantStatus(t, http.StatusAccepted)
	if len(upd.Body) != 0 {
		t.Errorf("update answered a body: %q", upd.Body)
	}
	var after lettershop.AssetVersion
	ts.get(t, base+"/"+v2.ID).wantStatus(t, http.StatusOK).decode(t, &after)
	if after.Notes != "final" {
		t.Errorf("notes %q after update", after.Notes)
	}
	ts.do(t, req{Method: "PUT", Path: base + "/" + v2.ID, Body: map[string]any{"content": map[string]any{"content": "<p>new</p>"}}}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	ts.do(t, req{Method: "PUT", Path: base + "/" + v2.ID, Body: map[string]any{"content": map[string]any{"data": "<p>new</p>"}}}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.data")
	ts.do(t, req{Method: "PUT", Path: base + "/" + v1.ID, Body: map[string]any{"notes": "archived"}}).problem(t, http.StatusConflict)

	// Clone makes a new draft; archive answers 202 without a body.
	var clone lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: base + "/" + v2.ID + "/clone", Body: map[string]any{"notes": "copy"}}).
		wantStatus(t, http.StatusOK).decode(t, &clone)
	if clone.Status != lettershop.VersionDraft || clone.Notes != "copy" || clone.ID == v2.ID || clone.Content.Content != testTemplate || clone.Publish {
		t.Errorf("clone: %+v", clone)
	}
	ts.do(t, req{Method: "POST", Path: base + "/" + v2.ID + "/clone"}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: base + "/" + v2.ID + "/clone", Body: `{"publish":"yes"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "publish")
	arch := ts.do(t, req{Method: "POST", Path: base + "/" + clone.ID + "/archive"}).wantStatus(t, http.StatusAccepted)
	if len(arch.Body) != 0 {
		t.Errorf("archive answered a body: %q", arch.Body)
	}

	// Delete is permanent.
	ts.do(t, req{Method: "DELETE", Path: base + "/" + v1.ID}).wantStatus(t, http.StatusNoContent)
	ts.get(t, base+"/"+v1.ID).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "DELETE", Path: base + "/" + v1.ID}).problem(t, http.StatusNotFound)
}

func TestVersionPathIDs(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	tests := []struct {
		path   string
		status int
		fields []string
	}{
		{"/assets/" + assetID + "/versions/" + versionID, http.StatusOK, nil},
		{"/assets/ast_x/versions/" + versionID, http.StatusNotFound, nil},
		{"/assets/" + assetID + "/versions/astv_01jzzzzzzzzzzzzzzzzzzzzzzz", http.StatusNotFound, nil},
		{"/assets/" + assetID + "/versions/ast_01", http.StatusBadRequest, []string{"versionId"}},
		{"/assets/astv_01/versions/" + versionID, http.StatusBadRequest, []string{"id"}},
		{"/assets/x/versions/y", http.StatusBadRequest, []string{"id", "versionId"}},
	}
	for _, tt := range tests {
		for _, r := range []req{
			{Method: "GET", Path: tt.path},
			{Method: "PUT", Path: tt.path, Body: `{"notes":"n"}`},
			{Method: "POST", Path: tt.path + "/publish"},
			{Method: "POST", Path: tt.path + "/clone"},
		} {
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				res := ts.do(t, r)
				if tt.status == http.StatusOK {
					want := http.StatusOK
					if r.Method == "PUT" {
						want = http.StatusAccepted
					}
					if res.Status != want {
						t.Fatalf("status %d, want %d: %s", res.Status, want, res.Body)
					}
					return
				}
				res.problem(t, tt.status).wantFields(t, tt.fields...)
			})
		}
	}
	ts.get(t, "/assets/ast_1-2/versions").problem(t, http.StatusBadRequest).wantFields(t, "id")
	// A bad id and bad parameters are named together.
	ts.get(t, "/assets/ast_1-2/versions?pageSize=0&includeArchived=maybe").problem(t, http.StatusBadRequest).
		wantFields(t, "id", "pageSize", "includeArchived")
	ts.do(t, req{Method: "POST", Path: "/assets/ast_1-2/versions", Body: templateBody()}).problem(t, http.StatusBadRequest).wantFields(t, "id")

	b := hdr("X-Api-Key", keyB)
	ts.do(t, req{Method: "GET", Path: "/assets/" + assetID + "/versions/" + versionID, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "GET", Path: "/assets/" + assetID + "/versions", Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "DELETE", Path: "/assets/" + assetID + "/versions/" + versionID, Header: b}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "POST", Path: "/assets/" + assetID + "/versions", Body: templateBody(), Header: b}).problem(t, http.StatusNotFound)
}

// Asset content has its own body limit, large enough for the largest
// inline content the service takes in its most escaped JSON form.
func TestVersionBodyLimit(t *testing.T) {
	ts := newTestServer(t)
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Logo", "type": "image"}}).
		wantStatus(t, http.StatusCreated).decode(t, &a)

	versionBody := func(data string, size int) []byte {
		b, err := json.Marshal(map[string]any{"content": map[string]any{"type": "image/png", "content": data}})
		if err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			b = append(b, strings.Repeat(" ", size-len(b))...)
		}
		return b
	}
	// Content over the service's inline limit is a validation error naming it.
	big := base64.StdEncoding.EncodeToString(make([]byte, lettershop.MaxInlineContent+1))
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: versionBody(big, 0)}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	// At the body limit the request is read (and judged on its content);
	// one byte over, it is not.
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: versionBody(big, httpadapter.MaxVersionBody)}).
		problem(t, http.StatusBadRequest).wantFields(t, "content.content")
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: versionBody(big, httpadapter.MaxVersionBody+1)}).
		problem(t, http.StatusRequestEntityTooLarge)

	// A version with the largest template and many long presets, every
	// character written as a JSON escape, is over the JSON limit and fits.
	var b strings.Builder
	b.WriteString(`{"content":{"type":"text/html","content":"`)
	b.WriteString(strings.Repeat(`\u0041`, lettershop.MaxInlineContent))
	b.WriteString(`"},"variableDefinitions":[`)
	for i := range 40 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"v%d","behavior":"overridablePreset","presetValue":"%s"}`, i, strings.Repeat(`\u0042`, 4096))
	}
	b.WriteString(`]}`)
	if b.Len() <= httpadapter.MaxJSONBody {
		t.Fatalf("the escaped version body is %d bytes; the test needs one over the JSON limit", b.Len())
	}
	var tplAsset lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Big"}}).wantStatus(t, http.StatusCreated).decode(t, &tplAsset)
	ts.do(t, req{Method: "POST", Path: "/assets/" + tplAsset.ID + "/versions", Body: b.String()}).wantStatus(t, http.StatusCreated)
}
