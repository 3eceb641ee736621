package lettershop_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// racedStore answers the next writes of one kind with storage.ErrConflict,
// as a store does when another server wrote the record since it was read,
// and writes nothing for them.
type racedStore struct {
	storage.Storage

	mu   sync.Mutex
	op   string
	lose int
}

// race makes the next n writes of op lose.
func (s *racedStore) race(op string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op, s.lose = op, n
}

// lost reports whether this write of op loses the race.
func (s *racedStore) lost(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op != s.op || s.lose == 0 {
		return nil
	}
	s.lose--
	return fmt.Errorf("%s: %w", op, storage.ErrConflict)
}

func (s *racedStore) UpdateLetter(ctx context.Context, l storage.Letter, c *storage.Completion) (storage.Letter, error) {
	if err := s.lost("UpdateLetter"); err != nil {
		return storage.Letter{}, err
	}
	return s.Storage.UpdateLetter(ctx, l, c)
}

func (s *racedStore) WriteAsset(ctx context.Context, w storage.AssetWrite) (storage.Asset, error) {
	if err := s.lost("WriteAsset"); err != nil {
		return storage.Asset{}, err
	}
	return s.Storage.WriteAsset(ctx, w)
}

func (s *racedStore) DeleteAsset(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	if err := s.lost("DeleteAsset"); err != nil {
		return err
	}
	return s.Storage.DeleteAsset(ctx, account, id, revision, c)
}

func (s *racedStore) WriteWebhook(ctx context.Context, w storage.Webhook, limit int, c *storage.Completion) (storage.Webhook, error) {
	if err := s.lost("WriteWebhook"); err != nil {
		return storage.Webhook{}, err
	}
	return s.Storage.WriteWebhook(ctx, w, limit, c)
}

func (s *racedStore) DeleteWebhook(ctx context.Context, account, id string, revision int64, c *storage.Completion) error {
	if err := s.lost("DeleteWebhook"); err != nil {
		return err
	}
	return s.Storage.DeleteWebhook(ctx, account, id, revision, c)
}

func (s *racedStore) UpdateDelivery(ctx context.Context, d storage.Delivery, c *storage.Completion) (storage.Delivery, error) {
	if err := s.lost("UpdateDelivery"); err != nil {
		return storage.Delivery{}, err
	}
	return s.Storage.UpdateDelivery(ctx, d, c)
}

// A change that loses the race to another write of the same object reads
// it again and applies itself to what that write left: ten times more at
// most. Losing ten times still succeeds; losing eleven is the service's
// failure (an internal error) and changes nothing.
func TestChangesTryAgainAfterLosingARace(t *testing.T) {
	st := &racedStore{Storage: memstore.New()}
	e := envOver(t, st)
	ctx := e.ctx
	tpl, _ := e.publishedTemplate(t, acct)
	hook, err := e.svc.CreateWebhook(ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	letter, err := e.svc.CreateLetter(ctx, acct, letterInput(tpl.ID))
	if err != nil {
		t.Fatal(err)
	}
	deliveries, err := e.svc.ListDeliveries(ctx, acct, hook.ID, lettershop.ListDeliveriesInput{})
	if err != nil || len(deliveries.Items) != 1 {
		t.Fatalf("the letter's delivery: %v, %v", deliveries.Items, err)
	}
	delivery := deliveries.Items[0]

	cases := []struct {
		name, op string
		change   func() error
		// changed reports whether the change is in place.
		changed func() bool
	}{
		{"cancel a letter", "UpdateLetter",
			func() error { _, err := e.svc.CancelLetter(ctx, acct, letter.ID); return err },
			func() bool { return e.letterIn(t, acct, letter.ID).Status == lettershop.StatusCanceled }},
		{"rename an asset", "WriteAsset",
			func() error {
				_, err := e.svc.UpdateAsset(ctx, acct, tpl.ID, lettershop.UpdateAssetInput{Name: str("Renamed")})
				return err
			},
			func() bool { a, err := e.svc.GetAsset(ctx, acct, tpl.ID); return err == nil && a.Name == "Renamed" }},
		{"describe a webhook", "WriteWebhook",
			func() error {
				_, err := e.svc.UpdateWebhook(ctx, acct, hook.ID, lettershop.UpdateWebhookInput{Description: str("described")})
				return err
			},
			func() bool {
				w, err := e.svc.GetWebhook(ctx, acct, hook.ID)
				return err == nil && w.Description == "described"
			}},
		{"retry a delivery", "UpdateDelivery",
			func() error { _, err := e.svc.RetryDelivery(ctx, acct, hook.ID, delivery.ID); return err },
			func() bool {
				d, err := e.svc.GetDelivery(ctx, acct, hook.ID, delivery.ID)
				return err == nil && d.Status == lettershop.DeliveryPending && d.NextAttemptAt != nil && d.NextAttemptAt.Equal(e.svc.Now())
			}},
		{"delete a webhook", "DeleteWebhook",
			func() error { return e.svc.DeleteWebhook(ctx, acct, hook.ID) },
			func() bool {
				_, err := e.svc.GetWebhook(ctx, acct, hook.ID)
				return lettershop.ErrorCode(err) == lettershop.CodeNotFound
			}},
		{"delete an asset", "DeleteAsset",
			func() error { return e.svc.DeleteAsset(ctx, acct, tpl.ID) },
			func() bool {
				_, err := e.svc.GetAsset(ctx, acct, tpl.ID)
				return lettershop.ErrorCode(err) == lettershop.CodeNotFound
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.op == "UpdateDelivery" {
				e.clock.Add(time.Minute) // the retry's next attempt is now, after the delivery's first due time
			}
			st.race(c.op, 11)
			err := c.change()
			wantCode(t, err, lettershop.CodeInternal)
			if c.changed() {
				t.Fatalf("%s after losing every race: the change is in place, want nothing changed", c.name)
			}
			st.race(c.op, 10)
			if err := c.change(); err != nil {
				t.Fatalf("%s after losing ten races: %v, want it done", c.name, err)
			}
			if !c.changed() {
				t.Fatalf("%s after losing ten races: the change is not in place", c.name)
			}
		})
	}
}
