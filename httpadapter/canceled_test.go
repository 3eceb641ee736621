package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// storeFaults fails the next call of op (GetAsset or ClaimIdempotency)
// with what fault returns.
type storeFaults struct {
	storage.Storage
	mu    sync.Mutex
	op    string
	fault func() error
}

func (s *storeFaults) next(op string, fault func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op, s.fault = op, fault
}

func (s *storeFaults) take(op string) func() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.op != op {
		return nil
	}
	f := s.fault
	s.op, s.fault = "", nil
	return f
}

func (s *storeFaults) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	if f := s.take("GetAsset"); f != nil {
		return storage.Asset{}, f()
	}
	return s.Storage.GetAsset(ctx, account, id)
}

func (s *storeFaults) ClaimIdempotency(ctx context.Context, rec storage.IdempotencyRecord, now time.Time) (storage.IdempotencyRecord, bool, error) {
	if f := s.take("ClaimIdempotency"); f != nil {
		return storage.IdempotencyRecord{}, false, f()
	}
	return s.Storage.ClaimIdempotency(ctx, rec, now)
}

// faultServer is a handler over a Service over st, whose log and observer
// the test reads.
type faultServer struct {
	h    http.Handler
	logs *syncBuffer
	rec  *recorder
}

func newFaultServer(t *testing.T, st storage.Storage) *faultServer {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(testStart)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithTokenKey([]byte("test token key")), lettershop.WithLogger(logger))
	t.Cleanup(func() { svc.Close() })
	rec := &recorder{}
	return &faultServer{h: httpadapter.New(svc, httpadapter.WithLogger(logger), httpadapter.WithObserver(rec)), logs: logs, rec: rec}
}

// serve sends a request with ctx, its Idempotency-Key key.
func (s *faultServer) serve(ctx context.Context, method, path, key string, body any) *httptest.ResponseRecorder {
	b, _ := json.Marshal(body)
	r := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(b))
	r.Header.Set("X-Api-Key", keyA)
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, r)
	return w
}

func (s *faultServer) asset(t *testing.T) string {
	t.Helper()
	var a lettershop.Asset
	w := s.serve(ctx, "POST", "/v1/assets", "", map[string]any{"name": "Welcome", "type": "template"})
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != http.StatusCreated {
		t.Fatalf("create asset: %d %s", w.Code, w.Body)
	}
	if w := s.serve(ctx, "POST", "/v1/assets/"+a.ID+"/versions", "", templateBody()); w.Code != http.StatusCreated {
		t.Fatalf("create version: %d %s", w.Code, w.Body)
	}
	return a.ID
}

// A store that fails while a create reads its content is a 500 the
// create's key does not keep: the client's retry makes the letter.
func TestStoreFailureIsNotKeptUnderTheKey(t *testing.T) {
	st := &storeFaults{Storage: memstore.New()}
	s := newFaultServer(t, st)
	asset := s.asset(t)
	st.next("GetAsset", func() error { return errors.New("connection reset by peer") })
	w := s.serve(ctx, "POST", "/v1/letters", "retry-me", letterBody(asset))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("the create with the store failing: %d %s, want 500", w.Code, w.Body)
	}
	w = s.serve(ctx, "POST", "/v1/letters", "retry-me", letterBody(asset))
	if w.Code != http.StatusCreated || w.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("the create tried again: %d (replayed %q) %s, want 201 made now", w.Code, w.Header().Get("Idempotent-Replayed"), w.Body)
	}
	// A 500, logged at error with its cause.
	if logs := s.logs.String(); !strings.Contains(logs, "level=ERROR msg=\"internal error\"") || !strings.Contains(logs, "connection reset by peer") {
		t.Errorf("the store's failure is not logged as an internal error:\n%s", logs)
	}
}

// A request whose client went away while it ran (its context ended) is
// the client's doing: answered and observed as 499, never as a 500, and
// logged at info, not as an internal error; its key keeps nothing. A
// cancellation the request's own context did not cause is the service's
// failure, a 500.
func TestRequestCutOffByItsClient(t *testing.T) {
	st := &storeFaults{Storage: memstore.New()}
	s := newFaultServer(t, st)
	asset := s.asset(t)

	// Cut off while its key is claimed, or while its content is read.
	for _, op := range []string{"ClaimIdempotency", "GetAsset"} {
		s.rec.take()
		cut, cancel := context.WithCancel(ctx)
		st.next(op, func() error { cancel(); return cut.Err() })
		w := s.serve(cut, "POST", "/v1/letters", "cut-off-"+op, letterBody(asset))
		if w.Code != httpadapter.StatusClientClosedRequest {
			t.Errorf("a create cut off by its client in %s: %d %s, want 499", op, w.Code, w.Body)
		}
		reqs, _ := s.rec.take()
		if want := []observed{{"POST /v1/letters", "POST", httpadapter.StatusClientClosedRequest}}; !slices.Equal(reqs, want) {
			t.Errorf("cut off in %s: observed %v, want %v", op, reqs, want)
		}
		if w := s.serve(ctx, "POST", "/v1/letters", "cut-off-"+op, letterBody(asset)); w.Code != http.StatusCreated || w.Header().Get("Idempotent-Replayed") != "" {
			t.Errorf("the create cut off in %s tried again: %d (replayed %q) %s, want 201 made now", op, w.Code, w.Header().Get("Idempotent-Replayed"), w.Body)
		}
	}
	logs := s.logs.String()
	if strings.Contains(logs, "level=ERROR") || strings.Count(logs, "level=INFO msg=\"request cancelled by its client\"") != 2 {
		t.Errorf("two requests cut off by their client, logged:\n%s", logs)
	}

	// The store says cancelled, but the request's context is live.
	st.next("GetAsset", func() error { return context.Canceled })
	if w := s.serve(ctx, "POST", "/v1/letters", "", letterBody(asset)); w.Code != http.StatusInternalServerError {
		t.Errorf("a cancellation not the client's: %d %s, want 500", w.Code, w.Body)
	}
	if !strings.Contains(s.logs.String(), "level=ERROR msg=\"internal error\"") {
		t.Errorf("a cancellation not the client's is not logged as an internal error:\n%s", s.logs)
	}
	// A time limit of the service's own ran out (the store did not
	// answer in time): a 503 to retry.
	st.next("GetAsset", func() error { return context.DeadlineExceeded })
	if w := s.serve(ctx, "POST", "/v1/letters", "", letterBody(asset)); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a deadline not the client's: %d (Retry-After %q) %s, want 503 with Retry-After 1", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
}
