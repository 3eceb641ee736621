package lettershoptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/await"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/webhook"
)

// Receiver is a webhook receiver for a test: a local HTTP server, and a
// webhook of the account that posts to it, signing with the account's
// WebhookSecret. It checks every request's signature, keeps the events
// taken, and answers 200 (NewReceiver) or as the test's own handler does
// (ServeWebhooks), unless FailNext says otherwise. It stops when the test
// ends.
type Receiver struct {
	// URL is where the receiver listens.
	URL string
	// Webhook is the account's webhook that posts to it, with its secret.
	Webhook *client.Webhook

	a *Account
	// h is the test's own handler, nil for none.
	h http.Handler
	// made is closed once Webhook is set (or could not be): a letter of
	// the account written meanwhile may post before NewReceiver returns.
	made   chan struct{}
	mu     sync.Mutex
	events []client.WebhookEvent
	bad    []string
	fails  []int
	notify chan struct{}
	// stopped ends when the receiver's test does, before its server
	// closes: the request a handler is still at work on ends with it, so
	// that a handler waiting on its context does not hold the test's end
	// until the attempt times out.
	stopped context.Context
	stop    context.CancelFunc
}

// NewReceiver starts a receiver and makes a webhook of the account posting
// to it, for the event types given (every type when none). It takes every
// event it is sent, answering 200.
func (a *Account) NewReceiver(events ...client.WebhookEventType) *Receiver {
	a.t.Helper()
	return a.newReceiver(nil, events)
}

// ServeWebhooks tests a webhook handler of the test's own: it serves h on
// a local URL and makes a webhook of the account posting there, for the
// event types given (every type when none), signed with the account's
// WebhookSecret, which h is built with. Every request is passed to h as
// it came, once its signature checked; an event counts as taken (Events,
// WaitFor) when h answers it with a 2xx. An answer of h that is not a
// 2xx fails the attempt, which the server retries on the account's clock,
// as it would the application's. When the test ends, the request h may
// still be at work on has its context ended, so that a handler waiting on
// it lets the test end at once rather than when the attempt times out.
//
//	h := myapp.WebhookHandler(acct.WebhookSecret)
//	rcv := acct.ServeWebhooks(h, client.WebhookLetterDelivered)
//	id := myapp.SendWelcome(ctx, acct.Client(), "Jane")
//	acct.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
//	rcv.WaitFor(client.WebhookLetterDelivered, id, 5*time.Second)
func (a *Account) ServeWebhooks(h http.Handler, events ...client.WebhookEventType) *Receiver {
	a.t.Helper()
	if h == nil {
		a.t.Fatalf("lettershoptest: ServeWebhooks needs a handler")
	}
	return a.newReceiver(h, events)
}

func (a *Account) newReceiver(h http.Handler, events []client.WebhookEventType) *Receiver {
	a.t.Helper()
	r := &Receiver{a: a, h: h, made: make(chan struct{}), notify: make(chan struct{}, 1)}
	defer close(r.made)
	hs := r.listen()
	types := make([]lettershop.WebhookEventType, len(events))
	for i, e := range events {
		types[i] = lettershop.WebhookEventType(e)
	}
	w, err := a.c.svc.CreateWebhook(context.Background(), a.ID, lettershop.CreateWebhookInput{
		URL: hs.URL, Events: types, Secret: a.WebhookSecret,
	})
	if err != nil {
		a.t.Fatalf("lettershoptest: make a webhook: %v", err)
	}
	var cw client.Webhook
	asWire(a.t, w, &cw)
	r.Webhook = &cw
	return r
}

// listen starts r's server, stopped and forgotten when its account's
// test ends.
func (r *Receiver) listen() *httptest.Server {
	r.stopped, r.stop = context.WithCancel(context.Background())
	hs := httptest.NewServer(http.HandlerFunc(r.serve))
	c := r.a.c
	cleanup(r.a.t, func() { r.stop(); c.receivers.Delete(hs.URL); c.closeDeliveryConns(); closeClientsFirst(hs) })
	r.URL = hs.URL
	c.receivers.Store(hs.URL, true)
	return hs
}

