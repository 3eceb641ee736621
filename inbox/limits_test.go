package inbox_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/inbox"
	"github.com/lettershop/lettershop/memstore"
)

// wantProblem fails unless res is a problem+json of status.
func wantProblem(t *testing.T, res *response, status int) map[string]any {
	t.Helper()
	var p map[string]any
	if res.StatusCode != status || res.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal([]byte(res.Body), &p) != nil ||
		p["status"] != float64(status) || p["type"] == "" || p["detail"] == "" {
		t.Fatalf("%d %s %s, want a %d problem", res.StatusCode, res.Header.Get("Content-Type"), res.Body, status)
	}
	return p
}

// program sends as a program would: accepting anything, no page asked for.
func (c *client) program(method, path, contentType string, body io.Reader, header ...string) *response {
	c.e.t.Helper()
	req, err := http.NewRequest(method, c.e.srv.URL+path, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Accept", "*/*")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Origin", c.e.srv.URL)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(req)
}

// A form body is at most inbox.MaxFormBody bytes: one of that size is read,
// one byte more is a 413 before anything is done.
func TestFormBodiesAreBounded(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	form := func(n int) string {
		f := "key=sk_live_"
		return f + strings.Repeat("x", n-len(f))
	}
	res := c.program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader(form(inbox.MaxFormBody)))
	wantProblem(t, res, http.StatusUnauthorized)
	res = c.program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader(form(inbox.MaxFormBody+1)))
	wantProblem(t, res, http.StatusRequestEntityTooLarge)
	// The same for a session's forms.
	l := e.letter(e.template(), nil)
	s := e.loggedIn(testKey)
	tok := s.csrf("/inbox/letters/" + l.ID)
	res = s.program("POST", "/inbox/letters/"+l.ID+"/cancel", "application/x-www-form-urlencoded",
		strings.NewReader("csrf="+tok+"&pad="+strings.Repeat("p", inbox.MaxFormBody)))
	wantProblem(t, res, http.StatusRequestEntityTooLarge)
	if got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID); got.Status == lettershop.StatusCanceled {
		t.Error("a form over the limit canceled the letter")
	}
}

// multipartBody is a multipart form with the key and a file part of size
// bytes.
func multipartBody(t *testing.T, key string, size int) (io.Reader, string) {
	t.Helper()
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if err := mw.WriteField("key", key); err != nil {
		t.Fatal(err)
	}
	if _, err := mw.CreateFormFile("upload", "big.bin"); err != nil {
		t.Fatal(err)
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	return io.MultiReader(&head, io.LimitReader(zeros{}, int64(size)), strings.NewReader(tail)), mw.FormDataContentType()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// The inbox takes no multipart form: a log-in sent as one is refused,
// naming Content-Type, and sets no cookie.
func TestMultipartFormsAreRefused(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	body, ct := multipartBody(t, testKey, 10)
	res := c.program("POST", "/inbox/login", ct, body)
	p := wantProblem(t, res, http.StatusBadRequest)
	if errs, _ := p["errors"].(map[string]any); errs["Content-Type"] == nil {
		t.Errorf("the refusal does not name Content-Type: %s", res.Body)
	}
	if len((&http.Response{Header: res.Header}).Cookies()) != 0 {
		t.Error("a multipart log-in set a cookie")
	}
	for _, ct := range []string{"text/plain", "application/json"} {
		wantProblem(t, c.program("POST", "/inbox/login", ct, strings.NewReader("key="+testKey)), http.StatusBadRequest)
	}
}

// A large multipart body, sent to a mounted inbox, leaves nothing in the
// temporary directory.
func TestMultipartLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	e := newEnv(t)
	body, ct := multipartBody(t, testKey, 40<<20)
	req, err := http.NewRequest("POST", e.srv.URL+"/inbox/login", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Origin", e.srv.URL)
	if resp, err := e.srv.Client().Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("a 40 MiB multipart log-in: %d", resp.StatusCode)
		}
	}
	e.srv.Close() // every request done
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("the request left %d files in the temporary directory, such as %s", len(left), left[0].Name())
	}
}

// A program (one that does not ask for pages) gets the inbox's errors as
// problems, as the API answers; a browser gets pages.
func TestErrorsAreProblemsForPrograms(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	wantProblem(t, c.program("GET", "/inbox/nope", "", nil), http.StatusNotFound)
	res := c.get("/inbox/nope")
	wantStatus(t, res, http.StatusNotFound)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("a browser's 404: %s", res.Header.Get("Content-Type"))
	}
	wantProblem(t, c.program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader("key=sk_live_x")), http.StatusUnauthorized)
	wantProblem(t, c.program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader("key=")), http.StatusBadRequest)
	wantProblem(t, c.program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader("key="+testKey),
		"Origin", "https://evil.example"), http.StatusForbidden)
}

// mounted is the inbox as cmd/lettershop mounts it, with nothing in front
// that cleans paths.
func mounted(t *testing.T) http.Handler {
	t.Helper()
	svc := lettershop.New(memstore.New())
	t.Cleanup(func() { svc.Close() })
	return http.StripPrefix("/inbox", inbox.New(svc))
}

// Paths that leave the static files, or are not clean, are a 404 problem:
// never a redirect (to /etc/passwd) nor net/http's plain text.
func TestStaticFilesStayInside(t *testing.T) {
	h := mounted(t)
	for _, path := range []string{
		"/inbox/static/../../etc/passwd", "/inbox/static/%2e%2e/%2e%2e/etc/passwd", "/inbox/static/%2e%2e/templates/login.html",
		"/inbox/static/nope.css", "/inbox/static/", "/inbox/static//style.css", "/inbox/./login", "/inbox/letters/../login",
		"/inbox/static/..%2fstyle.css", "/inbox/static/style.css/",
		// No subtree pattern: the mux would redirect to /static/, outside the mount.
		"/inbox/static",
		// The mount strips "/inbox" from the escaped path too, leaving
		// "%2Flogin", which the mux would redirect to /%252Flogin.
		"/inbox%2Flogin", "/inbox%2fstatic/style.css", "/inbox%2F",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		res := &response{StatusCode: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
		if res.Header.Get("Location") != "" {
			t.Errorf("%s: redirected to %s", path, res.Header.Get("Location"))
		}
		if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %q, want a 404 problem", path, res.StatusCode, res.Header.Get("Content-Type"), res.Body)
		}
	}
	for path, ct := range map[string]string{"/inbox/static/style.css": "text/css; charset=utf-8", "/inbox/static/poll.js": "text/javascript; charset=utf-8"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != ct || rec.Body.Len() == 0 ||
			rec.Header().Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("%s: %d %v", path, rec.Code, rec.Header())
		}
	}
}

// A request whose target is in absolute form (http://host/inbox/...), as a
// proxy may send it, is answered under the mount as one in origin form:
// its redirects and its page's links keep /inbox, where they led to the
// API's paths.
func TestAbsoluteFormTargetKeepsTheMount(t *testing.T) {
	h := mounted(t)
	for _, target := range []string{"/inbox/", "http://127.0.0.1:8080/inbox/", "https://mail.example.com/inbox/"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/inbox/login" {
			t.Errorf("GET %s: %d to %q, want 303 to /inbox/login", target, rec.Code, loc)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080/inbox/login", nil))
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, `href="/inbox/static/style.css"`) ||
		!strings.Contains(body, `action="/inbox/login"`) {
		t.Errorf("the log-in page asked in absolute form: %d, its links not under /inbox:\n%s", rec.Code, body)
	}
}

// The Origin of a form must be the inbox's own, scheme and port included.
func TestOriginSchemeAndPort(t *testing.T) {
	e := newEnv(t)
	u, _ := url.Parse(e.srv.URL)
	_, port, _ := strings.Cut(u.Host, ":")
	for _, tc := range []struct {
		origin string
		status int
	}{
		{e.srv.URL, http.StatusSeeOther},
		{"HTTP://" + strings.ToUpper(u.Host), http.StatusSeeOther},
		{"https://" + u.Host, http.StatusForbidden},
		{"http://" + u.Hostname(), http.StatusForbidden},
		{"http://" + u.Hostname() + ":1" + port, http.StatusForbidden},
		{"http://evil.example:" + port, http.StatusForbidden},
	} {
		res := e.client().postFrom(tc.origin, "/inbox/login", url.Values{"key": {testKey}})
		if res.StatusCode != tc.status {
			t.Errorf("Origin %s: %d, want %d", tc.origin, res.StatusCode, tc.status)
		}
	}
}

// Behind a proxy that ends TLS, the inbox takes forms from the public URL
// it is given, as well as from its own origin.
func TestOriginOfThePublicURL(t *testing.T) {
	e := newEnv(t, withInboxOptions(inbox.WithPublicURL("https://mail.example.com/")))
	for origin, status := range map[string]int{
		"https://mail.example.com":     http.StatusSeeOther,
		"https://mail.example.com:443": http.StatusSeeOther,
		"http://mail.example.com":      http.StatusForbidden,
		"https://mail.example.com:444": http.StatusForbidden,
		e.srv.URL:                      http.StatusSeeOther,
	} {
		if res := e.client().postFrom(origin, "/inbox/login", url.Values{"key": {testKey}}); res.StatusCode != status {
			t.Errorf("Origin %s: %d, want %d", origin, res.StatusCode, status)
		}
	}
}

// The session cookie is Secure when browsers reach the inbox over TLS:
// behind a proxy that ends it (an https public URL) although the server
// itself sees http; not when the public URL is http, nor without one on a
// server without TLS.
func TestCookieSecureBehindATLSProxy(t *testing.T) {
	for _, tc := range []struct {
		public string
		secure bool
	}{
		{"https://mail.example.com/", true},
		{"http://mail.example.com/", false},
		{"", false},
	} {
		var opts []inbox.Option
		if tc.public != "" {
			opts = append(opts, inbox.WithPublicURL(tc.public))
		}
		e := newEnv(t, withInboxOptions(opts...))
		res := e.client().postFrom(e.srv.URL, "/inbox/login", url.Values{"key": {testKey}})
		cookies := (&http.Response{Header: res.Header}).Cookies()
		if res.StatusCode != http.StatusSeeOther || len(cookies) != 1 {
			t.Fatalf("public URL %q: log-in %d with cookies %v", tc.public, res.StatusCode, cookies)
		}
		if cookies[0].Secure != tc.secure {
			t.Errorf("public URL %q: cookie Secure %v, want %v", tc.public, cookies[0].Secure, tc.secure)
		}
	}
}

// Failed log-ins are throttled per client address, together with the
// API's failed authentications when the two share a throttle.
func TestLoginThrottled(t *testing.T) {
	wall := clock.NewMock()
	throttle := httpadapter.NewAuthThrottle(3, time.Minute, wall)
	auth, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "acme", Secret: "good"},
		httpadapter.APIKey{Account: "acme", Secret: "late"})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withInboxOptions(inbox.WithAuthThrottle(throttle), inbox.WithAuthenticator(auth)),
		withAPIOptions(httpadapter.WithAuthThrottle(throttle), httpadapter.WithAuthenticator(auth)))
	login := func(key string) *response {
		return e.client().program("POST", "/inbox/login", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"key": {key}}.Encode()))
	}
	wantProblem(t, login("wrong1"), http.StatusUnauthorized)
	session := e.loggedIn("good") // logged in while the address fails
	// A failure at the API counts too.
	req, _ := http.NewRequest("GET", e.srv.URL+"/letters", nil)
	req.Header.Set("X-Api-Key", "wrong2")
	if resp, err := e.srv.Client().Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong key at the API: %v %v", resp, err)
	}
	wantProblem(t, login("wrong3"), http.StatusUnauthorized)

	for _, key := range []string{"wrong4", "late"} {
		res := login(key)
		wantProblem(t, res, http.StatusTooManyRequests)
		if res.Header.Get("Retry-After") != "20" {
			t.Errorf("%s: Retry-After %q, want 20", key, res.Header.Get("Retry-After"))
		}
	}
	// A browser is shown the log-in page with the reason.
	res := e.client().post("/inbox/login", url.Values{"key": {"late"}})
	wantStatus(t, res, http.StatusTooManyRequests)
	wantContains(t, res.Body, "Too many")
	// The session of a key accepted before goes on.
	wantStatus(t, session.get("/inbox/"), http.StatusOK)
	// A cookie with another key is no way around it.
	other := e.client()
	u, _ := url.Parse(e.srv.URL + "/inbox/")
	other.jar.SetCookies(u, []*http.Cookie{{Name: inbox.CookieName, Value: "bGF0ZQ", Path: "/inbox/"}}) // "late"
	wantStatus(t, other.get("/inbox/"), http.StatusTooManyRequests)

	wall.Add(20 * time.Second)
	wantStatus(t, login("late"), http.StatusSeeOther)
}

// A key that is not text is no key, whatever the authenticator.
func TestLoginKeyMustBeText(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{"sk_test_\xff", "sk_test_a\x00b", "sk_test_a\x1b"} {
		res := e.client().post("/inbox/login", url.Values{"key": {key}})
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %q: %d, want 401", key, res.StatusCode)
		}
	}
}
