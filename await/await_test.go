package await_test

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/await"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
)

const acct = "acct_test"

var ctx = context.Background()

// newService is a Service on a mock clock at a Monday afternoon, with a
// published template, and a function making letters of it: nonAddress
// is the recipient's test input ("returnedToSender").
func newService(t *testing.T) (*lettershop.Service, func(nonAddress string) *lettershop.Letter) {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { svc.Close() })
	a, err := svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "Welcome", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	return svc, func(nonAddress string) *lettershop.Letter {
		t.Helper()
		l, err := svc.CreateLetter(ctx, acct, lettershop.CreateLetterInput{
			Sender: &lettershop.PartyInput{Organization: "Acme Corp",
				Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: &lettershop.PartyInput{Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"}, NonAddressData: nonAddress,
				Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Content: &lettershop.LetterContent{Type: "asset", AssetID: a.ID},
			UseType: lettershop.UseTransactional,
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

func wantCode(t *testing.T, err error, code lettershop.Code) {
	t.Helper()
	if lettershop.ErrorCode(err) != code || err == nil {
		t.Fatalf("error %v, want %s", err, code)
	}
}

func wantFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid {
		t.Fatalf("error %v, want invalid input", err)
	}
	if got := slices.Sorted(maps.Keys(e.Fields)); !slices.Equal(got, fields) {
		t.Fatalf("fields %v, want %v", got, fields)
	}
}

func statusesOf(l *lettershop.Letter, typ lettershop.EventType) []string {
	var out []string
	for _, e := range l.Events {
		if e.Type == typ {
			out = append(out, string(e.Status))
		}
	}
	return out
}

// TestLetter moves the clock to each next step of a letter until it gets
// where it is awaited, and no further; where it will not get there, or
// not in time, it says so.
func TestLetter(t *testing.T) {
	svc, newLetter := newService(t)
	l := newLetter("")
	within := await.Options{Within: 30 * 24 * time.Hour}

	m, err := await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}, within)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != lettershop.StatusMailed {
		t.Fatalf("status %s, want mailed", m.Status)
	}
	last := m.Events[len(m.Events)-1]
	if now := svc.AccountNow(acct); !now.Equal(last.Timestamp) {
		t.Errorf("the clock is at %v, past the step that mailed the letter (%v)", now, last.Timestamp)
	}
	// A status passed through is reached.
	if _, err := await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "ready"}, within); err != nil {
		t.Errorf("ready, passed: %v", err)
	}
	d, err := await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Event: "delivered"}, within)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"inTransit", "inLocalArea", "processedForDelivery", "delivered"}
	if got := statusesOf(d, lettershop.EventTypeTracking); !slices.Equal(got, want) {
		t.Errorf("tracking %v, want %v", got, want)
	}
	at := svc.AccountNow(acct)
	if !at.Equal(d.Events[len(d.Events)-1].Timestamp) {
		t.Errorf("the clock is at %v, past the delivery", at)
	}
	// Already there: nothing moves.
	if _, err := await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Event: "delivered"}, within); err != nil || !svc.AccountNow(acct).Equal(at) {
		t.Errorf("delivered again: %v, clock %v, want %v", err, svc.AccountNow(acct), at)
	}

	// Not in time: the clock stops at the limit, the letter where it was.
	l2 := newLetter("")
	start := svc.AccountNow(acct)
	_, err = await.Letter(ctx, svc, acct, l2.ID, lettershop.SimulateTarget{Status: "mailed"}, await.Options{Within: time.Hour})
	wantCode(t, err, lettershop.CodeConflict)
	if !strings.Contains(err.Error(), "not at mailed after 1h0m0s") {
		t.Errorf("message %q", err)
	}
	if now := svc.AccountNow(acct); !now.Equal(start.Add(time.Hour)) {
		t.Errorf("clock %v, want the limit %v", now, start.Add(time.Hour))
	}
	if got, _ := svc.GetLetter(ctx, acct, l2.ID); got.Status == lettershop.StatusMailed {
		t.Errorf("the letter got to mailed past the limit")
	}

	// Never: canceled, nothing comes; returned to sender, it is not
	// delivered.
	if _, err := svc.CancelLetter(ctx, acct, l2.ID); err != nil {
		t.Fatal(err)
	}
	_, err = await.Letter(ctx, svc, acct, l2.ID, lettershop.SimulateTarget{Status: "mailed"}, within)
	wantCode(t, err, lettershop.CodeConflict)
	if !strings.Contains(err.Error(), "is canceled and will never reach mailed") {
		t.Errorf("message %q", err)
	}
	r := newLetter("returnedToSender")
	_, err = await.Letter(ctx, svc, acct, r.ID, lettershop.SimulateTarget{Event: "delivered"}, within)
	wantCode(t, err, lettershop.CodeConflict)
	if !strings.Contains(err.Error(), "nothing more to come (its last event: tracking returnedToSender") {
		t.Errorf("message %q", err)
	}

	// What is asked is checked first, every problem at once.
	_, err = await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "delivered"}, within)
	wantFields(t, err, "status")
	_, err = await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}, await.Options{})
	wantFields(t, err, "within")
	_, err = await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}, await.Options{Within: -time.Hour})
	wantFields(t, err, "within")
	_, err = await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "delivered"}, await.Options{})
	wantFields(t, err, "status", "within")
	_, err = await.Letter(ctx, svc, "acct_other", l.ID, lettershop.SimulateTarget{Status: "mailed"}, within)
	wantCode(t, err, lettershop.CodeNotFound)
}

