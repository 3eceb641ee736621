package httpadapter

import (
	"net/http"
	"time"
)

// Observer is told of every request the handler answers, and of what an
// Idempotency-Key did to one, to measure them: package prom records them
// as Prometheus metrics. Its methods run on the request's goroutine, so
// they must be quick and safe for concurrent use. The handler keeps no
// metrics of its own, so that a binary without an Observer carries no
// metrics library.
type Observer interface {
	// ObserveRequest records one answered request. pattern is the pattern
	// of the route that took it, as registered ("GET /v1/letters/{id}",
	// "GET /healthz"), or "" when none did (a 404 or 405); method is the
	// request's, as sent; status is the answer's (200 when the handler
	// wrote none, 0 never); d runs from the request's arrival to the end
	// of its answer.
	ObserveRequest(pattern, method string, status int, d time.Duration)
	// ObserveIdempotency records what a create or change's Idempotency-Key
	// did to it: replayed when a stored outcome answered it; otherwise err
	// is what the request failed with, nil for none, a
	// lettershop.CodeIdempotencyMismatch or CodeInFlight error when the key
	// refused it.
	ObserveIdempotency(replayed bool, err error)
}

// WithObserver tells o of every request the handler answers. For the
// letter, render and store metrics, give the Service hooks too
// (lettershop.WithHooks; prom.Metrics has both).
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// WithMetricsHandler serves h at path (GET path, "/metrics" say), without
// an API key and outside the rate limit: where a scraper reads the
// observer's metrics. Without it the handler serves no metrics, and the
// embedder serves them where it likes (another port, behind its own
// authentication).
func WithMetricsHandler(path string, h http.Handler) Option {
	return func(c *config) { c.metricsPath, c.metricsHandler = path, h }
}

// observedWriter learns the status of an answer and, from the handler,
// the pattern of the route that answered.
type observedWriter struct {
	http.ResponseWriter
	status  int
	pattern string
}

func (w *observedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *observedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// notePattern tells the observer, if any, which route pattern serves r.
func notePattern(w http.ResponseWriter, pattern string) {
	if ow, ok := w.(*observedWriter); ok {
		ow.pattern = pattern
	}
}

// serveObserved serves r through h, telling the observer of it.
func (h *handler) serveObserved(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ow := &observedWriter{ResponseWriter: w}
	defer func() {
		status := ow.status
		if status == 0 {
			status = http.StatusOK
		}
		h.cfg.observer.ObserveRequest(ow.pattern, r.Method, status, time.Since(start))
	}()
	h.serve(ow, r)
}

// observeIdempotency tells the observer, if any, what a key did.
func (h *handler) observeIdempotency(replayed bool, err error) {
	if h.cfg.observer != nil {
		h.cfg.observer.ObserveIdempotency(replayed, err)
	}
}
