package httpadapter_test

import (
	"context"
	"math/rand"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

// clockReads is a store that counts what a Service asks of it about the
// accounts' clocks.
type clockReads struct {
	storage.Storage
	stamps, reads atomic.Int64
}

func (c *clockReads) ClockStamp(ctx context.Context) (int64, error) {
	c.stamps.Add(1)
	return c.Storage.ClockStamp(ctx)
}

func (c *clockReads) AccountClocks(ctx context.Context, since int64, limit int) ([]storage.AccountClock, error) {
	c.reads.Add(1)
	return c.Storage.AccountClocks(ctx, since, limit)
}

// Reading the time of a request's account is one read of the store's
// clock stamp per request, whatever the request; the clocks themselves are
// read again only after one changed, once.
func TestOneClockLookupPerRequest(t *testing.T) {
	st := memstore.New()
	counted := &clockReads{Storage: st}
	tc := testclock.New(testStart)
	svc := lettershop.New(counted, lettershop.WithClock(tc), lettershop.WithEntropy(rand.New(rand.NewSource(1))))
	t.Cleanup(func() { svc.Close() })
	// Another server on the same store.
	other := lettershop.New(st, lettershop.WithClock(tc))
	t.Cleanup(func() { other.Close() })
	ts := newTestServerFor(t, svc, httpadapter.WithTestClock(tc), httpadapter.WithRateLimit(0, 0))
	assetID, _ := ts.createAsset(t, keyA)
	account := httpadapter.SandboxAccount(keyA)

	request := func(name string, r req, status int, wantReads int64) result {
		t.Helper()
		s0, r0 := counted.stamps.Load(), counted.reads.Load()
		res := ts.do(t, r).wantStatus(t, status)
		if got := counted.stamps.Load() - s0; got != 1 {
			t.Errorf("%s: %d reads of the clock stamp, want 1", name, got)
		}
		if got := counted.reads.Load() - r0; got != wantReads {
			t.Errorf("%s: %d reads of the clocks, want %d", name, got, wantReads)
		}
		return res
	}
	var l lettershop.Letter
	request("POST /letters", req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID)}, http.StatusCreated, 0).decode(t, &l)
	request("POST /letters with a key", req{Method: "POST", Path: "/v1/letters", Body: letterBody(assetID),
		Header: hdr("Idempotency-Key", "k1")}, http.StatusCreated, 0)
	request("GET /letters/{id}", req{Method: "GET", Path: "/v1/letters/" + l.ID}, http.StatusOK, 0)
	request("GET /letters", req{Method: "GET", Path: "/v1/letters"}, http.StatusOK, 0)
	request("POST /_test/clock/advance", req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}, http.StatusOK, 0)

	// Another server moves the account's clock: the next request reads
	// the clocks put since, once, and sees it.
	if _, err := other.AdvanceAccountClock(context.Background(), account, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	var got lettershop.Letter
	request("GET /letters/{id} after another server moved the clock", req{Method: "GET", Path: "/v1/letters/" + l.ID}, http.StatusOK, 1).decode(t, &got)
	if got.Status != lettershop.StatusMailed {
		t.Errorf("after the other server moved the account 73 hours on: %s, want mailed", got.Status)
	}
	request("GET /letters/{id} again", req{Method: "GET", Path: "/v1/letters/" + l.ID}, http.StatusOK, 0)
	request("POST /letters/{id}/cancel", req{Method: "POST", Path: "/v1/letters/" + l.ID + "/cancel"}, http.StatusConflict, 0)
	if want := testStart.Add(73 * time.Hour); !svc.AccountNow(account).Equal(want) {
		t.Errorf("the account reads %v, want %v", svc.AccountNow(account), want)
	}

	// GET /_test/clock reads them too, and shows the other server's move.
	if _, err := other.AdvanceAccountClock(context.Background(), account, time.Hour); err != nil {
		t.Fatal(err)
	}
	var c clockBody
	request("GET /_test/clock after another server moved the clock", req{Method: "GET", Path: "/_test/clock"}, http.StatusOK, 1).decode(t, &c)
	if want := testStart.Add(74 * time.Hour).Format(time.RFC3339); c.Now != want {
		t.Errorf("GET /_test/clock after the other server moved the clock: %s, want %s", c.Now, want)
	}
}
