package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/openapi"
)

// TestOpenAPILengthLimitsAreTheServers keeps the document's length limits
// on request fields equal to the ones the server enforces: a client that
// checks a request against the document must neither send what the server
// refuses nor hold back what it takes. Each limit is stated in the document
// and met by the server at the boundary, from both sides.
func TestOpenAPILengthLimitsAreTheServers(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	letterID := ts.createLetter(t, keyA, assetID).ID

	letterWith := func(field string) func(v any) any {
		return func(v any) any {
			b := letterBody(assetID)
			b[field] = v
			return b
		}
	}
	metadataWith := func(key, value string) []map[string]any {
		return []map[string]any{{"key": key, "value": value}}
	}
	type side struct {
		ok   any // a body at the limit
		over any // a body one character past it
	}
	cases := []struct {
		schema, property    string // where the document states the limit
		max                 int
		method, path, field string
		body                func(v string) side
	}{
		{"CreateLetterRequest", "externalId", 99999, "POST", "/letters", "externalId",
			func(v string) side { return side{letterWith("externalId")(v), letterWith("externalId")(v + "x")} }},
		{"CreateLetterRequest", "description", 255, "POST", "/letters", "description",
			func(v string) side { return side{letterWith("description")(v), letterWith("description")(v + "x")} }},
		{"UpdateLetterRequest", "externalId", 99999, "PUT", "/letters/" + letterID, "externalId",
			func(v string) side {
				return side{map[string]any{"externalId": v}, map[string]any{"externalId": v + "x"}}
			}},
		{"UpdateLetterRequest", "description", 255, "PUT", "/letters/" + letterID, "description",
			func(v string) side {
				return side{map[string]any{"description": v}, map[string]any{"description": v + "x"}}
			}},
		{"CloneVersionRequest", "notes", lettershop.MaxVersionNotes, "POST", "/assets/" + assetID + "/versions/" + versionID + "/clone", "notes",
			func(v string) side { return side{map[string]any{"notes": v}, map[string]any{"notes": v + "x"}} }},
		{"CreateAssetRequest", "name", lettershop.MaxAssetName, "POST", "/assets", "name",
			func(v string) side { return side{map[string]any{"name": v}, map[string]any{"name": v + "x"}} }},
		{"CreateAssetRequest", "description", lettershop.MaxAssetDescription, "POST", "/assets", "description",
			func(v string) side {
				return side{map[string]any{"name": "a", "description": v}, map[string]any{"name": "a", "description": v + "x"}}
			}},
		{"UpdateAssetRequest", "name", lettershop.MaxAssetName, "PUT", "/assets/" + assetID, "name",
			func(v string) side { return side{map[string]any{"name": v}, map[string]any{"name": v + "x"}} }},
		{"UpdateAssetRequest", "description", lettershop.MaxAssetDescription, "PUT", "/assets/" + assetID, "description",
			func(v string) side {
				return side{map[string]any{"description": v}, map[string]any{"description": v + "x"}}
			}},
		{"Metadata", "key", lettershop.MaxMetadataKeyLen, "POST", "/assets", "metadata[0].key",
			func(v string) side {
				return side{map[string]any{"name": "a", "metadata": metadataWith(v, "")},
					map[string]any{"name": "a", "metadata": metadataWith(v+"x", "")}}
			}},
		{"Metadata", "value", lettershop.MaxMetadataValueLen, "POST", "/assets", "metadata[0].value",
			func(v string) side {
				return side{map[string]any{"name": "a", "metadata": metadataWith("k", v)},
					map[string]any{"name": "a", "metadata": metadataWith("k", v+"x")}}
			}},
	}
	for _, c := range cases {
		t.Run(c.schema+"."+c.property, func(t *testing.T) {
			s := doc.Components.Schemas[c.schema].Value
			if s.Items != nil {
				s = s.Items.Value
			}
			p := s.Properties[c.property]
			if p == nil {
				t.Fatalf("the document's %s has no property %s", c.schema, c.property)
			}
			if p.Value.MaxLength == nil || *p.Value.MaxLength != uint64(c.max) {
				t.Errorf("the document's %s.%s: maxLength %v, want the server's %d", c.schema, c.property, p.Value.MaxLength, c.max)
			}
			// A multi-byte character: limits count characters, not bytes.
			b := c.body(strings.Repeat("é", c.max))
			if got := ts.do(t, req{Method: c.method, Path: c.path, Body: b.ok}); got.Status >= 300 {
				t.Errorf("%s %s with %d characters: status %d, want success; body %s", c.method, c.path, c.max, got.Status, got.Body)
			}
			ts.do(t, req{Method: c.method, Path: c.path, Body: b.over}).problem(t, http.StatusBadRequest).wantFields(t, c.field)
		})
	}
}
