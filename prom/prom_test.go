package prom_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/prom"
)

// What the observer and the hooks are told is what a scrape reads, under
// the route's pattern, and nowhere else: two Metrics never share a series.
func TestObservedIsScraped(t *testing.T) {
	m, other := prom.New(), prom.New()
	m.ObserveRequest("GET /v1/letters/{id}", "GET", 200, 3*time.Millisecond)
	m.ObserveRequest("GET /letters/{id}", "GET", 200, time.Millisecond)
	m.ObserveRequest("POST /letters", "POST", 429, time.Millisecond)
	m.ObserveIdempotency(true, nil)
	m.ObserveIdempotency(false, &lettershop.Error{Code: lettershop.CodeInFlight})
	m.ObserveIdempotency(false, &lettershop.Error{Code: lettershop.CodeNotFound})
	m.Hooks().LetterCreated(lettershop.StatusQueued)
	m.Hooks().StoreError("GetLetter")

	got := scrape(t, m)
	for _, line := range []string{
		`lettershop_http_requests_total{code="2xx",method="GET",route="/letters/{id}"} 2`,
		`lettershop_http_requests_total{code="4xx",method="POST",route="/letters"} 1`,
		`lettershop_http_request_duration_seconds_count{method="GET",route="/letters/{id}"} 2`,
		`lettershop_rate_limited_requests_total 1`,
		`lettershop_idempotent_replays_total 1`,
		`lettershop_idempotency_conflicts_total{reason="in_flight"} 1`,
		`lettershop_idempotency_conflicts_total{reason="mismatch"} 0`,
		`lettershop_letters_created_total{status="queued"} 1`,
		`lettershop_letters_created_total{status="issue"} 0`,
		`lettershop_store_errors_total{op="GetLetter"} 1`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("scrape lacks %s", line)
		}
	}
	if s := scrape(t, other); strings.Contains(s, "lettershop_http_requests_total{") || !strings.Contains(s, "lettershop_idempotent_replays_total 0\n") {
		t.Errorf("another Metrics saw the requests:\n%s", s)
	}
}

func scrape(t *testing.T, m *prom.Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	b, err := io.ReadAll(w.Result().Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
