package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/openapi"
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

// TestOpenAPIExamplesAreRealAnswers keeps the document's examples equal to
// the answers the golden files hold.
func TestOpenAPIExamplesAreRealAnswers(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	for example, golden := range map[string]string{
		"Letter":            "letter_created",
		"Asset":             "asset_created",
		"Version":           "version_created",
		"ValidationProblem": "problem_validation",
	} {
		ex := doc.Components.Examples[example]
		if ex == nil {
			t.Errorf("no example %s", example)
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", golden+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(ex.Value.Value)
		if err != nil {
			t.Fatal(err)
		}
		var gotV any
		if err := json.Unmarshal(got, &gotV); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, gotV); diff != "" {
			t.Errorf("example %s is not testdata/%s.golden (-golden +example):\n%s", example, golden, diff)
		}
	}
}
