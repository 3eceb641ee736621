package httpadapter_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// Every route answers the same under /v1 as bare.
func TestV1Prefix(t *testing.T) {
	ts := newTestServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	for _, path := range []string{
		"/letters", "/letters/" + l.ID, "/assets", "/assets/" + assetID,
		"/assets/" + assetID + "/versions", "/assets/" + assetID + "/versions/" + versionID,
	} {
		t.Run(path, func(t *testing.T) {
			bare := ts.get(t, path).wantStatus(t, http.StatusOK)
			v1 := ts.get(t, "/v1"+path).wantStatus(t, http.StatusOK)
			if string(bare.Body) != string(v1.Body) {
				t.Errorf("bare and /v1 bodies differ:\n%s\n%s", bare.Body, v1.Body)
			}
		})
	}

	res := ts.do(t, req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID)}).wantStatus(t, http.StatusCreated)
	if loc := res.Header.Get("Location"); !strings.HasPrefix(loc, testBaseURL+"/v1/letters/ltr_") {
		t.Errorf("Location %q of a /v1 create, want %s/v1/letters/...", loc, testBaseURL)
	}
	ts.get(t, ts.located(t, res.Header.Get("Location"))).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: "/v1/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	ts.do(t, req{Method: "DELETE", Path: "/v1/assets/" + assetID + "/versions/" + versionID}).wantStatus(t, http.StatusNoContent)
	ts.get(t, "/v2/letters").problem(t, http.StatusNotFound)
}

func TestAPIVersionHeader(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name    string
		path    string
		version string
		status  int
	}{
		{"absent", "/letters", "", http.StatusOK},
		{"the version served", "/letters", "2024-07-30", http.StatusOK},
		{"another version", "/letters", "2025-01-01", http.StatusBadRequest},
		{"not a date", "/v1/assets", "latest", http.StatusBadRequest},
		{"unknown route", "/nowhere", "", http.StatusNotFound},
		{"signed link", "/files/letters/ltr_1.pdf", "1999-01-01", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ts.do(t, req{Method: "GET", Path: tt.path, Header: hdr("X-Api-Version", tt.version)})
			if got := res.Header.Get("X-Api-Version"); got != httpadapter.APIVersion {
				t.Errorf("X-Api-Version %q, want %q", got, httpadapter.APIVersion)
			}
			if tt.status != http.StatusBadRequest {
				if res.Status != tt.status {
					t.Fatalf("status %d, want %d: %s", res.Status, tt.status, res.Body)
				}
				return
			}
			res.problem(t, http.StatusBadRequest).wantFields(t, "X-Api-Version")
		})
	}
}

func TestUnknownRoutes(t *testing.T) {
	ts := newTestServer(t)
	p := ts.get(t, "/letter").problem(t, http.StatusNotFound)
	if p.Code != "not-found" {
		t.Errorf("code %q", p.Code)
	}
	ts.get(t, "/letters/").problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "GET", Path: "/", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusNotFound)

	res := ts.do(t, req{Method: "DELETE", Path: "/letters"})
	res.problem(t, http.StatusMethodNotAllowed)
	if allow := res.Header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Errorf("Allow %q, want GET and POST", allow)
	}
	ts.do(t, req{Method: "PATCH", Path: "/v1/letters/ltr_1"}).problem(t, http.StatusMethodNotAllowed)
}

// mustRequest is a request of an absolute URL with an API key.
func mustRequest(t testing.TB, method, u, key string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-Api-Key", key)
	return r
}

