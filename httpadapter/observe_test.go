package httpadapter_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

// observed is one call of ObserveRequest.
type observed struct {
	pattern, method string
	status          int
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	requests []observed
	keys     []string
}

func (r *recorder) ObserveRequest(pattern, method string, status int, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d < 0 {
		status = -1 // a duration before the request's arrival: made visible to the test
	}
	r.requests = append(r.requests, observed{pattern, method, status})
}

func (r *recorder) ObserveIdempotency(replayed bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case replayed:
		r.keys = append(r.keys, "replayed")
	case err != nil:
		r.keys = append(r.keys, lettershop.ErrorCode(err).String())
	default:
		r.keys = append(r.keys, "ran")
	}
}

func (r *recorder) take() ([]observed, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	req, keys := r.requests, r.keys
	r.requests, r.keys = nil, nil
	return req, keys
}

// An Observer of one's own (no Prometheus) is told of every request with
// the pattern of the route that took it, the method as sent and the
// status, and of what each Idempotency-Key did.
func TestObserver(t *testing.T) {
	rec := &recorder{}
	ts := newTestServer(t, withAdapter(httpadapter.WithObserver(rec)))
	assetID, _ := ts.createAsset(t, keyA)
	rec.take()

	l := ts.createLetter(t, keyA, assetID)
	ts.get(t, "/v1/letters/"+l.ID).wantStatus(t, http.StatusOK)
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK)
	ts.get(t, "/no/such/route").wantStatus(t, http.StatusNotFound)
	ts.do(t, req{Method: "BREW", Path: "/letters"}).wantStatus(t, http.StatusMethodNotAllowed)
	ts.do(t, req{Method: "GET", Path: "/healthz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	got, _ := rec.take()
	want := []observed{
		{"POST /letters", "POST", http.StatusCreated},
		{"GET /v1/letters/{id}", "GET", http.StatusOK},
		{"GET /letters/{id}", "GET", http.StatusOK},
		{"", "GET", http.StatusNotFound},
		{"", "BREW", http.StatusMethodNotAllowed},
		{"GET /healthz", "GET", http.StatusOK},
	}
	if !slices.Equal(got, want) {
		t.Errorf("observed\n%v\nwant\n%v", got, want)
	}

	key := hdr("Idempotency-Key", "observe-1")
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: key}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/letters", Body: letterBody(assetID), Header: key}).wantStatus(t, http.StatusCreated)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: map[string]any{"name": "x"}, Header: key}).wantStatus(t, http.StatusUnprocessableEntity)
	_, keys := rec.take()
	if want := []string{"ran", "replayed", lettershop.CodeIdempotencyMismatch.String()}; !slices.Equal(keys, want) {
		t.Errorf("idempotency observed %v, want %v", keys, want)
	}

	// No metrics are served unless asked for.
	ts.do(t, req{Method: "GET", Path: "/metrics", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusNotFound)
}

// WithMetricsHandler serves its handler without an API key and outside
// the rate limit, with or without an observer.
func TestMetricsHandler(t *testing.T) {
	scrapes := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		scrapes++
		_, _ = w.Write([]byte("# nothing\n"))
	})
	ts := newTestServer(t, unchecked(), withAdapter(httpadapter.WithRateLimit(1, time.Hour), httpadapter.WithMetricsHandler("/metrics", h)))
	for range 3 {
		ts.do(t, req{Method: "GET", Path: "/metrics", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	}
	if scrapes != 3 {
		t.Errorf("%d scrapes served, want 3", scrapes)
	}
}
