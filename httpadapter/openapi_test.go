package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestOpenAPIServed(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct{ path, contentType string }{
		{"/openapi.yaml", "application/yaml"},
		{"/openapi.json", "application/json"},
	} {
		res := ts.do(t, req{Method: "GET", Path: c.path, Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
		if ct := res.Header.Get("Content-Type"); ct != c.contentType {
			t.Errorf("%s: Content-Type %q, want %q", c.path, ct, c.contentType)
		}
		doc, err := openapi3.NewLoader().LoadFromData(res.Body)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if doc.Paths.Find("/letters") == nil {
			t.Errorf("%s: no /letters in the document", c.path)
		}
	}
	ts.do(t, req{Method: "GET", Path: "/v1/openapi.json"}).problem(t, http.StatusNotFound)
}
