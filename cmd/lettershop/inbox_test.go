package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The server mounts the inbox at /inbox/ with the API's keys and clock, and
// leaves every other path to the API as it was.
func TestServerMountsTheInbox(t *testing.T) {
	base, _ := startServer(t, "--api-key", "acme:secret1", "--api-key", "acme:reader=letters:read", "--test-clock", "--rate-limit", "0")
	for _, tc := range []struct {
		path, location string
		status         int
	}{
		{"/inbox", "/inbox/", http.StatusMovedPermanently},
		{"/inbox/", "/inbox/login", http.StatusSeeOther},
		{"/inbox/login", "", http.StatusOK},
		{"//letters", "", http.StatusNotFound}, // the API's, never redirected
		{"/inboxes", "", http.StatusNotFound},
	} {
		resp, body := call(t, "GET", base+tc.path, "", "")
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("GET %s: %d Location %q, want %d %q (%s)", tc.path, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location, body)
		}
	}
	if resp, body := call(t, "GET", base+"//letters", "", ""); !strings.Contains(resp.Header.Get("Content-Type"), "problem+json") {
		t.Errorf("//letters is no longer the API's problem: %s", body)
	}

	login := func(key string) *http.Response {
		resp, _ := call(t, "POST", base+"/inbox/login", "", url.Values{"key": {key}}.Encode(),
			"Content-Type", "application/x-www-form-urlencoded", "Origin", base)
		return resp
	}
	if resp := login("sk_test_sandbox"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a sandbox key with --api-key: %d, want 401", resp.StatusCode)
	}
	resp := login("reader")
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("log in with an API key: %d %v", resp.StatusCode, resp.Cookies())
	}
	cookie := resp.Cookies()[0]
	resp, body := call(t, "GET", base+"/inbox/", "", "", "Cookie", cookie.Name+"="+cookie.Value)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Test clock") {
		t.Errorf("the inbox: %d %s", resp.StatusCode, body)
	}
	if strings.Contains(string(body), "/clock/advance") {
		t.Errorf("a key without letters:write is offered the clock")
	}
}

// A path under /inbox/ that is not clean, or leaves the static files, is
// the inbox's 404: a problem to a program, never a redirect.
func TestServerInboxPathsStayInside(t *testing.T) {
	base, _ := startServer(t)
	for _, target := range []string{"/inbox/static/../../etc/passwd", "/inbox/static/%2e%2e/%2e%2e/etc/passwd", "/inbox/static/nope.css",
		"/inbox//login", "/inbox/../letters"} {
		resp, body := rawRequest(t, base, "GET "+target+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		wantProblem(t, target, resp, body, http.StatusNotFound)
		if loc := resp.Header.Get("Location"); loc != "" {
			t.Errorf("%s: redirected to %s", target, loc)
		}
	}
}

// The API and the inbox count failed authentications together, per client
// address, as --auth-failure-limit says; 0 turns the throttle off.
func TestServerThrottlesFailedAuthentications(t *testing.T) {
	base, logs := startServer(t, "--api-key", "acme:secret1", "--auth-failure-limit", "2/1h", "--rate-limit", "0")
	for _, key := range []string{"wrong1", "wrong2"} {
		if resp, body := call(t, "GET", base+"/letters", key, ""); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: %d %s", key, resp.StatusCode, body)
		}
	}
	resp, body := call(t, "POST", base+"/inbox/login", "", url.Values{"key": {"secret1"}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded", "Origin", base)
	wantProblem(t, "log-in from a throttled address", resp, body, http.StatusTooManyRequests)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	if !strings.Contains(logs.String(), "authentication failures throttled") {
		t.Errorf("the throttle is not in the log:\n%s", logs)
	}

	base, _ = startServer(t, "--api-key", "acme:secret1", "--auth-failure-limit", "0", "--rate-limit", "0")
	for i := range 150 {
		if resp, body := call(t, "GET", base+"/letters", "wrong", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d with no throttle: %d %s", i+1, resp.StatusCode, body)
		}
	}
}

// Servers given one --token-key, as the servers of one database are, take
// each other's inbox forms: a balancer posts a form to whichever server it
// picks, not the one that served the page. A server with a key of its own
// refuses them.
func TestServerInboxFormsAcrossServers(t *testing.T) {
	shared := []string{"--test-clock", "--rate-limit", "0", "--token-key", key32}
	a, _ := startServer(t, shared...)
	b, _ := startServer(t, shared...)
	own, _ := startServer(t, "--test-clock", "--rate-limit", "0")
	resp, _ := call(t, "POST", a+"/inbox/login", "", url.Values{"key": {"sk_test_forms"}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded", "Origin", a)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("log in: %d %v", resp.StatusCode, resp.Cookies())
	}
	cookie := resp.Cookies()[0].Name + "=" + resp.Cookies()[0].Value
	_, page := call(t, "GET", a+"/inbox/", "", "", "Cookie", cookie)
	_, rest, ok := strings.Cut(string(page), `name="csrf" value="`)
	if !ok {
		t.Fatalf("no form on the inbox's page: %s", page)
	}
	token, _, _ := strings.Cut(rest, `"`)
	advance := func(base string) int {
		resp, _ := call(t, "POST", base+"/inbox/clock/advance", "", url.Values{"csrf": {token}, "duration": {"1h"}}.Encode(),
			"Content-Type", "application/x-www-form-urlencoded", "Origin", base, "Cookie", cookie)
		return resp.StatusCode
	}
	if got := advance(b); got != http.StatusSeeOther {
		t.Errorf("a form of one server posted to another of the same token key: %d, want 303", got)
	}
	if got := advance(own); got != http.StatusForbidden {
		t.Errorf("a form posted to a server with a key of its own: %d, want 403", got)
	}
}
