package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/httpadapter"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseConfig(t *testing.T) {
	defaults := config{addr: "127.0.0.1:8080", rate: rateLimit{n: 150, per: 5 * time.Second}, store: "memory",
		maxConns: defaultMaxConns, maxConnsPerClient: defaultMaxConnsPerClient, bodyRate: httpadapter.DefaultBodyReadRate,
		logFormat: "text", webhookTimeout: delivery.DefaultTimeout,
		authFailures: rateLimit{httpadapter.DefaultAuthFailures, httpadapter.DefaultAuthFailuresPer}}
	with := func(f func(*config)) config {
		c := defaults
		f(&c)
		return c
	}
	tests := []struct {
		name string
		args []string
		env  func(string) string
		want config
	}{
		{"defaults", nil, env(), defaults},
		{"flags", []string{"--addr", ":9000", "--test-clock", "--rate-limit", "10/1m", "--base-url", "https://mail.example.com/", "--store", "memory"}, env(),
			with(func(c *config) {
				c.addr, c.testClock, c.rate, c.baseURL = ":9000", true, rateLimit{10, time.Minute}, "https://mail.example.com"
			})},
		{"environment", nil, env("LETTERSHOP_ADDR", ":7000", "LETTERSHOP_TEST_CLOCK", "true", "LETTERSHOP_RATE_LIMIT", "0",
			"LETTERSHOP_BASE_URL", "http://h:1", "LETTERSHOP_API_KEY", "acme:s1 beta:s2=letters:read"),
			with(func(c *config) {
				c.addr, c.testClock, c.rate, c.baseURL = ":7000", true, rateLimit{}, "http://h:1"
				c.apiKeys = []httpadapter.APIKey{
					{Account: "acme", Secret: "s1"},
					{Account: "beta", Secret: "s2", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead}},
				}
			})},
		{"a flag wins over the environment", []string{"--addr", ":1", "--api-key", "flag:f"},
			env("LETTERSHOP_ADDR", ":2", "LETTERSHOP_API_KEY", "envkey:e"),
			with(func(c *config) {
				c.addr = ":1"
				c.apiKeys = []httpadapter.APIKey{{Account: "flag", Secret: "f"}}
			})},
		{"repeated keys with scopes", []string{"--api-key", "a:k1=letters:read,letters:write", "--api-key", "b:k2=assets:read"}, env(),
			with(func(c *config) {
				c.apiKeys = []httpadapter.APIKey{
					{Account: "a", Secret: "k1", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeLettersWrite}},
					{Account: "b", Secret: "k2", Scopes: []httpadapter.Scope{httpadapter.ScopeAssetsRead}},
				}
			})},
		{"rate per unit", []string{"--rate-limit", "100/s"}, env(), with(func(c *config) { c.rate = rateLimit{100, time.Second} })},
		{"rate of one", []string{"--rate-limit", "1/500ms"}, env(), with(func(c *config) { c.rate = rateLimit{1, 500 * time.Millisecond} })},
		{"postgres from flags", []string{"--store", "postgres://u:pw@db:5432/mail?sslmode=disable", "--schema", "ls", "--token-key", key32}, env(),
			with(func(c *config) {
				c.store, c.schema, c.tokenKey = "postgres://u:pw@db:5432/mail?sslmode=disable", "ls", key32
				c.requestTimeout = httpadapter.DefaultRequestTimeout // a database may hang
			})},
		{"postgresql scheme from the environment", nil,
			env("LETTERSHOP_STORE", "postgresql:///mail", "LETTERSHOP_SCHEMA", "ls", "LETTERSHOP_TOKEN_KEY", key32+"more"),
			with(func(c *config) {
				c.store, c.schema, c.tokenKey = "postgresql:///mail", "ls", key32+"more"
				c.requestTimeout = httpadapter.DefaultRequestTimeout
			})},
		{"token key with the memory store", nil, env("LETTERSHOP_TOKEN_KEY", key32),
			with(func(c *config) { c.tokenKey = key32 })},
		{"webhooks", []string{"--webhook-hosts", "hooks.example.com, *.example.org", "--webhook-timeout", "3s", "--test-clock", "--shared-test-clock"}, env(),
			with(func(c *config) {
				c.webhookHosts, c.webhookTimeout = []string{"hooks.example.com", "*.example.org"}, 3*time.Second
				c.testClock, c.sharedClock = true, true
			})},
		{"request timeout", []string{"--request-timeout", "59s"}, env(), with(func(c *config) { c.requestTimeout = 59 * time.Second })},
		{"a request timeout in memory from the environment", nil, env("LETTERSHOP_REQUEST_TIMEOUT", "5s"), with(func(c *config) { c.requestTimeout = 5 * time.Second })},
		{"no request timeout with postgres", []string{"--store", "postgres:///mail", "--token-key", key32, "--request-timeout", "0"}, env(),
			with(func(c *config) { c.store, c.tokenKey, c.requestTimeout = "postgres:///mail", key32, 0 })},
		{"test clock start", []string{"--test-clock", "--test-clock-start", "2026-03-02T10:00:00-05:00"}, env(),
			with(func(c *config) {
				c.testClock, c.testClockStart = true, time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
			})},
		{"test clock start from the environment", nil, env("LETTERSHOP_TEST_CLOCK", "true", "LETTERSHOP_TEST_CLOCK_START", "2030-01-07T15:00:00Z"),
			with(func(c *config) {
				c.testClock, c.testClockStart = true, time.Date(2030, 1, 7, 15, 0, 0, 0, time.UTC)
			})},
		{"webhook hosts from the environment", nil, env("LETTERSHOP_WEBHOOK_HOSTS", "127.0.0.1"),
			with(func(c *config) { c.webhookHosts = []string{"127.0.0.1"} })},
		{"auth failure limit", []string{"--auth-failure-limit", "10/m"}, env(),
			with(func(c *config) { c.authFailures = rateLimit{10, time.Minute} })},
		{"no auth failure limit, from the environment", nil, env("LETTERSHOP_AUTH_FAILURE_LIMIT", "0"),
			with(func(c *config) { c.authFailures = rateLimit{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, tt.env, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(config{}, rateLimit{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  func(string) string
		want string
	}{
		{"key without secret", []string{"--api-key", "acme"}, env(), "ACCOUNT:SECRET"},
		{"key with empty secret", []string{"--api-key", "acme:"}, env(), "secret"},
		{"key with empty account", []string{"--api-key", ":s"}, env(), "ACCOUNT:SECRET"},
		{"unknown scope", []string{"--api-key", "acme:s=letters:delete"}, env(), "letters:delete"},
		{"rate without duration", []string{"--rate-limit", "150"}, env(), "N/DURATION"},
		{"rate of none", []string{"--rate-limit", "0/5s"}, env(), "N/DURATION"},
		{"rate with a bad duration", []string{"--rate-limit", "5/fortnight"}, env(), "DURATION"},
		{"rate with a negative duration", []string{"--rate-limit", "5/-1s"}, env(), "DURATION"},
		{"base url without scheme", []string{"--base-url", "localhost:8080"}, env(), "--base-url"},
		{"base url with query", []string{"--base-url", "http://h/?x=1"}, env(), "--base-url"},
		{"unknown flag", []string{"--port", "80"}, env(), "port"},
		{"stray argument", []string{"serve"}, env(), "serve"},
		{"bad environment value named", nil, env("LETTERSHOP_RATE_LIMIT", "lots"), "LETTERSHOP_RATE_LIMIT"},
		{"bad boolean in environment", nil, env("LETTERSHOP_TEST_CLOCK", "yes please"), "LETTERSHOP_TEST_CLOCK"},
		{"unknown store", []string{"--store", "memroy"}, env(), `unknown store "memroy"`},
		{"postgres key=value string", []string{"--store", "host=db dbname=mail"}, env(), "want memory or a postgres:// URL"},
		{"bad postgres URL", []string{"--store", "postgres://db:port/mail", "--token-key", key32}, env(), "--store"},
		{"postgres without token key", []string{"--store", "postgres://db/mail"}, env(),
			"a nextToken or download link made by one server is refused by another"},
		{"postgres without token key, from the environment", nil, env("LETTERSHOP_STORE", "postgres://db/mail"), "--token-key"},
		{"token key one short", []string{"--token-key", key32[1:]}, env(), "--token-key: want at least 32 characters"},
		{"token key one short in the environment", nil, env("LETTERSHOP_TOKEN_KEY", key32[1:]), "got 31"},
		{"schema without postgres", []string{"--schema", "ls"}, env(), "--schema"},
		{"no webhook hosts", []string{"--webhook-hosts", " , "}, env(), "one host"},
		{"a malformed webhook host", []string{"--webhook-hosts", "hooks.example.com, 10.0.0.0/33"}, env(),
			`invalid value "hooks.example.com, 10.0.0.0/33" for flag -webhook-hosts: "10.0.0.0/33": want a network`},
		{"a malformed webhook host in the environment", nil, env("LETTERSHOP_WEBHOOK_HOSTS", "10.0.0.0/33"), "LETTERSHOP_WEBHOOK_HOSTS"},
		{"a webhook host of refused addresses", []string{"--webhook-hosts", "169.254.169.254"}, env(), "cloud metadata"},
		{"no webhook timeout", []string{"--webhook-timeout", "0s"}, env(), "--webhook-timeout"},
		{"request timeout at the write timeout", []string{"--request-timeout", "60s"}, env(), "--request-timeout: want 0 (no bound) or a duration below the 1m0s write timeout, got 1m0s"},
		{"negative request timeout", []string{"--request-timeout", "-1s"}, env(), "--request-timeout"},
		{"shared clock without a test clock", []string{"--shared-test-clock"}, env(), "--test-clock"},
		{"test clock start without a test clock", []string{"--test-clock-start", "2026-03-02T15:00:00Z"}, env(), "--test-clock-start: needs --test-clock"},
		{"test clock start not a time", []string{"--test-clock", "--test-clock-start", "monday"}, env(), `want a time such as 2026-03-02T15:00:00Z, got "monday"`},
		{"test clock start with a seed", []string{"--test-clock", "--test-clock-start", "2026-03-02T15:00:00Z", "--seed", "fixture.json"}, env(), "not with --seed"},
		{"test clock start without a zone", []string{"--test-clock", "--test-clock-start", "2026-03-02T15:00:00"}, env(), "want a time such as"},
		{"auth failure limit without a duration", []string{"--auth-failure-limit", "100"}, env(), "N/DURATION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, tt.env, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// key32 is a token key of the least length taken.
const key32 = "0123456789abcdef0123456789abcdef"

// A store's password never reaches the greeting, the log or an error.
func TestRedactStore(t *testing.T) {
	for in, want := range map[string]string{
		"memory":               "memory",
		"postgres://db/mail":   "postgres://db/mail",
		"postgres://u@db/mail": "postgres://u@db/mail",
		"postgres://u:s3cret@db/mail?sslmode=full": "postgres://u:xxxxx@db/mail?sslmode=full",
		"postgres://u:s3cret@db:port/mail":         "(not shown: it may hold a password)",
		"host=db password=s3cret":                  "(not shown: it may hold a password)",
	} {
		if got := redactStore(in); got != want {
			t.Errorf("redactStore(%q) = %q, want %q", in, got, want)
		}
	}
	_, err := parseConfig([]string{"--store", "postgress://u:s3cret@db/mail"}, env(), io.Discard)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("unknown store with a password: error %v, want one without the password", err)
	}
}

// The greeting names the store and schema, never a password.
func TestGreetStore(t *testing.T) {
	for _, tt := range []struct {
		cfg  config
		want string
	}{
		{config{store: "memory"}, "(store: memory)"},
		{config{store: "postgres://u:s3cret@db/mail", schema: "ls"}, "(store: postgres://u:xxxxx@db/mail, schema ls)"},
		{config{store: "postgres://db/mail"}, "(store: postgres://db/mail)"},
	} {
		var b bytes.Buffer
		greet(&b, tt.cfg, "http://h", "http://h")
		first, _, _ := strings.Cut(b.String(), "\n")
		if !strings.HasSuffix(first, tt.want) || strings.Contains(b.String(), "s3cret") {
			t.Errorf("greeting %q, want it to end %q and hold no password", first, tt.want)
		}
	}
	// Behind a proxy the greeting names both addresses.
	var b bytes.Buffer
	greet(&b, config{store: "memory"}, "http://127.0.0.1:8080", "https://mail.example.com")
	if !strings.Contains(b.String(), "listening on http://127.0.0.1:8080 ") || !strings.Contains(b.String(), "Clients reach it at https://mail.example.com.") ||
		!strings.Contains(b.String(), "curl -s https://mail.example.com/v1/assets") {
		t.Errorf("greeting with a base URL:\n%s", b.String())
	}
}

// The greeting names each account of the keys given once, however many
// keys name it, in the order given; the JSON greeting too.
func TestGreetAccountsOnce(t *testing.T) {
	key := func(account string) httpadapter.APIKey {
		return httpadapter.APIKey{Account: account, Secret: "s_" + account}
	}
	for _, tt := range []struct {
		keys []httpadapter.APIKey
		want string
	}{
		{[]httpadapter.APIKey{key("acme")}, "acme"},
		{[]httpadapter.APIKey{key("acme"), key("acme")}, "acme"},
		{[]httpadapter.APIKey{key("beta"), key("acme"), key("beta"), key("acme")}, "beta, acme"},
	} {
		cfg := config{store: "memory", apiKeys: tt.keys, rate: rateLimit{n: 150, per: 5 * time.Second}}
		var text, js bytes.Buffer
		greet(&text, cfg, "http://h", "http://h")
		if want := "\nAPI keys of accounts: " + tt.want + "\n"; strings.Count(text.String(), "API keys") != 1 || !strings.Contains(text.String(), want) {
			t.Errorf("greeting with %d keys:\n%s\nwant a line %q", len(tt.keys), text.String(), strings.TrimSpace(want))
		}
		greetJSON(&js, cfg, "http://h", "http://h", "")
		var g struct{ Accounts []string }
		if err := json.Unmarshal(js.Bytes(), &g); err != nil || strings.Join(g.Accounts, ", ") != tt.want {
			t.Errorf("JSON greeting with %d keys: %s, want accounts %s", len(tt.keys), js.String(), tt.want)
		}
	}
}

// closedPort returns a local address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A database that cannot be reached stops the start, with an error that
// says which store and keeps its password out.
func TestRunUnreachableDatabase(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--token-key", key32,
		"--store", "postgres://u:s3cret@" + closedPort(t) + "/mail?sslmode=disable&connect_timeout=5"}, env(), &stdout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--store postgres://u:xxxxx@") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v, want one naming the store, without its password", err)
	}
	if errors.As(err, new(usageError)) {
		t.Errorf("error %v is a usage error; the setup was right, the database was not there", err)
	}
	if stdout.Len() > 0 {
		t.Errorf("greeted %q, though the store did not open", stdout.String())
	}
}

func TestRunRefusesBadSetup(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "127.0.0.1:0", "--store", "postgres://localhost/lettershop"}, "needs --token-key"},
		{[]string{"--addr", "127.0.0.1:0", "--store", "memroy"}, "unknown store"},
		{[]string{"--addr", "127.0.0.1:0", "--api-key", "a:same", "--api-key", "b:same"}, "twice"},
		{[]string{"--addr", "127.0.0.1:99999"}, "99999"},
	} {
		err := run(context.Background(), tt.args, env(), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run %v: error %v, want one mentioning %q", tt.args, err, tt.want)
		}
	}
	if err := run(context.Background(), []string{"-h"}, env(), io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestReachable(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080": "127.0.0.1:8080",
		"0.0.0.0:8080":   "localhost:8080",
		"[::]:8080":      "localhost:8080",
		":8080":          "localhost:8080",
		"[::1]:80":       "[::1]:80",
	} {
		if got := reachable(in); got != want {
			t.Errorf("reachable(%q) = %q, want %q", in, got, want)
		}
	}
}

// lockedBuffer collects the server's log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer runs the server on a free port and returns its base URL and
// log; it is shut down when the test ends, and must shut down cleanly.
func startServer(t *testing.T, args ...string) (string, *lockedBuffer) {
	t.Helper()
	base, logs, _ := launch(t, args...)
	return base, logs
}

// launch is startServer that also returns stop, which shuts the server down
// before the test ends and fails the test unless it shuts down cleanly.
func launch(t *testing.T, args ...string) (base string, logs *lockedBuffer, stop func()) {
	t.Helper()
	base, _, logs, stop = launchAll(t, args...)
	return base, logs, stop
}

// launchAll is launch that also returns what the server writes to stdout.
func launchAll(t *testing.T, args ...string) (base string, stdout, logs *lockedBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, outW := io.Pipe()
	logs, stdout = &lockedBuffer{}, &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), env(), outW, logs)
		outW.Close()
	}()
	rd := bufio.NewReader(out)
	first, err := rd.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no greeting: %v (server said %v; log %s)", err, <-done, logs)
	}
	stdout.Write([]byte(first))
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(stdout, rd)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
			<-copied
		})
	}
	t.Cleanup(stop)
	// The URL ends at white space, or at the quote that ends it in JSON.
	base = regexp.MustCompile(`http://[^\s"]+`).FindString(first)
	if base == "" {
		t.Fatalf("greeting %q names no URL", first)
	}
	return base, stdout, logs, stop
}