// A letter at issue: the wait says why it is there, and what gets it on.
func TestLetterAtIssueSaysWhy(t *testing.T) {
	svc, newLetter := newService(t)
	l := newLetter("")
	l, err := svc.UpdateLetter(ctx, acct, l.ID, lettershop.UpdateLetterInput{
		Recipient: &lettershop.PartyInput{Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
			Address: lettershop.AddressInput{AddressLine1: "undeliverable no match", LastLine: "Chicago, IL 60601"}},
		Options: &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: lettershop.CassBasic}}},
	})
	if err != nil || l.Status != lettershop.StatusIssue {
		t.Fatalf("the letter is %v (%v), want it at issue", l, err)
	}
	_, err = await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}, await.Options{Within: 24 * time.Hour})
	wantCode(t, err, lettershop.CodeConflict)
	if msg := err.Error(); !strings.Contains(msg, l.IssueMessage) || !strings.Contains(msg, "unless an update fixes it") {
		t.Errorf("message %q does not say why (%q) nor what to do", msg, l.IssueMessage)
	}
}

// TestLetterSharedClock moves the Service's clock, which every account
// follows, when asked to.
func TestLetterSharedClock(t *testing.T) {
	svc, newLetter := newService(t)
	l := newLetter("")
	m, err := await.Letter(ctx, svc, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}, await.Options{Within: 30 * 24 * time.Hour, SharedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	if mailed := m.Events[len(m.Events)-1].Timestamp; !svc.Now().Equal(mailed) || !svc.AccountNow("acct_else").Equal(mailed) {
		t.Errorf("Service clock %v, another account's %v; want both at %v", svc.Now(), svc.AccountNow("acct_else"), mailed)
	}
}

// Waits for several letters of one account side by side all get there:
// when another wait has moved the clock past the step one was about to
// set it to, that one goes on from where the clock stands, instead of
// failing as a move of the clock backwards.
func TestLettersOfOneAccountSideBySide(t *testing.T) {
	// The race is between one wait's read of the clock and its move, so a
	// few rounds make it show on every run without the fix.
	for range 20 {
		svc, newLetter := newService(t)
		const n = 8
		ids := make([]string, n)
		for i := range ids {
			ids[i] = newLetter("").ID
		}
		errs := make(chan error, n)
		for _, id := range ids {
			go func() {
				_, err := await.Letter(ctx, svc, acct, id, lettershop.SimulateTarget{Event: lettershop.EventDelivered}, await.Options{Within: 30 * 24 * time.Hour})
				errs <- err
			}()
		}
		for range ids {
			if err := <-errs; err != nil {
				t.Fatalf("await beside others: %v", err)
			}
		}
	}
}

// TestDeliveries waits for a letter's webhook events to be sent and
// recorded: after it, the receiver has each, and no delivery is due; a
// receiver that fails leaves its delivery to a retry the clock has not
// reached, which is not waited for; a Service that sends nothing is a
// conflict naming the delivery due, after within.
// receiver records the events of a SubscribeFunc, as their type and
// letter, and fails the next failing attempts.
type receiver struct {
	mu      sync.Mutex
	got     []string
	failing int
}

func (r *receiver) receive(_ context.Context, e *lettershop.WebhookEvent, _ []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, string(e.Type)+" "+e.Data.Object.ID)
	if r.failing > 0 {
		r.failing--
		return errors.New("receiver down")
	}
	return nil
}

// sent returns the events received so far.
func (r *receiver) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// restart forgets the events received, and fails the next failing attempts.
func (r *receiver) restart(failing int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got, r.failing = nil, failing
}

