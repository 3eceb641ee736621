package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/webhook"
)

func TestWebhooks(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, testKey)
	var (
		mu     sync.Mutex
		events []client.WebhookEvent
		secret string
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var e client.WebhookEvent
		if err := json.Unmarshal(body, &e); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		events = append(events, e)
	}))
	t.Cleanup(rcv.Close)

	w, err := c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: rcv.URL, Events: []client.WebhookEventType{"letter.created"}})
	if err != nil || w.Secret == "" {
		t.Fatalf("CreateWebhook: %+v, %v", w, err)
	}
	mu.Lock()
	secret = w.Secret
	mu.Unlock()
	a, _ := publishedAsset(t, c)
	l, err := c.CreateLetter(ctx, letterRequest(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no event received")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if e := events[0]; e.Type != "letter.created" || e.Data.Object.ID != l.ID {
		t.Errorf("event %+v", e)
	}
	var ds []client.WebhookDelivery
	for d, err := range c.ListDeliveries(ctx, w.ID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if len(ds) != 1 || ds[0].LetterID != l.ID {
		t.Fatalf("deliveries %+v", ds)
	}
	for ds[0].Status == "pending" && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
		p, err := c.ListDeliveriesPage(ctx, w.ID, &client.ListParams{PageSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		ds = p.Items
	}
	if _, err := c.RetryDelivery(ctx, w.ID, ds[0].ID); err != nil {
		t.Errorf("RetryDelivery: %v", err)
	}
	off := client.WebhookDisabled
	if u, err := c.UpdateWebhook(ctx, w.ID, &client.UpdateWebhookRequest{Status: &off}); err != nil || u.Status != client.WebhookDisabled || u.Secret != "" {
		t.Errorf("UpdateWebhook: %+v, %v", u, err)
	}
	n := 0
	for _, err := range c.ListWebhooks(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d webhooks listed", n)
	}
	if err := c.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetWebhook(ctx, w.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("GetWebhook after delete: %v", err)
	}
}

// TestWebhookEventFor: the webhook event type WebhookEventFor gives each
// event of a letter taken to delivered is the type of the delivery the
// server made for that event.
func TestWebhookEventFor(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, testKey)
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	w, err := c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: rcv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := publishedAsset(t, c)
	l, err := c.CreateLetter(ctx, letterRequest(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Test.AdvanceLetter(ctx, l.ID, &client.AdvanceLetterRequest{Status: client.StatusMailed}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Test.Advance(ctx, 30*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if l, err = c.GetLetter(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	types := map[string]client.WebhookEventType{}
	for d, err := range c.ListDeliveries(ctx, w.ID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		types[d.EventID] = d.Type
	}
	if len(types) != len(l.Events) || len(l.Events) < 6 {
		t.Fatalf("%d deliveries for %d events %+v", len(types), len(l.Events), l.Events)
	}
	kinds := map[client.EventType]bool{}
	for i, e := range l.Events[1:] {
		kinds[e.Type] = true
		if got, want := client.WebhookEventFor(e.Status), types[e.ID]; got != want {
			t.Errorf("event %d (%s %s): WebhookEventFor gives %s, the delivery is %s", i+1, e.Type, e.Status, got, want)
		}
	}
	if !kinds["status"] || !kinds["tracking"] {
		t.Errorf("events of kinds %v; want status and tracking both", kinds)
	}
}

// TestCreateWebhookSecretLost: a create whose answer was lost, and which
// the client retried, is answered from the server's record without the
// secret. The client says so (ErrSecretLost, with the webhook to delete)
// rather than answer a webhook whose events can not be checked; with the
// secret the request chose, it fills it in.
func TestCreateWebhookSecretLost(t *testing.T) {
	s := newServer(t, wrapped(failing(&recorder{}, 1, dropAfterWrite)))
	c := newClient(s, newWaits())
	wh, err := c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://example.com/hook"})
	if !errors.Is(err, client.ErrSecretLost) || wh == nil || wh.ID == "" {
		t.Fatalf("CreateWebhook after a lost answer: %+v, %v; want the webhook and ErrSecretLost", wh, err)
	}
	if err := c.DeleteWebhook(ctx, wh.ID); err != nil {
		t.Fatal(err)
	}

	s = newServer(t, wrapped(failing(&recorder{}, 1, dropAfterWrite)))
	c = newClient(s, newWaits())
	const secret = "whsec_chosen_by_the_test_0123"
	wh, err = c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://example.com/hook", Secret: secret})
	if err != nil || wh.Secret != secret {
		t.Fatalf("CreateWebhook with a chosen secret after a lost answer: %+v, %v; want its secret", wh, err)
	}
}
