package httpadapter_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/prom"
	"github.com/lettershop/lettershop/storage"
)

// scrape reads /metrics and parses it with the Prometheus text parser.
func (ts *testServer) scrape(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	res := ts.do(t, req{Method: "GET", Path: "/metrics", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("metrics Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(res.Body)))
	if err != nil {
		t.Fatalf("parse metrics: %v\n%s", err, res.Body)
	}
	return fams
}

// value is the value of the series of family name with exactly these
// labels (a counter's count, a histogram's sample count); -1 when there
// is no such series.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
series:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		for _, l := range m.GetLabel() {
			if want[l.GetName()] != l.GetValue() {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

// servedAt are the options that record requests in m and serve m at
// path.
func servedAt(m *prom.Metrics, path string) []httpadapter.Option {
	return []httpadapter.Option{httpadapter.WithObserver(m), httpadapter.WithMetricsHandler(path, m.Handler())}
}

func newMetricsServer(t testing.TB, opts ...testOption) (*testServer, *prom.Metrics) {
	m := prom.New()
	ts := newTestServer(t, append([]testOption{
		withService(lettershop.WithHooks(m.Hooks())),
		withAdapter(servedAt(m, "/metrics")...),
	}, opts...)...)
	return ts, m
}

func TestMetricsAfterTraffic(t *testing.T) {
	ts, _ := newMetricsServer(t, withAdapter(httpadapter.WithRateLimit(100, time.Hour)))
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	ts.get(t, "/v1/letters/"+l.ID).wantStatus(t, http.StatusOK)
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK)
	ts.get(t, "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz").wantStatus(t, http.StatusNotFound)
	ts.get(t, "/no/such/route/ltr_123").wantStatus(t, http.StatusNotFound)
	ts.do(t, req{Method: "BREW", Path: "/letters"}).wantStatus(t, http.StatusMethodNotAllowed)

	// Idempotency: a first request, its replay, a reuse for something else.
	key := hdr("Idempotency-Key", "metrics-1")
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: key}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: key}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "x"}, Header: key}).wantStatus(t, http.StatusUnprocessableEntity)

	// A cancel moves a letter to canceled; the clock moves another through
	// the lifecycle.
	ts.do(t, req{Method: "POST", Path: "/letters/" + l.ID + "/cancel"}).wantStatus(t, http.StatusAccepted)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: map[string]any{"duration": "2h"}}).wantStatus(t, http.StatusOK)

	// Two downloads of one letter: one render, then the cache.
	other := ts.createLetter(t, keyA, assetID)
	for range 2 {
		ts.do(t, req{Method: "GET", Path: downloadLink(t, ts, other.ID), Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	}

	fams := ts.scrape(t)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"lettershop_http_requests_total", []string{"route", "/letters/{id}", "method", "GET", "code", "2xx"}, 2},
		{"lettershop_http_requests_total", []string{"route", "/letters/{id}", "method", "GET", "code", "4xx"}, 1},
		{"lettershop_http_requests_total", []string{"route", "/letters", "method", "POST", "code", "2xx"}, 4},
		{"lettershop_http_requests_total", []string{"route", "unmatched", "method", "GET", "code", "4xx"}, 1},
		{"lettershop_http_requests_total", []string{"route", "unmatched", "method", "other", "code", "4xx"}, 1},
		{"lettershop_http_requests_total", []string{"route", "/files/letters/{file}", "method", "GET", "code", "2xx"}, 2},
		{"lettershop_http_requests_total", []string{"route", "/_test/clock/advance", "method", "POST", "code", "2xx"}, 1},
		{"lettershop_http_request_duration_seconds", []string{"route", "/letters/{id}", "method", "GET"}, 3},
		// Three letters made; the replay made none.
		{"lettershop_letters_created_total", []string{"status", "queued"}, 3},
		{"lettershop_letters_created_total", []string{"status", "issue"}, 0},
		{"lettershop_letter_status_changes_total", []string{"status", "queued"}, 3},
		{"lettershop_letter_status_changes_total", []string{"status", "canceled"}, 1},
		{"lettershop_letter_status_changes_total", []string{"status", "ready"}, 1},
		{"lettershop_idempotent_replays_total", nil, 1},
		{"lettershop_idempotency_conflicts_total", []string{"reason", "mismatch"}, 1},
		{"lettershop_idempotency_conflicts_total", []string{"reason", "in_flight"}, 0},
		{"lettershop_rate_limited_requests_total", nil, 0},
		{"lettershop_render_cache_requests_total", []string{"result", "miss"}, 1},
		{"lettershop_render_cache_requests_total", []string{"result", "hit"}, 1},
		{"lettershop_render_duration_seconds", []string{"cache", "miss"}, 1},
		{"lettershop_render_duration_seconds", []string{"cache", "hit"}, 1},
	} {
		if got := value(fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// No label holds a raw path or an id.
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), "ltr_") || strings.Contains(l.GetValue(), "/no/such") || strings.HasPrefix(l.GetValue(), "/v1") {
					t.Errorf("%s has label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
	if value(fams, "go_goroutines") < 0 || value(fams, "process_start_time_seconds") < 0 {
		t.Error("the Go and process collectors are missing")
	}
}

// downloadLink asks for a letter's download link and returns its path and
// query, to fetch from the test server.
func downloadLink(t testing.TB, ts *testServer, id string) string {
	t.Helper()
	client := *ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hr, _ := http.NewRequest("GET", ts.URL+"/letters/"+id+"/download", nil)
	hr.Header.Set("X-Api-Key", keyA)
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	link, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("download: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return link.RequestURI()
}

func TestMetricsRateLimited(t *testing.T) {
	ts, _ := newMetricsServer(t, withAdapter(httpadapter.WithRateLimit(1, time.Hour)))
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
	ts.get(t, "/letters").wantStatus(t, http.StatusTooManyRequests)
	// Scraping is not rate limited either.
	ts.scrape(t)
	fams := ts.scrape(t)
	if got := value(fams, "lettershop_rate_limited_requests_total"); got != 2 {
		t.Errorf("rate limited = %v, want 2", got)
	}
	if got := value(fams, "lettershop_http_requests_total", "route", "/metrics", "method", "GET", "code", "2xx"); got != 1 {
		t.Errorf("scrapes counted %v, want 1 (the first)", got)
	}
}

// failingStore fails GetLetter the way a broken database does.
type failingStore struct{ *memstore.Store }

func (failingStore) GetLetter(context.Context, string, string) (storage.Letter, error) {
	return storage.Letter{}, errors.New("connection reset by peer")
}

func TestMetricsStoreErrors(t *testing.T) {
	m := prom.New()
	svc := lettershop.New(failingStore{memstore.New()}, lettershop.WithHooks(m.Hooks()))
	defer svc.Close()
	ts := newTestServerFor(t, svc, servedAt(m, "/metrics")...)
	ts.get(t, "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz").problem(t, http.StatusInternalServerError)
	fams := ts.scrape(t)
	if got := value(fams, "lettershop_store_errors_total", "op", "GetLetter"); got != 1 {
		t.Errorf("store errors = %v, want 1", got)
	}
	if got := value(fams, "lettershop_http_requests_total", "route", "/letters/{id}", "method", "GET", "code", "5xx"); got != 1 {
		t.Errorf("5xx = %v, want 1", got)
	}
}

func TestMetricsElsewhere(t *testing.T) {
	// Recorded but not served on the API: the embedder serves m.Handler().
	m := prom.New()
	ts := newTestServer(t, withAdapter(httpadapter.WithObserver(m)))
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "GET", Path: "/metrics", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusNotFound)
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fams {
		if f.GetName() == "lettershop_http_requests_total" {
			found = true
		}
	}
	if !found {
		t.Error("requests were not recorded")
	}
	// Without WithMetricsHandler there is no /metrics at all.
	plain := newTestServer(t)
	plain.do(t, req{Method: "GET", Path: "/metrics", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusNotFound)
}

func TestMetricsTwoHandlersOneProcess(t *testing.T) {
	a, _ := newMetricsServer(t)
	b, _ := newMetricsServer(t)
	a.get(t, "/letters").wantStatus(t, http.StatusOK)
	a.get(t, "/letters").wantStatus(t, http.StatusOK)
	b.get(t, "/letters").wantStatus(t, http.StatusOK)
	if got := value(a.scrape(t), "lettershop_http_requests_total", "route", "/letters", "method", "GET", "code", "2xx"); got != 2 {
		t.Errorf("server a counted %v, want 2", got)
	}
	if got := value(b.scrape(t), "lettershop_http_requests_total", "route", "/letters", "method", "GET", "code", "2xx"); got != 1 {
		t.Errorf("server b counted %v, want 1", got)
	}
}

func TestMetricsHeadIsItsOwnMethod(t *testing.T) {
	ts, _ := newMetricsServer(t)
	ts.do(t, req{Method: "HEAD", Path: "/healthz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if got := value(ts.scrape(t), "lettershop_http_requests_total", "route", "/healthz", "method", "HEAD", "code", "2xx"); got != 1 {
		t.Errorf("HEAD /healthz counted %v, want 1", got)
	}
}

// unreachableStore fails GetLetter as a database that cannot be reached
// does.
type unreachableStore struct{ *memstore.Store }

func (unreachableStore) GetLetter(context.Context, string, string) (storage.Letter, error) {
	return storage.Letter{}, fmt.Errorf("pgstore: get letter: %w: dial tcp: connection refused", storage.ErrUnavailable)
}

// A store that cannot be reached is answered 503 with Retry-After: the
// client retries later, and no 500 says the server is broken.
func TestStoreUnavailableIs503(t *testing.T) {
	svc := lettershop.New(unreachableStore{memstore.New()})
	defer svc.Close()
	ts := newTestServerFor(t, svc)
	r := ts.get(t, "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz")
	p := r.problem(t, http.StatusServiceUnavailable)
	if p.Code != "unavailable" || r.Header.Get("Retry-After") != "1" {
		t.Errorf("problem %+v, Retry-After %q; want code unavailable, Retry-After 1", p, r.Header.Get("Retry-After"))
	}
}
