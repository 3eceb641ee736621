package httpadapter_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// The stored scope of an idempotency key is a keyed hash of the API key,
// not its bare SHA-256: the store alone cannot test guesses of API keys.
func TestIdempotencyScopeIsKeyed(t *testing.T) {
	ts := newTestServer(t)
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"n"}`, Header: hdr("Idempotency-Key", "k1")}).wantStatus(t, http.StatusCreated)
	probe := func(scope string) (storage.IdempotencyRecord, bool) {
		t.Helper()
		now := ts.Clock.Now()
		got, won, err := ts.Store.ClaimIdempotency(ctx, storage.IdempotencyRecord{
			Scope: scope, Key: "k1", Fingerprint: "probe", Token: "probe",
			CreatedAt: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute),
		}, now)
		if err != nil {
			t.Fatal(err)
		}
		return got, won
	}
	sum := sha256.Sum256([]byte(keyA))
	if got, won := probe("apikey:" + hex.EncodeToString(sum[:])); !won {
		t.Errorf("the outcome is stored under the bare SHA-256 of the API key: %+v", got)
	}
	if got, won := probe("apikey:" + ts.Svc.APIKeyDigest(keyA)); won || !got.Done {
		t.Errorf("no outcome under the keyed hash: won %v, %+v", won, got)
	}
}

// APIKeyDigest depends on the token key: servers sharing one agree, a
// server with another does not.
func TestAPIKeyDigest(t *testing.T) {
	a := lettershop.New(memstore.New(), lettershop.WithTokenKey([]byte("key one")))
	b := lettershop.New(memstore.New(), lettershop.WithTokenKey([]byte("key one")))
	c := lettershop.New(memstore.New(), lettershop.WithTokenKey([]byte("key two")))
	defer a.Close()
	defer b.Close()
	defer c.Close()
	sum := sha256.Sum256([]byte("sk_test_x"))
	da := a.APIKeyDigest("sk_test_x")
	if da != b.APIKeyDigest("sk_test_x") || da == c.APIKeyDigest("sk_test_x") || da == hex.EncodeToString(sum[:]) ||
		da == a.APIKeyDigest("sk_test_y") || len(da) != 64 {
		t.Errorf("APIKeyDigest: %s", da)
	}
}