// subscribed returns a Service on a mock clock that sends webhook events,
// and a receiver subscribed to every event of acct.
func subscribed(t *testing.T) (*lettershop.Service, *clock.Mock, *receiver) {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithDeliverer(delivery.Open))
	t.Cleanup(func() { svc.Close() })
	r := &receiver{}
	if _, err := svc.SubscribeFunc(ctx, acct, lettershop.WebhookEventTypes, r.receive); err != nil {
		t.Fatal(err)
	}
	return svc, mc, r
}

func TestDeliveries(t *testing.T) {
	svc, mc, rcv := subscribed(t)
	sent := rcv.sent

	id := letterOn(t, svc)
	if err := await.Deliveries(ctx, svc, acct, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if s := sent(); !slices.Contains(s, "letter.created "+id) {
		t.Fatalf("after the wait the receiver has %q, not the letter's created event", s)
	}
	hooks, _ := svc.ListWebhooks(ctx, acct, lettershop.ListWebhooksInput{})
	ds, _ := svc.ListDeliveries(ctx, acct, hooks.Items[0].ID, lettershop.ListDeliveriesInput{})
	for _, d := range ds.Items {
		if d.Status != lettershop.DeliverySucceeded {
			t.Errorf("after the wait delivery %s is %s", d.ID, d.Status)
		}
	}

	rcv.restart(math.MaxInt) // down for good
	id = letterOn(t, svc)
	if err := await.Deliveries(ctx, svc, acct, 10*time.Second); err != nil {
		t.Fatalf("a failed attempt, its retry not due: %v", err)
	}
	if s := sent(); len(s) != 1 || s[0] != "letter.created "+id {
		t.Errorf("the failing receiver got %q, want the created event once", s)
	}

	quiet := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { quiet.Close() })
	if _, err := quiet.CreateWebhook(ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks"}); err != nil {
		t.Fatal(err)
	}
	_ = letterOn(t, quiet)
	err := await.Deliveries(ctx, quiet, acct, 20*time.Millisecond)
	wantCode(t, err, lettershop.CodeConflict)
	if !strings.Contains(err.Error(), "still due") {
		t.Errorf("message %q", err)
	}
	err = await.Deliveries(ctx, svc, acct, 0)
	wantCode(t, err, lettershop.CodeInvalid)
}

// letterOn makes a letter of a new published template in acct.
func letterOn(t *testing.T, svc *lettershop.Service) string {
	t.Helper()
	a, err := svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "W"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: "<p>Hello</p>"}, Publish: true}); err != nil {
		t.Fatal(err)
	}
	l, err := svc.CreateLetter(ctx, acct, lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Organization: "Doe Inc", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: a.ID}, UseType: lettershop.UseTransactional,
	})
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}

