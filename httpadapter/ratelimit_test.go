package httpadapter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/httpadapter"
)

// rateHeaders are a response's rate-limit headers; mismatch says how the
// X-Rate-Limit-* headers differ from the P-RateLimit-* ones, which must
// come together with the same values.
type rateHeaders struct{ limit, remaining, reset, retryAfter, mismatch string }

func rateOf(r result) rateHeaders {
	h := rateHeaders{
		limit: r.Header.Get("P-RateLimit-Limit"), remaining: r.Header.Get("P-RateLimit-Remaining"),
		reset: r.Header.Get("P-RateLimit-Reset"), retryAfter: r.Header.Get("Retry-After"),
	}
	x := [3]string{r.Header.Get("X-Rate-Limit-Limit"), r.Header.Get("X-Rate-Limit-Remaining"), r.Header.Get("X-Rate-Limit-Reset")}
	if p := [3]string{h.limit, h.remaining, h.reset}; x != p {
		h.mismatch = fmt.Sprintf("X-Rate-Limit-* %q, P-RateLimit-* %q", x, p)
	}
	return h
}

func TestRateLimit(t *testing.T) {
	// 3 requests per 3 seconds: a token a second, bursts of 3.
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(3, 3*time.Second)))
	at := func(d time.Duration) string { return testStart.Add(d).Format(time.RFC3339) }

	// The burst: exactly 3 requests pass, whatever they answer.
	steps := []struct {
		path   string
		status int
		want   rateHeaders
	}{
		{"/letters", http.StatusOK, rateHeaders{"3", "2", at(1 * time.Second), "", ""}},
		{"/letters/ltr_no-pe", http.StatusBadRequest, rateHeaders{"3", "1", at(2 * time.Second), "", ""}},
		{"/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz", http.StatusNotFound, rateHeaders{"3", "0", at(3 * time.Second), "", ""}},
		{"/letters", http.StatusTooManyRequests, rateHeaders{"3", "0", at(3 * time.Second), "1", ""}},
	}
	for i, s := range steps {
		res := ts.get(t, s.path)
		if res.Status != s.status {
			t.Fatalf("request %d: status %d, want %d: %s", i+1, res.Status, s.status, res.Body)
		}
		if got := rateOf(res); got != s.want {
			t.Errorf("request %d: headers %+v, want %+v", i+1, got, s.want)
		}
	}
	p := ts.get(t, "/letters").problem(t, http.StatusTooManyRequests)
	if p.Code != "rate-limited" {
		t.Errorf("code %q", p.Code)
	}

	// Another key has its own bucket.
	if got := rateOf(ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", keyB)}).wantStatus(t, http.StatusOK)); got.remaining != "2" {
		t.Errorf("key B remaining %q, want 2", got.remaining)
	}

	// Just short of a second, no token yet; at the second, one.
	ts.Clock.Add(time.Second - time.Millisecond)
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
	ts.Clock.Add(time.Millisecond)
	if got := rateOf(ts.get(t, "/letters").wantStatus(t, http.StatusOK)); got.remaining != "0" || got.reset != at(4*time.Second) {
		t.Errorf("after a second: %+v", got)
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)

	// After the whole window the bucket is full again, and no fuller.
	ts.Clock.Add(time.Hour)
	for want := 2; want >= 0; want-- {
		if got := rateOf(ts.get(t, "/letters").wantStatus(t, http.StatusOK)); got.remaining != strconv.Itoa(want) {
			t.Errorf("after an hour: remaining %q, want %d", got.remaining, want)
		}
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
}

// The headers go on every response to a request with a valid key: errors,
// writes, replays.
func TestRateLimitHeadersEverywhere(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, r := range []req{
		{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "k1")},
		{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: hdr("Idempotency-Key", "k1")},
		{Method: "POST", Path: "/letters", Body: `{`},
		{Method: "GET", Path: "/letters", Header: hdr("X-Api-Version", "1")},
		{Method: "GET", Path: "/_test/clock"},
	} {
		res := ts.do(t, r)
		if h := rateOf(res); h.limit != "150" || h.remaining == "" || h.reset == "" {
			t.Errorf("%s %s (%d): rate headers %+v", r.Method, r.Path, res.Status, h)
		}
	}
}

func TestRateLimitOff(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(0, time.Second)))
	for range 200 {
		res := ts.get(t, "/letters").wantStatus(t, http.StatusOK)
		if h := rateOf(res); h != (rateHeaders{}) {
			t.Fatalf("rate headers %+v with limiting off", h)
		}
	}
}

// The default is the real service's: 150 per 5 seconds.
func TestRateLimitDefault(t *testing.T) {
	ts := newTestServer(t)
	for i := range 150 {
		res := ts.get(t, "/assets").wantStatus(t, http.StatusOK)
		if got, want := res.Header.Get("X-Rate-Limit-Remaining"), strconv.Itoa(149-i); got != want {
			t.Fatalf("request %d: remaining %s, want %s", i+1, got, want)
		}
		if h := rateOf(res); h.mismatch != "" {
			t.Fatalf("request %d: %s", i+1, h.mismatch)
		}
	}
	res := ts.get(t, "/assets")
	res.problem(t, http.StatusTooManyRequests)
	if got := rateOf(res); got.reset != testStart.Add(5*time.Second).Format(time.RFC3339) || got.retryAfter != "1" {
		t.Errorf("429 headers %+v", got)
	}
}

// The headers are written as the real service spells them, not in Go's
// canonical form (P-Ratelimit-Limit), for clients that match by case; and
// a handler adding to one of them leaves the others as they are.
func TestRateLimitHeaderSpelling(t *testing.T) {
	ts := newTestServer(t)
	h := httpadapter.New(ts.Svc)
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/letters", nil)
	r.Header.Set("X-Api-Key", keyA)
	h.ServeHTTP(rec, r)
	for _, name := range []string{"P-RateLimit-Limit", "P-RateLimit-Remaining", "P-RateLimit-Reset", "X-Rate-Limit-Limit", "X-Rate-Limit-Remaining", "X-Rate-Limit-Reset"} {
		if _, ok := rec.Header()[name]; !ok {
			t.Errorf("no %s header among %v", name, rec.Header())
		}
	}
	hd := rec.Header()
	limit := hd.Get("X-Rate-Limit-Limit")
	hd.Add("X-Rate-Limit-Limit", "more")
	//lint:ignore SA1008 the header is kept under the real service's spelling, not the canonical key
	p := hd["P-RateLimit-Limit"]
	if hd.Get("X-Rate-Limit-Remaining") == "more" || len(p) != 1 || p[0] != limit {
		t.Errorf("an Add to one header changed another: %v", hd)
	}
}

// A server on a stopped test clock measures rates on another clock.
func TestRateLimitClock(t *testing.T) {
	wall := clock.NewMock()
	wall.Set(testStart.Add(time.Hour))
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(1, time.Second), httpadapter.WithRateLimitClock(wall)))
	if got := rateOf(ts.get(t, "/letters").wantStatus(t, http.StatusOK)); got.reset != wall.Now().Add(time.Second).Format(time.RFC3339) {
		t.Errorf("reset %q, want a second after the rate clock's now", got.reset)
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
	ts.Clock.Add(time.Hour) // the service clock does not refill the bucket
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
	wall.Add(time.Second)
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
}
