package lettershop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/webhook"
	"github.com/lettershop/lettershop/wire"
)

// receiver is a real local HTTP receiver of webhook events.
type receiver struct {
	*httptest.Server
	// status answers the n-th request (from 1); nil answers 200.
	status func(n int) int
	// delay holds each answer this long.
	delay time.Duration

	mu  sync.Mutex
	got []received
}

type received struct {
	header http.Header
	body   []byte
	event  lettershop.WebhookEvent
	at     time.Time
}

func newReceiver(t testing.TB) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var e lettershop.WebhookEvent
		_ = json.Unmarshal(body, &e)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, event: e, at: time.Now()})
		n := len(r.got)
		r.mu.Unlock()
		if r.delay > 0 {
			select {
			case <-time.After(r.delay):
			case <-req.Context().Done():
			}
		}
		status := http.StatusOK
		if r.status != nil {
			status = r.status(n)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// waitFor waits, on the wall clock, until cond holds; the receiver is
// driven by the Service's workers, which run on their own.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitReceived waits until r holds n requests, and returns them.
func (r *receiver) waitReceived(t testing.TB, n int) []received {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d requests at the receiver", n), func() bool { return len(r.received()) >= n })
	return r.received()
}

func (e *env) createWebhook(t testing.TB, account, url string, events ...lettershop.WebhookEventType) *lettershop.Webhook {
	t.Helper()
	w, err := e.svc.CreateWebhook(e.ctx, account, lettershop.CreateWebhookInput{URL: url, Events: events})
	if err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	return w
}

// deliveriesOf returns a webhook's deliveries, newest first.
func (e *env) deliveriesOf(t testing.TB, account, webhookID string) []*lettershop.WebhookDelivery {
	t.Helper()
	p, err := e.svc.ListDeliveries(e.ctx, account, webhookID, lettershop.ListDeliveriesInput{PageRequest: lettershop.PageRequest{PageSize: 100}})
	if err != nil {
		t.Fatalf("ListDeliveries: %v", err)
	}
	return p.Items
}

// settled waits until no delivery of the webhook is under way and the
// attempts made number n in all.
func (e *env) settled(t testing.TB, account, webhookID string, attempts int) []*lettershop.WebhookDelivery {
	t.Helper()
	var ds []*lettershop.WebhookDelivery
	waitFor(t, fmt.Sprintf("%d attempts recorded", attempts), func() bool {
		ds = e.deliveriesOf(t, account, webhookID)
		n := 0
		for _, d := range ds {
			if d.Status == lettershop.DeliveryPending && d.LastAttemptAt != nil && d.NextAttemptAt != nil && !d.NextAttemptAt.After(*d.LastAttemptAt) {
				return false // under way
			}
			n += d.Attempt
		}
		return n == attempts
	})
	return ds
}

// A letter driven from created to delivered sends every event, in order,
// each signed, to a real local receiver, each carrying the letter as it
// stood then.
func TestWebhookLetterLifeInOrder(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	w := e.createWebhook(t, acct, rcv.URL)
	if !strings.HasPrefix(w.Secret, "whsec_") || len(w.Secret) < len("whsec_")+43 || w.Status != lettershop.WebhookEnabled {
		t.Fatalf("webhook %+v", w)
	}
	l := e.createLetterIn(t, acct)
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, 30*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	final := e.letterIn(t, acct, l.ID)
	got := rcv.waitReceived(t, len(final.Events))
	if len(got) != len(final.Events) {
		t.Fatalf("%d requests for %d events", len(got), len(final.Events))
	}
	var types []string
	for i, r := range got {
		ev := final.Events[i]
		types = append(types, string(r.event.Type))
		if r.event.ID != ev.ID || !r.event.CreatedAt.Equal(ev.Timestamp) {
			t.Errorf("request %d: event %s at %v, want %s at %v", i, r.event.ID, r.event.CreatedAt, ev.ID, ev.Timestamp)
		}
		if err := webhook.Verify(w.Secret, r.header.Get(webhook.SignatureHeader), r.body, time.Minute); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d: Content-Type %q", i, ct)
		}
		obj := r.event.Data.Object
		if obj == nil || obj.ID != l.ID || len(obj.Events) != i+1 {
			t.Fatalf("request %d: object %+v, want the letter with its first %d events", i, obj, i+1)
		}
		if i == 0 && obj.Status != lettershop.StatusQueued {
			t.Errorf("letter.created carries status %s", obj.Status)
		}
	}
	want := []string{"letter.created", "letter.ready", "letter.inProduction", "letter.mailed"}
	for _, ev := range final.Events[4:] {
		want = append(want, "letter."+string(ev.Status))
	}
	if !slices.Equal(types, want) {
		t.Errorf("types %v, want %v", types, want)
	}
	if types[len(types)-1] != "letter.delivered" {
		t.Errorf("last event %s, want letter.delivered", types[len(types)-1])
	}
	// The object of the last event is the letter as GET shows it.
	lastBody := got[len(got)-1].body
	var env struct {
		Data struct {
			Object json.RawMessage `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(lastBody, &env); err != nil {
		t.Fatal(err)
	}
	asGot, _ := wire.Letter(final)
	if string(env.Data.Object) != string(asGot) {
		t.Errorf("last event's object differs from the letter:\n%s\n%s", env.Data.Object, asGot)
	}
	for _, d := range e.settled(t, acct, w.ID, len(final.Events)) {
		if d.Status != lettershop.DeliverySucceeded || d.Attempt != 1 || d.StatusCode == nil || *d.StatusCode != 200 {
			t.Errorf("delivery %+v", d)
		}
	}
}

// A receiver that fails twice gets the third attempt after the backoff on
// the account's virtual clock: a minute, then four.
func TestWebhookRetriesOnTheVirtualClock(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	rcv.status = func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	}
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	d := e.settled(t, acct, w.ID, 1)[0]
	if d.Status != lettershop.DeliveryPending || d.StatusCode == nil || *d.StatusCode != 500 || d.Error == nil ||
		!d.NextAttemptAt.Equal(testStart.Add(time.Minute)) {
		t.Fatalf("after the first failure: %+v", d)
	}
	// A second short of the backoff nothing is due.
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, time.Minute-time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a wrong attempt would have started by now
	if n := len(rcv.received()); n != 1 {
		t.Fatalf("%d requests before the backoff passed", n)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, time.Second); err != nil {
		t.Fatal(err)
	}
	d = e.settled(t, acct, w.ID, 2)[0]
	if d.Status != lettershop.DeliveryPending || !d.NextAttemptAt.Equal(testStart.Add(5*time.Minute)) {
		t.Fatalf("after the second failure: %+v", d)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	d = e.settled(t, acct, w.ID, 3)[0]
	if d.Status != lettershop.DeliverySucceeded || *d.StatusCode != 204 || d.Error != nil || d.NextAttemptAt != nil {
		t.Errorf("after the third attempt: %+v", d)
	}
	got := rcv.received()
	if len(got) != 3 || got[0].event.ID != got[2].event.ID {
		t.Errorf("%d requests, want 3 of one event", len(got))
	}
}

// An event first attempted long after it happened, the clock having been
// moved past it, is retried all the same: the period runs from that first
// attempt.
func TestWebhookRetriesAnEventFirstAttemptedLate(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	rcv.status = func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterReady)
	e.createLetterIn(t, acct)
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, 30*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	now := testStart.Add(30 * 24 * time.Hour)
	d := e.settled(t, acct, w.ID, 1)[0]
	if d.Status != lettershop.DeliveryPending || !d.NextAttemptAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("after a failed first attempt, days after the event: %+v, want pending, retried in a minute", d)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := e.settled(t, acct, w.ID, 2)[0]; d.Status != lettershop.DeliverySucceeded {
		t.Errorf("after the retry: %+v", d)
	}
}

// A delivery that never succeeds is given up after three days on the
// clock: failed, with the last answer.
func TestWebhookGivesUpAfterThreeDays(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	rcv.status = func(int) int { return http.StatusServiceUnavailable }
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	attempts := 1
	for {
		d := e.settled(t, acct, w.ID, attempts)[0]
		if d.Status == lettershop.DeliveryFailed {
			if d.NextAttemptAt != nil || *d.StatusCode != 503 || d.LastAttemptAt.After(testStart.Add(lettershop.WebhookRetryPeriod)) {
				t.Errorf("failed delivery %+v", d)
			}
			break
		}
		if attempts > 20 {
			t.Fatalf("still pending after %d attempts: %+v", attempts, d)
		}
		if _, err := e.svc.SetAccountClock(e.ctx, acct, *d.NextAttemptAt); err != nil {
			t.Fatal(err)
		}
		attempts++
	}
	if attempts != 11 {
		t.Errorf("%d attempts in three days, want 11", attempts)
	}
	if n := len(rcv.received()); n != attempts {
		t.Errorf("%d requests for %d attempts", n, attempts)
	}
}

func TestWebhookURLs(t *testing.T) {
	e := newEnv(t)
	for _, u := range []string{
		"", "ftp://example.com/hooks", "example.com/hooks", "/hooks", "https://", "https://example.com/hooks#frag",
		"https://example.com/" + strings.Repeat("a", lettershop.MaxWebhookURL), "https://exa\x00mple.com/", "go:wh_1", "mailto:a@example.com",
		"https://example.com:0/hooks", "https://example.com:65536/hooks", "https://example.com:99999999999/hooks",
		"https://example.com/hooks ", "https://example.com/ho oks",
	} {
		_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: u})
		wantFields(t, err, "url")
	}
	_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks",
		Events: []lettershop.WebhookEventType{"letter.lost", lettershop.WebhookLetterMailed, lettershop.WebhookLetterMailed}})
	wantFields(t, err, "events[0]", "events[2]")
	_, err = e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks",
		Description: strings.Repeat("d", lettershop.MaxWebhookDescription+1)})
	wantFields(t, err, "description")
	for _, port := range []string{"1", "65535"} {
		if _, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com:" + port + "/hooks%20x"}); err != nil {
			t.Errorf("port %s: %v", port, err)
		}
	}
	longest := "https://example.com/" + strings.Repeat("a", lettershop.MaxWebhookURL-len("https://example.com/"))
	if _, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: longest,
		Description: strings.Repeat("d", lettershop.MaxWebhookDescription)}); err != nil {
		t.Errorf("the longest url and description: %v", err)
	}
	page, err := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{})
	if err != nil || len(page.Items) != 3 {
		t.Errorf("webhooks after refusals: %v, %v; want the three made", page.Items, err)
	}
}

// A disabled webhook gets no events; enabled again, it gets those made
// after, and those it had pending.
func TestWebhookDisabled(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterCreated, lettershop.WebhookLetterCanceled)
	off := lettershop.WebhookDisabled
	if _, err := e.svc.UpdateWebhook(e.ctx, acct, w.ID, lettershop.UpdateWebhookInput{Status: &off}); err != nil {
		t.Fatal(err)
	}
	first := e.createLetterIn(t, acct)
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := len(rcv.received()); n != 0 || len(e.deliveriesOf(t, acct, w.ID)) != 0 {
		t.Fatalf("a disabled webhook got %d requests", n)
	}
	on := lettershop.WebhookEnabled
	if _, err := e.svc.UpdateWebhook(e.ctx, acct, w.ID, lettershop.UpdateWebhookInput{Status: &on}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CancelLetter(e.ctx, acct, first.ID); err != nil {
		t.Fatal(err)
	}
	got := rcv.waitReceived(t, 1)
	if got[0].event.Type != lettershop.WebhookLetterCanceled || got[0].event.Data.Object.ID != first.ID {
		t.Errorf("after enabling: %s of %s", got[0].event.Type, got[0].event.Data.Object.ID)
	}
}

// Another account's webhooks are not found, and its letters' events do not
// reach them.
func TestWebhookOtherAccounts(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	w := e.createWebhook(t, acct, rcv.URL)
	const other = "acct_other"
	_, err := e.svc.GetWebhook(e.ctx, other, w.ID)
	wantCode(t, err, lettershop.CodeNotFound)
	_, err = e.svc.UpdateWebhook(e.ctx, other, w.ID, lettershop.UpdateWebhookInput{Description: str("x")})
	wantCode(t, err, lettershop.CodeNotFound)
	wantCode(t, e.svc.DeleteWebhook(e.ctx, other, w.ID), lettershop.CodeNotFound)
	_, err = e.svc.ListDeliveries(e.ctx, other, w.ID, lettershop.ListDeliveriesInput{})
	wantCode(t, err, lettershop.CodeNotFound)
	e.createLetterIn(t, other)
	mine := e.createLetterIn(t, acct)
	rcv.waitReceived(t, 1)
	time.Sleep(20 * time.Millisecond)
	if got := rcv.received(); len(got) != 1 || got[0].event.Data.Object.ID != mine.ID {
		t.Errorf("requests %d, want only this account's letter's", len(got))
	}
	d := e.settled(t, acct, w.ID, 1)[0]
	_, err = e.svc.GetDelivery(e.ctx, other, w.ID, d.ID)
	wantCode(t, err, lettershop.CodeNotFound)
	_, err = e.svc.RetryDelivery(e.ctx, other, w.ID, d.ID)
	wantCode(t, err, lettershop.CodeNotFound)
}

func TestWebhookCRUD(t *testing.T) {
	e := newEnv(t)
	created, err := e.svc.CreateWebhook(lettershop.WithIdempotencyKey(e.ctx, "wh-1"), acct, lettershop.CreateWebhookInput{
		URL: "https://example.com/hooks", Description: "orders", Metadata: lettershop.Metadata{{Key: "team", Value: "billing"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	replay, err := e.svc.CreateWebhook(lettershop.WithIdempotencyKey(e.ctx, "wh-1"), acct, lettershop.CreateWebhookInput{
		URL: "https://example.com/hooks", Description: "orders", Metadata: lettershop.Metadata{{Key: "team", Value: "billing"}},
	})
	// The secret is shown once: the replay leaves it out, as a read does.
	if err != nil || replay.ID != created.ID || created.Secret == "" || replay.Secret != "" {
		t.Errorf("replay: %+v, %v; want the webhook %s without its secret", replay, err, created.ID)
	}
	got, err := e.svc.GetWebhook(e.ctx, acct, created.ID)
	if err != nil || got.Secret != "" || got.URL != created.URL || len(got.Events) != 0 || got.Events == nil {
		t.Fatalf("GetWebhook: %+v, %v; want it without its secret, events empty", got, err)
	}
	// Sent back as fetched, with one change.
	u := lettershop.UpdateWebhookInput{ID: &got.ID, CreatedAt: &got.CreatedAt, ModifiedAt: &got.ModifiedAt,
		URL: str("https://example.com/v2"), Events: &[]lettershop.WebhookEventType{lettershop.WebhookLetterMailed}}
	e.clock.Add(time.Minute)
	upd, err := e.svc.UpdateWebhook(e.ctx, acct, created.ID, u)
	if err != nil || upd.URL != "https://example.com/v2" || !slices.Equal(upd.Events, []lettershop.WebhookEventType{lettershop.WebhookLetterMailed}) ||
		!upd.ModifiedAt.Equal(testStart.Add(time.Minute)) {
		t.Fatalf("UpdateWebhook: %+v, %v", upd, err)
	}
	_, err = e.svc.UpdateWebhook(e.ctx, acct, created.ID, lettershop.UpdateWebhookInput{ID: str("wh_other"), Secret: str("whsec_guess"),
		URL: str("ftp://x"), Status: ptrTo(lettershop.WebhookStatus("paused"))})
	wantFields(t, err, "status")
	_, err = e.svc.UpdateWebhook(e.ctx, acct, created.ID, lettershop.UpdateWebhookInput{ID: str("wh_other"), Secret: str("whsec_guess"), URL: str("ftp://x")})
	wantFields(t, err, "id", "secret", "url")
	if !strings.Contains(fieldsOf(t, err)["secret"], "read-only") || strings.Contains(fieldsOf(t, err)["secret"], created.Secret) {
		t.Errorf("secret message %q", fieldsOf(t, err)["secret"])
	}
	same, err := e.svc.UpdateWebhook(e.ctx, acct, created.ID, lettershop.UpdateWebhookInput{Secret: &created.Secret, URL: &upd.URL})
	if err != nil || !same.ModifiedAt.Equal(upd.ModifiedAt) {
		t.Errorf("an update changing nothing: %+v, %v", same, err)
	}

	for i := 1; i < lettershop.MaxWebhooks; i++ {
		e.createWebhook(t, acct, fmt.Sprintf("https://example.com/%d", i))
	}
	_, err = e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/one-more"})
	wantCode(t, err, lettershop.CodeConflict)
	page, err := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{PageRequest: lettershop.PageRequest{PageSize: 10}})
	if err != nil || len(page.Items) != 10 || page.NextToken == "" || page.Items[9].ID != func() string {
		p, _ := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{PageRequest: lettershop.PageRequest{PageSize: 100}})
		return p.Items[9].ID
	}() {
		t.Fatalf("first page: %d, %v", len(page.Items), err)
	}
	rest, err := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{PageRequest: lettershop.PageRequest{PageSize: 10, NextToken: page.NextToken}})
	if err != nil || len(rest.Items) != 6 || rest.Items[5].ID != created.ID {
		t.Errorf("second page: %d, %v", len(rest.Items), err)
	}
	if err := e.svc.DeleteWebhook(e.ctx, acct, created.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.GetWebhook(e.ctx, acct, created.ID)
	wantCode(t, err, lettershop.CodeNotFound)
	wantCode(t, e.svc.DeleteWebhook(e.ctx, acct, created.ID), lettershop.CodeNotFound)
	_, err = e.svc.GetWebhook(e.ctx, acct, "ltr_1")
	wantFields(t, err, "id")
}

func ptrTo[T any](v T) *T { return &v }

// A failed delivery retried by hand is attempted again at once.
func TestRetryDelivery(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	fail := true
	var mu sync.Mutex
	rcv.status = func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return http.StatusBadGateway
		}
		return http.StatusOK
	}
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	d := e.settled(t, acct, w.ID, 1)[0]
	mu.Lock()
	fail = false
	mu.Unlock()
	_, err := e.svc.RetryDelivery(e.ctx, acct, w.ID, "dlv_none")
	wantCode(t, err, lettershop.CodeNotFound)
	_, err = e.svc.RetryDelivery(e.ctx, acct, w.ID, "evt_1")
	wantFields(t, err, "deliveryId")
	r, err := e.svc.RetryDelivery(e.ctx, acct, w.ID, d.ID)
	if err != nil || r.Status != lettershop.DeliveryPending || !r.NextAttemptAt.Equal(testStart) {
		t.Fatalf("RetryDelivery: %+v, %v", r, err)
	}
	d = e.settled(t, acct, w.ID, 2)[0]
	if d.Status != lettershop.DeliverySucceeded {
		t.Errorf("after a retry by hand: %+v", d)
	}
}

// A function of the process can take a webhook's events, with retries.
func TestSubscribeFunc(t *testing.T) {
	e := newEnv(t)
	var (
		mu    sync.Mutex
		calls []lettershop.WebhookEventType
	)
	w, err := e.svc.SubscribeFunc(e.ctx, acct, []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookLetterCanceled},
		func(_ context.Context, ev *lettershop.WebhookEvent, body []byte) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, ev.Type)
			if len(calls) == 1 {
				return errors.New("not yet")
			}
			if !strings.Contains(string(body), ev.ID) {
				return errors.New("body without the event")
			}
			return nil
		})
	if err != nil || !strings.HasPrefix(w.URL, "go:") {
		t.Fatalf("SubscribeFunc: %+v, %v", w, err)
	}
	l := e.createLetterIn(t, acct)
	if _, err := e.svc.CancelLetter(e.ctx, acct, l.ID); err != nil {
		t.Fatal(err)
	}
	d := e.settled(t, acct, w.ID, 1)
	if len(d) != 2 || d[1].Status != lettershop.DeliveryPending || !strings.Contains(*d[1].Error, "not yet") {
		t.Fatalf("after the function failed: %+v", d)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	e.settled(t, acct, w.ID, 3)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(calls, []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookLetterCreated, lettershop.WebhookLetterCanceled}) {
		t.Errorf("calls %v: the canceled event must wait for the created one", calls)
	}
}

// The events of many letters, posted by several workers at once, reach the
// receiver each letter's in order.
func TestWebhookOrderPerLetter(t *testing.T) {
	e := newEnv(t, lettershop.WithDeliverer(delivery.OpenWith(delivery.WithPerAccount(4))))
	rcv := newReceiver(t)
	rcv.delay = time.Millisecond
	e.createWebhook(t, acct, rcv.URL)
	a, _ := e.publishedTemplate(t, acct)
	var letters []string
	for range 6 {
		l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
		if err != nil {
			t.Fatal(err)
		}
		letters = append(letters, l.ID)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acct, 10*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, id := range letters {
		want += len(e.letterIn(t, acct, id).Events)
	}
	got := rcv.waitReceived(t, want)
	seen := map[string]int{}
	for _, r := range got {
		id := r.event.Data.Object.ID
		if n := len(r.event.Data.Object.Events); n != seen[id]+1 {
			t.Fatalf("letter %s: event with %d events after %d", id, n, seen[id])
		}
		seen[id]++
	}
}

// A letter moved through every step at one instant (as Simulate moves it)
// has its deliveries listed newest first all the same: the delivered one
// first, the created one last.
func TestDeliveriesOfOneInstantNewestFirst(t *testing.T) {
	e := newEnv(t)
	w := e.createWebhook(t, acct, newReceiver(t).URL)
	for range 4 {
		l := e.createLetterIn(t, acct)
		moved, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Event: lettershop.EventDelivered})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, ev := range slices.Backward(moved.Events) {
			want = append(want, ev.ID)
		}
		var got []string
		for _, d := range e.deliveriesOf(t, acct, w.ID) {
			if d.LetterID == l.ID {
				got = append(got, d.EventID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("letter %s: deliveries of events %v, want newest first %v", l.ID, got, want)
		}
	}
}

// What a delivery keeps of a failed attempt's error is text, and short: a
// function's error may be neither.
func TestWebhookErrorKept(t *testing.T) {
	e := newEnv(t)
	long := "no\x00t \xffnow: " + strings.Repeat("é", 3000)
	w, err := e.svc.SubscribeFunc(e.ctx, acct, []lettershop.WebhookEventType{lettershop.WebhookLetterCreated},
		func(context.Context, *lettershop.WebhookEvent, []byte) error { return errors.New(long) })
	if err != nil {
		t.Fatal(err)
	}
	e.createLetterIn(t, acct)
	d := e.settled(t, acct, w.ID, 1)[0]
	if d.Error == nil || !strings.HasPrefix(*d.Error, "the function failed: no\uFFFDt \uFFFDnow: éé") || len(*d.Error) > 1100 ||
		!utf8.ValidString(*d.Error) {
		t.Errorf("error kept: %.80q (%d bytes)", *d.Error, len(*d.Error))
	}
}

// dueCounter counts the calls for due deliveries: for the accounts with
// some, and for an account's.
type dueCounter struct {
	storage.Storage
	calls atomic.Int32
}

func (c *dueCounter) ProcessDueDeliveries(ctx context.Context, q storage.DeliveryDueQuery, fn func(*storage.Delivery) error) ([]storage.Delivery, error) {
	c.calls.Add(1)
	return c.Storage.ProcessDueDeliveries(ctx, q, fn)
}

func (c *dueCounter) DeliveryAccounts(ctx context.Context, q storage.DeliveryAccountQuery) ([]storage.DeliveryAccount, error) {
	c.calls.Add(1)
	return c.Storage.DeliveryAccounts(ctx, q)
}

// wakeSpy is package delivery's Deliverer, counting its wakes.
type wakeSpy struct {
	lettershop.Deliverer
	wakes  atomic.Int32
	closed atomic.Bool
}

func (s *wakeSpy) open(d *lettershop.Deliveries) lettershop.Deliverer {
	s.Deliverer = delivery.Open(d)
	return s
}

func (s *wakeSpy) Wake() {
	s.wakes.Add(1)
	s.Deliverer.Wake()
}

func (s *wakeSpy) Close() {
	s.closed.Store(true)
	s.Deliverer.Close()
}

// Letter writes in an account without webhooks, on a test clock, cost the
// deliveries nothing: their loop is not woken, and the store is not asked
// for due deliveries.
func TestLetterWritesWithoutWebhooksWakeNothing(t *testing.T) {
	st := &dueCounter{Storage: memstore.New()}
	mc := clock.NewMock()
	mc.Set(testStart)
	spy := &wakeSpy{}
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(1))), lettershop.WithDeliverer(spy.open))
	e := &env{svc: svc, clock: mc, ctx: context.Background()}
	l := e.createLetterIn(t, acct)
	if _, err := svc.CancelLetter(e.ctx, acct, l.ID); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	if n, woken := st.calls.Load(), spy.wakes.Load(); n != 0 || woken != 0 || !spy.closed.Load() {
		t.Errorf("a create and a cancel without webhooks: %d looks for due deliveries, woken %d times, closed %v; want none, and closed",
			n, woken, spy.closed.Load())
	}
}

// A Service with no webhooks does no webhook work when clocks move: the
// Service's clock and accounts' own clocks moved, set and frozen, letters
// moving with them along their lives, ask the store nothing of deliveries
// and start no engine. Once a webhook is made, a clock moved does.
func TestClockMovesWithoutWebhooksDoNoWebhookWork(t *testing.T) {
	st := &dueCounter{Storage: memstore.New()}
	mc := clock.NewMock()
	mc.Set(testStart)
	spy := &wakeSpy{}
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(1))), lettershop.WithDeliverer(spy.open))
	t.Cleanup(func() { svc.Close() })
	e := &env{svc: svc, clock: mc, ctx: context.Background()}
	var moved *lettershop.Letter
	for i := range 20 {
		a := fmt.Sprintf("acct_%02d", i)
		if l := e.createLetterIn(t, a); i == 1 {
			moved = l
		}
		if _, err := svc.AdvanceAccountClock(e.ctx, a, time.Duration(i)*time.Hour); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := svc.FreezeAccountClock(e.ctx, a, true); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.SetAccountClock(e.ctx, a, testStart.Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		if _, err := svc.AdvanceClock(e.ctx, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if l := e.letterIn(t, "acct_01", moved.ID); l.Status != lettershop.StatusMailed {
		t.Fatalf("the letters did not move: %s", l.Status)
	}
	if n, woken := st.calls.Load(), spy.wakes.Load(); n != 0 || woken != 0 {
		t.Fatalf("clock moves without webhooks: %d looks for due deliveries, the deliverer woken %d times; want none",
			n, woken)
	}
	e.createWebhook(t, "acct_01", "https://example.com/hooks")
	if _, err := svc.AdvanceClock(e.ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a look for due deliveries once a webhook exists", func() bool { return st.calls.Load() > 0 })
}

// Creates arriving at once never take an account past MaxWebhooks: as many
// succeed as fit, the rest are a conflict, and another account is not
// counted against it.
func TestWebhookLimitUnderConcurrentCreates(t *testing.T) {
	e := newEnv(t)
	e.createWebhook(t, "acct_other", "https://example.com/other")
	const tries = 2 * lettershop.MaxWebhooks
	errs := make(chan error, tries)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: fmt.Sprintf("https://example.com/%d", i)})
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	made := 0
	for err := range errs {
		if err == nil {
			made++
			continue
		}
		wantCode(t, err, lettershop.CodeConflict)
	}
	page, err := e.svc.ListWebhooks(e.ctx, acct, lettershop.ListWebhooksInput{PageRequest: lettershop.PageRequest{PageSize: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if made != lettershop.MaxWebhooks || len(page.Items) != lettershop.MaxWebhooks {
		t.Errorf("%d creates at once: %d made, %d stored; want %d", tries, made, len(page.Items), lettershop.MaxWebhooks)
	}
}

// idleDeliverer keeps a Service's Deliveries and sends nothing, for a test
// that takes the deliveries itself.
type idleDeliverer struct{ d *lettershop.Deliveries }

func (i *idleDeliverer) open(d *lettershop.Deliveries) lettershop.Deliverer { i.d = d; return i }
func (*idleDeliverer) Wake()                                                {}
func (*idleDeliverer) Close()                                               {}

// On a store two Services share, either may take a delivery of a webhook
// SubscribeFunc made in the other, whose function it does not hold: the
// error its attempt records says so, rather than that the process has ended.
func TestSubscribeFuncOfAnotherService(t *testing.T) {
	var da, db idleDeliverer
	a := newEnv(t, lettershop.WithDeliverer(da.open))
	b := newEnvOn(t, a.store, a.clock, lettershop.WithDeliverer(db.open))
	if _, err := a.svc.SubscribeFunc(a.ctx, acct, nil, func(context.Context, *lettershop.WebhookEvent, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	a.createLetterIn(t, acct)
	taken, err := db.d.Take(b.ctx, lettershop.TakeRequest{Account: acct, Limit: 10, Lease: time.Minute})
	if err != nil || len(taken) != 1 {
		t.Fatalf("Take: %d attempts, %v", len(taken), err)
	}
	_, _, err = taken[0].Event(b.ctx)
	if err == nil || !strings.Contains(err.Error(), "another Service") || strings.Contains(err.Error(), "process that has ended") {
		t.Errorf("attempt of another Service's function: %v", err)
	}
}
