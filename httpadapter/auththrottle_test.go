package httpadapter_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/httpadapter"
)

// throttledServer accepts the fixed keys "good" and "other" and throttles
// failed authentications to n per minute on wall, a clock of its own.
func throttledServer(t *testing.T, n int) (*testServer, *clock.Mock) {
	t.Helper()
	auth, err := httpadapter.NewKeyAuthenticator(httpadapter.APIKey{Account: "acme", Secret: "good"},
		httpadapter.APIKey{Account: "acme", Secret: "other"})
	if err != nil {
		t.Fatal(err)
	}
	wall := clock.NewMock()
	return newTestServer(t, withAdapter(httpadapter.WithAuthenticator(auth),
		httpadapter.WithAuthThrottle(httpadapter.NewAuthThrottle(n, time.Minute, wall))), mounted(fromAddress)), wall
}

// A client address fails to authenticate N times per DURATION, then every
// request of it that carries a key is a 429 until a failure's worth of time
// has passed: the answer is the same whatever the key, so guessing on
// teaches nothing. A missing key tries no key and is not counted.
func TestFailedAuthenticationsThrottled(t *testing.T) {
	ts, wall := throttledServer(t, 3)
	for range 5 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
	}
	for i := range 3 {
		p := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "wrong"+strconv.Itoa(i))}).problem(t, http.StatusUnauthorized)
		if p.Code != "unauthorized" {
			t.Errorf("failure %d: %+v", i+1, p)
		}
		if i == 0 {
			// "good" is accepted from the address while it is failing.
			ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "good")}).wantStatus(t, http.StatusOK)
		}
	}
	for _, key := range []string{"wrong3", "other"} {
		res := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key)})
		p := res.problem(t, http.StatusTooManyRequests)
		if p.Code != "rate-limited" || !strings.Contains(p.Detail, "failed") || res.Header.Get("Retry-After") != "20" {
			t.Errorf("key %s from a throttled address: Retry-After %q, %+v", key, res.Header.Get("Retry-After"), p)
		}
	}
	// A key accepted from the address before goes on; another address is
	// not throttled.
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "good")}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "other", "X-Test-Remote", "10.0.0.9")}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "wrong", "X-Test-Remote", "10.0.0.9")}).problem(t, http.StatusUnauthorized)

	// One failure comes back every DURATION/N, on the throttle's clock.
	wall.Add(19 * time.Second)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "other")}).problem(t, http.StatusTooManyRequests)
	wall.Add(time.Second)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "other")}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "wrong4")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "wrong5")}).problem(t, http.StatusTooManyRequests)

	// Each time the address is throttled is logged once, with the address.
	if n := strings.Count(ts.logs.String(), "authentication failures throttled"); n != 2 {
		t.Errorf("%d log lines of the throttle, want 2:\n%s", n, ts.logs)
	}
	if !strings.Contains(ts.logs.String(), "127.0.0.1") {
		t.Errorf("the log does not name the address:\n%s", ts.logs)
	}
}

// The test controls' faults never answer for a throttled address: a
// fault's answer would tell a guessed key from a wrong one.
func TestThrottledAddressMeetsNoFault(t *testing.T) {
	ts, _ := throttledServer(t, 1)
	ts.do(t, req{Method: "POST", Path: "/_test/faults", Body: `{"path":"/letters","status":503}`, Header: hdr("X-Api-Key", "good",
		"X-Test-Remote", "10.0.0.2")}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "wrong")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "good")}).problem(t, http.StatusTooManyRequests)
}

// By default a server throttles failed authentications at 100 a minute
// per address: two hundred wrong keys in a row meet 429s.
func TestFailedAuthenticationsThrottledByDefault(t *testing.T) {
	ts := newTestServer(t)
	statuses := map[int]int{}
	for i := range 200 {
		res := ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_live_"+strconv.Itoa(i))})
		statuses[res.Status]++
		if i < httpadapter.DefaultAuthFailures && res.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, res.Status)
		}
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("200 failed authentications: %v, want 429s", statuses)
	}
}

// WithAuthThrottle(nil) turns the throttle off.
func TestAuthThrottleOff(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithAuthThrottle(nil)))
	for i := range 150 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "sk_live_"+strconv.Itoa(i))}).problem(t, http.StatusUnauthorized)
	}
}
