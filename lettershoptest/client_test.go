package lettershoptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/lettershoptest"
	"github.com/lettershop/lettershop/webhook"
)

// The account's client retries an injected 429 on the account's clock: a
// day ahead of the wall's, the wait is Retry-After's second of virtual
// time, under a context whose deadline a real wait on the reset instant
// would pass.
func TestClientRetriesOnTheAccountsClock(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	acct.Advance(24 * time.Hour)
	acct.Fault(client.Fault{Path: "/assets", Status: http.StatusTooManyRequests, Times: 2})
	before := acct.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c := acct.Client()
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome"})
	if err != nil {
		t.Fatalf("CreateAsset after two injected 429s: %v", err)
	}
	if got, want := acct.Now().Sub(before), 2*time.Second; got != want {
		t.Errorf("the account's clock moved %s, want the two Retry-After waits, %s", got, want)
	}
	if !a.CreatedAt.Equal(before.Add(2 * time.Second)) {
		t.Errorf("asset created at %s, want the account's time after the waits", a.CreatedAt)
	}
	reqs := acct.Requests()
	if len(reqs) != 3 || reqs[0].Status != 429 || reqs[0].Fault == "" || reqs[2].Status != 201 {
		t.Errorf("journal %+v, want two injected 429s and the create", reqs)
	}
	if reqs[0].IdempotencyKey == "" || reqs[2].IdempotencyKey != reqs[0].IdempotencyKey {
		t.Errorf("the retries did not keep the Idempotency-Key: %+v", reqs)
	}
	if srv.Now() != lettershoptest.DefaultStart {
		t.Errorf("the server's clock moved to %s; the account's only should", srv.Now())
	}
}

// An injected 409 is a request in flight, which the client waits out in
// real time, not on the account's clock: the request holding the key runs
// in real time, under a lease on that clock, which moving it would end.
// Options given come after the helper's.
func TestClientRetriesAnInjected409(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	acct.Fault(client.Fault{Method: "POST", Path: "/assets", Status: http.StatusConflict, RetryAfter: "30s", Times: 1})
	if _, err := acct.Client(client.WithBackoff(time.Millisecond, time.Millisecond)).CreateAsset(t.Context(), &client.CreateAssetRequest{Name: "Welcome"}); err != nil {
		t.Fatalf("CreateAsset after an injected 409: %v", err)
	}
	if got := acct.Now(); !got.Equal(lettershoptest.DefaultStart) {
		t.Errorf("clock at %s, want it where it was", got)
	}
	acct.Fault(client.Fault{Method: "POST", Path: "/assets", Status: http.StatusConflict, Times: 1})
	_, err := acct.Client(client.WithMaxRetries(0)).CreateAsset(t.Context(), &client.CreateAssetRequest{Name: "Welcome"})
	if !errors.Is(err, client.ErrConflict) {
		t.Errorf("with retries off: %v, want the 409", err)
	}
}

// A client needs a server.
func TestClientNeedsAServer(t *testing.T) {
	ft := &fakeTB{TB: t}
	acct := lettershoptest.NewService(ft).NewAccount()
	fails(t, ft, func() { acct.Client() })
}

// The test's own webhook handler, built with the account's secret before
// any webhook exists, gets every event verified; an answer of its that is
// not a 2xx fails the attempt, which is retried on the account's clock.
func TestServeWebhooks(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	var mu sync.Mutex
	var seen []client.WebhookEventType
	failFirst := true
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(acct.WebhookSecret, r.Header.Get(webhook.SignatureHeader), body, 5*time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var e client.WebhookEvent
		if err := json.Unmarshal(body, &e); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if failFirst {
			failFirst = false
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		seen = append(seen, e.Type)
		w.WriteHeader(http.StatusNoContent)
	})
	rcv := acct.ServeWebhooks(h, client.WebhookLetterCreated, client.WebhookLetterDelivered)
	if rcv.Webhook.Secret != acct.WebhookSecret {
		t.Fatalf("the webhook's secret %q is not the account's %q", rcv.Webhook.Secret, acct.WebhookSecret)
	}
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
	acct.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
	e := rcv.WaitFor(client.WebhookLetterDelivered, id, 10*time.Second)
	if e.Data.Object.ID != id {
		t.Errorf("delivered event of %s", e.Data.Object.ID)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != client.WebhookLetterCreated || seen[1] != client.WebhookLetterDelivered {
		t.Errorf("the handler took %v", seen)
	}
	if n := len(rcv.Events()); n != 2 {
		t.Errorf("the receiver counts %d events taken, want the handler's 2", n)
	}
	for _, d := range rcv.Deliveries() {
		if d.Type == client.WebhookLetterCreated && d.Attempt != 2 {
			t.Errorf("letter.created took %d attempts, want 2: the handler's 503, then its 204", d.Attempt)
		}
	}
}

// A scoped client reads what its scopes allow in the account, and is
// refused (a 403) what they do not.
func TestScopedClient(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	reader := acct.ScopedClient(httpadapter.ScopeLettersRead)
	ctx := context.Background()
	if l, err := reader.GetLetter(ctx, id); err != nil || l.ID != id {
		t.Fatalf("a letters:read client reads the account's letter: %v", err)
	}
	if err := reader.CancelLetter(ctx, id); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("a letters:read client cancels: %v, want ErrForbidden", err)
	}
	if _, err := reader.ListAssetsPage(ctx, nil); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("a letters:read client lists assets: %v, want ErrForbidden", err)
	}
	// A scope misspelt fails the test there, naming the scopes there are,
	// not as a 401 at the client's first request.
	sub := &recorder{TB: t}
	sub.run(func() { acct.For(sub).ScopedClient(httpadapter.ScopeLettersRead, "letters:reed") })
	if len(sub.failures) != 1 || !strings.Contains(sub.failures[0], `"letters:reed"`) || !strings.Contains(sub.failures[0], "letters:read") {
		t.Errorf("ScopedClient with an unknown scope failed with %q, want it named and the scopes there are", sub.failures)
	}
}