// noRedirect is a client that shows a 302 rather than following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// call sends a request with the API key (none for "") and the header
// name-value pairs, and reads the answer. A redirect is answered as it is,
// not followed.
func call(t *testing.T, method, url, key, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// createTemplate makes, as the walkthrough of docs/http.md does, an asset
// with one published template version that requires the variable name, and
// returns the asset's id.
func createTemplate(t *testing.T, base, key string) string {
	t.Helper()
	var asset struct{ ID string }
	resp, body := call(t, "POST", base+"/v1/assets", key, `{"name":"Welcome letter","type":"template"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create asset: %d %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &asset); err != nil {
		t.Fatalf("create asset: %v: %s", err, body)
	}
	resp, body = call(t, "POST", base+"/v1/assets/"+asset.ID+"/versions", key,
		`{"content":{"type":"text/html","content":"<p>Dear {{name}},</p>"},"variableDefinitions":[{"name":"name","behavior":"required"}],"publish":true}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create version: %d %s", resp.StatusCode, body)
	}
	return asset.ID
}

// letterJSON is the walkthrough's letter, made from the asset createTemplate
// made.
func letterJSON(assetID string) string {
	return `{
		"sender": {"organization": "Acme Corp", "address": {"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701"}},
		"recipient": {"individual": {"firstName": "Jane", "lastName": "Doe"}, "address": {"addressLine1": "200 Oak Ave", "city": "Chicago", "state": "IL", "zipCode": "60601"}},
		"content": {"type": "asset", "assetId": "` + assetID + `"},
		"useType": "transactional",
		"variables": [{"name": "name", "value": "Jane"}]}`
}

// The walkthrough of docs/http.md, against the real server.
func TestServerWalkthrough(t *testing.T) {
	base, logs := startServer(t, "--test-clock")
	const key = "sk_test_walkthrough"
	var letter struct{ ID string }

	resp, body := call(t, "POST", base+"/v1/letters", key, letterJSON(createTemplate(t, base, key)))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create letter: %d %s", resp.StatusCode, body)
	}
	json.Unmarshal(body, &letter)
	loc := resp.Header.Get("Location")
	if loc != base+"/v1/letters/"+letter.ID {
		t.Errorf("Location %q, want %s/v1/letters/%s", loc, base, letter.ID)
	}
	resp, body = call(t, "GET", loc, key, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"url":"`+base+"/letters/"+letter.ID+`/download"`) {
		t.Fatalf("fetch letter: %d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Rate-Limit-Limit") != "150" || resp.Header.Get("P-RateLimit-Limit") != "150" ||
		resp.Header.Get("X-Api-Version") != httpadapter.APIVersion {
		t.Errorf("headers %v", resp.Header)
	}

	resp, body = call(t, "GET", base+"/_test/clock", key, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"now"`) {
		t.Errorf("test clock: %d %s", resp.StatusCode, body)
	}

	// One log line per request, each with its request id.
	lines := 0
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "msg=request ") {
			lines++
			if !strings.Contains(l, "request_id=req_") || !strings.Contains(l, "status=") {
				t.Errorf("log line lacks request id or status: %s", l)
			}
		}
	}
	if lines != 5 {
		t.Errorf("%d request log lines for 5 requests:\n%s", lines, logs)
	}
}

