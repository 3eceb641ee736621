// Package prom records a lettershop server in Prometheus metrics: the
// Service's hooks (letters, renders, store errors, webhook attempts) and
// the requests httpadapter answers, through its Observer. It is a package
// of its own so that the Prometheus client is in no binary that does not
// ask for it: not in a test binary of lettershoptest's, nor in an embedder's
// that has metrics of its own. docs/operations.md lists every metric with
// its labels.
package prom

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// Metrics are the Prometheus metrics of one handler and its Service, in a
// registry of their own: several handlers in one process (or one test
// binary) never collide, and nothing is put in the global default
// registry.
//
// Wire a Metrics to both layers:
//
//	m := prom.New()
//	svc := lettershop.New(store, lettershop.WithHooks(m.Hooks()))
//	h := httpadapter.New(svc, httpadapter.WithObserver(m), httpadapter.WithMetricsHandler("/metrics", m.Handler()))
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	lettersCreated  *prometheus.CounterVec
	letterStatus    *prometheus.CounterVec
	replays         prometheus.Counter
	idemConflicts   *prometheus.CounterVec
	rateLimited     prometheus.Counter
	renderSeconds   *prometheus.HistogramVec
	renderCache     *prometheus.CounterVec
	storeErrors     *prometheus.CounterVec
	webhookAttempts *prometheus.HistogramVec

	// series holds the request counter and duration histogram of each
	// route, method and status class seen (a seriesKey): looking them up
	// by their label values cost every request a hash of three strings and
	// a path built for the label.
	series sync.Map
}

// seriesKey names a request series: the mux pattern that answered, the
// method as labelled, and the status class. Patterns come from the routes
// and methods and classes are bounded, so the keys are few.
type seriesKey struct {
	pattern, method, class string
}

type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// Label values bounded by the code, so a client cannot grow the series.
const (
	routeUnmatched = "unmatched" // a request no route takes (404, 405)
	methodOther    = "other"     // a method no route serves
)

// Metrics is an httpadapter.Observer.
var _ httpadapter.Observer = (*Metrics)(nil)

// New returns metrics in a new registry, which also holds the Go runtime
// and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_http_requests_total",
		Help: "HTTP requests answered, by route pattern, method and status class (2xx, 4xx, ...).",
	}, []string{"route", "method", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "lettershop_http_request_duration_seconds",
		Help:    "Time from a request's arrival to the end of its answer, by route pattern and method.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method"})
	m.lettersCreated = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_letters_created_total",
		Help: "Letters created, by the status they start in (queued, or issue when the recipient cannot be mailed).",
	}, []string{"status"})
	m.letterStatus = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_letter_status_changes_total",
		Help: "Letters written in a new status (created, moved by the lifecycle, canceled, simulated), by that status.",
	}, []string{"status"})
	m.replays = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "lettershop_idempotent_replays_total",
		Help: "Requests answered from a stored outcome under their Idempotency-Key.",
	})
	m.idemConflicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_idempotency_conflicts_total",
		Help: "Requests refused for their Idempotency-Key: reused for another request (mismatch, 422) or still running (in_flight, 409).",
	}, []string{"reason"})
	m.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "lettershop_rate_limited_requests_total",
		Help: "Requests refused with 429 because their API key's rate limit was used up.",
	})
	m.renderSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "lettershop_render_duration_seconds",
		Help:    "Time to produce a letter's PDF for a download, by whether it came from the render cache.",
		Buckets: []float64{.0001, .0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"cache"})
	m.renderCache = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_render_cache_requests_total",
		Help: "Renders asked of the render cache, by result (hit, miss).",
	}, []string{"result"})
	m.webhookAttempts = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "lettershop_webhook_attempt_duration_seconds",
		Help:    "Attempts to post a webhook event, by outcome (succeeded, retry, failed), and how long each took.",
		Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 2.5, 5, 10, 30},
	}, []string{"outcome"})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lettershop_store_errors_total",
		Help: "Store calls that failed other than as their contract allows (not found, conflict, ...), by store method.",
	}, []string{"op"})
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.lettersCreated, m.letterStatus, m.replays,
		m.idemConflicts, m.rateLimited, m.renderSeconds, m.renderCache, m.storeErrors, m.webhookAttempts} {
		f(c)
	}
	// Series that exist from the start read 0 rather than missing, so a
	// rate() over them works from the first scrape.
	for _, st := range []lettershop.LetterStatus{lettershop.StatusQueued, lettershop.StatusIssue} {
		m.lettersCreated.WithLabelValues(string(st))
	}
	for _, r := range []string{"mismatch", "in_flight"} {
		m.idemConflicts.WithLabelValues(r)
	}
	for _, r := range []string{"hit", "miss"} {
		m.renderCache.WithLabelValues(r)
	}
	for _, o := range []string{"succeeded", "retry", "failed"} {
		m.webhookAttempts.WithLabelValues(o)
	}
	return m
}

