package main

import (
	"net/http"
	"strings"
	"testing"
)

// Every answer of the server carries X-Content-Type-Options: nosniff,
// whoever writes it: the API (its public routes too), the inbox (its
// redirect, pages, static files, 404 and 405), the metrics on their own
// address, the answers the listener writes raw, net/http's answer to an
// Expect it does not know, and OPTIONS *, which net/http answered itself.
func TestServerAnswersAreNotSniffed(t *testing.T) {
	base, metricsURL := launchWithMetricsAddr(t)
	want := func(what string, resp *http.Response, status int) {
		t.Helper()
		if resp.StatusCode != status {
			t.Errorf("%s: %d, want %d", what, resp.StatusCode, status)
		}
		if got := resp.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff once", what, got)
		}
	}
	for _, tc := range []struct {
		method, url string
		status      int
	}{
		{"GET", base + "/healthz", http.StatusOK},
		{"GET", base + "/openapi.yaml", http.StatusOK},
		{"GET", base + "/nope", http.StatusNotFound},
		{"DELETE", base + "/openapi.json", http.StatusMethodNotAllowed},
		{"GET", base + "/inbox", http.StatusMovedPermanently},
		{"GET", base + "/inbox/login", http.StatusOK},
		{"GET", base + "/inbox/static/style.css", http.StatusOK},
		{"GET", base + "/inbox/nope", http.StatusNotFound},
		{"GET", metricsURL, http.StatusOK},
	} {
		resp, _ := call(t, tc.method, tc.url, "", "")
		want(tc.method+" "+tc.url, resp, tc.status)
	}
	over := strings.Repeat("a", maxHeaderBytes+5<<10)
	resp, _ := rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\nHost: x\r\nX-Big: "+over+"\r\nConnection: close\r\n\r\n")
	want("headers over the limit", resp, http.StatusRequestHeaderFieldsTooLarge)
	resp, _ = rawRequest(t, base, "POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}")
	want("an Expect the server does not know", resp, http.StatusExpectationFailed)
	resp, _ = rawRequest(t, base, "OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	want("OPTIONS *", resp, http.StatusOK)
	resp, _ = rawRequest(t, base, "OPTIONS * HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n")
	want("OPTIONS * to another name", resp, http.StatusForbidden)
}