// Under --test-clock each key's account moves its own clock; with
// --shared-test-clock one move moves every account.
func TestServerTestClocks(t *testing.T) {
	for _, shared := range []bool{false, true} {
		args := []string{"--test-clock"}
		if shared {
			args = append(args, "--shared-test-clock")
		}
		base, _ := startServer(t, args...)
		nowOf := func(key string) string {
			t.Helper()
			var c struct{ Now string }
			resp, body := call(t, "GET", base+"/_test/clock", key, "")
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &c) != nil {
				t.Fatalf("clock: %d %s", resp.StatusCode, body)
			}
			return c.Now
		}
		start := nowOf("sk_test_b")
		if resp, body := call(t, "POST", base+"/_test/clock/advance", "sk_test_a", `{"duration":"72h"}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("advance: %d %s", resp.StatusCode, body)
		}
		moved := nowOf("sk_test_b") != start
		if moved != shared {
			t.Errorf("shared %v: after another account's advance the clock reads %s (was %s)", shared, nowOf("sk_test_b"), start)
		}
	}
	if _, err := parseConfig([]string{"--shared-test-clock"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("--shared-test-clock without --test-clock was taken")
	}
}

// --test-clock-start starts every account's clock at that instant.
func TestServerTestClockStart(t *testing.T) {
	base, _ := startServer(t, "--test-clock", "--test-clock-start", "2030-01-07T15:00:00Z")
	var c struct{ Now string }
	resp, body := call(t, "GET", base+"/_test/clock", "sk_test_start", "")
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &c) != nil || c.Now != "2030-01-07T15:00:00Z" {
		t.Errorf("clock: %d %s, want now 2030-01-07T15:00:00Z", resp.StatusCode, body)
	}
}

// With --sandbox beside --api-key, the keys given are their accounts and
// every sk_test_ key is one of its own, as without --api-key; a key given
// that begins sk_test_ is still the account it names. The greeting says so.
func TestServerWithKeysAndSandbox(t *testing.T) {
	base, stdout, _, stop := launchAll(t, "--api-key", "acme:secret1=letters:read", "--api-key", "beta:sk_test_beta", "--sandbox", "--rate-limit", "0")
	defer func() {
		stop()
		if !strings.Contains(stdout.String(), "Sandbox: any API key that begins sk_test_ works") || !strings.Contains(stdout.String(), "API keys of accounts: acme, beta") {
			t.Errorf("greeting:\n%s", stdout)
		}
	}()
	if resp, _ := call(t, "POST", base+"/letters", "secret1", "{}"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("write with a read key given: %d, want its scopes kept", resp.StatusCode)
	}
	// An asset made with a sandbox key is its account's alone.
	resp, body := call(t, "POST", base+"/assets", "sk_test_one", `{"name":"one"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create with a sandbox key: %d %s", resp.StatusCode, body)
	}
	for key, want := range map[string]int{"sk_test_one": 1, "sk_test_two": 0, "sk_test_beta": 0, "secret1": 0} {
		var page struct{ Items []json.RawMessage }
		if resp, body := call(t, "GET", base+"/assets", key, ""); resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil || len(page.Items) != want {
			if key != "secret1" || resp.StatusCode != http.StatusForbidden { // secret1 reads letters only
				t.Errorf("assets of %s: %d %s, want %d", key, resp.StatusCode, body, want)
			}
		}
	}
	if resp, body := call(t, "GET", base+"/letters", "sk_test_", ""); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "sk_test_") {
		t.Errorf("the bare prefix: %d %s, want a 401 that says which keys the sandbox takes", resp.StatusCode, body)
	}
	if resp, _ := call(t, "GET", base+"/letters", "other", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a key neither given nor the sandbox's: %d", resp.StatusCode)
	}
}

func TestServerWithKeysAndNoTestClock(t *testing.T) {
	base, _ := startServer(t, "--api-key", "acme:secret1=letters:read", "--rate-limit", "0")
	resp, body := call(t, "GET", base+"/letters", "secret1", "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("P-RateLimit-Limit") != "" {
		t.Errorf("list with a read key: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := call(t, "POST", base+"/letters", "secret1", "{}"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("write with a read key: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"/letters", "sk_test_x", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("sandbox key with fixed keys: %d", resp.StatusCode)
	}
	if resp, _ := call(t, "GET", base+"/_test/clock", "secret1", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("test clock without --test-clock: %d", resp.StatusCode)
	}
}
