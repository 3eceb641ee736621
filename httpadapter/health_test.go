package httpadapter_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/prom"
	"github.com/lettershop/lettershop/storage"
)

// pingStore is a memstore whose Ping fails on demand, and which records
// whether the ping it got had a deadline.
type pingStore struct {
	*memstore.Store
	err         error
	hadDeadline bool
}

func (s *pingStore) Ping(ctx context.Context) error {
	deadline, ok := ctx.Deadline()
	s.hadDeadline = ok && !deadline.After(time.Now().Add(httpadapter.ReadyTimeout))
	return s.err
}

var _ storage.Pinger = (*pingStore)(nil)

func TestHealth(t *testing.T) {
	// A rate limit of one request: health checks must not use it up, and
	// take no API key.
	ts := newTestServer(t, withAdapter(httpadapter.WithRateLimit(1, time.Hour)))
	for range 3 {
		for _, path := range []string{"/healthz", "/readyz"} {
			res := ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
			if strings.TrimSpace(string(res.Body)) != `{"status":"ok"}` || res.Header.Get("P-RateLimit-Limit") != "" {
				t.Errorf("%s: %s, rate headers %q", path, res.Body, res.Header.Get("P-RateLimit-Limit"))
			}
		}
	}
	ts.get(t, "/letters").wantStatus(t, http.StatusOK)
	// They are not API routes: not under /v1, and only GET (and HEAD).
	ts.do(t, req{Method: "GET", Path: "/v1/healthz", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusNotFound)
	ts.do(t, req{Method: "POST", Path: "/readyz", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusMethodNotAllowed)
	ts.do(t, req{Method: "HEAD", Path: "/healthz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
}

func TestReadyFollowsTheStore(t *testing.T) {
	st := &pingStore{Store: memstore.New()}
	svc := lettershop.New(st)
	defer svc.Close()
	ts := newTestServerFor(t, svc)

	ts.do(t, req{Method: "GET", Path: "/readyz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if !st.hadDeadline {
		t.Error("the store's ping had no deadline within ReadyTimeout")
	}

	st.err = errors.New("dial tcp 10.0.0.7:5432: connection refused")
	res := ts.do(t, req{Method: "GET", Path: "/readyz", Header: hdr("X-Api-Key", "")})
	if p := res.problem(t, http.StatusServiceUnavailable); p.Code != "not-ready" || strings.Contains(p.Detail, "10.0.0.7") {
		t.Errorf("problem %+v: want code not-ready, without the cause", p)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	if got := res.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1, as every 503 of the server's says when to try again", got)
	}
	// The cause is logged, not shown to whoever asks.
	if !strings.Contains(ts.logs.String(), "connection refused") {
		t.Errorf("log lacks the cause:\n%s", ts.logs)
	}
	// The process is up all the same.
	ts.do(t, req{Method: "GET", Path: "/healthz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)

	st.err = nil
	ts.do(t, req{Method: "GET", Path: "/readyz", Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
}

func TestServicePing(t *testing.T) {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	if err := svc.Ping(ctx); err != nil {
		t.Errorf("memstore ping: %v", err)
	}
	st := &pingStore{Store: memstore.New(), err: errors.New("down")}
	svc2 := lettershop.New(st, lettershop.WithHooks(prom.New().Hooks()))
	defer svc2.Close()
	if err := svc2.Ping(ctx); !errors.Is(err, lettershop.ErrNotReady) {
		t.Errorf("failing ping: %v, want ErrNotReady", err)
	}
}
