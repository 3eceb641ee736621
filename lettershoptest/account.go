package lettershoptest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/await"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/internal/pdftext"
	"github.com/lettershop/lettershop/wire"
)

// Account is one sandbox account of a Server or Service. Its letters,
// assets, faults and journal are its own: accounts never see each other's.
// Its methods fail the test on an error, so a test reads straight on: the
// test the Server or Service was made for, or the one given to For.
type Account struct {
	// APIKey is the account's sandbox key, for X-Api-Key.
	APIKey string
	// ID is the account's id, which the Service's methods take.
	ID string
	// WebhookSecret is the secret of the webhooks NewReceiver and
	// ServeWebhooks make: known before any exists, so a test builds its
	// own webhook handler with it first.
	WebhookSecret string
	c             *core
	// t is the test the account's methods fail and clean up in.
	t testing.TB
}

// For returns the account reporting to t: its methods fail t, not the
// test the server was made for, and what they start (a Receiver) stops
// when t ends. A subtest that uses a server or an account of its parent
// passes its own t, since failing the parent from a subtest's goroutine
// stops the whole test binary:
//
//	t.Run(name, func(t *testing.T) {
//		t.Parallel()
//		acct := srv.NewAccount().For(t)
//		...
//	})
//
// The account is the same (key, letters, clock, faults); only where its
// failures go differs.
func (a *Account) For(t testing.TB) *Account {
	b := *a
	b.t = t
	return &b
}

// Now returns the time on the account's clock.
func (a *Account) Now() time.Time { return a.c.svc.AccountNow(a.ID) }

// Advance moves the account's clock on by d and runs what fell due in the
// account: its letters move, and its idempotency keys, rate-limit window
// and download links age. Other accounts' clocks stay where they are
// (with WithSharedClock, the one clock moves for all). A negative d fails
// the test.
func (a *Account) Advance(d time.Duration) {
	a.t.Helper()
	if a.c.shared {
		a.c.advance(d)
		return
	}
	if _, err := a.c.svc.AdvanceAccountClock(context.Background(), a.ID, d); err != nil {
		a.t.Fatalf("lettershoptest: advance the clock of %s: %v", a.ID, err)
	}
}

// Set moves the account's clock forward to at and runs what fell due, as
// Advance does; a time before now fails the test.
func (a *Account) Set(at time.Time) {
	a.t.Helper()
	if a.c.shared {
		a.c.set(at)
		return
	}
	if _, err := a.c.svc.SetAccountClock(context.Background(), a.ID, at); err != nil {
		a.t.Fatalf("lettershoptest: set the clock of %s: %v", a.ID, err)
	}
}

// Freeze freezes the account's clock: a Server.Advance (or another
// test's POST /_test/clock/advance on a shared clock) then leaves it where
// it is; only the account's own Advance and Set move it. Unfreeze lets it
// follow the server's clock again, from where it stands.
func (a *Account) Freeze() { a.t.Helper(); a.freeze(true) }

// Unfreeze undoes Freeze.
func (a *Account) Unfreeze() { a.t.Helper(); a.freeze(false) }

func (a *Account) freeze(frozen bool) {
	a.t.Helper()
	if a.c.shared {
		a.t.Fatalf("lettershoptest: with WithSharedClock every account follows the one clock; there is no account clock to freeze")
	}
	if _, err := a.c.svc.FreezeAccountClock(context.Background(), a.ID, frozen); err != nil {
		a.t.Fatalf("lettershoptest: freeze the clock of %s: %v", a.ID, err)
	}
}

// Letter returns one of the account's letters, as GET /letters/{id}
// shows it.
func (a *Account) Letter(id string) *client.Letter {
	a.t.Helper()
	l, err := a.c.svc.GetLetter(context.Background(), a.ID, id)
	if err != nil {
		a.t.Fatalf("lettershoptest: letter %s: %v", id, err)
	}
	return wireLetter(a.t, l)
}

// Letters returns every letter of the account, newest first.
func (a *Account) Letters() []*client.Letter {
	a.t.Helper()
	var out []*client.Letter
	in := lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 100}}
	for {
		p, err := a.c.svc.ListLetters(context.Background(), a.ID, in)
		if err != nil {
			a.t.Fatalf("lettershoptest: list letters: %v", err)
		}
		for _, l := range p.Items {
			out = append(out, wireLetter(a.t, l))
		}
		if p.NextToken == "" {
			return out
		}
		in.NextToken = p.NextToken
	}
}

// Status is the target of Force that moves a letter to a letter status.
func Status(s client.LetterStatus) lettershop.SimulateTarget {
	return lettershop.SimulateTarget{Status: lettershop.LetterStatus(s)}
}

// Event is the target of Force that moves a letter to a tracking event
// (client.EventDelivered, ...).
func Event(e client.EventStatus) lettershop.SimulateTarget {
	return lettershop.SimulateTarget{Event: lettershop.EventStatus(e)}
}

