package lettershop_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
)

// handDeliverer is a Deliverer of a test's own: it counts its wakes, and
// the test takes and records the deliveries by hand, as a deliverer
// running a queue of its own would.
type handDeliverer struct {
	d      *lettershop.Deliveries
	wakes  atomic.Int32
	closed atomic.Bool
}

func (h *handDeliverer) open(d *lettershop.Deliveries) lettershop.Deliverer {
	h.d = d
	return h
}

func (h *handDeliverer) Wake()  { h.wakes.Add(1) }
func (h *handDeliverer) Close() { h.closed.Store(true) }

// take takes the account's due deliveries, failing unless there are want.
func (h *handDeliverer) take(t *testing.T, account string, want int) []*lettershop.DeliveryAttempt {
	t.Helper()
	attempts, err := h.d.Take(context.Background(), lettershop.TakeRequest{Account: account, Limit: 10, Lease: time.Minute})
	if err != nil || len(attempts) != want {
		t.Fatalf("Take: %d attempts, %v; want %d", len(attempts), err, want)
	}
	return attempts
}

// A Deliverer of one's own finds the due deliveries, takes them under a
// lease, reads each one's event and target, and records how each attempt
// went: a failure is retried after the delay it gives, until the retry
// period ends, and the Service's hook hears of each outcome.
func TestDelivererOfOnesOwn(t *testing.T) {
	wall := clock.NewMock()
	wall.Set(testStart)
	var mu sync.Mutex
	var outcomes []string
	hand := &handDeliverer{}
	e := newEnv(t, lettershop.WithDeliverer(hand.open), lettershop.WithWallClock(wall),
		lettershop.WithHooks(lettershop.Hooks{WebhookAttempt: func(outcome string, _ time.Duration) {
			mu.Lock()
			outcomes = append(outcomes, outcome)
			mu.Unlock()
		}}))
	w := e.createWebhook(t, acct, "https://hooks.example.com/in", lettershop.WebhookLetterCreated)
	if hand.wakes.Load() != 0 {
		t.Errorf("woken %d times before any delivery", hand.wakes.Load())
	}
	l := e.createLetterIn(t, acct)
	if hand.wakes.Load() == 0 {
		t.Fatalf("a letter that made a delivery did not wake the deliverer")
	}
	ctx := context.Background()
	if due, err := delivery.Due(ctx, hand.d); err != nil || !slices.Equal(due, []string{acct}) {
		t.Fatalf("Due = %v, %v; want %s", due, err, acct)
	}

	a := hand.take(t, acct, 1)[0]
	if a.Account != acct || a.WebhookID != w.ID || a.Attempt != 1 {
		t.Errorf("attempt %+v", a)
	}
	ev, target, err := a.Event(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != lettershop.WebhookLetterCreated || ev.Data.Object == nil || ev.Data.Object.ID != l.ID ||
		target.URL != w.URL || !strings.HasPrefix(target.Secret, "whsec_") || target.Func != nil {
		t.Errorf("event %+v to %+v", ev, target)
	}
	// Leased: not taken again until the lease passes; a take stops at a
	// delivery its caller says it still attempts.
	hand.take(t, acct, 0)
	wall.Add(time.Minute)
	busy := func(webhookID, deliveryID string) bool { return webhookID == a.WebhookID && deliveryID == a.DeliveryID }
	if got, err := hand.d.Take(ctx, lettershop.TakeRequest{Account: acct, Limit: 10, Lease: time.Minute, Busy: busy}); len(got) != 0 || err != nil {
		t.Fatalf("Take of a delivery under way: %d attempts, %v; want none", len(got), err)
	}
	if _, err := hand.d.Take(ctx, lettershop.TakeRequest{Account: acct, Limit: 10}); err == nil {
		t.Errorf("Take without a lease: no error")
	}
	a = hand.take(t, acct, 1)[0]
	if a.Attempt != 2 {
		t.Errorf("taken again: attempt %d, want 2", a.Attempt)
	}

	// A failure: retried after the delay given, on the account's clock.
	if err := a.Record(ctx, lettershop.AttemptOutcome{StatusCode: 503, Err: errors.New("the receiver answered 503"), RetryAfter: time.Minute}); err != nil {
		t.Fatal(err)
	}
	d := e.deliveriesOf(t, acct, w.ID)[0]
	if d.Status != lettershop.DeliveryPending || d.Attempt != 2 || *d.StatusCode != 503 || *d.Error != "the receiver answered 503" ||
		!d.NextAttemptAt.Equal(e.svc.AccountNow(acct).Add(time.Minute)) {
		t.Fatalf("after a failure: %+v", d)
	}
	hand.take(t, acct, 0)
	if _, err := e.svc.AdvanceAccountClock(ctx, acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	a = hand.take(t, acct, 1)[0]
	if err := a.Record(ctx, lettershop.AttemptOutcome{StatusCode: 204}); err != nil {
		t.Fatal(err)
	}
	if d := e.deliveriesOf(t, acct, w.ID)[0]; d.Status != lettershop.DeliverySucceeded || d.Attempt != 3 || *d.StatusCode != 204 || d.Error != nil {
		t.Fatalf("after a success: %+v", d)
	}

	// The retry period: a retry due at its end is made, one a nanosecond
	// later is not, and the delivery has failed.
	for _, over := range []time.Duration{0, time.Nanosecond} {
		l := e.createLetterIn(t, acct)
		a := hand.take(t, acct, 1)[0]
		if err := a.Record(ctx, lettershop.AttemptOutcome{Err: errors.New("no answer"), RetryAfter: lettershop.WebhookRetryPeriod + over}); err != nil {
			t.Fatal(err)
		}
		var d *lettershop.WebhookDelivery
		for _, x := range e.deliveriesOf(t, acct, w.ID) {
			if x.LetterID == l.ID {
				d = x
			}
		}
		want := lettershop.DeliveryPending
		if over > 0 {
			want = lettershop.DeliveryFailed
		}
		if d == nil || d.Status != want || d.StatusCode != nil {
			t.Errorf("retry %v after the period's end: %+v, want %s", over, d, want)
		}
	}
	mu.Lock()
	if want := []string{"retry", "succeeded", "retry", "failed"}; !slices.Equal(outcomes, want) {
		t.Errorf("the hook heard %v, want %v", outcomes, want)
	}
	mu.Unlock()
	e.svc.Close()
	if !hand.closed.Load() {
		t.Errorf("Close did not close the deliverer")
	}
}

// A retry falls due on the clock, with no letter moving: a test that moves
// its clock.Mock itself and then reads (every read catches up first) has
// the Deliverer woken for it, once per move; a read on a clock that has not
// moved wakes nothing.
func TestReadAfterAMockMoveWakesTheDeliverer(t *testing.T) {
	hand := &handDeliverer{}
	e := newEnv(t, lettershop.WithDeliverer(hand.open))
	w := e.createWebhook(t, acct, "https://hooks.example.com/in", lettershop.WebhookLetterCreated)
	l := e.createLetterIn(t, acct)
	ctx := context.Background()
	a := hand.take(t, acct, 1)[0]
	if err := a.Record(ctx, lettershop.AttemptOutcome{Err: errors.New("no answer"), RetryAfter: time.Hour}); err != nil {
		t.Fatal(err)
	}
	read := func() {
		t.Helper()
		if _, err := e.svc.GetLetter(ctx, acct, l.ID); err != nil {
			t.Fatal(err)
		}
	}
	read()
	before := hand.wakes.Load()
	read()
	if got := hand.wakes.Load(); got != before {
		t.Errorf("a read on a clock that stood still woke the deliverer %d times", got-before)
	}
	e.clock.Add(time.Hour) // the retry is due; the letter is ready since 15:05, stored already
	if _, err := e.svc.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Hour) // nothing of the letter falls due: only the clock moved
	before = hand.wakes.Load()
	read()
	if got := hand.wakes.Load(); got != before+1 {
		t.Fatalf("a read after the clock moved woke the deliverer %d times, want once", got-before)
	}
	read()
	if got := hand.wakes.Load(); got != before+1 {
		t.Errorf("a second read at the same time woke it again")
	}
	hand.take(t, acct, 1)
	_ = w
}

// A function's webhook is sent to the function, which the target carries;
// once deleted, its deliveries go with it, and an attempt under way records
// nothing.
func TestDelivererOfOnesOwnFunc(t *testing.T) {
	hand := &handDeliverer{}
	e := newEnv(t, lettershop.WithDeliverer(hand.open))
	called := false
	w, err := e.svc.SubscribeFunc(e.ctx, acct, nil, func(context.Context, *lettershop.WebhookEvent, []byte) error {
		called = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.createLetterIn(t, acct)
	a := hand.take(t, acct, 1)[0]
	_, target, err := a.Event(e.ctx)
	if err != nil || target.Func == nil || target.URL != w.URL || target.Secret != "" {
		t.Fatalf("target %+v, %v: want the function", target, err)
	}
	if err := target.Func(e.ctx, nil, nil); err != nil || !called {
		t.Fatalf("the target's function is not the one subscribed")
	}
	if err := e.svc.DeleteWebhook(e.ctx, acct, w.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Record(e.ctx, lettershop.AttemptOutcome{}); err != nil {
		t.Errorf("Record after the webhook was deleted: %v", err)
	}
}

// A Service without a Deliverer records its events and sends none, and
// says so once; UseDeliverer gives it one, which finds what is due, and
// only the first: a Service keeps the Deliverer it has, and a closed one
// takes none.
func TestUseDeliverer(t *testing.T) {
	var logs bytes.Buffer
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	e := &env{svc: svc, clock: mc, ctx: context.Background()}
	rcv := newReceiver(t)
	w := e.createWebhook(t, acct, rcv.URL, lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	e.createLetterIn(t, acct)
	if n := strings.Count(logs.String(), "no Deliverer"); n != 1 {
		t.Errorf("the missing deliverer said %d times, want once:\n%s", n, logs.String())
	}
	if ds := e.deliveriesOf(t, acct, w.ID); len(ds) != 2 || ds[0].Attempt != 0 || ds[1].Attempt != 0 {
		t.Fatalf("deliveries without a deliverer: %+v", ds)
	}
	if !svc.UseDeliverer(delivery.Open) {
		t.Fatalf("UseDeliverer: a Service without one did not take it")
	}
	if svc.UseDeliverer(delivery.Open) {
		t.Errorf("UseDeliverer: a Service took a second one")
	}
	// The deliverer taken finds what waited, at once.
	rcv.waitReceived(t, 2)
	e.settled(t, acct, w.ID, 2)
	svc.Close()
	if svc.UseDeliverer(delivery.Open) {
		t.Errorf("UseDeliverer: a closed Service took one")
	}
}

// DueAccounts names the accounts a page at a time, in account order, with
// where the next page starts; delivery.Due reads them all.
func TestDueAccountsPages(t *testing.T) {
	hand := &handDeliverer{}
	e := newEnv(t, lettershop.WithDeliverer(hand.open))
	accounts := []string{"acct_a", "acct_b", "acct_c"}
	for _, a := range accounts {
		e.createWebhook(t, a, "https://hooks.example.com/in", lettershop.WebhookLetterCreated)
		e.createLetterIn(t, a)
	}
	ctx := context.Background()
	var got []string
	after := ""
	for pages := 1; ; pages++ {
		due, next, err := hand.d.DueAccounts(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, due...)
		if next == "" {
			if pages != 2 {
				t.Errorf("%d pages of 2 for 3 accounts, want 2", pages)
			}
			break
		}
		if next != due[len(due)-1] {
			t.Errorf("page %d ends at %s, want the next to start after its last, %s", pages, next, due[len(due)-1])
		}
		after = next
	}
	if !slices.Equal(got, accounts) {
		t.Errorf("pages named %v, want %v", got, accounts)
	}
	if all, err := delivery.Due(ctx, hand.d); err != nil || !slices.Equal(all, accounts) {
		t.Errorf("delivery.Due = %v, %v; want %v", all, err, accounts)
	}
}

// A retry is timed from the attempt, on the account's clock, not from when
// its outcome was recorded: a test that moves the clock by the backoff once
// its receiver has answered (the record may still be on its way) finds the
// retry due, however the two raced.
func TestRetryTimedFromTheAttempt(t *testing.T) {
	hand := &handDeliverer{}
	e := newEnv(t, lettershop.WithDeliverer(hand.open))
	w := e.createWebhook(t, acct, "https://hooks.example.com/in", lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	ctx := context.Background()
	a := hand.take(t, acct, 1)[0]
	began := e.svc.AccountNow(acct)
	// The receiver answered; the test moves the clock before the record is written.
	if _, err := e.svc.AdvanceAccountClock(ctx, acct, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := a.Record(ctx, lettershop.AttemptOutcome{StatusCode: 500, Err: errors.New("the receiver answered 500"), RetryAfter: time.Minute}); err != nil {
		t.Fatal(err)
	}
	d := e.deliveriesOf(t, acct, w.ID)[0]
	if d.LastAttemptAt == nil || !d.LastAttemptAt.Equal(began) || !d.NextAttemptAt.Equal(began.Add(time.Minute)) {
		t.Fatalf("after a failure recorded a minute on: last attempt %v, next %v; want %v and %v", d.LastAttemptAt, d.NextAttemptAt, began, began.Add(time.Minute))
	}
	hand.take(t, acct, 1) // due now, a minute after the attempt
}