// Registry returns the registry the metrics are in, to add collectors of
// one's own or to gather them.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format (or another the
// scraper asks for).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Hooks returns the Service hooks that feed the letter, render and store
// metrics: pass them to lettershop.New with lettershop.WithHooks.
func (m *Metrics) Hooks() lettershop.Hooks {
	return lettershop.Hooks{
		LetterCreated: func(st lettershop.LetterStatus) { m.lettersCreated.WithLabelValues(string(st)).Inc() },
		LetterStatus:  func(st lettershop.LetterStatus) { m.letterStatus.WithLabelValues(string(st)).Inc() },
		Render: func(d time.Duration, cached bool) {
			result := "miss"
			if cached {
				result = "hit"
			}
			m.renderCache.WithLabelValues(result).Inc()
			m.renderSeconds.WithLabelValues(result).Observe(d.Seconds())
		},
		StoreError: func(op string) { m.storeErrors.WithLabelValues(op).Inc() },
		WebhookAttempt: func(outcome string, d time.Duration) {
			m.webhookAttempts.WithLabelValues(outcome).Observe(d.Seconds())
		},
	}
}

// ObserveRequest implements httpadapter.Observer: it counts the request
// and its duration under its route, method and status class. The series of
// a route, method and class are looked up once, then kept: a request costs
// a map read, not a hash of its label values.
func (m *Metrics) ObserveRequest(pattern, method string, status int, d time.Duration) {
	k := seriesKey{pattern, labelMethod(method), statusClass(status)}
	v, ok := m.series.Load(k)
	if !ok {
		route, method := routeLabel(k.pattern, k.method)
		v, _ = m.series.LoadOrStore(k, requestSeries{
			requests: m.requests.WithLabelValues(route, method, k.class),
			duration: m.duration.WithLabelValues(route, method),
		})
	}
	rs := v.(requestSeries)
	rs.requests.Inc()
	rs.duration.Observe(d.Seconds())
	if status == http.StatusTooManyRequests {
		m.rateLimited.Inc()
	}
}

// ObserveIdempotency implements httpadapter.Observer: a replay, or a key
// refused as reused for another request (mismatch) or still running
// (in_flight).
func (m *Metrics) ObserveIdempotency(replayed bool, err error) {
	switch {
	case replayed:
		m.replays.Inc()
	case lettershop.ErrorCode(err) == lettershop.CodeIdempotencyMismatch:
		m.idemConflicts.WithLabelValues("mismatch").Inc()
	case lettershop.ErrorCode(err) == lettershop.CodeInFlight:
		m.idemConflicts.WithLabelValues("in_flight").Inc()
	}
}

// routeLabel turns a mux pattern ("GET /v1/letters/{id}") and the request's
// method into the route and method labels ("/letters/{id}", "GET"): the
// same route under /v1 and bare is one series, no raw path or id ever
// becomes a label, and a method no route serves is "other".
func routeLabel(pattern, method string) (string, string) {
	method = labelMethod(method)
	if pattern == "" {
		return routeUnmatched, method
	}
	path := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	if p, ok := strings.CutPrefix(path, "/v1/"); ok {
		path = "/" + p
	}
	return path, method
}

// labelMethod is method as a label: itself, or "other" for a method no
// route serves.
func labelMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodPatch, http.MethodOptions:
		return method
	}
	return methodOther
}

var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(code int) string {
	if i := code/100 - 1; i >= 0 && i < len(statusClasses) {
		return statusClasses[i]
	}
	return strconv.Itoa(code)
}
