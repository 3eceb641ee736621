package openapitest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop/internal/openapitest"
)

// failures is a testing.TB that collects what Handler reports instead of
// failing the test.
type failures struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

func (f *failures) Fatal(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *failures) all() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.got, "\n")
}

const asset = `{"id":"ast_01kjqh0cc0abyzr1s1g9jmy5hz","name":"Welcome","description":"","type":"template","status":"draft","versionCount":0,"metadata":[],"createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z"}`

// answer is a handler that answers every request the same way.
func answer(status int, contentType, body string, header ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		w.Header().Set("X-Api-Version", "2024-07-30")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
}

func TestHandler(t *testing.T) {
	for _, c := range []struct {
		name, method, path, body string
		handler                  http.Handler
		want                     string // "" for no failure
	}{
		{"documented", "GET", "/v1/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(200, "application/json", asset), ""},
		{"undocumented field", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(200, "application/json", strings.Replace(asset, `"name"`, `"colour":"red","name"`, 1)), "colour"},
		{"missing field", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(200, "application/json", strings.Replace(asset, `"versionCount":0,`, "", 1)), "versionCount"},
		{"undocumented status", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(202, "", ""), "202"},
		{"undocumented header", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(200, "application/json", asset, "X-Debug", "1"), "X-Debug"},
		{"problem without detail", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(404, "application/problem+json", `{"type":"https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.5","title":"Not found","status":404,"code":"not-found"}`), "detail"},
		{"problem typed by its code", "GET", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz", "",
			answer(404, "application/problem+json", `{"type":"not-found","title":"Not found","status":404,"detail":"gone","code":"not-found"}`), "/type"},
		{"refused request answered 2xx", "POST", "/assets", `{"nme":"Welcome"}`,
			answer(201, "application/json", asset, "Location", "/assets/ast_01kjqh0cc0abyzr1s1g9jmy5hz"), "refuses the request"},
		{"refused request answered 400", "POST", "/assets", `{"nme":"Welcome"}`,
			answer(400, "application/problem+json", `{"type":"https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1","title":"Invalid request","status":400,"detail":"nme: unknown field","code":"invalid-request","errors":{"nme":"unknown field"}}`), ""},
		{"raw upload", "PUT", "/assets/ast_1/versions/astv_1/content", "\x89PNG\r\n",
			answer(200, "application/json", `{"id":"astv_1","assetId":"ast_1","status":"draft","notes":"","content":{"source":"inline","type":"image/png","content":"iVBORw0K"},"variableDefinitions":[],"contentType":"image/png","contentLength":6,"contentUrl":"http://127.0.0.1:8080/assets/astv_1/content","publish":false,"createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z"}`), ""},
		{"content as itself", "GET", "/assets/astv_1/content", "",
			answer(200, "image/png", "\x89PNG\r\n", "X-Content-Type-Options", "nosniff"), ""},
		{"unknown path answered 404", "GET", "/nothing", "",
			answer(404, "application/problem+json", `{"type":"https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.5","title":"Not found","status":404,"detail":"no route","code":"not-found"}`), ""},
		{"unknown path answered 200", "GET", "/nothing", "",
			answer(200, "application/json", `{}`), "not in the document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &failures{TB: t}
			srv := httptest.NewServer(openapitest.Handler(f, c.handler))
			defer srv.Close()
			r, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got := f.all()
			switch {
			case c.want == "" && got != "":
				t.Errorf("reported %s; want nothing", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("reported %q; want a failure naming %q", got, c.want)
			}
		})
	}
}
