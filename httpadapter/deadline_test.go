package httpadapter_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
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