// Force moves one of the account's letters to target now, through every
// step before it, without moving the clock (lettershop.Service.Simulate),
// and returns it: acct.Force(id, lettershoptest.Event(client.EventDelivered)).
func (a *Account) Force(letterID string, target lettershop.SimulateTarget) *client.Letter {
	a.t.Helper()
	l, err := a.c.svc.Simulate(context.Background(), a.ID, letterID, target)
	if err != nil {
		a.t.Fatalf("lettershoptest: force letter %s to %+v: %v", letterID, target, err)
	}
	return wireLetter(a.t, l)
}

// letterStatuses are the statuses a letter can be in, for WaitForStatus
// to tell a tracking event asked for as a status.
var letterStatuses = []client.LetterStatus{client.StatusQueued, client.StatusReady, client.StatusInProduction,
	client.StatusMailed, client.StatusIssue, client.StatusCanceled}

// WaitForStatus moves the account's clock on, to each next step of the
// letter in turn, until the letter has reached status (it is there, or an
// event of its history says it was), and returns it; if within passes on
// the clock first, or the letter is canceled, at issue, or has nothing
// more to come, the test fails. Only as much virtual time passes as the
// letter needs, and no wall-clock time is spent waiting. A tracking
// status (delivered) is no letter status, and fails the test at once:
// WaitForEvent waits for those.
func (a *Account) WaitForStatus(letterID string, status client.LetterStatus, within time.Duration) *client.Letter {
	a.t.Helper()
	if !slices.Contains(letterStatuses, status) {
		hint := ""
		if slices.Contains(trackingStatuses, client.EventStatus(status)) {
			hint = fmt.Sprintf(": it is a tracking event (a letter stays mailed while they come); wait with WaitForEvent(id, client.Event%s%s, within)", strings.ToUpper(string(status[:1])), status[1:])
		}
		a.t.Fatalf("lettershoptest: %q is not a letter status (%v)%s", status, letterStatuses, hint)
		return nil
	}
	return a.await(letterID, lettershop.SimulateTarget{Status: lettershop.LetterStatus(status)}, within)
}

// trackingStatuses are the statuses of tracking events.
var trackingStatuses = []client.EventStatus{client.EventInTransit, client.EventInLocalArea, client.EventProcessedForDelivery,
	client.EventDelivered, client.EventReRouted, client.EventReturnedToSender}

// WaitForEvent moves the account's clock on, to each next step of the
// letter in turn, until the letter has a tracking event of status event
// (client.EventDelivered, client.EventInTransit, ...), and returns it; if
// within passes on the clock first, or the letter is canceled, at issue,
// or has nothing more to come (returned to sender, say, when delivered was
// awaited), the test fails. The clock stops at the step that brought the
// event, so only as much virtual time passes as the letter needs.
func (a *Account) WaitForEvent(letterID string, event client.EventStatus, within time.Duration) *client.Letter {
	a.t.Helper()
	if !slices.Contains(trackingStatuses, event) {
		a.t.Fatalf("lettershoptest: %q is not a tracking status (%v); WaitForStatus waits for letter statuses", event, trackingStatuses)
		return nil
	}
	return a.await(letterID, lettershop.SimulateTarget{Event: lettershop.EventStatus(event)}, within)
}

// await has the Service move the account's clock (or, with
// WithSharedClock, the one clock) to the letter's next step until it
// reaches target (package await).
func (a *Account) await(letterID string, target lettershop.SimulateTarget, within time.Duration) *client.Letter {
	a.t.Helper()
	l, err := await.Letter(context.Background(), a.c.svc, a.ID, letterID, target, await.Options{Within: within, SharedClock: a.c.shared})
	if err != nil {
		a.t.Fatalf("lettershoptest: %v", err)
		return nil
	}
	return wireLetter(a.t, l)
}

// PDF returns the letter's rendered PDF, as its download link serves it.
func (a *Account) PDF(letterID string) []byte {
	a.t.Helper()
	b, err := a.c.svc.RenderLetter(context.Background(), a.ID, letterID)
	if err != nil {
		a.t.Fatalf("lettershoptest: render letter %s: %v", letterID, err)
	}
	return b
}

// PDFText returns the text of the letter's rendered PDF, page after page,
// each page's text on lines of its own: enough for a test to check that a
// name or a variable's value was printed.
func (a *Account) PDFText(letterID string) string {
	a.t.Helper()
	b := a.PDF(letterID)
	text, err := pdftext.Text(b)
	if err != nil {
		a.t.Fatalf("lettershoptest: read the PDF of letter %s: %v", letterID, err)
	}
	return text
}

