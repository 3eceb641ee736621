package httpadapter

import (
	"context"
	"net/http"
	"time"
)

// Health routes. They take no API key, are not rate limited and are served
// only bare (not under /v1): they describe the server, not the API.
const (
	// HealthPath answers 200 while the process serves requests.
	HealthPath = "/healthz"
	// ReadyPath answers 200 when the store answers a ping within
	// ReadyTimeout, else a 503 problem with code not-ready and Retry-After.
	ReadyPath = "/readyz"
)

// ReadyTimeout bounds the store ping of a readiness check, so a database
// that hangs makes the check fail rather than pile up.
const ReadyTimeout = 2 * time.Second

// healthState is the body of the health routes.
type healthState struct {
	Status string `json:"status"`
}

func (h *handler) healthRoutes() {
	h.mux.HandleFunc("GET "+HealthPath, h.healthz)
	h.mux.HandleFunc("GET "+ReadyPath, h.readyz)
	if h.cfg.metricsHandler != nil && h.cfg.metricsPath != "" {
		h.mux.Handle("GET "+h.cfg.metricsPath, h.cfg.metricsHandler)
	}
}

func (h *handler) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, healthState{Status: "ok"})
}

// readyz pings the store. Why it failed goes to the log, not to the
// caller: the answer is public, and a driver's error may name hosts.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
	defer cancel()
	if err := h.svc.Ping(ctx); err != nil {
		h.cfg.logger.Warn("readiness check failed", "request_id", requestID(r.Context()), "err", err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, problem{Code: "not-ready", Title: "Service unavailable", Status: http.StatusServiceUnavailable,
			Detail: "the store did not answer its ping within " + ReadyTimeout.String() + "; the server's log has the cause under request id " + requestID(r.Context())})
		return
	}
	writeJSON(w, http.StatusOK, healthState{Status: "ok"})
}
