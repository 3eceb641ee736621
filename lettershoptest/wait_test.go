package lettershoptest_test

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
)

// WaitForEvent moves the account's clock to the step that brought the
// event, and no further: the clock stands at the delivered event's time.
func TestWaitForEventDelivered(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	l := acct.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
	last := l.Events[len(l.Events)-1]
	if last.Type != client.EventTypeTracking || last.Status != client.EventDelivered {
		t.Fatalf("last event %s %s, want the delivered one", last.Type, last.Status)
	}
	if l.Status != client.StatusMailed {
		t.Errorf("a delivered letter is %s; it stays mailed", l.Status)
	}
	if now := acct.Now(); !now.Equal(last.Timestamp) {
		t.Errorf("the clock is at %s, past the delivered event's %s: it moved further than needed", now, last.Timestamp)
	}
}

// WaitForStatus stops at the step that reached the status, too.
func TestWaitForStatusStopsAtTheStep(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	l := acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
	last := l.Events[len(l.Events)-1]
	if last.Status != client.EventStatus(client.StatusMailed) || !acct.Now().Equal(last.Timestamp) {
		t.Errorf("clock %s, last event %s at %s: want the clock at the mailing", acct.Now(), last.Status, last.Timestamp)
	}
}

// A tracking status asked of WaitForStatus fails at once, pointing to
// WaitForEvent, instead of running out the clock; a letter status asked of
// WaitForEvent is refused the same way.
func TestWaitForStatusRefusesTrackingStatuses(t *testing.T) {
	ft := &fakeTB{TB: t}
	svc := lettershoptest.NewService(ft)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	msg := fails(t, ft, func() { acct.WaitForStatus(id, "delivered", 720*time.Hour) })
	if !strings.Contains(msg, "WaitForEvent") || !acct.Now().Equal(lettershoptest.DefaultStart) {
		t.Errorf("failure %q with the clock at %s: want an immediate one naming WaitForEvent", msg, acct.Now())
	}
	msg = fails(t, ft, func() { acct.WaitForEvent(id, "mailed", 720*time.Hour) })
	if !strings.Contains(msg, "not a tracking status") {
		t.Errorf("failure %q", msg)
	}
}

// A letter whose way ends elsewhere (returned to sender) never gets a
// delivered event: WaitForEvent fails once nothing more is to come, not
// after the whole wait.
func TestWaitForEventFailsWhenNothingMoreComes(t *testing.T) {
	ft := &fakeTB{TB: t}
	svc := lettershoptest.NewService(ft)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	acct.Force(id, lettershoptest.Event(client.EventReturnedToSender))
	msg := fails(t, ft, func() { acct.WaitForEvent(id, client.EventDelivered, 365*24*time.Hour) })
	if !strings.Contains(msg, "nothing more to come") || !strings.Contains(msg, "returnedToSender") {
		t.Errorf("failure %q", msg)
	}
	if !acct.Now().Equal(lettershoptest.DefaultStart) {
		t.Errorf("the clock moved to %s for a letter with nothing to come", acct.Now())
	}
}

// Within, on both sides: a wait of exactly the time the event needs
// succeeds, a millisecond less fails with the clock at its end. The three
// services make the same ids, so their letters keep the same timeline.
func TestWaitForEventWithinBoundary(t *testing.T) {
	seeded := func(tb testing.TB) (*lettershoptest.Service, *lettershoptest.Account, string) {
		svc := lettershoptest.NewService(tb, lettershoptest.WithServiceOptions(lettershop.WithEntropy(rand.New(rand.NewSource(7)))))
		acct := svc.NewAccount()
		return svc, acct, sendWelcome(t, svc.Service, acct.ID, "Jane")
	}
	_, probe, id := seeded(t)
	l := probe.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
	need := l.Events[len(l.Events)-1].Timestamp.Sub(lettershoptest.DefaultStart)

	_, exact, id := seeded(t)
	exact.WaitForEvent(id, client.EventDelivered, need)

	ft := &fakeTB{TB: t}
	_, short, id := seeded(ft)
	fails(t, ft, func() { short.WaitForEvent(id, client.EventDelivered, need-time.Millisecond) })
	if want := lettershoptest.DefaultStart.Add(need - time.Millisecond); !short.Now().Equal(want) {
		t.Errorf("clock at %s after a failed wait, want its end %s", short.Now(), want)
	}
}

// A tracking status given to WaitForStatus fails at once, naming the
// client's constant to wait with instead.
func TestWaitForStatusOfATrackingStatus(t *testing.T) {
	ft := &fakeTB{TB: t}
	svc := lettershoptest.NewService(ft)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	for status, name := range map[string]string{"delivered": "client.EventDelivered", "returnedToSender": "client.EventReturnedToSender"} {
		msg := fails(t, ft, func() { acct.WaitForStatus(id, client.LetterStatus(status), time.Hour) })
		if want := "WaitForEvent(id, " + name + ", within)"; !strings.Contains(msg, want) {
			t.Errorf("failure %q does not say %q", msg, want)
		}
	}
}