// Fault adds a fault to the account's requests and returns its id (see
// client.Fault and docs/testing.md): the account's next matching requests
// are answered as it says. It needs a Server.
func (a *Account) Fault(f client.Fault) string {
	a.t.Helper()
	if a.c.controls == nil {
		a.t.Fatalf("lettershoptest: faults need a Server (New), not a Service")
	}
	// client.Fault and httpadapter.FaultJSON are the same wire shape: the
	// fault is read and checked as the server reads one a request adds.
	hf, err := httpadapter.FaultJSON(f).Fault()
	if err == nil {
		hf, err = a.c.controls.AddFault(a.ID, hf)
	}
	if err != nil {
		a.t.Fatalf("lettershoptest: fault: %v", err)
	}
	return hf.ID
}

// ClearFaults removes the account's faults.
func (a *Account) ClearFaults() {
	if a.c.controls != nil {
		a.c.controls.ClearFaults(a.ID)
	}
}

// ClearRequests empties the account's journal, as DELETE /_test/requests
// does: a test that set its fixture up over HTTP then asserts on the
// requests of the code under test alone. It needs a Server.
func (a *Account) ClearRequests() {
	a.t.Helper()
	if a.c.controls == nil {
		a.t.Fatalf("lettershoptest: the journal needs a Server (New), not a Service")
	}
	a.c.controls.ClearRequests(a.ID)
}

// Requests returns the account's journal, oldest first: its last requests
// (up to httpadapter.JournalSize) and what they were answered. It needs a
// Server.
func (a *Account) Requests() []client.JournalEntry {
	a.t.Helper()
	if a.c.controls == nil {
		a.t.Fatalf("lettershoptest: the journal needs a Server (New), not a Service")
	}
	var out []client.JournalEntry
	for _, e := range a.c.controls.Requests(a.ID) {
		out = append(out, client.JournalEntry{Time: e.Time, Method: e.Method, Path: e.Path, Status: e.Status,
			IdempotencyKey: e.IdempotencyKey, Replayed: e.Replayed, RequestBytes: e.RequestBytes,
			ResponseBytes: e.ResponseBytes, RequestID: e.RequestID, Fault: e.Fault})
	}
	return out
}

// Client returns a client of the server's API with the account's key,
// whose retries wait on the account's clock: a wait after a 429, a
// request in flight or a 5xx moves the account's time on by the wait
// (its letters with it) and takes no real time, however far the clock
// stands from the wall's. Backoff waits are not jittered, so a test runs
// the same way every time. opts come after the helper's own. It needs a
// Server.
func (a *Account) Client(opts ...client.Option) *client.Client {
	a.t.Helper()
	if a.c.url == "" {
		a.t.Fatalf("lettershoptest: a client needs a Server (New), not a Service")
	}
	return client.New(a.c.url, a.APIKey, append([]client.Option{
		client.WithHTTPClient(a.c.hc),
		client.WithVirtualClock(a.Now, a.wait),
		client.WithJitter(func(d time.Duration) time.Duration { return d }),
	}, opts...)...)
}

// ScopedClient returns a client for the account as Client does, with a key
// that has the given scopes alone (the sandbox's sk_test_...@scope,scope
// form): a test of what a key without a scope is refused (a 403) uses it.
// A scope that does not exist ("letters:reed") fails the test at once,
// rather than every request of the client being refused its key, a 401.
func (a *Account) ScopedClient(scopes ...httpadapter.Scope) *client.Client {
	a.t.Helper()
	if len(scopes) == 0 {
		a.t.Fatalf("lettershoptest: ScopedClient needs a scope (httpadapter.ScopeLettersRead, ...)")
		return nil
	}
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		if _, err := httpadapter.ParseScope(string(sc)); err != nil {
			a.t.Fatalf("lettershoptest: ScopedClient: %v", err)
			return nil
		}
		names[i] = string(sc)
	}
	c := *a
	c.APIKey = a.APIKey + "@" + strings.Join(names, ",")
	return c.Client()
}

// wait moves the account's clock on by d, for a client's retry: from
// whatever goroutine the client runs on, so it reports rather than fails
// the test.
func (a *Account) wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	var err error
	if a.c.shared {
		_, err = a.c.svc.AdvanceClock(ctx, d)
	} else {
		_, err = a.c.svc.AdvanceAccountClock(ctx, a.ID, d)
	}
	return err
}

// wireLetter is l as the API shows it, in the client's type: one set of
// types for what a test reads over HTTP and from the helper.
func wireLetter(t testing.TB, l *lettershop.Letter) *client.Letter {
	t.Helper()
	var out client.Letter
	b, err := wire.Letter(l)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatalf("lettershoptest: a letter as %T: %v", out, err)
	}
	return &out
}

// asWire converts v to out through the JSON the API answers with. (A
// letter's is package wire's: wireLetter.)
func asWire(t testing.TB, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatalf("lettershoptest: %T as %T: %v", v, out, err)
	}
}
