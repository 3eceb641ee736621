package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/internal/openapitest"
	"github.com/lettershop/lettershop/memstore"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testStart is where every test clock starts: a Monday morning.
var testStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// The sandbox keys of two accounts.
const (
	keyA = "sk_test_alpha"
	keyB = "sk_test_bravo"
)

const testBaseURL = "https://lettershop.test"

// testServer is the handler behind a real HTTP server, with the Service,
// store and mock clock behind it.
type testServer struct {
	*httptest.Server
	Svc   *lettershop.Service
	Clock *clock.Mock
	Store *memstore.Store
	logs  *syncBuffer
}

type testConfig struct {
	adapter   []httpadapter.Option
	service   []lettershop.Option
	testClock bool
	wrap      func(http.Handler) http.Handler
	unchecked bool
}

type testOption func(*testConfig)

func withAdapter(o ...httpadapter.Option) testOption {
	return func(c *testConfig) { c.adapter = append(c.adapter, o...) }
}

func withService(o ...lettershop.Option) testOption {
	return func(c *testConfig) { c.service = append(c.service, o...) }
}

// withoutTestRoutes serves without WithTestClock, as a production server does.
func withoutTestRoutes() testOption { return func(c *testConfig) { c.testClock = false } }

// unchecked serves without checking traffic against the OpenAPI document:
// for tests of the transport itself, whose requests never arrive whole (the
// check reads a request's body before the handler runs) or whose handler
// must reach the connection (read deadlines).
func unchecked() testOption { return func(c *testConfig) { c.unchecked = true } }

// mounted wraps the handler before it is served, to mount it under a prefix.
func mounted(wrap func(http.Handler) http.Handler) testOption {
	return func(c *testConfig) { c.wrap = wrap }
}

// newTestServer serves a fresh Service over a fresh memstore, with a mock
// clock at testStart, seeded ids and the test routes on. Everything is shut
// down when the test ends.
func newTestServer(t testing.TB, opts ...testOption) *testServer {
	t.Helper()
	cfg := testConfig{testClock: true}
	for _, o := range opts {
		o(&cfg)
	}
	mc := clock.NewMock()
	mc.Set(testStart)
	st := memstore.New()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	svc := lettershop.New(st, append([]lettershop.Option{
		lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithTokenKey([]byte("test token key")),
		lettershop.WithBaseURL(testBaseURL),
		lettershop.WithLogger(logger),
	}, cfg.service...)...)
	aopts := []httpadapter.Option{httpadapter.WithLogger(logger)}
	if cfg.testClock {
		aopts = append(aopts, httpadapter.WithTestClock(mc))
	}
	var h http.Handler = httpadapter.New(svc, append(aopts, cfg.adapter...)...)
	// Every request and response is checked against the OpenAPI document;
	// benchmarks measure the handler alone.
	if _, bench := t.(*testing.B); !bench && !cfg.unchecked {
		h = openapitest.Handler(t, h)
	}
	if cfg.wrap != nil {
		h = cfg.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &testServer{Server: srv, Svc: svc, Clock: mc, Store: st, logs: logs}
}

// newTestServerFor serves svc, made by the test, with a logger the test
// reads and no test routes.
func newTestServerFor(t testing.TB, svc *lettershop.Service, opts ...httpadapter.Option) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	srv := httptest.NewServer(httpadapter.New(svc, append([]httpadapter.Option{httpadapter.WithLogger(logger)}, opts...)...))
	t.Cleanup(srv.Close)
	return &testServer{Server: srv, Svc: svc, logs: logs}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// result is a response read in full.
type result struct {
	Status int
	Header http.Header
	Body   []byte
}

// req describes a request: a path, a body (a string or []byte is sent as
// it is, anything else as JSON), and headers. The API key is keyA unless
// Header sets X-Api-Key ("" sends none).
type req struct {
	Method string
	Path   string
	Body   any
	Header map[string]string
	// Repeated sets headers of several values, each sent as a header
	// line of its own.
	Repeated http.Header
}

// do sends r and reads the response.
func (ts *testServer) do(t testing.TB, r req) result {
	t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal body: %v", err)
		}
		body = bytes.NewReader(j)
	}
	hr, err := http.NewRequest(r.Method, ts.URL+r.Path, body)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	hr.Header.Set("X-Api-Key", keyA)
	for k, v := range r.Header {
		if v == "" {
			hr.Header.Del(k)
			continue
		}
		hr.Header.Set(k, v)
	}
	for k, vs := range r.Repeated {
		hr.Header[k] = vs
	}
	resp, err := ts.Client().Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", r.Method, r.Path, err)
	}
	return result{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// located returns the path of an absolute URL the server gave
// (a Location, a contentUrl), which must start with the Service's base URL
// (testBaseURL) or, for a Service without one, the server's own URL.
func (ts *testServer) located(t testing.TB, u string) string {
	t.Helper()
	for _, origin := range []string{testBaseURL, ts.URL} {
		if p, ok := strings.CutPrefix(u, origin); ok && strings.HasPrefix(p, "/") {
			return p
		}
	}
	t.Fatalf("URL %q is not absolute on %s or %s", u, testBaseURL, ts.URL)
	return ""
}

func (ts *testServer) get(t testing.TB, path string) result {
	t.Helper()
	return ts.do(t, req{Method: "GET", Path: path})
}

// wantStatus fails unless the response has the status.
func (r result) wantStatus(t testing.TB, status int) result {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body: %s", r.Status, status, r.Body)
	}
	return r
}