// Mounted under a prefix with http.StripPrefix, the handler serves the same
// routes there, and Location headers keep the prefix: without a base URL,
// on the address the request came to.
func TestMountedUnderPrefix(t *testing.T) {
	mount := func(h http.Handler) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("/api/", http.StripPrefix("/api", h))
		return mux
	}
	ts := newTestServer(t, mounted(mount), withService(lettershop.WithBaseURL("")))
	res := ts.do(t, req{Method: "POST", Path: "/api/v1/assets", Body: map[string]any{"name": "Mounted"}}).wantStatus(t, http.StatusCreated)
	loc := res.Header.Get("Location")
	if !strings.HasPrefix(loc, ts.URL+"/api/v1/assets/ast_") {
		t.Fatalf("Location %q, want %s/api/v1/assets/...", loc, ts.URL)
	}
	resp, err := ts.Client().Do(mustRequest(t, "GET", loc, keyA))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", loc, err, resp)
	}
	resp.Body.Close()
	// A version's contentUrl too, bare as the real service shapes it.
	var a lettershop.Asset
	res.decode(t, &a)
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/api/assets/" + a.ID + "/versions", Body: templateBody()}).
		wantStatus(t, http.StatusCreated).decode(t, &v)
	if want := ts.URL + "/api/assets/" + v.ID + "/content"; v.ContentURL != want {
		t.Errorf("contentUrl %q, want %q", v.ContentURL, want)
	}
	resp, err = ts.Client().Do(mustRequest(t, "GET", v.ContentURL, keyA))
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("GET %s: %v %v", v.ContentURL, err, resp)
	}
	resp.Body.Close()
	// A letter's download redirects to a signed link under the prefix too:
	// a bare /files/... would reach the mounting server's other routes.
	var l lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/api/v1/letters", Body: letterBody(a.ID)}).
		wantStatus(t, http.StatusCreated).decode(t, &l)
	noFollow := *ts.Client()
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = noFollow.Do(mustRequest(t, "GET", ts.URL+"/api/v1/letters/"+l.ID+"/download", keyA))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("download: %v %v", err, resp)
	}
	resp.Body.Close()
	link := resp.Header.Get("Location")
	if want := ts.URL + "/api/files/letters/" + l.ID + ".pdf?"; !strings.HasPrefix(link, want) {
		t.Fatalf("download Location %q, want %s...", link, want)
	}
	resp, err = ts.Client().Get(link)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("GET %s: %v %v", link, err, resp)
	}
	resp.Body.Close()
	ts.get(t, "/api/_test/clock").wantStatus(t, http.StatusOK)

	// Test routes stay off without WithTestClock, wherever the handler is.
	off := newTestServer(t, mounted(mount), withoutTestRoutes())
	off.get(t, "/api/_test/clock").problem(t, http.StatusNotFound)
	off.do(t, req{Method: "POST", Path: "/api/_test/clock/advance", Body: `{"duration":"1h"}`}).problem(t, http.StatusNotFound)
	off.get(t, "/api/v1/assets").wantStatus(t, http.StatusOK)
}

// failingAuth fails the way a key store that is down fails.
type failingAuth struct{ panics bool }

func (f failingAuth) Authenticate(context.Context, string) (httpadapter.Principal, error) {
	if f.panics {
		panic("key store exploded")
	}
	return httpadapter.Principal{}, context.DeadlineExceeded
}

func TestInternalErrors(t *testing.T) {
	for _, panics := range []bool{false, true} {
		ts := newTestServer(t, withAdapter(httpadapter.WithAuthenticator(failingAuth{panics: panics})))
		res := ts.get(t, "/letters")
		p := res.problem(t, http.StatusInternalServerError)
		id := res.Header.Get("X-Request-Id")
		if id == "" || !strings.Contains(p.Detail, id) {
			t.Errorf("detail %q does not quote the request id %q", p.Detail, id)
		}
		if strings.Contains(string(res.Body), "deadline") || strings.Contains(string(res.Body), "exploded") {
			t.Errorf("the cause leaked to the client: %s", res.Body)
		}
		logs := ts.logs.String()
		if !strings.Contains(logs, "request_id="+id) {
			t.Errorf("logs do not name request id %s:\n%s", id, logs)
		}
		if cause := map[bool]string{false: "deadline exceeded", true: "key store exploded"}[panics]; !strings.Contains(logs, cause) {
			t.Errorf("logs lack the cause %q:\n%s", cause, logs)
		}
	}
}

func TestRequestIDs(t *testing.T) {
	ts := newTestServer(t)
	a := ts.get(t, "/letters").Header.Get("X-Request-Id")
	b := ts.get(t, "/nowhere").Header.Get("X-Request-Id")
	if !strings.HasPrefix(a, "req_") || !strings.HasPrefix(b, "req_") || a == b {
		t.Errorf("request ids %q and %q, want two distinct req_ ids", a, b)
	}
}

