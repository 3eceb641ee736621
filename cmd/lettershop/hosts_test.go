package main

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/prom"
)

// A server on a loopback address answers only requests addressed to it by
// a loopback name or --base-url's host: a page whose name was pointed at
// 127.0.0.1 (DNS rebinding) gets a 403 problem naming Host, on the API and
// the inbox alike.
func TestLoopbackServerAnswersLoopbackNamesOnly(t *testing.T) {
	base, _ := startServer(t, "--base-url", "http://letters.test:8080")
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"localhost", true},
		{"LOCALHOST:8080", true},
		{"localhost.:8080", true},
		{"app.localhost:8080", true},
		{"127.0.0.1", true},
		{"127.9.9.9:80", true},
		{"[::1]:8080", true},
		{"[::ffff:127.0.0.1]:8080", true},
		{"letters.test:8080", true},
		{"Letters.Test", true},
		{"rebind.example:8080", false},
		{"localhost.example", false},
		{"127.0.0.1.nip.io", false},
		{"letters.test.example", false},
		{"10.0.0.1", false},
		{"0.0.0.0:8080", false},
	} {
		for _, path := range []string{"/v1/letters", "/inbox/login"} {
			resp, body := rawRequest(t, base, "GET "+path+" HTTP/1.1\r\nHost: "+c.host+"\r\nX-Api-Key: sk_test_1\r\nConnection: close\r\n\r\n")
			switch {
			case c.ok && resp.StatusCode != http.StatusOK:
				t.Errorf("Host %s, %s: %d %s, want 200", c.host, path, resp.StatusCode, body)
			case !c.ok && path == "/v1/letters":
				wantProblem(t, "Host "+c.host, resp, body, http.StatusForbidden)
				if !strings.Contains(string(body), `"Host"`) || !strings.Contains(string(body), "--base-url") {
					t.Errorf("Host %s: the problem does not name Host and say what to do: %s", c.host, body)
				}
			case !c.ok && resp.StatusCode != http.StatusForbidden:
				t.Errorf("Host %s, %s: %d, want 403", c.host, path, resp.StatusCode)
			}
		}
	}
}

// An HTTP/1.1 request with an empty Host names no server, so it is not
// taken for one addressed by a loopback name: a 400 problem naming Host.
// HTTP/1.0, where Host is optional, passes without one.
func TestLoopbackServerRefusesAnEmptyHost(t *testing.T) {
	base, _ := startServer(t)
	for _, path := range []string{"/v1/letters", "/inbox/login"} {
		resp, body := rawRequest(t, base, "GET "+path+" HTTP/1.1\r\nHost:\r\nX-Api-Key: sk_test_1\r\nConnection: close\r\n\r\n")
		wantProblem(t, "HTTP/1.1, empty Host, "+path, resp, body, http.StatusBadRequest)
		if !strings.Contains(string(body), `"Host"`) {
			t.Errorf("empty Host, %s: the problem does not name Host: %s", path, body)
		}
		resp, body = rawRequest(t, base, "GET "+path+" HTTP/1.0\r\nX-Api-Key: sk_test_1\r\n\r\n")
		if resp.StatusCode != http.StatusOK {
			t.Errorf("HTTP/1.0 without Host, %s: %d %s, want 200", path, resp.StatusCode, body)
		}
	}
}

// A server that listens on other addresses is reached by names it can not
// know: it answers whatever Host a request names.
func TestNonLoopbackServerAnswersAnyHost(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip("no address but loopback to listen on:", err)
	}
	addr := ln.Addr()
	ln.Close()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	r := httptest.NewRequest("GET", "http://rebind.example/v1/letters", nil)
	rec := httptest.NewRecorder()
	loopbackHosts(addr, "", ok).ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		t.Errorf("listening on %s: Host rebind.example answered %d", addr, rec.Code)
	}
	rec = httptest.NewRecorder()
	loopbackHosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, "", ok).ServeHTTP(rec, r)
	if rec.Code != http.StatusForbidden {
		t.Errorf("listening on loopback: Host rebind.example answered %d, want 403", rec.Code)
	}
}

// The metrics address, on a loopback address, answers only requests
// addressed to it by a loopback name or --base-url's host, as the API does:
// a page whose name was pointed at 127.0.0.1 read the metrics.
func TestMetricsAddressOnLoopbackAnswersLoopbackNamesOnly(t *testing.T) {
	h := metricsServer(prom.New(), slog.New(slog.DiscardHandler), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9100}, "http://letters.test:8080").Handler
	for _, c := range []struct {
		host   string
		status int
	}{
		{"localhost:9100", http.StatusOK},
		{"127.0.0.1:9100", http.StatusOK},
		{"letters.test:9100", http.StatusOK},
		{"rebind.example:9100", http.StatusForbidden},
		{"localhost.example", http.StatusForbidden},
	} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.Host = c.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != c.status {
			t.Errorf("Host %s: %d, want %d", c.host, rec.Code, c.status)
		}
		if c.status == http.StatusForbidden && (rec.Header().Get("Content-Type") != "application/problem+json" || !strings.Contains(rec.Body.String(), `"Host"`)) {
			t.Errorf("Host %s: not a problem naming Host: %s %s", c.host, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
}

// The guard's refusals are answers of the API like any other: they carry
// X-Api-Version, as every response does.
func TestLoopbackRefusalsCarryTheAPIVersion(t *testing.T) {
	base, _ := startServer(t)
	for _, c := range []struct {
		what, host string
		status     int
	}{
		{"another name", "Host: rebind.example\r\n", http.StatusForbidden},
		{"an empty Host", "Host:\r\n", http.StatusBadRequest},
	} {
		resp, body := rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\n"+c.host+"X-Api-Key: sk_test_1\r\nConnection: close\r\n\r\n")
		wantProblem(t, c.what, resp, body, c.status)
		if got := resp.Header.Get("X-Api-Version"); got != httpadapter.APIVersion {
			t.Errorf("%s: X-Api-Version %q, want %q", c.what, got, httpadapter.APIVersion)
		}
	}
}

// An HTTP/1.1 request without a Host header, which net/http refuses before
// any handler runs, is a 400 problem naming Host, as an empty Host is.
func TestMissingHostIsAProblemNamingHost(t *testing.T) {
	base, _ := startServer(t)
	resp, body := rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\nX-Api-Key: sk_test_1\r\nConnection: close\r\n\r\n")
	wantProblem(t, "HTTP/1.1 without Host", resp, body, http.StatusBadRequest)
	var p struct{ Errors map[string]string }
	if err := json.Unmarshal(body, &p); err != nil || p.Errors["Host"] == "" {
		t.Errorf("HTTP/1.1 without Host: the problem does not name Host: %s", body)
	}
}