// receiveRestored points each webhook of snap that posted to a Receiver
// (the fixture's) at a new Receiver of the account, which checks the
// webhook's own secret: restored into many accounts, the webhook would
// otherwise post every account's events to the fixture's receiver.
func (a *Account) receiveRestored(snap *snapshot.Snapshot, ids map[string]string) {
	a.t.Helper()
	for _, w := range snap.Webhooks {
		if _, ok := a.c.receivers.Load(w.URL); !ok {
			continue
		}
		r := &Receiver{a: a, made: make(chan struct{}), notify: make(chan struct{}, 1)}
		url := r.listen().URL
		wh, err := a.c.svc.UpdateWebhook(context.Background(), a.ID, ids[w.ID], lettershop.UpdateWebhookInput{URL: &url})
		if err != nil {
			close(r.made)
			a.t.Fatalf("lettershoptest: point restored webhook %s at a receiver of %s: %v", ids[w.ID], a.ID, err)
		}
		var cw client.Webhook
		asWire(a.t, wh, &cw)
		cw.Secret = w.Secret
		r.Webhook = &cw
		close(r.made)
		restored, id := &a.c.restored, cw.ID
		restored.Store(id, r)
		cleanup(a.t, func() { restored.Delete(id) })
	}
}

// Receiver returns the receiver of a webhook the account restored from a
// snapshot whose webhook posted to a Receiver (one NewReceiver or
// ServeWebhooks made in the fixture's account): Restore points such a
// webhook at a receiver of the account's own, so that each account that
// restores the snapshot gets its own events, and the fixture's receiver
// none of them. Give it the webhook's id in the account, ids[fixtureID]:
//
//	rcv := fix.NewReceiver(client.WebhookLetterDelivered) // in the fixture
//	...
//	ids := acct.Restore(snap)
//	acct.Receiver(ids[rcv.Webhook.ID]).WaitFor(client.WebhookLetterDelivered, ids[letterID], 5*time.Second)
//
// The receiver takes every event, answering 200; a test's own handler of
// the fixture is not carried over. A webhook the account has no such
// receiver of fails the test.
func (a *Account) Receiver(webhookID string) *Receiver {
	a.t.Helper()
	if v, ok := a.c.restored.Load(webhookID); ok && v.(*Receiver).a.ID == a.ID {
		return v.(*Receiver)
	}
	a.t.Fatalf("lettershoptest: account %s has no receiver of webhook %q: Receiver takes a webhook Restore pointed at a receiver, by its id in the account (ids[fixtureWebhookID])", a.ID, webhookID)
	return nil
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	<-r.made
	if r.Webhook == nil {
		http.Error(w, "no webhook", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	// Every answer, whichever way the handler left, wakes the waiters.
	defer r.wake()
	if err == nil {
		err = webhook.Verify(r.Webhook.Secret, req.Header.Get(webhook.SignatureHeader), body, 5*time.Minute)
	}
	var e client.WebhookEvent
	if err == nil {
		err = json.Unmarshal(body, &e)
	}
	if err != nil {
		r.mu.Lock()
		r.bad = append(r.bad, err.Error())
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if status, ok := r.nextFail(); ok {
		w.WriteHeader(status)
		return
	}
	if r.h != nil {
		// The test's handler gets the request as it came, and is not
		// called under the lock: it may take its time, or read Events.
		// No lock is held, or to be released, while it runs, so that a
		// handler that panics or ends its goroutine (t.FailNow) leaves
		// the receiver working.
		ctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		defer context.AfterFunc(r.stopped, cancel)()
		req = req.WithContext(ctx)
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusWriter{ResponseWriter: w}
		r.h.ServeHTTP(rec, req)
		if rec.status() < 200 || rec.status() > 299 {
			return
		}
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// nextFail takes the status FailNext set for the next delivery, if any.
func (r *Receiver) nextFail() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fails) == 0 {
		return 0, false
	}
	status := r.fails[0]
	r.fails = r.fails[1:]
	return status, true
}

// wake tells a waiter that the receiver was posted to.
func (r *Receiver) wake() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// statusWriter notes the status a handler answers with.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// FailNext answers the next n requests with status (a 500, say) instead of
// taking their events, so a test sees its code cope with retries.
func (r *Receiver) FailNext(n, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for range n {
		r.fails = append(r.fails, status)
	}
}

// Events returns the events taken so far, in the order they came.
func (r *Receiver) Events() []client.WebhookEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// WaitFor waits until an event of type typ has come for the letter
// (any letter when letterID is ""), and returns the first such, once the
// server has recorded the attempt that brought it (Deliveries then shows
// it succeeded); if within
// passes on the wall clock first, or a request came unsigned or with a
// signature that does not check, the test fails. The events come from the
// server's workers as they post them. When the only way forward is a
// retry (an attempt failed, none is under way, and the webhook's next
// attempt is later on the account's clock), WaitFor moves the account's
// clock to it, as WaitForStatus moves it to a letter's next step; events
// that need a letter to move need the clock moved first (WaitForStatus,
// Advance).
func (r *Receiver) WaitFor(typ client.WebhookEventType, letterID string, within time.Duration) client.WebhookEvent {
	r.a.t.Helper()
	deadline := time.Now().Add(within)
	for {
		r.mu.Lock()
		bad := slices.Clone(r.bad)
		i := slices.IndexFunc(r.events, func(e client.WebhookEvent) bool {
			return e.Type == typ && (letterID == "" || e.Data.Object.ID == letterID)
		})
		var e client.WebhookEvent
		if i >= 0 {
			e = r.events[i]
		}
		r.mu.Unlock()
		switch {
		case len(bad) > 0:
			r.a.t.Fatalf("lettershoptest: the receiver got a request it refused: %s", bad[0])
			return client.WebhookEvent{}
		case i >= 0:
			r.recorded(e.ID, deadline)
			return e
		case time.Now().After(deadline):
			why := r.notThere(typ, letterID)
			r.a.t.Fatalf("lettershoptest: no %s event%s within %s%s; the receiver has %s", typ, forLetter(letterID), within, why, r.describe(why == ""))
			return client.WebhookEvent{}
		}
		select {
		case <-r.notify:
			continue
		default:
		}
		// Nothing came yet: once every delivery due has been attempted
		// and recorded, a retry may be all that is left; then move the
		// clock to it. Settling tells that at once, where waiting for
		// requests to stop coming took idleWait per failed attempt.
		_ = r.settle(deadline) // unsettled (a handler slow to answer), it is looked at again
		if r.taken(typ, letterID) {
			continue
		}
		if next, ok := r.nextRetry(); ok {
			r.a.Set(next)
			continue
		}
		// No retry is left to move to: the event needs the clock moved,
		// by this test's other goroutines or another's move of a shared
		// clock.
		select {
		case <-r.notify:
		case <-time.After(idleWait):
		}
	}
}

// settle waits, no later than deadline, until every webhook delivery of
// the account due on its clock has been attempted and recorded (package
// await's Deliveries); an error says some were not by then.
func (r *Receiver) settle(deadline time.Time) error {
	within := min(time.Until(deadline), settleWithin)
	if within <= 0 {
		return context.DeadlineExceeded
	}
	return await.Deliveries(context.Background(), r.a.c.svc, r.a.ID, within)
}

// settleWithin bounds one settle of WaitFor, so that a handler slow to
// answer is looked at again, and the test's deadline checked, as often.
const settleWithin = time.Second

// taken reports whether an event of type typ has come for the letter
// (any letter when letterID is "").
func (r *Receiver) taken(typ client.WebhookEventType, letterID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.events, func(e client.WebhookEvent) bool {
		return e.Type == typ && (letterID == "" || e.Data.Object.ID == letterID)
	})
}

// recorded waits, until deadline on the wall clock, for the server to
// record the attempt that brought the event eventID: the receiver takes an
// event before its answer has reached the server, so without the wait a
// test that reads Deliveries right after WaitFor would find the delivery
// still pending, its attempt under way. Past the deadline it returns all
// the same: the event did come.
func (r *Receiver) recorded(eventID string, deadline time.Time) {
	for {
		settled := true
		for _, d := range r.Deliveries() {
			if d.EventID == eventID {
				settled = !underWay(d)
				break
			}
		}
		if settled || time.Now().After(deadline) {
			return
		}
		time.Sleep(recordPoll)
	}
}

// recordPoll is how often recorded reads the deliveries again.
const recordPoll = 2 * time.Millisecond

// underWay reports whether an attempt of d has been taken and not yet
// recorded: pending, with its next attempt no later than its last.
func underWay(d client.WebhookDelivery) bool {
	return d.Status == client.DeliveryPending && d.LastAttemptAt != nil &&
		(d.NextAttemptAt == nil || !d.NextAttemptAt.After(*d.LastAttemptAt))
}

// idleWait is how long WaitFor, with nothing due, waits for a request
// before it looks again.
const idleWait = 50 * time.Millisecond

// nextRetry returns the earliest next attempt of the webhook's pending
// deliveries, when no attempt is under way and it is later than the
// account's time.
func (r *Receiver) nextRetry() (time.Time, bool) {
	now := r.a.Now()
	var next time.Time
	for _, d := range r.Deliveries() {
		if d.Status != client.DeliveryPending || d.NextAttemptAt == nil {
			continue
		}
		if underWay(d) {
			return time.Time{}, false
		}
		if d.NextAttemptAt.After(now) && (next.IsZero() || d.NextAttemptAt.Before(next)) {
			next = *d.NextAttemptAt
		}
	}
	return next, !next.IsZero()
}

// notThere says, for a WaitFor that failed, that the letter has not yet
// got where the event tells of, and what moves it there; "" when it has,
// or no letter was named.
func (r *Receiver) notThere(typ client.WebhookEventType, letterID string) string {
	if letterID == "" || typ == client.WebhookLetterCreated {
		return ""
	}
	l, err := r.a.c.svc.GetLetter(context.Background(), r.a.ID, letterID)
	if err != nil {
		return fmt.Sprintf(" (letter %s: %v)", letterID, err)
	}
	for _, e := range l.Events {
		if client.WebhookEventType("letter."+string(e.Status)) == typ {
			return ""
		}
	}
	return fmt.Sprintf(": the letter is %s and has not got there; WaitFor moves the clock only to a webhook's retries: "+
		"move the letter first (WaitForStatus, WaitForEvent, Advance, Force)", l.Status)
}

func forLetter(id string) string {
	if id == "" {
		return ""
	}
	return " of letter " + id
}

// describe lists the events the receiver took; with hint, and none taken,
// it says when a webhook gets events.
func (r *Receiver) describe(hint bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 && !hint {
		return "no events"
	}
	if len(r.events) == 0 {
		return "no events (a webhook gets the events of changes made after it was made: make the receiver before the letter moves)"
	}
	var types []string
	for _, e := range r.events {
		types = append(types, string(e.Type))
	}
	return fmt.Sprint(types)
}

// Deliveries returns the deliveries of the receiver's webhook, newest
// first: what was attempted, how often, and with what outcome.
func (r *Receiver) Deliveries() []client.WebhookDelivery {
	r.a.t.Helper()
	var out []client.WebhookDelivery
	in := lettershop.ListDeliveriesInput{PageRequest: lettershop.PageRequest{PageSize: lettershop.MaxPageSize}}
	for {
		p, err := r.a.c.svc.ListDeliveries(context.Background(), r.a.ID, r.Webhook.ID, in)
		if err != nil {
			r.a.t.Fatalf("lettershoptest: list deliveries: %v", err)
		}
		for _, d := range p.Items {
			var cd client.WebhookDelivery
			asWire(r.a.t, d, &cd)
			out = append(out, cd)
		}
		if p.NextToken == "" {
			return out
		}
		in.NextToken = p.NextToken
	}
}

// SettleWebhooks waits until every webhook delivery of the account that is
// due on its clock has been attempted and how it went recorded (package
// await's Deliveries): an event a receiver did not get by then was not
// sent, so a test shows that nothing was sent without a sleep. It does not
// move the clock; deliveries still due after 30 seconds fail the test.
func (a *Account) SettleWebhooks() {
	a.t.Helper()
	if err := await.Deliveries(context.Background(), a.c.svc, a.ID, 30*time.Second); err != nil {
		a.t.Fatalf("lettershoptest: %v", err)
	}
}