// TestDeliveriesUnderWay: a delivery whose attempt has begun but whose
// receiver has not answered is still due, and the conflict says that no
// attempt is recorded yet, one perhaps under way, rather than that none
// was made: the receiver here has the event in hand.
func TestDeliveriesUnderWay(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithDeliverer(delivery.Open))
	release, received := make(chan struct{}), make(chan struct{}, 10)
	t.Cleanup(func() { close(release); svc.Close() })
	if _, err := svc.SubscribeFunc(ctx, acct, lettershop.WebhookEventTypes, func(context.Context, *lettershop.WebhookEvent, []byte) error {
		received <- struct{}{}
		<-release
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = letterOn(t, svc)
	select {
	case <-received:
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver was never called")
	}
	err := await.Deliveries(ctx, svc, acct, 20*time.Millisecond)
	wantCode(t, err, lettershop.CodeConflict)
	if msg := err.Error(); strings.Contains(msg, "not attempted") || !strings.Contains(msg, "no attempt recorded yet") {
		t.Errorf("a delivery whose receiver holds it: %q", msg)
	}
}

// TestDeliveriesWithoutDeliverer: on a Service given no Deliverer nothing
// ever takes a delivery, and the conflict says so, and what to add, rather
// than asking whether a receiver answers.
func TestDeliveriesWithoutDeliverer(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc))
	t.Cleanup(func() { svc.Close() })
	if _, err := svc.SubscribeFunc(ctx, acct, nil, func(context.Context, *lettershop.WebhookEvent, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_ = letterOn(t, svc)
	err := await.Deliveries(ctx, svc, acct, 20*time.Millisecond)
	wantCode(t, err, lettershop.CodeConflict)
	if msg := err.Error(); !strings.Contains(msg, "never taken for an attempt") || !strings.Contains(msg, "lettershop.WithDeliverer") {
		t.Errorf("a delivery no Deliverer takes: %q", msg)
	}
}

// Two Services on one store are two servers on one database. A wait on
// one counts from the account's clock as the store has it, also when the
// other server moved it since this one last read it: Within is measured
// from there, not from the time this server last saw.
func TestLetterAfterAnotherServerMoved(t *testing.T) {
	st := memstore.New()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	mcA, mcB := clock.NewMock(), clock.NewMock()
	mcA.Set(start)
	mcB.Set(start)
	a := lettershop.New(st, lettershop.WithClock(mcA))
	b := lettershop.New(st, lettershop.WithClock(mcB))
	t.Cleanup(func() { a.Close(); b.Close() })
	id := letterOn(t, a)
	if _, err := b.GetLetter(ctx, acct, id); err != nil { // B reads the clocks now
		t.Fatal(err)
	}
	if _, err := a.AdvanceAccountClock(ctx, acct, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	moved := start.Add(48 * time.Hour)
	_, err := await.Letter(ctx, b, acct, id, lettershop.SimulateTarget{Event: "delivered"}, await.Options{Within: time.Hour})
	wantCode(t, err, lettershop.CodeConflict)
	if want := moved.Add(time.Hour).Format(time.RFC3339); err == nil || !strings.Contains(err.Error(), " at "+want+",") {
		t.Errorf("an hour's wait after the other server moved the clock 48 hours: %v; want it to stop at %s", err, want)
	}
	if now := a.ReadAccountClock(ctx, acct).Now; !now.Equal(moved.Add(time.Hour)) {
		t.Errorf("the account's clock is at %v, want an hour past %v", now, moved)
	}
}

// A settle on one server judges what is due on the account's clock as the
// store has it: deliveries that fell due when another server moved the
// clock are waited for, not passed over as if the clock stood where this
// server last saw it.
func TestDeliveriesAfterAnotherServerMoved(t *testing.T) {
	st := memstore.New()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	mcA, mcB := clock.NewMock(), clock.NewMock()
	mcA.Set(start)
	mcB.Set(start)
	// Neither server posts anything: a delivery once due stays due.
	a := lettershop.New(st, lettershop.WithClock(mcA))
	b := lettershop.New(st, lettershop.WithClock(mcB))
	t.Cleanup(func() { a.Close(); b.Close() })
	if _, err := a.CreateWebhook(ctx, acct, lettershop.CreateWebhookInput{URL: "https://example.com/hooks",
		Events: []lettershop.WebhookEventType{"letter.mailed"}}); err != nil {
		t.Fatal(err)
	}
	id := letterOn(t, a)
	if err := await.Deliveries(ctx, b, acct, 20*time.Millisecond); err != nil {
		t.Fatalf("nothing is due before the letter is mailed: %v", err)
	}
	if _, err := a.AdvanceAccountClock(ctx, acct, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	if l, err := a.GetLetter(ctx, acct, id); err != nil || l.Status != lettershop.StatusMailed {
		t.Fatalf("after 72 hours the letter is %v (%v), want mailed", l, err)
	}
	err := await.Deliveries(ctx, b, acct, 20*time.Millisecond)
	wantCode(t, err, lettershop.CodeConflict)
	if err == nil || !strings.Contains(err.Error(), "letter.mailed") {
		t.Errorf("the mailed event, due and never posted: %v; want a conflict naming it", err)
	}
}

// TestDeliveriesAfterAMockClockMove: a test that moves its clock.Mock
// itself, and calls nothing of the Service before it waits, still finds
// every event due sent: the steps the move made due (a letter becoming
// ready) and a retry the move reached. Nothing had stored those steps, nor
// woken the Deliverer for the retry.
func TestDeliveriesAfterAMockClockMove(t *testing.T) {
	svc, mc, rcv := subscribed(t)
	rcv.restart(1)
	id := letterOn(t, svc)
	if err := await.Deliveries(ctx, svc, acct, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	mc.Add(5 * time.Minute) // the letter is ready, and the created event's retry due
	if err := await.Deliveries(ctx, svc, acct, 10*time.Second); err != nil {
		t.Fatalf("after the clock moved: %v", err)
	}
	if want, got := []string{"letter.created " + id, "letter.created " + id, "letter.ready " + id}, rcv.sent(); !slices.Equal(got, want) {
		t.Errorf("the receiver got %q, want %q", got, want)
	}
}
