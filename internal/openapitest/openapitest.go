// Package openapitest checks HTTP traffic against lettershop's OpenAPI
// document, for tests: Handler wraps a handler so that every request and
// response through it is validated by kin-openapi's openapi3filter.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/lettershop/lettershop/openapi"
)

// apiDoc is the OpenAPI document every request and response is checked
// against, with a router over its paths.
var apiDoc = sync.OnceValues(func() (*apiRouter, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	// Route on the paths alone: the server's address is the test's.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	// Bodies that are files: a letter's PDF, this document, and a version's
	// content as itself.
	for _, mt := range []string{"application/pdf", "application/yaml", "text/html", "image/png", "image/jpeg", "image/gif", "image/svg+xml", "font/ttf", "font/otf", "font/woff2"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
	return &apiRouter{doc: doc, router: router}, nil
})

type apiRouter struct {
	doc    *openapi3.T
	router routers.Router
}

// transportHeaders are set by net/http, not by the API, on any response.
var transportHeaders = map[string]bool{"Content-Type": true, "Content-Length": true, "Date": true}

// Handler checks every request to next and every response it gives
// against the OpenAPI document, with kin-openapi's openapi3filter:
//
//   - a response's status, headers and body must be documented for its
//     operation (objects in the document refuse undocumented fields);
//   - a request the document refuses must be answered with a 4xx;
//   - a path the document does not have must be answered 404 or 405 with a
//     problem body.
//
// A failure fails the test that sent the request.
func Handler(t testing.TB, next http.Handler) http.Handler {
	t.Helper()
	api, err := apiDoc()
	if err != nil {
		t.Fatal(err)
	}
	doc, router := api.doc, api.router
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("openapi: read request body: %v", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		vr := validationRequest(r, body)

		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())

		what := r.Method + " " + r.URL.RequestURI()
		route, params, err := router.FindRoute(vr)
		if err == nil && emptyParam(params) {
			// The router matches /letters to /letters/{id} with an empty id;
			// the server has no such route either.
			err = routers.ErrPathNotFound
		}
		if err != nil {
			checkNoRoute(t, doc, what, rec)
			return
		}
		in := &openapi3filter.RequestValidationInput{
			Request: vr, PathParams: params, Route: route,
			Options: bodyOptions(vr, body, route.Operation),
		}
		if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil && (rec.Code < 400 || rec.Code > 499) {
			t.Errorf("openapi: %s: the document refuses the request (%v), but the answer is %d", what, err, rec.Code)
		}
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 rec.Code,
			Header:                 rec.Header(),
			Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
			Options: &openapi3filter.Options{
				IncludeResponseStatus: true,
				AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
			},
		}
		if err := openapi3filter.ValidateResponse(r.Context(), out); err != nil {
			t.Errorf("openapi: %s: the answer %d is not as documented: %v\nbody: %s", what, rec.Code, err, rec.Body.Bytes())
			return
		}
		documented := route.Operation.Responses.Status(rec.Code)
		checkHeaders(t, what, rec, documented.Value.Headers)
	})
}

// bareOnly are the paths served only bare, never under /v1: the health
// and metrics routes.
var bareOnly = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// validationRequest is r as the document describes it: without the /v1
// prefix (every route but the test routes, the document, and the health and
// metrics routes is served under it too).
func validationRequest(r *http.Request, body []byte) *http.Request {
	vr := r.Clone(r.Context())
	vr.Body = io.NopCloser(bytes.NewReader(body))
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v1"); ok && strings.HasPrefix(rest, "/") &&
		!strings.HasPrefix(rest, "/_test/") && !strings.HasPrefix(rest, "/openapi.") && !bareOnly[rest] {
		vr.URL.Path, vr.URL.RawPath = rest, ""
	}
	return vr
}

// bodyOptions fits the validation of a request body to its operation. A
// JSON body is read as JSON whatever its Content-Type, as the server does.
// A raw body (content of any type, as uploaded) is opaque: only its
// presence is the document's business, and the server checks its size.
func bodyOptions(vr *http.Request, body []byte, op *openapi3.Operation) *openapi3filter.Options {
	o := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	if op.RequestBody == nil || len(body) == 0 {
		return o
	}
	if op.RequestBody.Value.Content.Get("application/json") == nil {
		o.ExcludeRequestBody = true
		return o
	}
	if mt, _, _ := mime.ParseMediaType(vr.Header.Get("Content-Type")); mt != "application/json" {
		vr.Header.Set("Content-Type", "application/json")
	}
	return o
}

// checkNoRoute checks the answer to a path or method the document does not
// have: a 404 or 405 problem.
func checkNoRoute(t testing.TB, doc *openapi3.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("openapi: %s is not in the document, but the answer is %d, not 404 or 405", what, rec.Code)
		return
	}
	resp := doc.Components.Responses["NoRoute"].Value
	mt := resp.Content.Get(rec.Header().Get("Content-Type"))
	if mt == nil {
		t.Errorf("openapi: %s: Content-Type %q is not a problem", what, rec.Header().Get("Content-Type"))
		return
	}
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Errorf("openapi: %s: body is not JSON: %v", what, err)
		return
	}
	if err := mt.Schema.Value.VisitJSON(v); err != nil {
		t.Errorf("openapi: %s: body is not a problem: %v", what, err)
	}
	checkHeaders(t, what, rec, resp.Headers)
}

// checkHeaders fails on a response header the document does not name:
// openapi3filter checks the documented ones, not the presence of others.
func checkHeaders(t testing.TB, what string, rec *httptest.ResponseRecorder, documented openapi3.Headers) {
	t.Helper()
	for name := range rec.Header() {
		if transportHeaders[name] {
			continue
		}
		found := false
		for d := range documented {
			if strings.EqualFold(d, name) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("openapi: %s: the answer %d carries %s, which the document does not name", what, rec.Code, name)
		}
	}
}

func emptyParam(params map[string]string) bool {
	for _, v := range params {
		if v == "" {
			return true
		}
	}
	return false
}
