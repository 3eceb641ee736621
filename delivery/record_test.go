package delivery_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// blinkingStore fails its first few UpdateDelivery calls as a database
// briefly out of reach does.
type blinkingStore struct {
	*memstore.Store
	fails atomic.Int32
}

func (s *blinkingStore) UpdateDelivery(ctx context.Context, d storage.Delivery, c *storage.Completion) (storage.Delivery, error) {
	if s.fails.Add(-1) >= 0 {
		return storage.Delivery{}, fmt.Errorf("update delivery: %w: conn closed", storage.ErrUnavailable)
	}
	return s.Store.UpdateDelivery(ctx, d, c)
}

// An attempt's outcome the store fails to record for a moment is recorded
// once it is back: the event, delivered, is not sent again.
func TestOutcomeRecordedAfterTheStoreIsBack(t *testing.T) {
	st := &blinkingStore{Store: memstore.New()}
	st.fails.Store(3)
	mc := clock.NewMock()
	mc.Set(start)
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithDeliverer(delivery.OpenWith()))
	t.Cleanup(func() { svc.Close() })
	var posts atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	w := createWebhook(t, svc, acct, rcv.URL)
	createLetters(t, svc, acct, 1)
	ds := settled(t, svc, acct, w.ID, 1)
	if len(ds) != 1 || ds[0].Status != lettershop.DeliverySucceeded || posts.Load() != 1 {
		t.Errorf("deliveries %+v after %d posts, want one succeeded at its only post", ds, posts.Load())
	}
}
