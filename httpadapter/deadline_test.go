package httpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/internal/openapitest"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// hangingStore never answers GetLetter or WriteAsset, as a database host
// gone silent: each returns only when its context ends.
type hangingStore struct{ *memstore.Store }

func (hangingStore) GetLetter(ctx context.Context, _, _ string) (storage.Letter, error) {
	<-ctx.Done()
	return storage.Letter{}, ctx.Err()
}

func (hangingStore) WriteAsset(ctx context.Context, _ storage.AssetWrite) (storage.Asset, error) {
	<-ctx.Done()
	return storage.Asset{}, ctx.Err()
}

// A store that does not answer fails a read and a keyed write with a 503
// and Retry-After once the request's time is up, rather than holding them
// until the store answers; the key does not keep that answer, so a retry
// runs again.
func TestHangingStoreTimesOutWith503(t *testing.T) {
	svc := lettershop.New(hangingStore{memstore.New()})
	defer svc.Close()
	ts := newTestServerFor(t, svc, httpadapter.WithRequestTimeout(time.Millisecond))
	for _, r := range []req{
		{Method: "GET", Path: "/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz"},
		{Method: "POST", Path: "/assets", Body: `{"name":"W","type":"template"}`, Header: map[string]string{"Idempotency-Key": "k1"}},
		{Method: "POST", Path: "/assets", Body: `{"name":"W","type":"template"}`, Header: map[string]string{"Idempotency-Key": "k1"}},
	} {
		res := ts.do(t, r)
		p := res.problem(t, http.StatusServiceUnavailable)
		if p.Code != "unavailable" || res.Header.Get("Retry-After") != "1" || res.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("%s %s: problem %+v, headers %v; want code unavailable, Retry-After 1, no replay", r.Method, r.Path, p, res.Header)
		}
	}
}

// The 503 of a store that can not be reached is as the OpenAPI document
// describes it: its code (unavailable) one the document lists, its headers
// (those of every API answer, and Retry-After) documented for the status.
func TestStoreUnavailable503IsDocumented(t *testing.T) {
	svc := lettershop.New(unreachableStore{memstore.New()})
	defer svc.Close()
	srv := httptest.NewServer(openapitest.Handler(t, httpadapter.New(svc)))
	defer srv.Close()
	ts := &testServer{Server: srv}
	for _, path := range []string{"/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz", "/v1/letters/ltr_01jzzzzzzzzzzzzzzzzzzzzzzz/download"} {
		if p := ts.get(t, path).problem(t, http.StatusServiceUnavailable); p.Code != "unavailable" {
			t.Errorf("GET %s: code %q, want unavailable", path, p.Code)
		}
	}
}

// slowDeleteStore takes half a second to delete an asset, unless its
// context ends first.
type slowDeleteStore struct{ *memstore.Store }

func (s slowDeleteStore) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	select {
	case <-time.After(500 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.DeleteAsset(ctx, account, id, revision, c)
}

// The read deadline a body is given ends with the body: a request whose
// work outlasts it is answered, not cut off as if its client had gone
// (the server's watch for a closed connection, which reads once a request
// has no body left, read past the deadline and cancelled the request).
func TestWorkOutlastingTheBodyDeadlineIsAnswered(t *testing.T) {
	svc := lettershop.New(slowDeleteStore{memstore.New()})
	defer svc.Close()
	ts := newTestServerFor(t, svc, httpadapter.WithBodyReadRate(1<<20, time.Millisecond))
	var a struct{ ID string }
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"W","type":"template"}`}).wantStatus(t, http.StatusCreated).decode(t, &a)
	ts.do(t, req{Method: "DELETE", Path: "/assets/" + a.ID, Header: map[string]string{"Idempotency-Key": "slow"}}).
		wantStatus(t, http.StatusNoContent)
}

// A settle waits as long as it is asked, in real time, whatever the
// request timeout: the route bounds its own time.
func TestSettleOutlastsTheRequestTimeout(t *testing.T) {
	ts := newTestServer(t)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer receiver.Close()
	defer free()
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": receiver.URL, "events": []string{"letter.created"}}}).
		wantStatus(t, http.StatusCreated)
	assetID, _ := ts.createAsset(t, keyA)
	ts.createLetter(t, keyA, assetID)
	// The same Service, served with a request timeout far shorter than
	// the receiver takes to answer.
	quick := newTestServerFor(t, ts.Svc, httpadapter.WithRequestTimeout(time.Millisecond), httpadapter.WithTestClock(ts.Clock))
	time.AfterFunc(100*time.Millisecond, free)
	quick.do(t, req{Method: "POST", Path: "/_test/webhooks/settle"}).wantStatus(t, http.StatusNoContent)
}
