package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/openapi"
)

// TestOpenAPIUploadTypesAreTheServers keeps the media types the document
// gives an upload's body equal to the content types the server takes.
// Client generators send the first of them as the default Content-Type, and
// a media range such as */* is sent as it is, which the server refuses.
func TestOpenAPIUploadTypesAreTheServers(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	op := doc.Paths.Find("/assets/{id}/versions/{versionId}/content").Put
	var documented []string
	for mt := range op.RequestBody.Value.Content {
		documented = append(documented, mt)
	}
	slices.Sort(documented)
	served := []string{}
	for _, ct := range []lettershop.ContentType{lettershop.ContentHTML, lettershop.ContentPNG, lettershop.ContentJPEG,
		lettershop.ContentGIF, lettershop.ContentSVG, lettershop.ContentPDF, lettershop.ContentTTF,
		lettershop.ContentOTF, lettershop.ContentWOFF2} {
		served = append(served, string(ct))
	}
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("upload media types %q, want the content types an asset holds, %q", documented, served)
	}

	ts := newTestServer(t)
	holder := func(mt string) string {
		switch {
		case mt == "text/html":
			return "template"
		case mt == "application/pdf":
			return "document"
		case strings.HasPrefix(mt, "image/"):
			return "image"
		}
		return "font"
	}
	// namesType says whether an answer refuses the Content-Type itself
	// (content.type) rather than the bytes sent (content.content).
	namesType := func(res result) bool {
		var p struct{ Errors map[string]string }
		_ = json.Unmarshal(res.Body, &p)
		_, ok := p.Errors["content.type"]
		return res.Status == http.StatusBadRequest && ok
	}
	upload := func(assetType, mt string) result {
		var a lettershop.Asset
		ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "a", "type": assetType}}).
			wantStatus(t, http.StatusCreated).decode(t, &a)
		var v lettershop.AssetVersion
		ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: map[string]any{}}).
			wantStatus(t, http.StatusCreated).decode(t, &v)
		return ts.do(t, req{Method: "PUT", Path: "/assets/" + a.ID + "/versions/" + v.ID + "/content",
			Body: "x", Header: hdr("Content-Type", mt)})
	}
	for _, mt := range documented {
		if res := upload(holder(mt), mt); namesType(res) {
			t.Errorf("upload as %s, a documented type: %d %s", mt, res.Status, res.Body)
		}
	}
	// The other side: a type no asset holds is refused for its type.
	for _, mt := range []string{"*/*", "application/octet-stream"} {
		if res := upload("template", mt); !namesType(res) {
			t.Errorf("upload as %s: %d %s, want a 400 naming content.type", mt, res.Status, res.Body)
		}
	}
}
