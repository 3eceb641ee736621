package httpadapter_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/httpadapter"
)

// fromAddress serves each request as if from the address in its
// X-Test-Remote header.
func fromAddress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("X-Test-Remote"); a != "" {
			r.RemoteAddr = a + ":1234"
		}
		next.ServeHTTP(w, r)
	})
}

// In the sandbox a client address starts at most 10×N new keys at once,
// then N per DURATION: fresh keys do not escape the limit.
func TestSandboxNewKeysPerAddress(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(2, time.Minute)), mounted(fromAddress))
	key := func(i int) string { return fmt.Sprintf("sk_test_fresh%d", i) }
	for i := range 20 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(i))}).wantStatus(t, http.StatusOK)
	}
	p := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(20))})
	if p.problem(t, http.StatusTooManyRequests); !strings.Contains(string(p.Body), "new sandbox keys") || p.Header.Get("Retry-After") != "30" {
		t.Errorf("21st new key: Retry-After %q, %s", p.Header.Get("Retry-After"), p.Body)
	}
	// A key seen before goes on; another address has its own budget.
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(0))}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(20), "X-Test-Remote", "10.0.0.2")}).wantStatus(t, http.StatusOK)
	// N per DURATION come back: one every 30 s.
	ts.Clock.Add(30 * time.Second)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(21))}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key(22))}).problem(t, http.StatusTooManyRequests)
}

// In the sandbox a client address makes at most 20×N requests per
// DURATION, across all its keys.
func TestSandboxRequestsPerAddress(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(2, time.Minute)), mounted(fromAddress))
	for i := range 40 {
		k := fmt.Sprintf("sk_test_k%d", i/2) // 20 keys, 2 requests each
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", k)}).wantStatus(t, http.StatusOK)
	}
	p := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_k0")})
	if p.problem(t, http.StatusTooManyRequests); !strings.Contains(string(p.Body), "client address has used up") || p.Header.Get("Retry-After") != "2" {
		t.Errorf("41st request: Retry-After %q, %s", p.Header.Get("Retry-After"), p.Body)
	}
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_other", "X-Test-Remote", "10.0.0.3")}).wantStatus(t, http.StatusOK)
}

// Without a rate limit there are no limits per address either.
func TestSandboxAddressLimitsOff(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(0, time.Minute)))
	for i := range 300 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", fmt.Sprintf("sk_test_n%d", i))}).wantStatus(t, http.StatusOK)
	}
}

// WithAddressLimits(false) leaves each key's limit alone: fresh keys and
// download links from one address are not counted together.
func TestAddressLimitsTurnedOff(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(2, time.Minute), httpadapter.WithAddressLimits(false)))
	for i := range 60 {
		k := fmt.Sprintf("sk_test_k%d", i/2) // 30 keys, 2 requests each
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", k)}).wantStatus(t, http.StatusOK)
	}
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_test_k0")}).problem(t, http.StatusTooManyRequests)
	for range 5 {
		ts.do(t, req{Method: "GET", Path: "/files/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz.pdf", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusForbidden)
	}
}
