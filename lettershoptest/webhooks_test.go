package lettershoptest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/lettershoptest"
)

func TestReceiver(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	rcv := acct.NewReceiver()
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	created := rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
	if created.Data.Object.Status != client.StatusQueued {
		t.Errorf("letter.created carries %s", created.Data.Object.Status)
	}
	acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
	mailed := rcv.WaitFor(client.WebhookLetterMailed, id, 10*time.Second)
	if mailed.Data.Object.Status != client.StatusMailed || !mailed.CreatedAt.After(created.CreatedAt) {
		t.Errorf("letter.mailed %+v", mailed)
	}
	var types []client.WebhookEventType
	for _, e := range rcv.Events() {
		types = append(types, e.Type)
	}
	want := []client.WebhookEventType{client.WebhookLetterCreated, client.WebhookLetterReady,
		client.WebhookLetterInProduction, client.WebhookLetterMailed}
	if fmt.Sprint(types[:4]) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v first", types, want)
	}
}

// A receiver that fails twice: WaitFor moves the account's clock through
// the two backoffs, a minute and four, to the third attempt.
func TestReceiverRetries(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	rcv := acct.NewReceiver(client.WebhookLetterCreated)
	rcv.FailNext(2, http.StatusInternalServerError)
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
	if got, want := acct.Now(), lettershoptest.DefaultStart.Add(5*time.Minute); !got.Equal(want) {
		t.Errorf("account clock %s, want %s: the two backoffs", got, want)
	}
	ds := rcv.Deliveries()
	if len(ds) != 1 || ds[0].Attempt != 3 || ds[0].Status != client.DeliverySucceeded {
		t.Fatalf("deliveries %+v", ds)
	}
}

// WaitFor returns once the server has recorded the attempt that brought the
// event: the deliveries read right after it show it succeeded, not pending,
// for the test's own handler as for the helper's.
func TestReceiverWaitForSeesTheDeliveryRecorded(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprint("own handler ", own), func(t *testing.T) {
			t.Parallel()
			svc := lettershoptest.NewService(t)
			acct := svc.NewAccount().For(t)
			var rcv *lettershoptest.Receiver
			if own {
				var calls atomic.Int32
				rcv = acct.ServeWebhooks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if calls.Add(1) == 1 {
						w.WriteHeader(http.StatusServiceUnavailable)
						return
					}
					w.WriteHeader(http.StatusNoContent)
				}), client.WebhookLetterCreated)
			} else {
				rcv = acct.NewReceiver(client.WebhookLetterCreated)
				rcv.FailNext(1, http.StatusServiceUnavailable)
			}
			id := sendWelcome(t, svc.Service, acct.ID, "Jane")
			e := rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
			ds := rcv.Deliveries()
			if len(ds) != 1 || ds[0].EventID != e.ID || ds[0].Status != client.DeliverySucceeded || ds[0].Attempt != 2 {
				t.Fatalf("deliveries right after WaitFor: %+v", ds)
			}
		})
	}
}

// Each account's webhooks get its own letters' events, on its own clock.
func TestReceiversAreApart(t *testing.T) {
	srv := lettershoptest.New(t)
	for i := range 10 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			acct := srv.NewAccount()
			rcv := acct.NewReceiver()
			acct.Advance(time.Duration(i) * time.Hour)
			id := sendWelcome(t, srv.Service(), acct.ID, fmt.Sprint("Person", i))
			e := rcv.WaitFor(client.WebhookLetterCreated, "", 10*time.Second)
			if e.Data.Object.ID != id || !e.CreatedAt.Equal(lettershoptest.DefaultStart.Add(time.Duration(i)*time.Hour)) {
				t.Errorf("event %s of %s at %s", e.Type, e.Data.Object.ID, e.CreatedAt)
			}
			if n := len(rcv.Events()); n != 1 {
				t.Errorf("%d events, want this account's one", n)
			}
		})
	}
}

// A handler that ends its goroutine (as t.FailNow does) or panics fails
// that attempt only: the receiver holds no lock across it, and takes the
// retry that follows.
func TestReceiverHandlerExits(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	var calls atomic.Int32
	rcv := acct.ServeWebhooks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			runtime.Goexit()
		case 2:
			panic(http.ErrAbortHandler)
		}
		w.WriteHeader(http.StatusNoContent)
	}), client.WebhookLetterCreated)
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
	if n := calls.Load(); n != 3 {
		t.Errorf("the handler was called %d times, want 3", n)
	}
	if n := len(rcv.Events()); n != 1 {
		t.Errorf("%d events taken, want 1", n)
	}
}

