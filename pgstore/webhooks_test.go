package pgstore_test

import (
	"bufio"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/await"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/webhook"
)

// hookReceiver counts the requests it gets and answers each as told.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	answer func(n int, r *http.Request) int
	// key is the webhook's secret, which signs every request: one not
	// signed with it is refused, and not counted.
	key string
}

func (h *hookReceiver) secret() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.key
}

func newHookReceiver(t *testing.T, answer func(n int, r *http.Request) int) *hookReceiver {
	h := &hookReceiver{answer: answer}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(h.secret(), r.Header.Get(webhook.SignatureHeader), b, 5*time.Minute); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		n := len(h.bodies)
		h.mu.Unlock()
		w.WriteHeader(h.answer(n, r))
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// delivery returns the one delivery of the webhook, read through srv.
func oneDelivery(t *testing.T, srv server, webhookID string) *lettershop.WebhookDelivery {
	t.Helper()
	p, err := srv.svc.ListDeliveries(t.Context(), acct, webhookID, lettershop.ListDeliveriesInput{})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("ListDeliveries: %v, %v; want one", p.Items, err)
	}
	return p.Items[0]
}

// A delivery survives its server: one server's attempt fails and it
// stops; another on the same database makes the retry when the backoff has
// passed on its clock. And one server dying mid-attempt leaves the delivery
// leased: another takes it up once the lease has passed on the wall clock.
func TestWebhookDeliverySurvivesARestart(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	release := make(chan struct{})
	rcv := newHookReceiver(t, func(n int, r *http.Request) int {
		switch n {
		case 1:
			return http.StatusInternalServerError
		case 3:
			// Held until the server making the attempt has stopped.
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})

	start := func(seed int64, wall clock.Clock) server {
		st := openStore(t, schema)
		clk := clock.NewMock()
		clk.Set(epoch)
		svc := lettershop.New(st, lettershop.WithClock(clk), lettershop.WithEntropy(rand.New(rand.NewSource(seed))),
			lettershop.WithTokenKey(sharedTokenKey), lettershop.WithWallClock(wall), lettershop.WithDeliverer(delivery.Open))
		return server{svc: svc, store: st, clock: clk}
	}
	a := start(1, clock.New())
	w, err := a.svc.CreateWebhook(t.Context(), acct, lettershop.CreateWebhookInput{URL: rcv.URL,
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookLetterCanceled}})
	if err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.key = w.Secret
	rcv.mu.Unlock()
	l, err := a.svc.CreateLetter(t.Context(), acct, letterInput(publishedAsset(t, a).ID))
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the first attempt's outcome", func() bool {
		d := oneDelivery(t, a, w.ID)
		return d.Attempt == 1 && d.StatusCode != nil
	})
	a.svc.Close()

	// A second server, started afterwards, makes the retry once a minute
	// has passed on its clock.
	b := start(2, clock.New())
	if _, err := b.svc.RunDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := rcv.count(); n != 1 {
		t.Fatalf("%d requests before the backoff passed", n)
	}
	if _, err := b.svc.AdvanceAccountClock(t.Context(), acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the retry", func() bool { return oneDelivery(t, b, w.ID).Status == lettershop.DeliverySucceeded })
	if d := oneDelivery(t, b, w.ID); d.Attempt != 2 || *d.StatusCode != 200 {
		t.Errorf("delivery after the retry: %+v", d)
	}

	// b stops during an attempt: the delivery stays leased on the wall
	// clock, and c takes it up when that lease has passed.
	if _, err := b.svc.CancelLetter(t.Context(), acct, l.ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the attempt under way", func() bool { return rcv.count() == 3 })
	b.svc.Close()
	close(release)
	wall := clock.NewMock()
	wall.Set(time.Now())
	c := start(3, wall)
	defer c.svc.Close()
	if _, err := c.svc.AdvanceAccountClock(t.Context(), acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := rcv.count(); n != 3 {
		t.Fatalf("%d requests while the dead server's lease held", n)
	}
	wall.Add(delivery.DefaultTimeout + time.Minute)
	if _, err := c.svc.RunDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the leased delivery taken up", func() bool { return rcv.count() == 4 })
	p, err := c.svc.ListDeliveries(t.Context(), acct, w.ID, lettershop.ListDeliveriesInput{})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "its outcome", func() bool {
		p, _ = c.svc.ListDeliveries(t.Context(), acct, w.ID, lettershop.ListDeliveriesInput{})
		return p.Items[0].Status == lettershop.DeliverySucceeded
	})
	if d := p.Items[0]; d.Type != lettershop.WebhookLetterCanceled || d.Attempt != 2 {
		t.Errorf("the canceled event's delivery: %+v, want succeeded at its second attempt", d)
	}
	if n := rcv.count(); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

// A receiver whose status line is not text PostgreSQL can hold (a byte
// that is not UTF-8, a NUL) still has its attempt recorded: failed, to be
// retried after the backoff, with what it answered.
func TestWebhookAttemptWithAnAnswerThatIsNotText(t *testing.T) {
	t.Parallel()
	srv := newServer(t, newSchema(t), 1, sharedTokenKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					_, _ = c.Write([]byte("HTTP/1.1 500 Bad\xff\x00 day\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
				}
			}()
		}
	}()
	w, err := srv.svc.CreateWebhook(t.Context(), acct, lettershop.CreateWebhookInput{URL: "http://" + ln.Addr().String() + "/",
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.svc.CreateLetter(t.Context(), acct, letterInput(publishedAsset(t, srv).ID)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the attempt's outcome", func() bool { return oneDelivery(t, srv, w.ID).StatusCode != nil })
	d := oneDelivery(t, srv, w.ID)
	if d.Status != lettershop.DeliveryPending || *d.StatusCode != 500 || d.Error == nil || !strings.Contains(*d.Error, "500 Bad") ||
		!d.NextAttemptAt.Equal(epoch.Add(time.Minute)) {
		t.Errorf("delivery %+v, want pending after a 500, retried in a minute", d)
	}
}

// TestWebhookRetryThroughAServerStartedBeforeIt: a server started before
// any webhook existed makes the retries that fall due on a clock moved
// through it, of a webhook made and first attempted through another
// server, which nothing wakes. Before, it took itself for a server without
// webhooks until a letter changed through it, and the retry waited.
func TestWebhookRetryThroughAServerStartedBeforeIt(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	rcv := newHookReceiver(t, func(n int, r *http.Request) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	w, err := a.svc.CreateWebhook(ctx, acct, lettershop.CreateWebhookInput{URL: rcv.URL,
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated}})
	if err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.key = w.Secret
	rcv.mu.Unlock()
	if _, err := a.svc.CreateLetter(ctx, acct, letterInput(publishedAsset(t, a).ID)); err != nil {
		t.Fatal(err)
	}
	if err := await.Deliveries(ctx, a.svc, acct, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if d := oneDelivery(t, a, w.ID); d.Status != lettershop.DeliveryPending || d.Attempt != 1 {
		t.Fatalf("after the first attempt: %+v, want pending after one attempt", d)
	}
	if _, err := b.svc.AdvanceAccountClock(ctx, acct, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := await.Deliveries(ctx, b.svc, acct, 10*time.Second); err != nil {
		t.Errorf("the retry through b: %v", err)
	}
	if d := oneDelivery(t, b, w.ID); d.Status != lettershop.DeliverySucceeded || d.Attempt != 2 || rcv.count() != 2 {
		t.Errorf("after an hour moved through b: %+v, %d requests; want succeeded at the second attempt", d, rcv.count())
	}
}
