package inbox_test

import (
	"context"
	"io"
	"math/rand"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/inbox"
	"github.com/lettershop/lettershop/memstore"
)

// testKey is the sandbox key the tests log in with.
const testKey = "sk_test_inbox"

var testStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// env is a server with the API at / and the inbox at /inbox/, as
// cmd/lettershop mounts them, on a mock clock.
type env struct {
	t       testing.TB
	svc     *lettershop.Service
	clock   *clock.Mock
	srv     *httptest.Server
	account string
	ctx     context.Context
}

type envConfig struct {
	noTestClock bool
	inboxOpts   []inbox.Option
	apiOpts     []httpadapter.Option
}

type envOption func(*envConfig)

func withoutTestClock() envOption { return func(c *envConfig) { c.noTestClock = true } }

func withInboxOptions(o ...inbox.Option) envOption {
	return func(c *envConfig) { c.inboxOpts = append(c.inboxOpts, o...) }
}

func withAPIOptions(o ...httpadapter.Option) envOption {
	return func(c *envConfig) { c.apiOpts = append(c.apiOpts, o...) }
}

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	var cfg envConfig
	for _, o := range opts {
		o(&cfg)
	}
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(1))), lettershop.WithTokenKey([]byte("test token key")))
	t.Cleanup(func() { svc.Close() })
	iopts := cfg.inboxOpts
	hopts := []httpadapter.Option{httpadapter.WithRateLimit(0, 0)}
	if !cfg.noTestClock {
		iopts = append(iopts, inbox.WithTestClock(mc))
		hopts = append(hopts, httpadapter.WithTestClock(mc))
	}
	mux := http.NewServeMux()
	mux.Handle("/inbox/", http.StripPrefix("/inbox", inbox.New(svc, iopts...)))
	mux.Handle("/", httpadapter.New(svc, append(hopts, cfg.apiOpts...)...))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, svc: svc, clock: mc, srv: srv, account: httpadapter.SandboxAccount(testKey), ctx: context.Background()}
}

// client is a browser-like client: a cookie jar, redirects not followed.
type client struct {
	e   *env
	hc  *http.Client
	jar http.CookieJar
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, jar: jar, hc: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// loggedIn is a client that has logged in with key.
func (e *env) loggedIn(key string) *client {
	e.t.Helper()
	c := e.client()
	res := c.post("/inbox/login", url.Values{"key": {key}})
	if res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("login: status %d, want 303: %s", res.StatusCode, res.Body)
	}
	return c
}

type response struct {
	StatusCode int
	Header     http.Header
	Body       string
}

// browserAccept is what a browser's navigation accepts: pages.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// do sends req as a browser would, accepting pages unless req says
// otherwise.
func (c *client) do(req *http.Request) *response {
	c.e.t.Helper()
	if _, ok := req.Header["Accept"]; !ok {
		req.Header.Set("Accept", browserAccept)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.e.t.Fatalf("read %s: %v", req.URL, err)
	}
	return &response{StatusCode: res.StatusCode, Header: res.Header, Body: string(b)}
}

func (c *client) get(path string) *response {
	c.e.t.Helper()
	req, _ := http.NewRequest("GET", c.e.srv.URL+path, nil)
	return c.do(req)
}

// post sends a form as a browser on the inbox's page would: with its
// Origin.
func (c *client) post(path string, form url.Values) *response {
	c.e.t.Helper()
	return c.postFrom(c.e.srv.URL, path, form)
}

func (c *client) postFrom(origin, path string, form url.Values) *response {
	c.e.t.Helper()
	req, _ := http.NewRequest("POST", c.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return c.do(req)
}

// csrf is the token in the forms of the page at path.
func (c *client) csrf(path string) string {
	c.e.t.Helper()
	body := c.get(path).Body
	_, rest, ok := strings.Cut(body, `name="csrf" value="`)
	if !ok {
		c.e.t.Fatalf("no CSRF token on %s", path)
	}
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

// template makes a published template asset in the test account.
func (e *env) template() *lettershop.Asset {
	e.t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, e.account, lettershop.CreateAssetInput{Name: "Welcome <b>", Type: lettershop.AssetTemplate})
	if err != nil {
		e.t.Fatalf("CreateAsset: %v", err)
	}
	_, err = e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{
		Notes:               "first draft",
		Content:             &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: `<p>Dear {{name}},</p><p class="fine">A &amp; B</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
		Publish:             true,
	})
	if err != nil {
		e.t.Fatalf("CreateVersion: %v", err)
	}
	return a
}

func str(s string) *string { return &s }

// letter makes a letter from asset in the test account; change adjusts the
// input first.
func (e *env) letter(asset *lettershop.Asset, change func(*lettershop.CreateLetterInput)) *lettershop.Letter {
	e.t.Helper()
	in := lettershop.CreateLetterInput{
		Sender: &lettershop.PartyInput{Organization: "Acme Corp",
			Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
			Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
		Variables: []lettershop.Variable{{Name: "name", Value: str("Jane")}},
	}
	if change != nil {
		change(&in)
	}
	l, err := e.svc.CreateLetter(e.ctx, e.account, in)
	if err != nil {
		e.t.Fatalf("CreateLetter: %v", err)
	}
	return l
}

func wantStatus(t testing.TB, res *response, status int) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d; body:\n%s", res.StatusCode, status, res.Body)
	}
}

func wantContains(t testing.TB, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %q:\n%s", s, body)
		}
	}
}

func wantLacks(t testing.TB, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(body, s) {
			t.Errorf("the page has %q", s)
		}
	}
}
