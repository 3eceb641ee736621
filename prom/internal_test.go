package prom

import (
	"testing"
	"time"
)

// BenchmarkObserve records a request in the metrics as served, and by
// looking the series up by their label values, as before, in one run.
func BenchmarkObserve(b *testing.B) {
	m := New()
	const pattern = "GET /v1/letters/{id}"
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.ObserveRequest(pattern, "GET", 200, time.Millisecond)
		}
	})
	b.Run("labels", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			route, method := routeLabel(pattern, "GET")
			m.requests.WithLabelValues(route, method, statusClass(200)).Inc()
			m.duration.WithLabelValues(route, method).Observe(time.Millisecond.Seconds())
		}
	})
}

// Labels are bounded by the code: the pattern's path without /v1 and
// without its method, a method no route serves as "other", a status as
// its class.
func TestLabels(t *testing.T) {
	for _, c := range []struct {
		pattern, method   string
		route, wantMethod string
	}{
		{"GET /v1/letters/{id}", "GET", "/letters/{id}", "GET"},
		{"GET /letters/{id}", "GET", "/letters/{id}", "GET"},
		{"POST /v1/letters/{id}/cancel", "POST", "/letters/{id}/cancel", "POST"},
		{"GET /healthz", "HEAD", "/healthz", "HEAD"},
		{"/metrics", "GET", "/metrics", "GET"},
		{"", "GET", routeUnmatched, "GET"},
		{"", "BREW", routeUnmatched, methodOther},
		{"GET /v1", "get", "/v1", methodOther},
	} {
		route, method := routeLabel(c.pattern, c.method)
		if route != c.route || method != c.wantMethod {
			t.Errorf("routeLabel(%q, %q) = %q, %q; want %q, %q", c.pattern, c.method, route, method, c.route, c.wantMethod)
		}
	}
	for code, want := range map[int]string{100: "1xx", 199: "1xx", 200: "2xx", 299: "2xx", 301: "3xx", 404: "4xx", 500: "5xx", 599: "5xx", 99: "99", 600: "600", 0: "0"} {
		if got := statusClass(code); got != want {
			t.Errorf("statusClass(%d) = %q, want %q", code, got, want)
		}
	}
}