// SettleWebhooks answers once every event due was sent: the receiver has
// the created event, and nothing of a type it does not take, with no
// sleep of the test's own.
func TestSettleWebhooks(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	created := acct.NewReceiver(client.WebhookLetterCreated)
	mailed := acct.NewReceiver(client.WebhookLetterMailed)
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	acct.SettleWebhooks()
	if es := created.Events(); len(es) != 1 || es[0].Data.Object.ID != id {
		t.Errorf("created receiver has %+v, want the letter's event", es)
	}
	if es := mailed.Events(); len(es) != 0 {
		t.Errorf("mailed receiver has %d events before the letter was mailed", len(es))
	}
}

// A fixture's webhook to a receiver, restored into several accounts: each
// account's events go to a receiver of its own, with the webhook's secret,
// and the fixture's receiver gets none of them.
func TestRestoredReceiverIsTheAccounts(t *testing.T) {
	srv := lettershoptest.New(t)
	fix := srv.NewAccount()
	rcv := fix.NewReceiver(client.WebhookLetterCreated)
	snap := fix.Snapshot()
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			acct := srv.NewAccount().For(t)
			ids := acct.Restore(snap)
			id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
			acct.SettleWebhooks()
			for _, e := range rcv.Events() {
				if e.Data.Object.ID == id {
					t.Errorf("the fixture's receiver got %s of letter %s, of an account that restored it", e.Type, id)
				}
			}
			own := acct.Receiver(ids[rcv.Webhook.ID])
			own.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
			if n := len(own.Events()); n != 1 {
				t.Errorf("the account's receiver has %d events, want its one letter's", n)
			}
		})
	}
}

// A WaitFor for an event of a letter that has not got there says so, and
// what moves it, where a receiver made too late is told that instead.
func TestReceiverWaitForSaysWhereTheLetterIs(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	ft := &fakeTB{TB: t}
	rcv := acct.For(ft).NewReceiver(client.WebhookLetterMailed)
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	msg := fails(t, ft, func() { rcv.WaitFor(client.WebhookLetterMailed, id, 100*time.Millisecond) })
	if !strings.Contains(msg, "the letter is queued and has not got there") || !strings.Contains(msg, "WaitForStatus") || strings.Contains(msg, "make the receiver before") {
		t.Errorf("a letter not yet mailed: %q", msg)
	}
	mailed := sendWelcome(t, srv.Service(), acct.ID, "John")
	acct.Force(mailed, lettershoptest.Status(client.StatusMailed))
	late := acct.For(ft).NewReceiver(client.WebhookLetterMailed)
	msg = fails(t, ft, func() { late.WaitFor(client.WebhookLetterMailed, mailed, 100*time.Millisecond) })
	if strings.Contains(msg, "has not got there") || !strings.Contains(msg, "make the receiver before the letter moves") {
		t.Errorf("a receiver made after the letter was mailed: %q", msg)
	}
}

// TestReceiverStopEndsTheHandlersRequest: when a receiver's test ends,
// a handler still at work on a delivery, waiting on its request's context
// (a send to a channel the test no longer reads, say), has that context
// ended, so that the test ends at once rather than when the attempt times
// out (10 seconds by default; an hour here, so that without it the test
// stops at its guard).
func TestReceiverStopEndsTheHandlersRequest(t *testing.T) {
	svc := lettershoptest.NewService(t, lettershoptest.WithServiceOptions(
		lettershop.WithDeliverer(delivery.OpenWith(delivery.WithTimeout(time.Hour)))))
	sub := &recorder{TB: t}
	acct := svc.NewAccount().For(sub)
	got, ended := make(chan struct{}), make(chan struct{})
	acct.ServeWebhooks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(got)
		<-r.Context().Done()
		close(ended)
	}), client.WebhookLetterCreated)
	sendWelcome(t, svc.Service, acct.ID, "Jane")
	<-got
	stopped := make(chan struct{})
	go func() {
		for i := len(sub.cleanups) - 1; i >= 0; i-- {
			sub.cleanups[i]()
		}
		close(stopped)
	}()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the handler's request was not ended when its receiver stopped")
	}
	<-stopped
}