// decode reads the JSON body into v.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// problemBody is a problem as a client reads it.
type problemBody struct {
	Type   string            `json:"type"`
	Title  string            `json:"title"`
	Status int               `json:"status"`
	Detail string            `json:"detail"`
	Code   string            `json:"code"`
	Errors map[string]string `json:"errors"`
}

// problem checks the response is a problem of the status and returns it.
func (r result) problem(t testing.TB, status int) problemBody {
	t.Helper()
	r.wantStatus(t, status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	var p problemBody
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode problem %s: %v", r.Body, err)
	}
	if p.Status != status || p.Type != httpadapter.ProblemType(status) || p.Code == "" || p.Title == "" || p.Detail == "" {
		t.Fatalf("problem %s: want status %d, type %s, and code, title and detail set", r.Body, status, httpadapter.ProblemType(status))
	}
	return p
}

// wantFields fails unless the problem names exactly these fields.
func (p problemBody) wantFields(t testing.TB, fields ...string) {
	t.Helper()
	var got []string
	for k := range p.Errors {
		got = append(got, k)
	}
	if diff := cmp.Diff(fields, got, sortStrings); diff != "" {
		t.Fatalf("problem fields (-want +got):\n%s\nerrors: %v", diff, p.Errors)
	}
}

var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// golden compares a JSON body, indented, with testdata/name.golden;
// -update rewrites the file.
func golden(t testing.TB, name string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		t.Fatalf("golden %s: body is not JSON: %v\n%s", name, err, body)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update to create it)", name, err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Fatalf("golden %s (-want +got):\n%s", name, diff)
	}
}

// Fixtures.

const testTemplate = `<h1>Hello {{name}}</h1><p>Your order {{order}} has shipped.</p>`

// templateBody is the body that creates a published template version.
func templateBody() map[string]any {
	return map[string]any{
		"notes":   "first cut",
		"content": map[string]any{"type": "text/html", "content": testTemplate},
		"variableDefinitions": []map[string]any{
			{"name": "name", "type": "value", "behavior": "required"},
			{"name": "order", "type": "value", "behavior": "optional"},
		},
		"publish": true,
	}
}

// createAsset makes an asset with one published template version through
// the API, under key, and returns their ids.
func (ts *testServer) createAsset(t testing.TB, key string) (assetID, versionID string) {
	t.Helper()
	var a lettershop.Asset
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "Welcome", "type": "template"},
		Header: map[string]string{"X-Api-Key": key}}).wantStatus(t, http.StatusCreated).decode(t, &a)
	var v lettershop.AssetVersion
	ts.do(t, req{Method: "POST", Path: "/assets/" + a.ID + "/versions", Body: templateBody(),
		Header: map[string]string{"X-Api-Key": key}}).wantStatus(t, http.StatusCreated).decode(t, &v)
	return a.ID, v.ID
}

// letterBody is a valid request for a letter made from asset.
func letterBody(assetID string) map[string]any {
	return map[string]any{
		"sender": map[string]any{
			"organization": "Acme Corp",
			"address":      map[string]any{"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701"},
		},
		"recipient": map[string]any{
			"individual": map[string]any{"firstName": "Jane", "lastName": "Doe"},
			"address":    map[string]any{"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601"},
		},
		"content":   map[string]any{"type": "asset", "assetId": assetID},
		"useType":   "transactional",
		"variables": []map[string]any{{"name": "name", "value": "Jane"}},
		"metadata":  []map[string]any{{"key": "campaign", "value": "spring"}},
	}
}

// createLetter makes a letter under key and returns it.
func (ts *testServer) createLetter(t testing.TB, key, assetID string) lettershop.Letter {
	t.Helper()
	var l lettershop.Letter
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID),
		Header: map[string]string{"X-Api-Key": key}}).wantStatus(t, http.StatusCreated).decode(t, &l)
	return l
}

// hdr is a shorthand for request headers.
func hdr(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var ctx = context.Background()