func TestStatusOf(t *testing.T) {
	want := map[lettershop.Code]int{
		lettershop.CodeInvalid:             400,
		lettershop.CodeUnauthenticated:     401,
		lettershop.CodeForbidden:           403,
		lettershop.CodeNotFound:            404,
		lettershop.CodeConflict:            409,
		lettershop.CodeIdempotencyMismatch: 422,
		lettershop.CodeInFlight:            409,
		lettershop.CodeRateLimited:         429,
		lettershop.CodeUpstream:            502,
		lettershop.CodeCanceled:            499,
		lettershop.CodeInternal:            500,
		lettershop.Code(99):                500,
	}
	for code, status := range want {
		if got := httpadapter.StatusOf(code); got != status {
			t.Errorf("StatusOf(%v) = %d, want %d", code, got, status)
		}
	}
}

// TestAnswersToAKeyAreNotKept: every answer to a request with an API key,
// a success or a problem, one no route gives too, tells caches not to keep it and browsers not to
// read it as another type; the public routes choose their own.
func TestAnswersToAKeyAreNotKept(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	for _, tt := range []struct {
		name string
		r    req
		want int
	}{
		{"get", req{Method: "GET", Path: "/v1/letters/" + l.ID}, http.StatusOK},
		{"list", req{Method: "GET", Path: "/letters"}, http.StatusOK},
		{"create", req{Method: "POST", Path: "/letters", Body: letterBody(assetID)}, http.StatusCreated},
		{"not found", req{Method: "GET", Path: "/letters/ltr_01m82xk8wrekcvnp6xnr97efe0"}, http.StatusNotFound},
		{"invalid", req{Method: "POST", Path: "/letters", Body: `{}`}, http.StatusBadRequest},
		{"unknown key", req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "nope")}, http.StatusUnauthorized},
		{"another account", req{Method: "GET", Path: "/letters/" + l.ID, Header: hdr("X-Api-Key", keyB)}, http.StatusNotFound},
		{"no route", req{Method: "GET", Path: "/v1/letters/"}, http.StatusNotFound},
		{"unclean path", req{Method: "GET", Path: "//letters"}, http.StatusNotFound},
		{"method not allowed", req{Method: "PATCH", Path: "/letters"}, http.StatusMethodNotAllowed},
	} {
		res := ts.do(t, tt.r).wantStatus(t, tt.want)
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", tt.name, got)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", tt.name, got)
		}
	}
	// The OpenAPI document is public and may be kept.
	res := ts.do(t, req{Method: "GET", Path: "/openapi.json", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if got := res.Header.Get("Cache-Control"); got == "no-store" {
		t.Errorf("openapi.json: Cache-Control %q: a public document need not be refused to caches", got)
	}
}

// TestEmptyEnumRefused: "" is no value of an enumeration, and a body that
// gives it is refused naming the field; left out or null, the field takes
// its default. Taken for the default, "" would hide a client's mistake (a
// form field left blank, a lookup that found nothing).
func TestEmptyEnumRefused(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, tt := range []struct {
		path, field string
		body        any
	}{
		{"/assets", "type", map[string]any{"name": "a", "type": ""}},
		{"/assets/" + assetID + "/versions", "variableDefinitions[0].behavior", map[string]any{
			"content":             map[string]any{"type": "text/html", "content": "<p>{{a}}</p>"},
			"variableDefinitions": []any{map[string]any{"name": "a", "behavior": ""}},
		}},
		{"/assets/" + assetID + "/versions", "content.source", map[string]any{
			"content": map[string]any{"source": "", "type": "text/html", "content": "<p>x</p>"},
		}},
		{"/letters", "options.mail.service", withOptions(assetID, map[string]any{"mail": map[string]any{"service": ""}})},
		{"/letters", "options.deliverabilityThreshold", withOptions(assetID, map[string]any{"deliverabilityThreshold": ""})},
		{"/letters", "options.variableHandling.validationScope", withOptions(assetID, map[string]any{"variableHandling": map[string]any{"validationScope": ""}})},
	} {
		p := ts.do(t, req{Method: "POST", Path: tt.path, Body: tt.body}).problem(t, http.StatusBadRequest)
		if _, ok := p.Errors[tt.field]; !ok {
			t.Errorf("POST %s: errors %v, want %s named", tt.path, p.Errors, tt.field)
		}
	}
	// A required enumeration has no default: the message does not promise
	// one (useType left out is "useType is required: one of ...").
	body := letterBody(assetID)
	body["useType"] = ""
	p := ts.do(t, req{Method: "POST", Path: "/letters", Body: body}).problem(t, http.StatusBadRequest)
	if msg, ok := p.Errors["useType"]; !ok || strings.HasSuffix(msg, "for the default") {
		t.Errorf("useType \"\": errors %v, want useType named without a default promised", p.Errors)
	}
	// Left out or null, the defaults.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "a", "type": nil}}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/letters", Body: withOptions(assetID, map[string]any{"mail": map[string]any{}})}).wantStatus(t, http.StatusCreated)
}

func withOptions(assetID string, options map[string]any) map[string]any {
	b := letterBody(assetID)
	b["options"] = options
	return b
}

// TestTrailingSlashHint: a path a route serves without its trailing slash
// is a 404 whose detail names the path without it, as a client that
// joined a base URL and a path with one more slash needs to know.
func TestTrailingSlashHint(t *testing.T) {
	ts := newTestServer(t)
	for path, want := range map[string]string{
		"/v1/letters/":    "routes take no trailing slash: /v1/letters",
		"/assets/":        "routes take no trailing slash: /assets",
		"/v1/nothing/":    "",
		"/v1/letters/x/y": "",
	} {
		p := ts.do(t, req{Method: "GET", Path: path}).problem(t, http.StatusNotFound)
		if got := strings.Contains(p.Detail, "trailing slash"); got != (want != "") || (want != "" && !strings.HasSuffix(p.Detail, want)) {
			t.Errorf("GET %s: detail %q, want it to end %q", path, p.Detail, want)
		}
	}
}

// TestEveryAnswerIsNotSniffed: every answer the handler gives, whether to a
// request with an API key or without, carries X-Content-Type-Options:
// nosniff: the public routes (health, the OpenAPI document, metrics, a
// signed download link's PDF), a version's content, HEAD, and the answers
// no route gives (404, 405, an unclean path).
func TestEveryAnswerIsNotSniffed(t *testing.T) {
	ts, _ := newMetricsServer(t)
	assetID, versionID := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	link := downloadLink(t, ts, l.ID)
	noKey := hdr("X-Api-Key", "")
	for _, tt := range []struct {
		name string
		r    req
		want int
	}{
		{"healthz", req{Method: "GET", Path: "/healthz", Header: noKey}, http.StatusOK},
		{"healthz HEAD", req{Method: "HEAD", Path: "/healthz", Header: noKey}, http.StatusOK},
		{"readyz", req{Method: "GET", Path: "/readyz", Header: noKey}, http.StatusOK},
		{"openapi.yaml", req{Method: "GET", Path: "/openapi.yaml", Header: noKey}, http.StatusOK},
		{"openapi.json", req{Method: "GET", Path: "/openapi.json", Header: noKey}, http.StatusOK},
		{"metrics", req{Method: "GET", Path: "/metrics", Header: noKey}, http.StatusOK},
		{"pdf", req{Method: "GET", Path: link, Header: noKey}, http.StatusOK},
		{"pdf HEAD", req{Method: "HEAD", Path: link, Header: noKey}, http.StatusOK},
		{"bad link", req{Method: "GET", Path: "/files/letters/" + l.ID + ".pdf", Header: noKey}, http.StatusForbidden},
		{"version content", req{Method: "GET", Path: "/assets/" + versionID + "/content"}, http.StatusOK},
		{"no route", req{Method: "GET", Path: "/nope", Header: noKey}, http.StatusNotFound},
		{"unclean path", req{Method: "GET", Path: "//healthz", Header: noKey}, http.StatusNotFound},
		{"method not allowed", req{Method: "POST", Path: "/openapi.json", Header: noKey}, http.StatusMethodNotAllowed},
		{"no key", req{Method: "GET", Path: "/v1/letters", Header: noKey}, http.StatusUnauthorized},
	} {
		res := ts.do(t, tt.r).wantStatus(t, tt.want)
		if got := res.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff once", tt.name, got)
		}
	}
}
