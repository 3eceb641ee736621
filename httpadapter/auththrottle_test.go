package httpadapter_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

	// An attack is logged once, with the address, however often the bucket
	// refills during it; the next one, after the bucket was full again, is
	// logged again.
	if n := strings.Count(ts.logs.String(), "authentication failures throttled"); n != 1 {
		t.Errorf("%d log lines of the throttle, want 1:\n%s", n, ts.logs)
	}
	wall.Add(time.Minute)
	for i := range 3 {
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "again"+strconv.Itoa(i))}).problem(t, http.StatusUnauthorized)
	}
	ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", "again")}).problem(t, http.StatusTooManyRequests)
	if n := strings.Count(ts.logs.String(), "authentication failures throttled"); n != 2 {
		t.Errorf("%d log lines of the throttle after a second attack, want 2:\n%s", n, ts.logs)
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

// Requests in flight at once cannot fail more often than the limit: a
// request from an address that failed lately takes its failure before its
// key is checked. 2,000 wrong keys at once, with the throttle's clock
// standing still, get exactly the limit's checks; the rest are refused
// unchecked.
func TestAuthThrottleHoldsUnderParallelRequests(t *testing.T) {
	const n, calls = 100, 2000
	th := httpadapter.NewAuthThrottle(n, time.Minute, clock.NewMock())
	wrong := func(string) (httpadapter.Principal, error) { return httpadapter.Principal{}, httpadapter.ErrUnknownKey }
	if _, _, err := th.Authenticate("10.0.0.1", "first", wrong); !errors.Is(err, httpadapter.ErrUnknownKey) {
		t.Fatalf("first failure: %v", err)
	}
	var checked, refused atomic.Int64
	release := make(chan struct{})
	hold := func(string) (httpadapter.Principal, error) {
		checked.Add(1)
		<-release
		return httpadapter.Principal{}, httpadapter.ErrUnknownKey
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			_, _, err := th.Authenticate("10.0.0.1", "wrong"+strconv.Itoa(i), hold)
			var te *httpadapter.ThrottledError
			if errors.As(err, &te) {
				refused.Add(1)
			}
		})
	}
	// Every call is either being checked or refused before any check ends.
	for checked.Load()+refused.Load() < calls {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if checked.Load() != n-1 || refused.Load() != calls-(n-1) {
		t.Errorf("%d keys checked and %d refused, want %d and %d", checked.Load(), refused.Load(), n-1, calls-(n-1))
	}
}

// A key accepted, or one the authenticator could not check, gives back
// the failure it took: only refused keys count.
func TestAuthThrottleCountsOnlyRefusedKeys(t *testing.T) {
	th := httpadapter.NewAuthThrottle(2, time.Minute, clock.NewMock())
	wrong := func(string) (httpadapter.Principal, error) { return httpadapter.Principal{}, httpadapter.ErrUnknownKey }
	good := func(string) (httpadapter.Principal, error) { return httpadapter.Principal{Account: "a"}, nil }
	down := func(string) (httpadapter.Principal, error) {
		return httpadapter.Principal{}, errors.New("authenticator down")
	}
	th.Authenticate("10.0.0.1", "w1", wrong)
	for i := range 5 {
		if _, _, err := th.Authenticate("10.0.0.1", "k"+strconv.Itoa(i), good); err != nil {
			t.Fatalf("good key %d: %v", i, err)
		}
		if _, _, err := th.Authenticate("10.0.0.1", "x", down); err == nil || errors.As(err, new(*httpadapter.ThrottledError)) {
			t.Fatalf("authenticator down %d: %v", i, err)
		}
	}
	if _, exhausted, err := th.Authenticate("10.0.0.1", "w2", wrong); !errors.Is(err, httpadapter.ErrUnknownKey) || !exhausted {
		t.Fatalf("second failure: %v, exhausted %v", err, exhausted)
	}
	if _, _, err := th.Authenticate("10.0.0.1", "w3", wrong); !errors.As(err, new(*httpadapter.ThrottledError)) {
		t.Fatalf("third failure: %v, want throttled", err)
	}
	if _, _, err := th.Authenticate("10.0.0.1", "k0", good); err != nil {
		t.Fatalf("a key accepted before goes on: %v", err)
	}
	if _, _, err := th.Authenticate("10.0.0.1", "\xff", good); !errors.As(err, new(*httpadapter.ThrottledError)) {
		t.Fatalf("another key from the throttled address: %v", err)
	}
}
